// A profiler database's host tables (db_loader.h): CANN and PyTorch API spans with their call
// chains, flows, the overlap analysis, counters and operator memory.
#include "model/formats/db_loader.h"
#include "model/formats/number_text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <unordered_map>

namespace npuscope::readers::dbread {

std::string DbLoader::apiPrefix(const std::string& type)
{
    if (type == "acl")
        return "AscendCL";
    if (type == "node")
        return "Node";
    if (type == "runtime")
        return "Runtime";
    if (type == "model")
        return "Model";
    if (type == "hccl" || type == "communication")
        return "Hccl";
    return type;
}

void DbLoader::loadCannApi()
{
    if (!need("CANN_API"))
        return;
    auto st = select("CANN_API", {"startNs", "endNs", "type", "globalTid", "connectionId", "name"});
    std::map<std::int64_t, NameId> categories;
    while (st.step()) {
        const auto span = interval(st, 0, 1, "CANN_API");
        if (!span)
            continue;
        const std::int64_t gtid = st.int64(3).value_or(0);
        const std::int64_t pid = gtid >> 32;
        const std::int64_t tid = gtid & 0xffffffffLL;
        const TrackId t = track(kCannPid + pid, tid, TrackKind::Cann, "CANN", "Thread " + std::to_string(tid), -1);
        const auto typeId = st.int64(2).value_or(-1);
        auto cat = categories.find(typeId);
        if (cat == categories.end())
            cat = categories.emplace(typeId, m_p.strings.intern(enumName(m_apiTypes, typeId))).first;
        const std::string name = apiPrefix(std::string(m_p.str(cat->second))) + "@" + std::string(m_p.str(str(st.int64(5))));
        const auto row = m_p.slices.add(span->start, span->dur, m_p.strings.intern(name), cat->second, t);
        ++m_rec.records;
        if (const auto c = st.int64(4))
            m_cannByConn[*c] = row;
    }
    finish(st, "CANN_API");
}

std::unordered_map<std::int64_t, NameId> DbLoader::loadCallChains()
{
    std::unordered_map<std::int64_t, NameId> out;
    if (!need("PYTORCH_CALLCHAINS"))
        return out;
    auto st = select("PYTORCH_CALLCHAINS", {"id", "stack", "stackDepth"}, "ORDER BY id, stackDepth");
    std::int64_t current = 0;
    bool open = false;
    std::string text;
    auto flush = [&] {
        if (open)
            out.emplace(current, m_p.strings.intern(text));
    };
    while (st.step()) {
        const auto id = st.int64(0);
        if (!id)
            continue;
        if (!open || *id != current) {
            flush();
            current = *id;
            open = true;
            text.clear();
        } else {
            text += ";\r\n";
        }
        text += m_p.str(str(st.int64(1)));
    }
    flush();
    finish(st, "PYTORCH_CALLCHAINS");
    return out;
}

bool DbLoader::looksLikeShapes(std::string_view s)
{
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= '0' && c <= '9') || c == ',' || c == ';' || c == '-' || c == '"' || c == ' ' || c == '\r'
            || c == '\n';
    });
}

NameId DbLoader::crlfText(NameId id)
{
    const std::string_view v = m_p.str(id);
    if (v.find('\n') == std::string_view::npos)
        return id;
    std::string out;
    out.reserve(v.size() + 8);
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (v[i] == '\n' && (i == 0 || v[i - 1] != '\r'))
            out += '\r';
        out += v[i];
    }
    return m_p.strings.intern(out);
}

