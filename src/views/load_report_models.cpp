#include "views/load_report_models.h"
#include "views/format.h"

#include "model/formats/layout.h"

namespace npuscope {

ProblemsModel::ProblemsModel(QObject* parent) : QAbstractTableModel(parent) {}

void ProblemsModel::setSession(const SessionPtr& s, const QString& loadError, const QString& paths)
{
    beginResetModel();
    m_rows.clear();
    m_session = s;
    m_loadError = loadError;
    m_paths = paths;
    m_shown = Relativizer(s ? s->root : std::string());
    if (!loadError.isEmpty())
        m_rows.push_back({});
    // SQLite's own files beside a database are read with it: not a problem (layout::FileKindRow).
    auto ignoredIsProblem = [](const FileRecord& f) {
        const layout::FileKindRow* row = layout::kindRowNamed(f.kind);
        return !row || row->ignoredIsProblem;
    };
    auto addAll = [&](const std::vector<Diagnostic>& ds, const std::vector<FileRecord>& fs) {
        for (const Diagnostic& d : ds)
            m_rows.push_back({&d, nullptr});
        for (const FileRecord& f : fs)
            if ((f.status == FileStatus::Ignored && ignoredIsProblem(f)) || f.status == FileStatus::Failed)
                m_rows.push_back({nullptr, &f});
    };
    if (s && loadError.isEmpty()) {
        addAll(s->diagnostics, s->files);
        for (const auto& p : s->ranks)
            addAll(p->diagnostics, p->files);
    }
    endResetModel();
}

QString ProblemsModel::severity(const Row& r) const
{
    if (r.diagnostic)
        return QString::fromUtf8(severityName(r.diagnostic->severity));
    if (r.file)
        return QString::fromUtf8(fileStatusName(r.file->status));
    return tr("error");
}

QString ProblemsModel::file(const Row& r) const
{
    if (r.diagnostic)
        return qstr(r.diagnostic->file);
    return r.file ? qstr(r.file->path) : m_paths;
}

QString ProblemsModel::where(const Row& r) const
{
    if (!r.diagnostic)
        return {};
    const Diagnostic& d = *r.diagnostic;
    QString where = d.line >= 0 ? tr("line %1").arg(d.line) : QString();
    if (d.byteOffset >= 0)
        where += (where.isEmpty() ? QString() : QStringLiteral(", ")) + tr("byte %1").arg(d.byteOffset);
    return where;
}

QString ProblemsModel::reason(const Row& r) const
{
    if (r.diagnostic)
        return qstr(r.diagnostic->reason);
    if (r.file)
        return r.file->note.empty() ? tr("file %1").arg(QString::fromUtf8(fileStatusName(r.file->status)))
                                    : qstr(r.file->note);
    return m_loadError;
}

std::uint64_t ProblemsModel::count(const Row& r) const
{
    return r.diagnostic ? r.diagnostic->count : 1;
}

int ProblemsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ProblemsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProblemsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& r = m_rows[static_cast<std::size_t>(index.row())];
    if (role == Qt::ToolTipRole) {
        if (index.column() == File)
            return file(r);
        if (index.column() == Reason)
            return reason(r);
        return {};
    }
    if (role == SortRole && index.column() == Count)
        return static_cast<qulonglong>(count(r));
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    switch (index.column()) {
    case Severity: return severity(r);
    case File: return qstr(m_shown(file(r).toStdString()));
    case Where: return where(r);
    case Reason: return reason(r);
    case Count: return QString::number(count(r));
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
    m_session = s;
    m_shown = Relativizer(s ? s->root : std::string());
    auto addAll = [&](const std::vector<FileRecord>& fs) {
        for (const FileRecord& f : fs)
            m_rows.push_back(&f);
    };
    if (s) {
        addAll(s->files);
        for (const auto& p : s->ranks)
            addAll(p->files);
    }
    endResetModel();
}

int FilesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int FilesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FilesModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const FileRecord& f = *m_rows[static_cast<std::size_t>(index.row())];
    if (role == Qt::ToolTipRole) {
        if (index.column() == File)
            return qstr(f.path);
        const layout::FileKindRow* row = index.column() == Kind ? layout::kindRowNamed(f.kind) : nullptr;
        if (row && !row->label.empty())
            return QString::fromUtf8(row->label.data(), qsizetype(row->label.size()));
        return {};
    }
    if (role == SortRole) {
        switch (index.column()) {
        case Records: return static_cast<qulonglong>(f.records);
        case Skipped: return static_cast<qulonglong>(f.skipped);
        case Bytes: return static_cast<qulonglong>(f.bytes);
        default: break;
        }
    }
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    switch (index.column()) {
    case File: return qstr(m_shown(f.path));
    case Kind: return qstr(f.kind);
    case Status: return QString::fromUtf8(fileStatusName(f.status));
    case Records: return QString::number(f.records);
    case Skipped: return QString::number(f.skipped);
    case Bytes: return QString::number(f.bytes);
    case Note: return qstr(f.note);
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
