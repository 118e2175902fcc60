#include "model/formats/sqlite_db.h"

#include "model/formats/number_text.h"

#include <sqlite3.h>

#include <charconv>
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
    }
    Database d;
    d.m_db = h;
    d.m_path = path;
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
        m_tables = std::move(o.m_tables);
        m_columns = std::move(o.m_columns);
    }
    return *this;
}

Database::~Database()
{
    sqlite3_close(m_db);
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
    case SQLITE_FLOAT:
        return static_cast<std::int64_t>(sqlite3_column_double(m_stmt, col));
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

} // namespace npuscope::db