void DbLoader::loadPytorchApi()
{
    if (!need("PYTORCH_API"))
        return;
    const std::unordered_map<std::int64_t, NameId> stacks = loadCallChains();
    const NameId kSeq = m_p.strings.intern("Sequence number"), kFwd = m_p.strings.intern("Fwd thread id"),
                 kDims = m_p.strings.intern("Input Dims"), kType = m_p.strings.intern("Input type"),
                 kStack = m_p.strings.intern("Call stack");
    const NameId catOp = m_p.strings.intern("cpu_op"), catEnqueue = m_p.strings.intern("enqueue"),
                 catDequeue = m_p.strings.intern("dequeue"), catPython = m_p.strings.intern("python_function");
    enum Kind { Other, Op, Queue };
    std::map<std::int64_t, std::pair<NameId, Kind>> categories;
    std::vector<std::pair<NameId, NameId>> args;
    auto st = select("PYTORCH_API", {"startNs", "endNs", "globalTid", "connectionId", "name", "type",
                                     "sequenceNumber", "fwdThreadId", "inputDtypes", "inputShapes", "callchainId"});
    while (st.step()) {
        // startNs/endNs are TEXT in the samples: int64() parses them exactly.
        const auto span = interval(st, 0, 1, "PYTORCH_API");
        if (!span)
            continue;
        const std::int64_t gtid = st.int64(2).value_or(0);
        const std::int64_t pid = gtid >> 32;
        const std::int64_t tid = gtid & 0xffffffffLL;
        const TrackId t = track(kPythonPid + pid, tid, TrackKind::Python, "Python", "Thread " + std::to_string(tid), -1);
        const NameId name = str(st.int64(4));
        // Categories as trace_view.json names them: cpu_op, enqueue/dequeue, python_function.
        const std::int64_t typeId = st.int64(5).value_or(-1);
        auto cit = categories.find(typeId);
        if (cit == categories.end()) {
            const std::string type = enumName(m_apiTypes, typeId);
            const NameId c = type == "op" ? catOp : type == "trace" ? catPython : m_p.strings.intern(type);
            cit = categories.emplace(typeId, std::make_pair(c, type == "op" ? Op : type == "queue" ? Queue : Other))
                      .first;
        }
        NameId cat = cit->second.first;
        std::uint32_t argsRow = kNone;
        if (cit->second.second == Queue) {
            const std::string_view n = m_p.str(name);
            cat = n.find("Dequeue") != std::string_view::npos || n.find("dequeue") != std::string_view::npos ? catDequeue
                                                                                                             : catEnqueue;
        } else if (cit->second.second == Op) {
            // The cpu_op args of trace_view.json, in its key order.
            args.clear();
            if (const auto v = st.int64(6))
                args.emplace_back(kSeq, m_p.strings.intern(std::to_string(*v)));
            if (const auto v = st.int64(7))
                args.emplace_back(kFwd, m_p.strings.intern(std::to_string(*v)));
            NameId dims = str(st.int64(8));  // documented as dtypes; the samples hold shapes here
            NameId types = str(st.int64(9)); // and the dtypes here: decide by content
            if (!looksLikeShapes(m_p.str(dims)) && looksLikeShapes(m_p.str(types)))
                std::swap(dims, types);
            if (!st.isNull(8))
                args.emplace_back(kDims, crlfText(dims));
            if (!st.isNull(9))
                args.emplace_back(kType, crlfText(types));
            if (const auto c = st.int64(10)) {
                auto s = stacks.find(*c);
                if (s != stacks.end())
                    args.emplace_back(kStack, s->second);
            }
            if (!args.empty())
                argsRow = m_p.args.addRow(args);
        }
        const auto row = m_p.slices.add(span->start, span->dur, name, cat, t, kNone, argsRow);
        ++m_rec.records;
        if (const auto c = st.int64(3))
            m_pyByConnRow[*c].push_back(row);
    }
    finish(st, "PYTORCH_API");
}

void DbLoader::addFlow(const char* cat, const std::string& id, std::uint32_t src, std::uint32_t dst)
{
    FlowTable& f = m_p.flows;
    f.category.push_back(m_p.strings.intern(cat));
    f.name.push_back(m_p.strings.intern(cat));
    f.addId(id, m_p.strings);
    f.srcTs.push_back(m_p.slices.start[src]);
    f.dstTs.push_back(m_p.slices.start[dst]);
    f.srcTrack.push_back(m_p.slices.track[src]);
    f.dstTrack.push_back(m_p.slices.track[dst]);
    f.srcSlice.push_back(src);
    f.dstSlice.push_back(dst);
}

