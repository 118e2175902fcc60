#include "model/formats/sqlite_db.h"

#include "model/formats/number_text.h"

#include <sqlite3.h>

#include <charconv>
#include <cstdio>
#include <cstring>

namespace npuscope::db {

namespace {

std::string uriEscape(const std::string& path)
{
    std::string out;
    for (char c : path) {
        if (c == '%' || c == '?' || c == '#') {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
            out += buf;
        } else {
            out += c;
        }
    }
    return out;
}

sqlite3* openWith(const std::string& uri, std::string* reason)
{
    sqlite3* h = nullptr;
    const int rc = sqlite3_open_v2(uri.c_str(), &h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                                   nullptr);
    if (rc != SQLITE_OK) {
        if (reason)
            *reason = h ? sqlite3_errmsg(h) : sqlite3_errstr(rc);
        sqlite3_close(h);
        return nullptr;
    }
    sqlite3_busy_timeout(h, 2000);
    // Probe: reading the schema fails here for a corrupt file or a WAL database whose -shm
    // cannot be created.
    char* err = nullptr;
    if (sqlite3_exec(h, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, &err) != SQLITE_OK) {
        if (reason)
            *reason = err ? err : sqlite3_errmsg(h);
        sqlite3_free(err);
        sqlite3_close(h);
        return nullptr;
    }
    return h;
}

} // namespace

bool looksLikeSqlite(std::string_view head)
{
    static const char magic[] = "SQLite format 3";
    return head.size() >= 16 && std::memcmp(head.data(), magic, 16) == 0;
}

std::optional<Database> Database::open(const std::string& path, std::string* error)
{
    std::string reason;
    const std::string base = "file:" + uriEscape(path);
    sqlite3* h = openWith(base + "?mode=ro", &reason);
    if (!h) {
        // A database in a read-only folder: nobody can be writing it, so immutable is safe.
        std::string reason2;
        h = openWith(base + "?mode=ro&immutable=1", &reason2);
        if (!h) {
            if (error)
                *error = path + ": cannot open SQLite database: " + reason;
            return std::nullopt;
        }
    } else {
        reason.clear();
    }
    Database d;
    d.m_db = h;
    d.m_path = path;
    d.m_snapshotReason = reason;
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, "SELECT name FROM sqlite_master WHERE type IN ('table','view')", -1, &st, nullptr)
        == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            const unsigned char* t = sqlite3_column_text(st, 0);
            if (t)
                d.m_tables.insert(reinterpret_cast<const char*>(t));
        }
    }
    sqlite3_finalize(st);
    return d;
}

Database::Database(Database&& o) noexcept
    : m_db(o.m_db)
    , m_path(std::move(o.m_path))
    , m_snapshotReason(std::move(o.m_snapshotReason))
    , m_tables(std::move(o.m_tables))
    , m_columns(std::move(o.m_columns))
{
    o.m_db = nullptr;
}

Database& Database::operator=(Database&& o) noexcept
{
    if (this != &o) {
        sqlite3_close(m_db);
        m_db = o.m_db;
        o.m_db = nullptr;
        m_path = std::move(o.m_path);
        m_snapshotReason = std::move(o.m_snapshotReason);
        m_tables = std::move(o.m_tables);
        m_columns = std::move(o.m_columns);
    }
    return *this;
}

Database::~Database()
{
    sqlite3_close(m_db);
}

bool Database::lockedByOther() const
{
    return m_snapshotReason.find("locked") != std::string::npos || m_snapshotReason.find("busy") != std::string::npos;
}

bool Database::hasTable(std::string_view table) const
{
    return m_tables.count(std::string(table)) > 0;
}

const std::set<std::string>& Database::columns(const std::string& table) const
{
    for (const auto& [name, cols] : m_columns)
        if (name == table)
            return cols;
    std::set<std::string> cols;
    if (hasTable(table)) {
        sqlite3_stmt* st = nullptr;
        const std::string sql = "PRAGMA table_info(\"" + table + "\")";
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK) {
            while (sqlite3_step(st) == SQLITE_ROW) {
                const unsigned char* t = sqlite3_column_text(st, 1);
                if (t)
                    cols.insert(reinterpret_cast<const char*>(t));
            }
        }
        sqlite3_finalize(st);
    }
    m_columns.emplace_back(table, std::move(cols));
    return m_columns.back().second;
}

bool Database::hasColumn(const std::string& table, std::string_view column) const
{
    return columns(table).count(std::string(column)) > 0;
}

Statement Database::prepare(const std::string& sql, std::string* error) const
{
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
        if (error)
            *error = sqlite3_errmsg(m_db);
        sqlite3_finalize(st);
        return Statement();
    }
    return Statement(st);
}

Statement Database::selectColumns(const std::string& table, const std::vector<std::string>& cols,
                                  const std::string& tail, std::string* error) const
{
    std::string sql = "SELECT ";
    for (std::size_t i = 0; i < cols.size(); ++i) {
        if (i)
            sql += ", ";
        sql += hasColumn(table, cols[i]) ? "\"" + cols[i] + "\"" : std::string("NULL");
    }
    sql += " FROM \"" + table + "\" " + tail;
    return prepare(sql, error);
}

Statement& Statement::operator=(Statement&& o) noexcept
{
    if (this != &o) {
        sqlite3_finalize(m_stmt);
        m_stmt = o.m_stmt;
        o.m_stmt = nullptr;
    }
    return *this;
}

Statement::~Statement()
{
    sqlite3_finalize(m_stmt);
}

