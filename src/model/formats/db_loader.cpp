// A profiler database's loader (db_loader.h): the order of its tables, the helpers every table
// reader shares, and the tables the others stand on: strings, enums, meta, schema and steps.
#include "model/formats/db_loader.h"
#include "model/formats/number_text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <unordered_map>

namespace npuscope::readers::dbread {

void DbLoader::run()
{
    loadStrings();
    loadEnums();
    loadMeta();
    checkSchema();
    loadSteps();
    if (m_ctx.cancelled())
        return;
    loadDeviceTasks();
    loadPmu();
    loadCommOps();
    loadCommTasks();
    if (m_ctx.cancelled())
        return;
    loadCannApi();
    loadPytorchApi();
    loadFlows();
    loadOverlap();
    loadCounters();
    loadOpMemory();
    fillWaitTimes();
}

NameId DbLoader::str(std::optional<std::int64_t> id)
{
    if (!id)
        return NameId(0);
    auto it = m_strings.find(*id);
    return it == m_strings.end() ? NameId(0) : it->second;
}

std::string DbLoader::enumName(const std::map<std::int64_t, std::string>& e, std::optional<std::int64_t> id)
{
    if (!id)
        return {};
    auto it = e.find(*id);
    return it == e.end() ? std::to_string(*id) : it->second;
}

db::Statement DbLoader::select(const std::string& table, const std::vector<std::string>& cols, const std::string& tail)
{
    std::string err;
    db::Statement st = m_db.selectColumns(table, cols, tail, &err);
    if (!st.valid())
        tableError(table, err);
    return st;
}

void DbLoader::tableError(const std::string& table, const std::string& why)
{
    ++m_tableErrors;
    m_p.report(Severity::Error, m_ctx.file, -1, -1, "table " + table + ": " + why + " (rows before the damage kept)");
}

void DbLoader::finish(db::Statement& st, const std::string& table)
{
    if (!st.error().empty())
        tableError(table, st.error());
}

bool DbLoader::need(const std::string& table)
{
    if (m_db.hasTable(table))
        return true;
    return false;
}

TrackId DbLoader::track(std::int64_t pid, std::int64_t tid, TrackKind kind, std::string_view process, const std::string& thread,
                        int device, std::int64_t stream)
{
    const TrackId t = m_p.trackFor(pid, tid);
    Track& tr = m_p.tracks[t.v];
    if (!tr.process.valid()) {
        tr.kind = kind;
        tr.process = m_p.strings.intern(process);
        tr.thread = m_p.strings.intern(thread);
        tr.device = device;
        tr.streamId = stream;
    }
    return t;
}

std::int64_t DbLoader::stepOf(TimeNs t) const
{
    for (const auto& [id, range] : m_steps)
        if (t >= range.first && t < range.second)
            return id;
    return -1;
}

std::optional<DbLoader::Interval> DbLoader::interval(const db::Statement& st, int startCol, int endCol, const char* table)
{
    const auto start = st.int64(startCol);
    const auto end = st.int64(endCol);
    const char* why = nullptr;
    if (!start || !end)
        why = "without a readable startNs and endNs";
    else if (!timeInRange(*start) || !timeInRange(*end))
        why = "with a time beyond 4e18 ns";
    else if (*end < *start)
        why = "with endNs before startNs";
    if (why) {
        skipRow(std::string(table) + " row " + why + " skipped");
        return std::nullopt;
    }
    return Interval{*start, *end - *start};
}

std::optional<TimeNs> DbLoader::sampleTime(const db::Statement& st, int col, const char* table)
{
    const auto t = st.int64(col);
    if (t && timeInRange(*t))
        return t;
    skipRow(std::string(table) + (t ? " sample with a time beyond 4e18 ns skipped"
                                    : " sample without a readable timestamp skipped"));
    return std::nullopt;
}

int DbLoader::deviceAt(const db::Statement& st, int col, int fallback)
{
    const auto v = st.int64(col);
    if (!v)
        return fallback;
    const int id = deviceIdOf(*v);
    if (id < 0)
        m_p.report(Severity::Warning, m_ctx.file, -1, -1, "device id beyond 0..65535 read as unknown");
    return id;
}

void DbLoader::skipRow(std::string reason)
{
    ++m_rec.skipped;
    m_p.report(Severity::Warning, m_ctx.file, -1, -1, std::move(reason));
}

void DbLoader::loadStrings()
{
    if (!need("STRING_IDS"))
        return;
    auto st = select("STRING_IDS", {"id", "value"});
    while (st.step())
        if (auto id = st.int64(0))
            m_strings.emplace(*id, m_p.strings.intern(st.text(1)));
    finish(st, "STRING_IDS");
}

void DbLoader::loadEnums()
{
    auto load = [this](const char* table, std::map<std::int64_t, std::string>& out) {
        if (!need(table))
            return;
        auto st = select(table, {"id", "name"});
        while (st.step())
            if (auto id = st.int64(0))
                out.emplace(*id, std::string(st.text(1)));
    };
    load("ENUM_API_TYPE", m_apiTypes);
    load("ENUM_HCCL_TRANSPORT_TYPE", m_transport);
    load("ENUM_HCCL_LINK_TYPE", m_linkType);
    load("ENUM_HCCL_DATA_TYPE", m_dataType);
    load("ENUM_MODULE", m_modules);
}

void DbLoader::loadMeta()
{
    if (need("META_DATA")) {
        auto st = select("META_DATA", {"name", "value"});
        while (st.step()) {
            const std::string name(st.text(0));
            const std::string value(st.text(1));
            if (name == "ENV_VARIABLES") {
                auto j = nlohmann::json::parse(value, nullptr, false);
                if (j.is_object())
                    for (auto& [k, v] : j.items())
                        m_p.meta.env[k] = v.is_string() ? v.get<std::string>() : v.dump();
            } else if (name == "SCHEMA_VERSION") {
                m_schema = value;
            }
        }
    }
    if (need("NPU_INFO")) {
        auto st = select("NPU_INFO", {"id", "name"});
        while (st.step()) {
            DeviceInfo* di = nullptr;
            const int dev = deviceAt(st, 0, -1);
            for (auto& d : m_p.deviceInfo)
                if (d.device == dev)
                    di = &d;
            if (!di) {
                m_p.deviceInfo.push_back(DeviceInfo{});
                di = &m_p.deviceInfo.back();
                di->device = dev;
            }
            di->chip = std::string(st.text(1));
        }
    }
    if (need("RANK_DEVICE_MAP")) {
        auto st = select("RANK_DEVICE_MAP", {"rankId", "deviceId"});
        while (st.step()) {
            if (const int rank = rankOf(st.int64(0).value_or(-1)); rank >= 0 && m_p.rank < 0)
                m_p.rank = rank;
            if (m_ctx.device < 0)
                m_device = deviceAt(st, 1, m_device); // a NULL deviceId keeps the last one
        }
    }
}

void DbLoader::checkSchema()
{
    if (!m_schema.empty()) {
        const auto major = parseInt64(std::string_view(m_schema).substr(0, m_schema.find('.')));
        if (!major || *major != 1)
            m_p.report(Severity::Warning, m_ctx.file, -1, -1,
                       "table META_DATA: unknown SCHEMA_VERSION " + m_schema
                           + " (1.x known): columns are read by name, missing ones stay empty");
    }
    for (const char* t : {"COMPUTE_TASK_INFO", "COMMUNICATION_OP", "CANN_API", "STEP_TIME"})
        if (!m_db.hasTable(t))
            m_p.report(Severity::Warning, m_ctx.file, -1, -1, std::string("table ") + t + " missing: "
                           + (std::string(t) == "COMPUTE_TASK_INFO" ? "device tasks keep only their task type"
                              : std::string(t) == "COMMUNICATION_OP" ? "no communication ops"
                              : std::string(t) == "CANN_API"         ? "no CANN API spans or HostToDevice flows"
                                                                     : "no step ids"));
}

void DbLoader::loadSteps()
{
    if (!need("STEP_TIME"))
        return;
    auto st = select("STEP_TIME", {"id", "startNs", "endNs"});
    while (st.step()) {
        const auto span = interval(st, 1, 2, "STEP_TIME");
        if (!span)
            continue;
        if (const auto id = st.int64(0))
            m_steps.push_back({*id, {span->start, span->start + span->dur}});
        else
            skipRow("STEP_TIME row without an id skipped");
    }
}

} // namespace npuscope::readers::dbread