void DbLoader::loadFlows()
{
    // HostToDevice: the launching CANN API shares its connectionId with the device task(s).
    for (const auto& [conn, targets] : m_connTargets) {
        auto c = m_cannByConn.find(conn);
        if (c == m_cannByConn.end())
            continue;
        for (auto dst : targets)
            addFlow("HostToDevice", std::to_string(static_cast<std::uint64_t>(conn) << 32), c->second, dst);
    }
    if (!need("CONNECTION_IDS"))
        return;
    // PYTORCH_API.connectionId -> CONNECTION_IDS.id -> 1..n connection ids.
    std::map<std::int64_t, std::vector<std::uint32_t>> pyByConnection;
    auto st = select("CONNECTION_IDS", {"id", "connectionId"});
    while (st.step()) {
        const auto id = st.int64(0);
        const auto conn = st.int64(1);
        if (!id || !conn)
            continue;
        auto it = m_pyByConnRow.find(*id);
        if (it == m_pyByConnRow.end())
            continue;
        for (auto row : it->second)
            pyByConnection[*conn].push_back(row);
    }
    for (auto& [conn, rows] : pyByConnection) {
        auto targets = m_connTargets.find(conn);
        if (targets != m_connTargets.end()) {
            for (auto src : rows)
                for (auto dst : targets->second)
                    addFlow("async_npu", std::to_string(m_p.slices.start[dst]), src, dst);
        } else if (rows.size() == 2) {
            std::sort(rows.begin(), rows.end(),
                      [this](auto a, auto b) { return m_p.slices.start[a] < m_p.slices.start[b]; });
            const std::string_view n = m_p.str(m_p.slices.name[rows[0]]);
            const bool queue = n.find("queue") != std::string_view::npos || n.find("Queue") != std::string_view::npos;
            addFlow(queue ? "async_task_queue" : "fwdbwd", std::to_string(conn), rows[0], rows[1]);
        }
    }
}

void DbLoader::loadOverlap()
{
    if (!need("OVERLAP_ANALYSIS"))
        return;
    static const char* names[] = {"Computing", "Communication", "Communication(Not Overlapped)", "Free"};
    auto st = select("OVERLAP_ANALYSIS", {"deviceId", "startNs", "endNs", "type"}, "ORDER BY startNs");
    while (st.step()) {
        const auto span = interval(st, 1, 2, "OVERLAP_ANALYSIS");
        if (!span)
            continue;
        const auto type = st.int64(3);
        if (!type || *type < 0 || *type > 3) {
            skipRow("OVERLAP_ANALYSIS row with an unknown type skipped");
            continue;
        }
        const int device = deviceAt(st, 0, m_device);
        const TrackId t = track(kOverlapPid + std::max(device, 0), *type, TrackKind::Overlap, "Overlap Analysis",
                                names[*type], device);
        m_p.slices.add(span->start, span->dur, m_p.strings.intern(names[*type]), NameId(0), t);
        ++m_rec.records;
    }
}

void DbLoader::counter(int table, const std::string& process, const std::string& name, const std::string& key, TimeNs ts,
                       double v, int device)
{
    CounterSeries& c = m_p.counterFor(kCounterPid + table, m_p.strings.intern(name), m_p.strings.intern(key));
    c.process = m_p.strings.intern(process);
    c.device = device;
    c.ts.push_back(ts);
    c.value.push_back(v);
}

