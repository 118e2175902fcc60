#pragma once
// Item models of the Problems and Files docks: what a load skipped or could not read (with file,
// line or byte offset, reason and count), and every file the load looked at. Paths are shown
// below the opened folder, as `npuscope info` names them; the tooltip has the whole path. Both
// keep the session and point at its records, formatting a cell when it is shown.
#include "model/io/relative_path.h"
#include "model/store/session.h"

#include <QAbstractTableModel>
#include <QString>

#include <cstdint>
#include <vector>

namespace npuscope {

class ProblemsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { Severity, File, Where, Reason, Count, ColumnCount };
    enum Roles { SortRole = Qt::UserRole + 1 }; // the count as a number, else the text

    explicit ProblemsModel(QObject* parent = nullptr);

    // The diagnostics and the failed or ignored files of `s` (none when null), after a row for
    // `loadError` on `paths` when a load failed.
    void setSession(const SessionPtr& s, const QString& loadError = {}, const QString& paths = {});

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    // One of the session's diagnostics, or one of its failed or ignored files; neither: the
    // load error.
    struct Row {
        const Diagnostic* diagnostic = nullptr;
        const FileRecord* file = nullptr;
    };
    QString severity(const Row& r) const;
    QString file(const Row& r) const; // the whole path
    QString where(const Row& r) const;
    QString reason(const Row& r) const;
    std::uint64_t count(const Row& r) const;

    SessionPtr m_session;
    QString m_loadError, m_paths;
    Relativizer m_shown{std::string()};
    std::vector<Row> m_rows;
};

class FilesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { File, Kind, Status, Records, Skipped, Bytes, Note, ColumnCount };
    enum Roles { SortRole = Qt::UserRole + 1 }; // numbers as numbers, else the text

    explicit FilesModel(QObject* parent = nullptr);

    void setSession(const SessionPtr& s);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    SessionPtr m_session;
    Relativizer m_shown{std::string()};
    std::vector<const FileRecord*> m_rows;
};

} // namespace npuscope
