#include "model/synth/memory_writer.h"

#include "model/formats/sqlite_db.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

namespace npuscope::synth {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr std::int64_t kAppPeriodNs = 20'000'000; // APP and module samples every 20 ms
const char* const kOpMemoryHeader =
    "Name,Size(KB),Allocation Time(us),Release Time(us),Active Release Time(us),Duration(us),Active Duration(us),"
    "Allocation Total Allocated(MB),Allocation Total Reserved(MB),Allocation Total Active(MB),Release Total "
    "Allocated(MB),Release Total Reserved(MB),Release Total Active(MB),Stream Ptr,Device Type\r\n";
const char* const kRecordHeader =
    "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type\r\n";
const char* const kModuleHeader = "Component,Timestamp(us),Total Reserved(MB),Device\n";
constexpr std::int64_t kActiveEarlyNs = 410; // active release comes just before the release

// CANN modules and their reserved device memory (MB), as npu_module_mem lists them.
const std::pair<const char*, double> kModules[] = {
    {"SLOG", 0.0},     {"IDEDD", 0.0},    {"HCCL", 26.0},  {"RUNTIME", 112.5625}, {"GE", 74.75},
    {"FE", 0.0},       {"AICPU", 2.0},    {"ASCENDCL", 0.0}, {"DRV", 58.0},        {"TDT", 0.0},
    {"TBE", 4.0625},   {"DVPP", 0.0},
};

// Bytes of the first tensor of a shapes text ("\"256,512\"", "\"4,256,1024;...\"") in FLOAT16.
double outputBytes(const std::string& shapes)
{
    double n = 1;
    bool any = false;
    std::int64_t cur = -1;
    for (char c : shapes) {
        if (c >= '0' && c <= '9') {
            cur = (cur < 0 ? 0 : cur * 10) + (c - '0');
            continue;
        }
        if (cur >= 0) {
            n *= static_cast<double>(cur);
            any = true;
            cur = -1;
        }
        if (c == ';')
            break;
    }
    if (cur >= 0) {
        n *= static_cast<double>(cur);
        any = true;
    }
    return any ? n * 2.0 : 512.0;
}

// The caching allocator's block: the request plus 32 bytes, up to a multiple of 512.
double blockBytes(double request) { return std::ceil((request + 32.0) / 512.0) * 512.0; }

} // namespace

MemoryWriter::MemoryWriter(const Scenario& sc, RankLayout layout) : m_sc(sc), m_l(std::move(layout))
{
    m_leak = leaks(m_sc.name);
    m_text = !m_l.discardText;
    m_reserved = std::ceil((kWeightsBytes + kSegment) / kSegment) * kSegment;
    m_streamPtr = 187650189463552LL + 4096LL * m_l.rank;
}

bool MemoryWriter::open(std::string& error)
{
    if (!m_text)
        return true;
    const std::string dir = m_l.outputDir + "/";
    if (!m_opMem.open(dir + "operator_memory.csv") || !m_record.open(dir + "memory_record.csv")
        || !m_module.open(dir + "npu_module_mem.csv")) {
        error = "cannot write the memory files in " + m_l.outputDir;
        return false;
    }
    m_opMem.str(kOpMemoryHeader);
    m_record.str(kRecordHeader);
    m_module.str(kModuleHeader);
    return true;
}

void MemoryWriter::writeRecord(const Record& r)
{
    if (m_keepDb)
        m_records.push_back(r);
    if (!m_text)
        return;
    m_record.str(r.component).ch(',').us3(r.ts).str("\t,");
    if (r.allocated >= 0)
        m_record.shortest(r.allocated / kMiB);
    m_record.ch(',');
    if (r.reserved >= 0)
        m_record.shortest(r.reserved / kMiB);
    m_record.ch(',');
    if (r.active >= 0)
        m_record.shortest(r.active / kMiB);
    m_record.ch(',');
    if (r.stream)
        m_record.i64(m_streamPtr);
    m_record.str(",NPU:").i64(m_l.device).str("\r\n"); // torch_npu's csv module: CRLF
}

