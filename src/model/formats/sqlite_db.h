#pragma once
// A thin read-only wrapper over the SQLite C API for the profiler's .db exports: opens without
// writing anything (other tools write into these files; ours must not), reads columns by name
// and tolerates tables and columns that a schema version lacks.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace npuscope::db {

class Statement;

class Database {
public:
    // Opens `path` read-only; a database in a read-only folder (no -shm can be made) is opened
    // as immutable. On failure returns nullopt and an error naming the file and SQLite's reason.
    static std::optional<Database> open(const std::string& path, std::string* error);
    Database(Database&&) noexcept;
    Database& operator=(Database&&) noexcept;
    ~Database();

    bool hasTable(std::string_view table) const;
    // Column names of a table (empty when the table is missing).
    const std::set<std::string>& columns(const std::string& table) const;
    bool hasColumn(const std::string& table, std::string_view column) const;
    // Prepares sql; on error returns an invalid Statement and sets *error.
    Statement prepare(const std::string& sql, std::string* error) const;
    // "SELECT <cols> FROM table <tail>" reading absent columns as NULL (schema versions differ).
    Statement selectColumns(const std::string& table, const std::vector<std::string>& cols, const std::string& tail,
                            std::string* error) const;
    const std::string& path() const { return m_path; }
    // Set when the normal read-only open failed and the file was read as an immutable snapshot
    // (a read-only folder, or another connection holding a lock): SQLite's reason.
    const std::string& snapshotReason() const { return m_snapshotReason; }
    bool lockedByOther() const;

private:
    Database() = default;
    sqlite3* m_db = nullptr;
    std::string m_path;
    std::string m_snapshotReason;
    std::set<std::string> m_tables;
    mutable std::vector<std::pair<std::string, std::set<std::string>>> m_columns;
};

class Statement {
public:
    Statement() = default;
    explicit Statement(sqlite3_stmt* s) : m_stmt(s) {}
    Statement(Statement&& o) noexcept : m_stmt(o.m_stmt) { o.m_stmt = nullptr; }
    Statement& operator=(Statement&& o) noexcept;
    ~Statement();
    bool valid() const { return m_stmt != nullptr; }
    // Advances; false at the end or on error (then error() says why).
    bool step();
    std::string error() const { return m_error; }

    bool isNull(int col) const;
    // INTEGER, or TEXT holding an integer (PYTORCH_API times), or REAL truncated toward zero
    // (none for a REAL without an int64 value: NaN, infinite, beyond +-2^63).
    std::optional<std::int64_t> int64(int col) const;
    std::optional<double> real(int col) const;
    std::string_view text(int col) const;
    // The value as decimal text: REAL in its shortest round-trip form ("1736410576431645.2",
    // where SQLite's own text would keep 15 digits), INTEGER and TEXT as stored.
    std::string numberText(int col) const;

private:
    sqlite3_stmt* m_stmt = nullptr;
    std::string m_error;
};

// A database written from scratch (the generator's db export, tests): one connection, bound
// prepared statements, the caller's transactions. Not used on the profiler's own files.
class Writer {
public:
    class Insert {
    public:
        Insert() = default;
        explicit Insert(sqlite3_stmt* s) : m_stmt(s) {}
        Insert(Insert&& o) noexcept : m_stmt(o.m_stmt) { o.m_stmt = nullptr; }
        Insert& operator=(Insert&& o) noexcept;
        ~Insert();
        bool valid() const { return m_stmt != nullptr; }
        // Parameters are 1-based as in SQLite.
        Insert& i64(int param, std::int64_t v);
        Insert& real(int param, double v);
        Insert& text(int param, std::string_view v); // copied by SQLite
        Insert& null(int param);
        // Executes and resets for the next row (bindings are kept); false on error.
        bool run();

    private:
        sqlite3_stmt* m_stmt = nullptr;
    };

    // Creates `path` (an existing file is replaced). nullopt with *error naming the path and why.
    static std::optional<Writer> create(const std::string& path, std::string* error);
    // Opens an existing file for writing (tests: hold a lock, damage a table).
    static std::optional<Writer> openExisting(const std::string& path, std::string* error);
    Writer(Writer&&) noexcept;
    Writer& operator=(Writer&&) noexcept;
    ~Writer();
    bool exec(const std::string& sql);
    Insert prepare(const std::string& sql);
    const std::string& error() const { return m_error; } // the last failure, with the path
    bool close();

private:
    Writer() = default;
    bool fail(const std::string& what);
    sqlite3* m_db = nullptr;
    std::string m_path;
    std::string m_error;
};

// True when bytes start with the SQLite header "SQLite format 3\0".
bool looksLikeSqlite(std::string_view head);

} // namespace npuscope::db
