// The rank writer's tables: kernel_details/op_summary rows with the PMU columns, l2_cache and
// operator_details rows, and the op_statistic / api_statistic summaries.
#include "model/synth/rank_writer.h"

#include "model/synth/device_model.h"

#include <algorithm>
#include <cmath>

namespace npuscope::synth {

namespace {

const char* const kPmuHeader =
    "aicore_time(us),aic_total_cycles,aic_mac_time(us),aic_mac_ratio,aic_scalar_time(us),aic_scalar_ratio,"
    "aic_mte1_time(us),aic_mte1_ratio,aic_mte2_time(us),aic_mte2_ratio,aic_fixpipe_time(us),aic_fixpipe_ratio,"
    "aic_icache_miss_rate,aiv_time(us),aiv_total_cycles,aiv_vec_time(us),aiv_vec_ratio,aiv_scalar_time(us),"
    "aiv_scalar_ratio,aiv_mte2_time(us),aiv_mte2_ratio,aiv_mte3_time(us),aiv_mte3_ratio,aiv_icache_miss_rate,"
    "aic_main_mem_read_bw(GB/s),aic_main_mem_write_bw(GB/s),aiv_main_mem_read_bw(GB/s),aiv_main_mem_write_bw(GB/s),"
    "aic_write_cache_hit,aic_write_cache_miss_allocate,aic_r0_read_cache_hit,aic_r0_read_cache_miss_allocate,"
    "aic_r1_read_cache_hit,aic_r1_read_cache_miss_allocate,aiv_write_cache_hit,aiv_write_cache_miss_allocate,"
    "aiv_r0_read_cache_hit,aiv_r0_read_cache_miss_allocate,aiv_r1_read_cache_hit,aiv_r1_read_cache_miss_allocate,"
    "cube_utilization(%)";
constexpr int kPmuColumns = 41;

} // namespace

const char* RankWriter::kernelPmuHeader()
{
    return kPmuHeader;
}

void RankWriter::addApi(const std::string& level, const std::string& name, std::int64_t dur)
{
    auto& a = m_apis[{level, name}];
    if (a.count == 0 || dur < a.min)
        a.min = dur;
    a.max = std::max(a.max, dur);
    ++a.count;
    a.total += dur;
    a.sumSq += static_cast<double>(dur) * static_cast<double>(dur);
}

void RankWriter::writeKernelRow(const StepPlan& plan, const Task& t)
{
    const OpKind& op = m_sc.ops[static_cast<std::size_t>(t.op)];
    auto& f = m_kernels;
    const bool ms = m_l.msprof;
    const double durUs = static_cast<double>(t.dur) / 1000.0;
    if (!ms && m_l.level == 0) {
        // Level 0 knows a kernel's name and times only: no type, core or block dim.
        f.i64(plan.index).ch(',').str(op.name).str(",N/A,N/A,").us3(t.start).str("\t,").usTrim(t.dur).ch(',');
        f.usTrim(t.waitBefore).str(",0\r\n");
        m_totals.computeDur += durUs;
        return;
    }
    if (ms)
        f.i64(m_l.device);
    else
        f.i64(plan.index);
    f.str(",4294967295,").u64(t.taskId).ch(',').i64(t.stream).ch(',').str(op.name).ch(',').str(op.type).ch(',');
    f.str(m_sc.overlapComm ? "static" : "dynamic").ch(',').str(taskType(op.core)).ch(',').us3(t.start).str("\t,");
    if (ms)
        f.us3(t.dur).ch(',').us3(t.waitBefore).ch(',');
    else
        f.usTrim(t.dur).ch(',').usTrim(t.waitBefore).ch(',');
    f.i64(op.blockDim).ch(',').i64(op.mixBlockDim).str(",NO,");
    // torch_npu quotes the quoted shapes again ("""256,4096"""); msprof writes them once
    auto cell = [&](const std::string& v) {
        if (!ms && !v.empty() && v.front() == '"')
            f.str("\"\"").str(v).str("\"\"");
        else
            f.str(v);
        f.ch(',');
    };
    cell(op.inShapes);
    cell(op.inTypes);
    cell(op.inFormats);
    cell(op.outShapes);
    cell(op.outTypes);
    cell(op.outFormats);
    f.str(op.core == Core::MixAic ? "0," : "N/A,");

    const KernelPmu p = kernelPmu(op, t);
    // cube side
    if (p.cube) {
        f.fixTrim(p.aicTime, 3).ch(',').i64(p.aicCycles).ch(',');
        for (int i = 0; i < 5; ++i)
            f.fixTrim(p.aicPipe[i], 3).ch(',').fixTrim(p.aicRatio[i], 3).ch(',');
        f.str("0.05,");
    } else {
        f.str("0.0,0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,");
    }
    if (p.vector) {
        f.fixTrim(p.aivTime, 3).ch(',').i64(p.aivCycles).ch(',');
        for (int i = 0; i < 4; ++i)
            f.fixTrim(p.aivPipe[i], 3).ch(',').fixTrim(p.aivRatio[i], 3).ch(',');
        f.str("0.03,");
    } else {
        f.str("0.0,0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,");
    }
    const double rd = p.readGBps, wr = p.writeGBps;
    if (p.cube)
        f.fixTrim(rd, 3).ch(',').fixTrim(wr, 3).str(",0.0,0.0,");
    else
        f.str("0.0,0.0,").fixTrim(rd, 3).ch(',').fixTrim(wr, 3).ch(',');
    m_totals.gbDur += (rd + wr) * durUs;
    for (int i = 0; i < 3; ++i) {
        m_totals.l2Hit += static_cast<std::uint64_t>(p.hit[i]);
        m_totals.l2Miss += static_cast<std::uint64_t>(p.miss[i]);
    }
    auto counters = [&] {
        for (int i = 0; i < 3; ++i)
            f.i64(p.hit[i]).ch(',').i64(p.miss[i]).ch(',');
    };
    if (p.cube) {
        counters();
        f.str("0,0,0,0,0,0,");
    } else {
        f.str("0,0,0,0,0,0,");
        counters();
    }
    const double util = p.util;
    if (util == 0)
        f.ch('0');
    else
        f.fixTrim(util, 3);
    f.str(ms ? "\n" : "\r\n");
    m_totals.utilDur += util * durUs;
    m_totals.computeDur += durUs;

    auto& agg = m_ops[{op.type, taskType(op.core)}];
    if (agg.count == 0 || t.dur < agg.min)
        agg.min = t.dur;
    agg.max = std::max(agg.max, t.dur);
    ++agg.count;
    agg.total += t.dur;
}

void RankWriter::writeCommRow(const StepPlan& plan, const Task& t)
{
    const OpKind& op = m_sc.ops[static_cast<std::size_t>(t.op)];
    auto& f = m_kernels;
    const bool ms = m_l.msprof;
    if (!ms && m_l.level == 0) {
        f.i64(plan.index).ch(',').str(commOpName(t)).str(",N/A,HCCL,").us3(t.start).str("\t,").usTrim(t.dur).ch(',');
        f.usTrim(t.waitBefore).str(",0\r\n");
        return;
    }
    if (ms)
        f.i64(m_l.device);
    else
        f.i64(plan.index);
    f.str(",4294967295,N/A,N/A,").str(commOpName(t)).ch(',').str(op.type).str(",N/A,");
    f.str(ms ? "COMMUNICATION" : "HCCL").ch(',').us3(t.start).str("\t,");
    if (ms)
        f.us3(t.dur).ch(',').us3(t.waitBefore);
    else
        f.usTrim(t.dur).ch(',').usTrim(t.waitBefore);
    f.str(",0");
    for (int i = 0; i < 9 + kPmuColumns; ++i)
        f.str(",N/A");
    f.str(ms ? "\n" : "\r\n");
}

bool RankWriter::openTables(std::string& error)
{
    if (m_l.msprof)
        return true;
    const std::string l2 = m_l.discardText ? "/dev/null" : m_l.outputDir + "/l2_cache.csv";
    const std::string details = m_l.discardText ? "/dev/null" : m_l.outputDir + "/operator_details.csv";
    if (!m_l2.open(l2) || !m_opDetails.open(details)) {
        error = "cannot write in " + m_l.outputDir;
        return false;
    }
    // l2_cache=True; written with "\n" line ends like the msprof tables torch_npu copies
    m_l2.str("Stream Id,Task Id,Hit Rate,Victim Rate,Op Name\n");
    m_opDetails.str("Name,Input Shapes,Call Stack,Host Self Duration(us),Host Total Duration(us),Device Self "
                    "Duration(us),Device Total Duration(us),Device Self Duration With AICore(us),Device Total "
                    "Duration With AICore(us)\n");
    return true;
}

void RankWriter::writeL2Row(const Task& t)
{
    if (!m_l2.isOpen())
        return;
    // The A2 class reports no hit rate here ("N/A" in every row of the level samples), only
    // the victim rate; the hit rates are the L2 counters of kernel_details.
    const OpKind& op = m_sc.ops[static_cast<std::size_t>(t.op)];
    m_l2.i64(t.stream).ch(',').u64(t.taskId).str(",N/A,").fixTrim((1.0 - t.l2Hit) * 0.35, 6).ch(',').str(op.name);
    m_l2.ch('\n');
}

void RankWriter::writeOperatorDetails(const Task& t)
{
    if (!m_opDetails.isOpen())
        return;
    // One row per cpu_op in start order, quoted as Python's csv module quotes (cells holding a
    // comma, quote or line break), frames and dims joined by ";\n".
    const OpKind& op = m_sc.ops[static_cast<std::size_t>(t.op)];
    const PythonSide& py = m_py[static_cast<std::size_t>(t.op)];
    auto& f = m_opDetails;
    auto cell = [&](const std::string& v) {
        if (v.find_first_of(",\"\r\n") == std::string::npos) {
            f.str(v);
            return;
        }
        f.ch('"');
        for (const char c : v) {
            if (c == '"')
                f.ch('"');
            f.ch(c);
        }
        f.ch('"');
    };
    std::string dims = py.dims;
    for (std::size_t at = 0; (at = dims.find("\r\n", at)) != std::string::npos;)
        dims.erase(at, 1);
    f.str(op.aten).ch(',');
    cell(dims);
    f.ch(',');
    if (m_l.withStack)
        cell(joinFrames(py.stack, ";\n"));
    f.ch(',').usTrim(t.pyDur).ch(',').usTrim(t.pyDur).ch(',');
    const Dur d = deviceDur(t);
    const double devUs = static_cast<double>(d.ns * 32 + d.clock32) / 32000.0;
    const bool aiCore = op.core == Core::AiCore || op.core == Core::MixAic;
    f.shortest(devUs).ch(',').shortest(devUs).ch(',');
    if (aiCore)
        f.shortest(devUs).ch(',').shortest(devUs);
    else
        f.str("0,0");
    f.ch('\n');
}

bool RankWriter::writeStatistics(std::string& error)
{
    if (!m_l.msprof && m_l.level == 0) // op_statistic and api_statistic from level 1 on
        return true;
    // op_statistic: per OP Type and core, by total time
    const std::string opPath = m_l.msprof ? m_l.outputDir + "/op_statistic_" + m_l.ts14 + ".csv"
                                          : m_l.outputDir + "/op_statistic.csv";
    OutFile ops;
    if (!ops.open(m_l.discardText ? std::string("/dev/null") : opPath)) {
        error = "cannot write " + opPath;
        return false;
    }
    if (m_l.msprof)
        ops.str("Device_id,");
    ops.str("OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)\n");
    std::vector<std::pair<std::pair<std::string, std::string>, OpAgg>> rows(m_ops.begin(), m_ops.end());
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.total > b.second.total; });
    std::int64_t grand = 0;
    for (const auto& r : rows)
        grand += r.second.total;
    for (const auto& [key, a] : rows) {
        if (m_l.msprof)
            ops.i64(m_l.device).ch(',');
        ops.str(key.first).ch(',').str(key.second).ch(',').i64(a.count).ch(',').usTrim(a.total).ch(',').usTrim(a.min);
        ops.ch(',').fixTrim(static_cast<double>(a.total) / static_cast<double>(a.count) / 1000.0, 3).ch(',').usTrim(a.max);
        ops.ch(',').fixTrim(grand ? 100.0 * static_cast<double>(a.total) / static_cast<double>(grand) : 0, 3).ch('\n');
    }
    bool ok = ops.close();
    if (!ok)
        error = "write failed: " + opPath;
    m_bytesClosed += ops.bytes();

    if (!m_l.msprof) {
        OutFile api;
        const std::string apiPath = m_l.outputDir + "/api_statistic.csv";
        if (!api.open(m_l.discardText ? std::string("/dev/null") : apiPath)) {
            error = "cannot write " + apiPath;
            return false;
        }
        api.str("Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance\n");
        for (const auto& [key, a] : m_apis) {
            const double n = static_cast<double>(a.count);
            const double mean = static_cast<double>(a.total) / n;
            const double var = std::max(0.0, a.sumSq / n - mean * mean) / 1e6; // µs²
            api.str(key.first).ch(',').str(key.second).ch(',').usTrim(a.total).ch(',').i64(a.count).ch(',');
            api.fixTrim(mean / 1000.0, 3).ch(',').usTrim(a.min).ch(',').usTrim(a.max).ch(',').fixTrim(var, 3).ch('\n');
        }
        if (!api.close()) {
            error = "write failed: " + apiPath;
            ok = false;
        }
        m_bytesClosed += api.bytes();
    }
    return ok;
}

} // namespace npuscope::synth