void MemoryWriter::record(const std::string& component, std::int64_t ts, double allocated, double reserved,
                          double active, bool stream)
{
    writeRecord(Record{component, ts, allocated, reserved, active, stream});
}

void MemoryWriter::appSamples(std::int64_t from, std::int64_t to)
{
    if (m_nextApp < 0)
        m_nextApp = from;
    for (; m_nextApp < to; m_nextApp += kAppPeriodNs) {
        record("APP", m_nextApp, -1, m_reserved + kGeReserved + kAppOverhead, -1, false);
        for (const auto& [module, mb] : kModules) {
            if (m_keepDb)
                m_modules.push_back(ModuleSample{module, m_nextApp, mb * kMiB});
            if (m_text)
                m_module.str(module).ch(',').us3(m_nextApp).str("\t,").shortest(mb).str(",NPU:").i64(m_l.device).ch('\n');
        }
    }
}

void MemoryWriter::writeStep(const StepPlan& plan, const RankStep& rs)
{
    if (!m_started) {
        m_started = true;
        record("GE", plan.start, kGeAllocated, kGeReserved, -1, false);
        record("PTA", plan.start, m_allocated, m_reserved, m_allocated, true);
        record("PTA+GE", plan.start, m_allocated + kGeAllocated, m_reserved + kGeReserved, m_allocated + kGeAllocated,
               true);
    }
    // This step's allocations: each compute op's output, freed when the next op's Python call
    // ends; a layer's first output lives to the end of the layer.
    std::vector<std::size_t> compute;
    for (std::size_t i = 0; i < rs.tasks.size(); ++i)
        if (m_sc.ops[static_cast<std::size_t>(rs.tasks[i].op)].core != Core::Comm)
            compute.push_back(i);
    const std::int64_t stepEnd = std::max(plan.end, rs.syncStart + rs.syncDur);
    std::vector<Alloc> allocs;
    for (std::size_t k = 0; k < compute.size(); ++k) {
        const Task& t = rs.tasks[compute[k]];
        const OpKind& op = m_sc.ops[static_cast<std::size_t>(t.op)];
        Alloc a;
        a.name = op.aten;
        a.bytes = blockBytes(outputBytes(op.outShapes));
        a.at = t.pyStart + std::max<std::int64_t>(1, t.pyDur / 3);
        const bool layerInput = k == 0 || rs.tasks[compute[k - 1]].layer != t.layer;
        std::int64_t release = stepEnd - 1000;
        if (layerInput) {
            for (std::size_t j = k + 1; j < compute.size() && rs.tasks[compute[j]].layer == t.layer; ++j)
                release = rs.tasks[compute[j]].pyStart + rs.tasks[compute[j]].pyDur;
        } else if (k + 1 < compute.size()) {
            const Task& next = rs.tasks[compute[k + 1]];
            release = next.pyStart + next.pyDur;
        }
        a.release = std::max(release, a.at + 1000);
        allocs.push_back(a);
    }
    if (m_leak && !compute.empty()) {
        const Task& last = rs.tasks[compute.back()];
        Alloc a;
        a.name = "aten::clone";
        a.bytes = blockBytes(kLeakBytes);
        a.at = last.pyStart + std::max<std::int64_t>(2, last.pyDur / 2);
        a.release = -1;
        allocs.push_back(a);
    }
    std::stable_sort(allocs.begin(), allocs.end(), [](const Alloc& x, const Alloc& y) { return x.at < y.at; });
    // Replay the events in time order (frees first on a tie) for the totals after each.
    struct Event {
        std::int64_t ts;
        bool free;
        std::size_t alloc;
    };
    std::vector<Event> events;
    for (std::size_t i = 0; i < allocs.size(); ++i) {
        events.push_back({allocs[i].at, false, i});
        if (allocs[i].release >= 0)
            events.push_back({allocs[i].release, true, i});
    }
    std::stable_sort(events.begin(), events.end(), [](const Event& x, const Event& y) {
        return x.ts != y.ts ? x.ts < y.ts : x.free > y.free;
    });
    for (const Event& e : events) {
        appSamples(plan.start, e.ts);
        Alloc& a = allocs[e.alloc];
        if (e.free) {
            m_allocated -= a.bytes;
            a.rAlloc = m_allocated;
            a.rRes = m_reserved;
        } else {
            m_allocated += a.bytes;
            if (m_allocated > m_reserved)
                m_reserved += std::ceil((m_allocated - m_reserved) / kSegment) * kSegment;
            a.aAlloc = m_allocated;
            a.aRes = m_reserved;
        }
        record("PTA", e.ts, m_allocated, m_reserved, m_allocated, true);
        record("PTA+GE", e.ts, m_allocated + kGeAllocated, m_reserved + kGeReserved, m_allocated + kGeAllocated, true);
    }
    appSamples(plan.start, stepEnd);
    for (const Alloc& a : allocs) {
        if (m_keepDb)
            m_allocs.push_back(a);
        if (!m_text)
            continue;
        m_opMem.str(a.name).ch(',').shortest(a.bytes / 1024.0).ch(',').us3(a.at).str("\t,");
        if (a.release >= 0) {
            m_opMem.us3(a.release).str("\t,").us3(a.release - kActiveEarlyNs).str("\t,").us3(a.release - a.at)
                .str("\t,").us3(a.release - kActiveEarlyNs - a.at).str("\t,");
        } else {
            m_opMem.str(",,,,");
        }
        m_opMem.shortest(a.aAlloc / kMiB).ch(',').shortest(a.aRes / kMiB).ch(',').shortest(a.aAlloc / kMiB).ch(',');
        if (a.release >= 0)
            m_opMem.shortest(a.rAlloc / kMiB).ch(',').shortest(a.rRes / kMiB).ch(',').shortest(a.rAlloc / kMiB).ch(',');
        else
            m_opMem.str(",,,");
        m_opMem.i64(m_streamPtr).str(",NPU:").i64(m_l.device).str("\r\n");
    }
}