void DbLoader::loadCounters()
{
    if (need("AICORE_FREQ")) {
        auto st = select("AICORE_FREQ", {"deviceId", "timestampNs", "freq"});
        while (st.step())
            if (auto t = sampleTime(st, 1, "AICORE_FREQ"); t && st.real(2))
                counter(0, "AI Core Freq", "AI Core Freq", "MHz", *t, *st.real(2),
                        deviceAt(st, 0, m_device));
    }
    if (need("HBM")) {
        auto st = select("HBM", {"deviceId", "timestampNs", "bandwidth", "hbmId", "type"});
        while (st.step()) {
            const auto t = sampleTime(st, 1, "HBM");
            const auto bw = st.real(2);
            if (!t || !bw)
                continue;
            const std::string dir(m_p.str(str(st.int64(4))));
            const std::string key = (dir == "write" ? "Write" : "Read") + std::string("(MB/s)");
            counter(1, "HBM", "HBM " + std::to_string(st.int64(3).value_or(0)), key, *t, *bw / 1e6,
                    deviceAt(st, 0, m_device));
        }
    }
    if (need("LLC")) {
        auto st = select("LLC", {"deviceId", "llcId", "timestampNs", "hitRate", "throughput", "mode"});
        while (st.step()) {
            const auto t = sampleTime(st, 2, "LLC");
            if (!t)
                continue;
            const std::string name = "LLC " + std::to_string(st.int64(1).value_or(0)) + " "
                + std::string(m_p.str(str(st.int64(5))));
            const int dev = deviceAt(st, 0, m_device);
            if (auto h = st.real(3))
                counter(2, "LLC", name, "Hit Rate(%)", *t, *h, dev);
            if (auto th = st.real(4))
                counter(2, "LLC", name, "Throughput(MB/s)", *t, *th / 1e6, dev);
        }
    }
    if (need("NPU_MEM")) {
        auto st = select("NPU_MEM", {"type", "ddr", "hbm", "timestampNs", "deviceId"});
        while (st.step()) {
            const auto t = sampleTime(st, 3, "NPU_MEM");
            if (!t)
                continue;
            const std::string name(m_p.str(str(st.int64(0))));
            const int dev = deviceAt(st, 4, m_device);
            if (auto v = st.real(1))
                counter(3, "NPU MEM", name, "DDR(KB)", *t, *v / 1024.0, dev);
            if (auto v = st.real(2))
                counter(3, "NPU MEM", name, "HBM(KB)", *t, *v / 1024.0, dev);
        }
    }
    if (need("NPU_MODULE_MEM")) {
        auto st = select("NPU_MODULE_MEM", {"moduleId", "timestampNs", "totalReserved", "deviceId"});
        while (st.step())
            if (auto t = sampleTime(st, 1, "NPU_MODULE_MEM"); t && st.real(2))
                counter(4, "npu_module_mem", enumName(m_modules, st.int64(0)), "Total Reserved(MB)", *t,
                        *st.real(2) / 1048576.0, deviceAt(st, 3, m_device));
    }
    if (need("MEMORY_RECORD")) {
        auto st = select("MEMORY_RECORD",
                         {"component", "timestamp", "totalAllocated", "totalReserved", "totalActive", "deviceId"});
        while (st.step()) {
            const auto t = sampleTime(st, 1, "MEMORY_RECORD");
            if (!t)
                continue;
            const std::string comp(m_p.str(str(st.int64(0))));
            const int dev = deviceAt(st, 5, m_device);
            if (auto v = st.real(2))
                counter(5, "memory_record", comp, "Total Allocated(MB)", *t, *v / 1048576.0, dev);
            if (auto v = st.real(3))
                counter(5, "memory_record", comp, "Total Reserved(MB)", *t, *v / 1048576.0, dev);
            if (auto v = st.real(4))
                counter(5, "memory_record", comp, "Total Active(MB)", *t, *v / 1048576.0, dev);
        }
    }
}

void DbLoader::loadOpMemory()
{
    if (!need("OP_MEMORY"))
        return;
    auto st = select("OP_MEMORY",
                     {"name", "size", "allocationTime", "releaseTime", "activeReleaseTime", "duration",
                      "allocationTotalAllocated", "allocationTotalReserved", "allocationTotalActive",
                      "releaseTotalAllocated", "releaseTotalReserved", "releaseTotalActive", "streamPtr",
                      "deviceId"});
    auto time = [&st](int col) -> std::optional<TimeNs> {
        const auto v = st.int64(col);
        return v && timeInRange(*v) ? v : std::nullopt;
    };
    while (st.step()) {
        const auto at = time(2);
        if (!at) {
            skipRow("OP_MEMORY row without a readable allocationTime skipped");
            continue;
        }
        OpAllocation a;
        a.name = str(st.int64(0));
        a.bytes = st.real(1).value_or(kNaN);
        a.allocAt = *at;
        a.releaseAt = time(3);
        a.activeReleaseAt = time(4);
        a.duration = time(5);
        a.allocTotalAllocated = st.real(6).value_or(kNaN);
        a.allocTotalReserved = st.real(7).value_or(kNaN);
        a.allocTotalActive = st.real(8).value_or(kNaN);
        a.releaseTotalAllocated = st.real(9).value_or(kNaN);
        a.releaseTotalReserved = st.real(10).value_or(kNaN);
        a.releaseTotalActive = st.real(11).value_or(kNaN);
        a.streamPtr = st.int64(12).value_or(-1);
        a.device = deviceAt(st, 13, m_device);
        m_p.opMemory.push_back(a);
        ++m_rec.records;
    }
    finish(st, "OP_MEMORY");
}

} // namespace npuscope::readers::dbread
