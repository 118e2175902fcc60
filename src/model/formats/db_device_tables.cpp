// A profiler database's device tables (db_loader.h): tasks with names, types and shapes, PMU
// metrics, communication ops and tasks, and the wait times between a device's tasks.
#include "model/formats/db_loader.h"
#include "model/formats/number_text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <unordered_map>

namespace npuscope::readers::dbread {

void DbLoader::loadDeviceTasks()
{
    if (!need("TASK")) {
        m_p.report(Severity::Warning, m_ctx.file, -1, -1, "table TASK missing: no device tasks");
        return;
    }
    const bool compute = need("COMPUTE_TASK_INFO");
    const std::string blockCol = m_db.hasColumn("COMPUTE_TASK_INFO", "blockNum") ? "blockNum" : "blockDim";
    const std::string mixCol = m_db.hasColumn("COMPUTE_TASK_INFO", "mixBlockNum") ? "mixBlockNum" : "mixBlockDim";
    std::string sql = "SELECT t.startNs, t.endNs, t.deviceId, t.connectionId, t.globalTaskId, t.taskType, "
                      "t.contextId, t.streamId, t.taskId, t.modelId";
    const char* cinfo[] = {"name", "opType", "taskType", "inputFormats", "inputDataTypes", "inputShapes",
                           "outputFormats", "outputDataTypes", "outputShapes", "opState"};
    for (const char* c : cinfo)
        sql += compute && m_db.hasColumn("COMPUTE_TASK_INFO", c) ? std::string(", c.\"") + c + "\"" : ", NULL";
    sql += compute && m_db.hasColumn("COMPUTE_TASK_INFO", blockCol) ? ", c.\"" + blockCol + "\"" : ", NULL";
    sql += compute && m_db.hasColumn("COMPUTE_TASK_INFO", mixCol) ? ", c.\"" + mixCol + "\"" : ", NULL";
    sql += compute ? ", c.globalTaskId" : ", NULL";
    sql += " FROM TASK t";
    if (compute)
        sql += " LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId";
    sql += " ORDER BY t.startNs";
    std::string err;
    auto st = m_db.prepare(sql, &err);
    if (!st.valid()) {
        tableError("TASK", err);
        return;
    }
    KernelTable& k = m_p.kernels;
    while (st.step()) {
        const auto span = interval(st, 0, 1, "TASK");
        if (!span)
            continue;
        const TimeNs start = span->start;
        const TimeNs dur = span->dur;
        const int device = deviceAt(st, 2, m_device);
        const std::int64_t stream = st.int64(7).value_or(-1);
        const std::int64_t taskId = st.int64(8).value_or(-1);
        const NameId hwType = str(st.int64(5));
        const bool hasCompute = !st.isNull(20);
        const NameId name = hasCompute ? str(st.int64(10)) : hwType;
        const NameId coreType = hasCompute ? str(st.int64(12)) : hwType;
        // Level 0 writes COMPUTE_TASK_INFO.taskType N/A: the slice keeps the hardware type,
        // as the text timeline's "Task Type" does.
        const NameId category = hasCompute && m_p.str(coreType) != "N/A" ? coreType : hwType;
        const TrackId t = track(kDevicePid + device, stream, TrackKind::Stream, "Ascend Hardware",
                                "Stream " + std::to_string(stream), device, stream);
        const auto row = m_p.slices.add(start, dur, name, category, t,
                                        taskId >= 0 && taskId < kNone ? static_cast<std::uint32_t>(taskId) : kNone);
        ++m_rec.records;
        ++m_p.join.deviceTasks;
        if (const auto g = st.int64(4))
            m_taskSlice[*g] = row;
        if (const auto c = st.int64(3); c && *c != 4294967295LL)
            m_connTargets[*c].push_back(row);
        if (!hasCompute)
            continue;
        const auto kr = static_cast<std::uint32_t>(k.size());
        k.device.push_back(device);
        k.step.push_back(stepOf(start));
        const auto model = st.int64(9).value_or(-1);
        k.modelId.push_back(model == 4294967295LL ? -1 : model);
        k.streamId.push_back(stream);
        k.taskId.push_back(taskId);
        const auto ctxId = st.int64(6).value_or(-1);
        k.contextId.push_back(ctxId == 4294967295LL ? -1 : ctxId);
        k.start.push_back(start);
        k.dur.push_back(dur);
        k.wait.push_back(0);
        k.name.push_back(name);
        k.type.push_back(str(st.int64(11)));
        k.taskType.push_back(coreType);
        k.inputFormats.push_back(str(st.int64(13)));
        k.inputDtypes.push_back(str(st.int64(14)));
        k.inputShapes.push_back(str(st.int64(15)));
        k.outputFormats.push_back(str(st.int64(16)));
        k.outputDtypes.push_back(str(st.int64(17)));
        k.outputShapes.push_back(str(st.int64(18)));
        k.opState.push_back(str(st.int64(19)));
        k.blockDim.push_back(st.int64(20).value_or(-1));
        k.mixBlockDim.push_back(st.int64(21).value_or(-1));
        k.slice.push_back(row);
        for (auto& m : k.metrics)
            m.push_back(kNaN);
        for (auto& e : k.extra)
            e.push_back(NameId(0));
        m_p.slices.kernel[row] = kr;
        ++m_p.join.kernelRows;
        ++m_p.join.matchedExact;
        if (const auto g = st.int64(22))
            m_kernelOfTask[*g] = kr;
    }
    finish(st, "TASK");
}

std::pair<std::string, double> DbLoader::csvMetricName(const std::string& dbName)
{
    if (dbName == "aic_total_time")
        return {"aicore_time(us)", 1e-3};
    if (dbName == "aiv_total_time")
        return {"aiv_time(us)", 1e-3};
    if (dbName.size() > 5 && dbName.compare(dbName.size() - 5, 5, "_time") == 0)
        return {dbName + "(us)", 1e-3}; // *_time are ns in the db, µs in the CSV
    if (dbName.size() > 3 && dbName.compare(dbName.size() - 3, 3, "_bw") == 0)
        return {dbName + "(GB/s)", 1.0}; // msprof's memory metric names: main_mem_read_bw, ...
    return {dbName, 1.0};
}

void DbLoader::loadPmu()
{
    if (!need("TASK_PMU_INFO"))
        return;
    KernelTable& k = m_p.kernels;
    std::unordered_map<std::uint32_t, std::pair<int, double>> columnOf; // string id -> (metric, scale)
    auto st = select("TASK_PMU_INFO", {"globalTaskId", "name", "value"});
    while (st.step()) {
        const auto g = st.int64(0);
        const auto nameId = str(st.int64(1));
        const auto v = st.real(2);
        if (!g || !v)
            continue;
        auto kr = m_kernelOfTask.find(*g);
        if (kr == m_kernelOfTask.end())
            continue;
        auto it = columnOf.find(nameId.v);
        if (it == columnOf.end()) {
            const auto [csvName, scale] = csvMetricName(std::string(m_p.str(nameId)));
            int m = k.metricIndex(csvName);
            if (m < 0) {
                k.metricNames.push_back(csvName);
                k.metrics.emplace_back(k.size(), kNaN);
                m = static_cast<int>(k.metrics.size() - 1);
            }
            it = columnOf.emplace(nameId.v, std::make_pair(m, scale)).first;
        }
        k.metrics[it->second.first].set(kr->second, *v * it->second.second);
    }
    finish(st, "TASK_PMU_INFO");
}

void DbLoader::loadCommOps()
{
    if (!need("COMMUNICATION_OP"))
        return;
    auto st = select("COMMUNICATION_OP",
                     {"opName", "startNs", "endNs", "connectionId", "groupName", "opId", "opType", "deviceId"},
                     "ORDER BY startNs");
    KernelTable& k = m_p.kernels;
    while (st.step()) {
        const auto span = interval(st, 1, 2, "COMMUNICATION_OP");
        if (!span)
            continue;
        const TimeNs start = span->start;
        const TimeNs dur = span->dur;
        const int device = deviceAt(st, 7, m_device);
        const NameId group = str(st.int64(4));
        auto [git, fresh] = m_groupIndex.emplace(group.v, static_cast<int>(m_groupIndex.size()));
        (void)fresh;
        const TrackId t = track(kCommPid + std::max(device, 0), git->second, TrackKind::CommGroup, "Communication",
                                "Group " + std::to_string(git->second) + " Communication", device);
        const NameId name = str(st.int64(0));
        const NameId opType = str(st.int64(6));
        const auto row = m_p.slices.add(start, dur, name, opType, t);
        ++m_rec.records;
        if (const auto c = st.int64(3); c && *c != 4294967295LL)
            m_connTargets[*c].push_back(row);
        // The kernel_details view has one HCCL row per communication op.
        k.device.push_back(device);
        k.step.push_back(stepOf(start));
        k.modelId.push_back(-1);
        k.streamId.push_back(-1);
        k.taskId.push_back(-1);
        k.contextId.push_back(-1);
        k.start.push_back(start);
        k.dur.push_back(dur);
        k.wait.push_back(0);
        k.name.push_back(name);
        k.type.push_back(opType);
        k.taskType.push_back(m_p.strings.intern("HCCL"));
        for (auto* col : {&k.opState, &k.inputShapes, &k.inputDtypes, &k.inputFormats, &k.outputShapes,
                          &k.outputDtypes, &k.outputFormats})
            col->push_back(NameId(0));
        k.blockDim.push_back(-1);
        k.mixBlockDim.push_back(-1);
        k.slice.push_back(row);
        for (auto& m : k.metrics)
            m.push_back(kNaN);
        for (auto& e : k.extra)
            e.push_back(NameId(0));
        m_p.slices.kernel[row] = static_cast<std::uint32_t>(k.size() - 1);
        ++m_p.join.kernelRows;
        ++m_p.join.matchedExact;
    }
    finish(st, "COMMUNICATION_OP");
}

void DbLoader::loadCommTasks()
{
    if (!need("COMMUNICATION_TASK_INFO") || !need("TASK"))
        return;
    std::string err;
    auto st = m_db.prepare("SELECT t.startNs, t.endNs, t.deviceId, i.taskType, i.planeId, i.srcRank, i.dstRank, "
                           "i.transportType, i.size, i.linkType, i.dataType FROM COMMUNICATION_TASK_INFO i "
                           "JOIN TASK t ON t.globalTaskId = i.globalTaskId ORDER BY t.startNs",
                           &err);
    if (!st.valid()) {
        m_p.report(Severity::Warning, m_ctx.file, -1, -1, "table COMMUNICATION_TASK_INFO: " + err);
        return;
    }
    const NameId kSrc = m_p.strings.intern("src rank"), kDst = m_p.strings.intern("dst rank"),
                 kTransport = m_p.strings.intern("transport type"), kSize = m_p.strings.intern("size(Byte)"),
                 kLink = m_p.strings.intern("link type"), kData = m_p.strings.intern("data type");
    while (st.step()) {
        const auto span = interval(st, 0, 1, "COMMUNICATION_TASK_INFO");
        if (!span)
            continue;
        const int device = deviceAt(st, 2, m_device);
        const auto plane = st.int64(4).value_or(0);
        // tid 1000 + plane, wrapping rather than overflowing on a damaged planeId.
        const auto planeTid = static_cast<std::int64_t>(1000ULL + static_cast<std::uint64_t>(plane));
        const TrackId t = track(kCommPid + std::max(device, 0), planeTid, TrackKind::CommPlane,
                                "Communication", "Plane " + std::to_string(plane), device);
        auto num = [this](std::optional<std::int64_t> v) { return m_p.strings.intern(v ? std::to_string(*v) : "N/A"); };
        const std::uint32_t args = m_p.args.addRow({{kSrc, num(st.int64(5))},
                                                    {kDst, num(st.int64(6))},
                                                    {kTransport, m_p.strings.intern(enumName(m_transport, st.int64(7)))},
                                                    {kSize, num(st.int64(8))},
                                                    {kLink, m_p.strings.intern(enumName(m_linkType, st.int64(9)))},
                                                    {kData, m_p.strings.intern(enumName(m_dataType, st.int64(10)))}});
        const NameId type = str(st.int64(3));
        m_p.slices.add(span->start, span->dur, type, type, t, kNone, args);
        ++m_rec.records;
    }
    finish(st, "COMMUNICATION_TASK_INFO");
}

void DbLoader::fillWaitTimes()
{
    KernelTable& k = m_p.kernels;
    std::vector<std::uint32_t> order(k.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&k](auto a, auto b) {
        return k.device[a] != k.device[b] ? k.device[a] < k.device[b] : k.start[a] < k.start[b];
    });
    for (std::size_t i = 0; i < order.size(); ++i) {
        const auto r = order[i];
        if (i == 0 || k.device[order[i - 1]] != k.device[r]) {
            k.wait[r] = 0;
            continue;
        }
        const auto p = order[i - 1];
        k.wait[r] = std::max<TimeNs>(0, k.start[r] - (k.start[p] + k.dur[p]));
    }
}

} // namespace npuscope::readers::dbread