bool MemoryWriter::finish(std::string& error)
{
    if (!m_text)
        return true;
    bool ok = true;
    for (auto* f : {&m_opMem, &m_record, &m_module}) {
        const std::string path = f->path();
        m_bytes += f->bytes();
        if (!f->close()) {
            error = "write failed: " + path;
            ok = false;
        }
    }
    return ok;
}

bool MemoryWriter::writeDb(const std::string& dbPath, std::string& error)
{
    std::error_code ec;
    const auto before = std::filesystem::file_size(dbPath, ec);
    auto db = db::Writer::openExisting(dbPath, &error);
    if (!db)
        return false;
    bool ok = db->exec("PRAGMA journal_mode=OFF") && db->exec("PRAGMA synchronous=OFF") && db->exec("BEGIN")
              && db->exec("CREATE TABLE OP_MEMORY (name INTEGER, size INTEGER, allocationTime INTEGER, releaseTime "
                          "INTEGER, activeReleaseTime INTEGER, duration INTEGER, activeDuration INTEGER, "
                          "allocationTotalAllocated INTEGER, allocationTotalReserved INTEGER, allocationTotalActive "
                          "INTEGER, releaseTotalAllocated INTEGER, releaseTotalReserved INTEGER, releaseTotalActive "
                          "INTEGER, streamPtr INTEGER, deviceId INTEGER)")
              && db->exec("CREATE TABLE MEMORY_RECORD (component INTEGER, timestamp INTEGER, totalAllocated INTEGER, "
                          "totalReserved INTEGER, totalActive INTEGER, streamPtr INTEGER, deviceId INTEGER)")
              && db->exec("CREATE TABLE NPU_MODULE_MEM (moduleId INTEGER,timestampNs INTEGER,totalReserved NUMERIC,"
                          "deviceId INTEGER)")
              && db->exec("CREATE TABLE IF NOT EXISTS ENUM_MODULE (id INTEGER PRIMARY KEY,name TEXT)");
    auto str = db->prepare("INSERT INTO STRING_IDS VALUES (?,?)");
    auto op = db->prepare("INSERT INTO OP_MEMORY VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    auto rec = db->prepare("INSERT INTO MEMORY_RECORD VALUES (?,?,?,?,?,?,?)");
    auto mod = db->prepare("INSERT INTO NPU_MODULE_MEM VALUES (?,?,?,?)");
    auto en = db->prepare("INSERT INTO ENUM_MODULE VALUES (?,?)");
    ok = ok && str.valid() && op.valid() && rec.valid() && mod.valid() && en.valid();
    // Memory strings take ids from 2^29 (FORMATS-DB.md §2).
    std::map<std::string, std::int64_t> ids;
    auto sid = [&](const std::string& s) {
        auto [it, fresh] = ids.try_emplace(s, (1LL << 29) + static_cast<std::int64_t>(ids.size()));
        if (fresh)
            ok = ok && str.i64(1, it->second).text(2, s).run();
        return it->second;
    };
    auto bytes = [](double b) { return static_cast<std::int64_t>(std::llround(b)); };
    for (const Alloc& a : m_allocs) {
        if (!ok)
            break;
        op.i64(1, sid(a.name)).i64(2, bytes(a.bytes)).i64(3, a.at);
        if (a.release >= 0)
            op.i64(4, a.release).i64(5, a.release - kActiveEarlyNs).i64(6, a.release - a.at)
                .i64(7, a.release - kActiveEarlyNs - a.at);
        else
            op.null(4).null(5).null(6).null(7);
        op.i64(8, bytes(a.aAlloc)).i64(9, bytes(a.aRes)).i64(10, bytes(a.aAlloc));
        if (a.release >= 0)
            op.i64(11, bytes(a.rAlloc)).i64(12, bytes(a.rRes)).i64(13, bytes(a.rAlloc));
        else
            op.null(11).null(12).null(13);
        ok = op.i64(14, m_streamPtr).i64(15, m_l.device).run();
    }
    for (const Record& r : m_records) {
        if (!ok)
            break;
        rec.i64(1, sid(r.component)).i64(2, r.ts);
        r.allocated >= 0 ? rec.i64(3, bytes(r.allocated)) : rec.null(3);
        r.reserved >= 0 ? rec.i64(4, bytes(r.reserved)) : rec.null(4);
        r.active >= 0 ? rec.i64(5, bytes(r.active)) : rec.null(5);
        r.stream ? rec.i64(6, m_streamPtr) : rec.null(6);
        ok = rec.i64(7, m_l.device).run();
    }
    std::map<std::string, std::int64_t> moduleIds;
    for (const auto& [name, mb] : kModules) {
        const auto id = static_cast<std::int64_t>(moduleIds.size());
        moduleIds[name] = id;
        ok = ok && en.i64(1, id).text(2, name).run();
    }
    for (const ModuleSample& s : m_modules) {
        if (!ok)
            break;
        ok = mod.i64(1, moduleIds[s.module]).i64(2, s.ts).real(3, s.reserved).i64(4, m_l.device).run();
    }
    str = db::Writer::Insert();
    op = db::Writer::Insert();
    rec = db::Writer::Insert();
    mod = db::Writer::Insert();
    en = db::Writer::Insert();
    ok = ok && db->exec("COMMIT") && db->close();
    if (!ok) {
        error = db->error().empty() ? dbPath + ": write failed" : db->error();
        return false;
    }
    const auto after = std::filesystem::file_size(dbPath, ec);
    if (!ec && after > before)
        m_bytes += after - before;
    return true;
}

} // namespace npuscope::synth