bool Statement::step()
{
    if (!m_stmt)
        return false;
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc != SQLITE_DONE)
        m_error = sqlite3_errmsg(sqlite3_db_handle(m_stmt));
    return false;
}

bool Statement::isNull(int col) const
{
    return sqlite3_column_type(m_stmt, col) == SQLITE_NULL;
}

std::optional<std::int64_t> Statement::int64(int col) const
{
    switch (sqlite3_column_type(m_stmt, col)) {
    case SQLITE_INTEGER:
        return sqlite3_column_int64(m_stmt, col);
    case SQLITE_FLOAT: {
        // A REAL where an integer belongs: truncated toward zero; none when it has no int64 value
        // (NaN, infinite or beyond +-2^63).
        const double v = sqlite3_column_double(m_stmt, col);
        if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0))
            return std::nullopt;
        return static_cast<std::int64_t>(v);
    }
    case SQLITE_TEXT:
        return parseInt64(text(col));
    default:
        return std::nullopt;
    }
}

std::optional<double> Statement::real(int col) const
{
    switch (sqlite3_column_type(m_stmt, col)) {
    case SQLITE_INTEGER:
        return static_cast<double>(sqlite3_column_int64(m_stmt, col));
    case SQLITE_FLOAT:
        return sqlite3_column_double(m_stmt, col);
    case SQLITE_TEXT:
        return parseDouble(text(col));
    default:
        return std::nullopt;
    }
}

std::string_view Statement::text(int col) const
{
    const unsigned char* t = sqlite3_column_text(m_stmt, col);
    if (!t)
        return {};
    return std::string_view(reinterpret_cast<const char*>(t), static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, col)));
}

std::string Statement::numberText(int col) const
{
    if (sqlite3_column_type(m_stmt, col) == SQLITE_FLOAT) {
        char buf[64];
        auto [end, ec] = std::to_chars(buf, buf + sizeof buf, sqlite3_column_double(m_stmt, col));
        if (ec == std::errc())
            return std::string(buf, end);
    }
    return std::string(text(col));
}

// ---- Writer ----

std::optional<Writer> Writer::create(const std::string& path, std::string* error)
{
    std::remove(path.c_str());
    std::remove((path + "-journal").c_str());
    std::remove((path + "-wal").c_str());
    std::remove((path + "-shm").c_str());
    return openExisting(path, error);
}

std::optional<Writer> Writer::openExisting(const std::string& path, std::string* error)
{
    sqlite3* h = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                                   nullptr);
    if (rc != SQLITE_OK) {
        if (error)
            *error = path + ": cannot write SQLite database: " + (h ? sqlite3_errmsg(h) : sqlite3_errstr(rc));
        sqlite3_close(h);
        return std::nullopt;
    }
    Writer w;
    w.m_db = h;
    w.m_path = path;
    return w;
}

Writer::Writer(Writer&& o) noexcept : m_db(o.m_db), m_path(std::move(o.m_path)), m_error(std::move(o.m_error))
{
    o.m_db = nullptr;
}

Writer& Writer::operator=(Writer&& o) noexcept
{
    if (this != &o) {
        sqlite3_close(m_db);
        m_db = o.m_db;
        o.m_db = nullptr;
        m_path = std::move(o.m_path);
        m_error = std::move(o.m_error);
    }
    return *this;
}

Writer::~Writer()
{
    sqlite3_close(m_db);
}

bool Writer::fail(const std::string& what)
{
    m_error = m_path + ": " + what + ": " + (m_db ? sqlite3_errmsg(m_db) : "not open");
    return false;
}

bool Writer::exec(const std::string& sql)
{
    char* err = nullptr;
    if (!m_db || sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        const bool r = fail(sql.substr(0, 60));
        if (err)
            m_error = m_path + ": " + sql.substr(0, 60) + ": " + err;
        sqlite3_free(err);
        return r;
    }
    return true;
}

Writer::Insert Writer::prepare(const std::string& sql)
{
    sqlite3_stmt* st = nullptr;
    if (!m_db || sqlite3_prepare_v2(m_db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
        fail(sql.substr(0, 60));
        sqlite3_finalize(st);
        return Insert();
    }
    return Insert(st);
}

bool Writer::close()
{
    if (!m_db)
        return true;
    const int rc = sqlite3_close(m_db);
    if (rc != SQLITE_OK)
        return fail("close");
    m_db = nullptr;
    return true;
}

Writer::Insert& Writer::Insert::operator=(Insert&& o) noexcept
{
    if (this != &o) {
        sqlite3_finalize(m_stmt);
        m_stmt = o.m_stmt;
        o.m_stmt = nullptr;
    }
    return *this;
}

Writer::Insert::~Insert()
{
    sqlite3_finalize(m_stmt);
}

Writer::Insert& Writer::Insert::i64(int param, std::int64_t v)
{
    sqlite3_bind_int64(m_stmt, param, v);
    return *this;
}

Writer::Insert& Writer::Insert::real(int param, double v)
{
    sqlite3_bind_double(m_stmt, param, v);
    return *this;
}

Writer::Insert& Writer::Insert::text(int param, std::string_view v)
{
    sqlite3_bind_text(m_stmt, param, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
}

Writer::Insert& Writer::Insert::null(int param)
{
    sqlite3_bind_null(m_stmt, param);
    return *this;
}

bool Writer::Insert::run()
{
    if (!m_stmt)
        return false;
    const int rc = sqlite3_step(m_stmt);
    sqlite3_reset(m_stmt);
    return rc == SQLITE_DONE || rc == SQLITE_ROW;
}

} // namespace npuscope::db
