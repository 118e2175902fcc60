#include "views/load_report_models.h"
#include "views/format.h"

#include "model/formats/layout.h"
#include "model/io/relative_path.h"

namespace npuscope {

ProblemsModel::ProblemsModel(QObject* parent) : QAbstractTableModel(parent) {}

void ProblemsModel::setSession(const SessionPtr& s, const QString& loadError, const QString& paths)
{
    beginResetModel();
    m_rows.clear();
    const Relativizer shown(s ? s->root : std::string());
    auto add = [&](const QString& sev, const QString& file, const QString& where, const QString& reason, std::uint64_t count) {
        m_rows.push_back({sev, file, qstr(shown(file.toStdString())), where, reason, count});
    };
    if (!loadError.isEmpty())
        add(tr("error"), paths, {}, loadError, 1);
    // SQLite's own files beside a database are read with it: not a problem (layout::FileKindRow).
    auto ignoredIsProblem = [](const FileRecord& f) {
        const layout::FileKindRow* row = layout::kindRowNamed(f.kind);
        return !row || row->ignoredIsProblem;
    };
    auto addAll = [&](const std::vector<Diagnostic>& ds, const std::vector<FileRecord>& fs) {
        for (const Diagnostic& d : ds) {
            QString where = d.line >= 0 ? tr("line %1").arg(d.line) : QString();
            if (d.byteOffset >= 0)
                where += (where.isEmpty() ? QString() : QStringLiteral(", ")) + tr("byte %1").arg(d.byteOffset);
            add(QString::fromUtf8(severityName(d.severity)), qstr(d.file), where, qstr(d.reason), d.count);
        }
        for (const FileRecord& f : fs)
            if ((f.status == FileStatus::Ignored && ignoredIsProblem(f)) || f.status == FileStatus::Failed)
                add(QString::fromUtf8(fileStatusName(f.status)), qstr(f.path), {},
                    f.note.empty() ? tr("file %1").arg(QString::fromUtf8(fileStatusName(f.status))) : qstr(f.note), 1);
    };
    if (s && loadError.isEmpty()) {
        addAll(s->diagnostics, s->files);
        for (const auto& p : s->ranks)
            addAll(p->diagnostics, p->files);
    }
    endResetModel();
}

int ProblemsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(m_rows.size()); }

int ProblemsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ProblemsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& r = m_rows[static_cast<std::size_t>(index.row())];
    if (role == Qt::ToolTipRole) {
        if (index.column() == File)
            return r.file;
        if (index.column() == Reason)
            return r.reason;
        return {};
    }
    if (role == SortRole && index.column() == Count)
        return static_cast<qulonglong>(r.count);
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    switch (index.column()) {
    case Severity: return r.severity;
    case File: return r.shownFile;
    case Where: return r.where;
    case Reason: return r.reason;
    case Count: return QString::number(r.count);
    default: return {};
    }
}

QVariant ProblemsModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Severity: return tr("Severity");
    case File: return tr("File");
    case Where: return tr("Line / offset");
    case Reason: return tr("Reason");
    case Count: return tr("Count");
    default: return {};
    }
}

FilesModel::FilesModel(QObject* parent) : QAbstractTableModel(parent) {}

void FilesModel::setSession(const SessionPtr& s)
{
    beginResetModel();
    m_rows.clear();
    const Relativizer shown(s ? s->root : std::string());
    auto addAll = [&](const std::vector<FileRecord>& fs) {
        for (const FileRecord& f : fs) {
            Row r;
            r.path = qstr(f.path);
            r.shownPath = qstr(shown(f.path));
            r.kind = qstr(f.kind);
            if (const layout::FileKindRow* row = layout::kindRowNamed(f.kind))
                r.kindLabel = QString::fromUtf8(row->label.data(), qsizetype(row->label.size()));
            r.status = QString::fromUtf8(fileStatusName(f.status));
            r.note = qstr(f.note);
            r.records = f.records;
            r.skipped = f.skipped;
            r.bytes = f.bytes;
            m_rows.push_back(std::move(r));
        }
    };
    if (s) {
        addAll(s->files);
        for (const auto& p : s->ranks)
            addAll(p->files);
    }
    endResetModel();
}

int FilesModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(m_rows.size()); }

int FilesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant FilesModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& r = m_rows[static_cast<std::size_t>(index.row())];
    if (role == Qt::ToolTipRole) {
        if (index.column() == File)
            return r.path;
        if (index.column() == Kind && !r.kindLabel.isEmpty())
            return r.kindLabel;
        return {};
    }
    if (role == SortRole) {
        switch (index.column()) {
        case Records: return static_cast<qulonglong>(r.records);
        case Skipped: return static_cast<qulonglong>(r.skipped);
        case Bytes: return static_cast<qulonglong>(r.bytes);
        default: break;
        }
    }
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    switch (index.column()) {
    case File: return r.shownPath;
    case Kind: return r.kind;
    case Status: return r.status;
    case Records: return QString::number(r.records);
    case Skipped: return QString::number(r.skipped);
    case Bytes: return QString::number(r.bytes);
    case Note: return r.note;
    default: return {};
    }
}

QVariant FilesModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case File: return tr("File");
    case Kind: return tr("Kind");
    case Status: return tr("Status");
    case Records: return tr("Records");
    case Skipped: return tr("Skipped");
    case Bytes: return tr("Bytes");
    case Note: return tr("Note");
    default: return {};
    }
}

} // namespace npuscope
