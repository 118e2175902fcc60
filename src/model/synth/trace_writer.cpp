#include "model/synth/trace_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace npuscope::synth {

TraceWriter::TraceWriter(bool msprof, bool compact, int level, Ids ids, std::vector<int> streams, int planes)
    : m_msprof(msprof), m_style(msprof || compact ? JsonStyle::compact() : JsonStyle::python()), m_level(level),
      m_ids(ids), m_streams(std::move(streams)), m_planes(planes)
{
    std::sort(m_streams.begin(), m_streams.end());
}

bool TraceWriter::open(const std::string& path, std::string& error)
{
    m_path = path;
    const bool discard = path == "/dev/null";
    auto side = [&](Block& b, const char* name) {
        b.path = discard ? path : path + ".part-" + name;
        if (!b.file.open(b.path)) {
            error = "cannot write " + b.path;
            return false;
        }
        return true;
    };
    if (!m_main.file.open(path)) {
        error = "cannot write " + path;
        return false;
    }
    m_main.path = path;
    if (!m_msprof
        && (!side(m_enqueue, "enqueue") || !side(m_dequeue, "dequeue") || !side(m_pyFunc, "python")
            || !side(m_timeline, "timeline") || !side(m_torchToNpu, "torch_to_npu")))
        return false;
    if (!m_msprof && m_flowOrder != FlowOrder::Time && !side(m_torchToNpuEnds, "torch_to_npu_ends"))
        return false;
    if (!m_msprof && m_processOrdered) {
        // the order of a process-ordered export: the device first, the host API after it
        for (const std::int64_t pid : {m_ids.hwPid, m_ids.cannPid, m_ids.commPid, m_ids.ovPid, m_ids.hbmPid,
                                       m_ids.freqPid}) {
            auto& [key, b] = m_processes.emplace_back(pid, std::make_unique<Block>());
            if (!side(*b, ("p" + std::to_string(key)).c_str()))
                return false;
        }
    }
    m_step.openMemory();
    m_main.file.ch('[');
    if (m_msprof)
        writeCannMeta(m_main);
    return true;
}

std::uint64_t TraceWriter::bytes() const
{
    if (m_joinedBytes)
        return m_joinedBytes;
    std::uint64_t n = m_main.file.bytes() + m_enqueue.file.bytes() + m_dequeue.file.bytes() + m_pyFunc.file.bytes()
                      + m_timeline.file.bytes() + m_torchToNpu.file.bytes() + m_torchToNpuEnds.file.bytes()
                      + m_step.bytes();
    for (const auto& [pid, b] : m_processes)
        n += b->file.bytes();
    return n;
}

TraceWriter::Block& TraceWriter::processBlock(std::int64_t pid)
{
    for (auto& [key, b] : m_processes)
        if (key == pid)
            return *b;
    return m_timeline; // a process of no block of its own goes after the known ones
}

OutFile& TraceWriter::begin(Block& b)
{
    if (b.events++)
        b.file.str(m_style.item);
    return b.file;
}

OutFile& TraceWriter::beginTimeline(std::int64_t ts, std::int64_t pid, Flow flow)
{
    if (!m_pending.empty())
        m_pending.back().end = m_step.bytes();
    const double us = static_cast<double>(ts / 1000) + static_cast<double>(ts % 1000) / 1000.0;
    m_pending.push_back({us, m_step.bytes(), 0, pid, flow});
    return m_step;
}

void TraceWriter::writeDur(OutFile& f, const Dur& d)
{
    switch (m_msprof ? Dur::Kind::Exact : d.kind) {
    case Dur::Kind::Exact:
        f.usTrim(d.ns);
        break;
    case Dur::Kind::Scaled:
        f.shortest(static_cast<double>(d.ns) * 0.001);
        break;
    case Dur::Kind::Clock:
        f.shortest(static_cast<double>(d.ns * 32 + d.clock32) / 32000.0);
        break;
    }
}

void TraceWriter::cpuOp(std::string_view name, std::int64_t ts, std::int64_t dur, const ArgsFn& args)
{
    OutFile& f = begin(m_main);
    JsonObj o(f, m_style);
    o.str("ph", "X").str("name", name).i64("pid", m_ids.pyPid).i64("tid", m_ids.mainTid).ts("ts", ts);
    o.key("dur").usTrim(dur);
    o.str("cat", "cpu_op");
    JsonObj a(o.key("args"), m_style);
    args(a);
    a.end();
    o.end();
}

void TraceWriter::enqueue(std::int64_t ts, std::int64_t dur, std::uint64_t correlation)
{
    {
        JsonObj o(begin(m_enqueue), m_style);
        o.str("ph", "X").str("name", "Enqueue").i64("pid", m_ids.pyPid).i64("tid", m_ids.mainTid).ts("ts", ts);
        o.key("dur").usTrim(dur);
        o.str("cat", "enqueue");
        JsonObj a(o.key("args"), m_style);
        a.u64("correlation_id", correlation).end();
        o.end();
    }
    JsonObj s(begin(m_enqueue), m_style);
    s.str("ph", "s").str("bp", "e").str("name", "enqueue_to_dequeue").u64("id", correlation);
    s.i64("pid", m_ids.pyPid).i64("tid", m_ids.mainTid).ts("ts", ts).str("cat", "async_task_queue").end();
}

void TraceWriter::dequeue(std::string_view what, std::int64_t ts, std::int64_t dur, std::uint64_t correlation)
{
    {
        JsonObj o(begin(m_dequeue), m_style);
        o.str("ph", "X").key("name").str("\"Dequeue@").str(what).ch('"');
        o.i64("pid", m_ids.pyPid).i64("tid", m_ids.dequeueTid).ts("ts", ts);
        o.key("dur").usTrim(dur);
        o.str("cat", "dequeue");
        JsonObj a(o.key("args"), m_style);
        a.u64("correlation_id", correlation).end();
        o.end();
    }
    JsonObj f(begin(m_dequeue), m_style);
    f.str("ph", "f").str("bp", "e").str("name", "enqueue_to_dequeue").u64("id", correlation);
    f.i64("pid", m_ids.pyPid).i64("tid", m_ids.dequeueTid).ts("ts", ts).str("cat", "async_task_queue").end();
}

void TraceWriter::pyFunction(std::string_view name, std::int64_t ts, std::int64_t dur, std::int64_t id,
                             std::int64_t parent)
{
    JsonObj o(begin(m_pyFunc), m_style);
    o.str("ph", "X").str("name", name).i64("pid", m_ids.pyPid).i64("tid", m_ids.mainTid).ts("ts", ts);
    o.key("dur").usTrim(dur);
    o.str("cat", "python_function");
    JsonObj a(o.key("args"), m_style);
    a.i64("Python id", id).i64("Python parent id", parent).end();
    o.end();
}

void TraceWriter::deviceX(std::int64_t pid, std::int64_t tid, std::string_view name, std::int64_t ts, const Dur& dur,
                          const ArgsFn& args)
{
    OutFile& f = beginTimeline(ts, pid);
    JsonObj o(f, m_style);
    if (m_msprof) {
        JsonObj a(o.key("args"), m_style);
        args(a);
        a.end();
        writeDur(o.key("dur"), dur);
        o.str("name", name).str("ph", "X").i64("pid", pid).i64("tid", tid).ts("ts", ts).end();
        return;
    }
    o.str("name", name).i64("pid", pid).i64("tid", tid).ts("ts", ts);
    writeDur(o.key("dur"), dur);
    JsonObj a(o.key("args"), m_style);
    args(a);
    a.end();
    o.str("ph", "X").end();
}

void TraceWriter::overlapX(std::int64_t tid, std::string_view name, std::int64_t ts, std::int64_t dur)
{
    OutFile& f = beginTimeline(ts, m_ids.ovPid);
    JsonObj o(f, m_style);
    if (m_msprof) {
        o.key("args").str("{}");
        o.key("dur").usTrim(dur);
        o.str("name", name).str("ph", "X").i64("pid", m_ids.ovPid).i64("tid", tid).ts("ts", ts).end();
        return;
    }
    o.str("name", name).i64("pid", m_ids.ovPid).i64("tid", tid).ts("ts", ts);
    o.key("dur").usTrim(dur);
    o.str("ph", "X").end();
}

void TraceWriter::hostToDevice(bool start, std::string_view id, std::int64_t pid, std::int64_t tid, std::int64_t ts)
{
    OutFile& f = beginTimeline(ts, pid, start ? Flow::Start : Flow::End);
    JsonObj o(f, m_style);
    auto name = [&] { o.key("name").str("\"HostToDevice").str(id).ch('"'); };
    if (m_msprof) {
        if (!start)
            o.str("bp", "e");
        o.str("cat", "HostToDevice").str("id", id);
        name();
        o.str("ph", start ? "s" : "f").i64("pid", pid).i64("tid", tid).ts("ts", ts).end();
        return;
    }
    name();
    if (start) {
        o.str("ph", "s").str("cat", "HostToDevice").str("id", id).i64("pid", pid).i64("tid", tid).ts("ts", ts);
    } else {
        o.str("ph", "f").str("id", id).ts("ts", ts).str("cat", "HostToDevice").i64("pid", pid).i64("tid", tid);
        o.str("bp", "e");
    }
    o.end();
}

void TraceWriter::counter(std::int64_t pid, std::string_view name, std::string_view key, double value,
                          bool integral, std::int64_t ts)
{
    OutFile& f = beginTimeline(ts, pid);
    JsonObj o(f, m_style);
    auto args = [&] {
        JsonObj a(o.key("args"), m_style);
        // msprof writes whole values as integers; torch_npu keeps the float ("Read(MB/s)": 0.0)
        if (integral || (m_msprof && value == std::floor(value) && std::fabs(value) < 1e15))
            a.i64(key, static_cast<std::int64_t>(std::llround(value)));
        else if (m_msprof)
            a.key(key).fixTrim(value, 3);
        else
            a.num(key, value);
        a.end();
    };
    if (m_msprof) {
        args();
        o.str("name", name).str("ph", "C").i64("pid", pid).i64("tid", 0).ts("ts", ts).end();
        return;
    }
    o.str("name", name).ts("ts", ts).i64("pid", pid).i64("tid", 0);
    args();
    o.str("ph", "C").end();
}

void TraceWriter::endStep()
{
    if (m_pending.empty())
        return;
    m_pending.back().end = m_step.bytes();
    // The msprof timeline is sorted by ts, as a float of µs: events closer than its resolution
    // (1/4 µs at today's epoch) and events of one ts keep the order they were made in (a device
    // task, its flow end, then the Overlap Analysis slice starting with it).
    std::stable_sort(m_pending.begin(), m_pending.end(),
                     [](const Pending& a, const Pending& b) { return a.ts < b.ts; });
    if (!m_msprof && m_flowOrder != FlowOrder::Time) {
        const Flow first = m_flowOrder == FlowOrder::StartsFirst ? Flow::Start : Flow::End;
        std::stable_partition(m_pending.begin(), m_pending.end(), [first](const Pending& p) { return p.flow == first; });
    }
    const std::string_view all = m_step.view();
    for (const Pending& p : m_pending) {
        Block& b = m_msprof ? m_main : m_processOrdered ? processBlock(p.pid) : m_timeline;
        if (b.events++)
            b.file.str(m_style.item);
        b.file.str(all.substr(p.begin, p.end - p.begin));
    }
    m_pending.clear();
    m_step.clear();
}

void TraceWriter::torchToNpu(std::int64_t pyTs, std::int64_t devPid, std::int64_t devTid, std::int64_t devTs)
{
    for (int k = 0; k < 2; ++k) {
        const bool start = k == 0;
        JsonObj o(begin(start || m_flowOrder == FlowOrder::Time ? m_torchToNpu : m_torchToNpuEnds), m_style);
        o.str("ph", start ? "s" : "f").str("bp", "e").str("name", "torch_to_npu").i64("id", devTs);
        o.i64("pid", start ? m_ids.pyPid : devPid).i64("tid", start ? m_ids.mainTid : devTid);
        o.ts("ts", start ? pyTs : devTs).str("cat", "async_npu").end();
    }
}

void TraceWriter::meta(Block& b, std::int64_t pid, std::int64_t tid, std::string_view name, std::string_view key,
                       std::string_view value, bool quoted)
{
    JsonObj o(begin(b), m_style);
    auto args = [&] {
        JsonObj a(o.key("args"), m_style);
        if (quoted)
            a.str(key, value);
        else
            a.key(key).str(value);
        a.end();
    };
    if (m_msprof) {
        args();
        o.str("name", name).str("ph", "M").i64("pid", pid).i64("tid", tid).end();
    } else if (pid == m_ids.pyPid) {
        o.str("ph", "M").str("name", name).i64("pid", pid).i64("tid", tid);
        args();
        o.end();
    } else {
        o.str("name", name).i64("pid", pid).i64("tid", tid);
        args();
        o.str("ph", "M").end();
    }
}

void TraceWriter::processMeta(Block& b, std::int64_t pid, std::string_view name, std::string_view label, int sort,
                              bool named)
{
    if (named)
        meta(b, pid, 0, "process_name", "name", name, true);
    meta(b, pid, 0, "process_labels", "labels", label, true);
    meta(b, pid, 0, "process_sort_index", "sort_index", std::to_string(sort), false);
}

void TraceWriter::writeFrameworkMeta(Block& b)
{
    meta(b, m_ids.pyPid, 0, "process_name", "name", "Python", true);
    meta(b, m_ids.pyPid, 0, "process_labels", "labels", "CPU", true);
    meta(b, m_ids.pyPid, 0, "process_sort_index", "sort_index", "0", false);
    for (const std::int64_t tid : {m_ids.mainTid, m_ids.dequeueTid}) {
        meta(b, m_ids.pyPid, tid, "thread_name", "name", "Thread " + std::to_string(tid), true);
        meta(b, m_ids.pyPid, tid, "thread_sort_index", "sort_index", std::to_string(tid), false);
    }
}

void TraceWriter::writeCannMeta(Block& b)
{
    const char* const lanes[4] = {"Computing", "Communication", "Communication(Not Overlapped)", "Free"};
    auto streamThreads = [&] {
        for (const int s : m_streams) {
            meta(b, m_ids.hwPid, s, "thread_name", "name", "Stream " + std::to_string(s), true);
            meta(b, m_ids.hwPid, s, "thread_sort_index", "sort_index", std::to_string(s), false);
        }
    };
    if (m_msprof) {
        // processes with their threads, each process's facts first (msprof's order)
        const std::string npu = "NPU " + std::to_string(m_ids.hwPid & 31);
        processMeta(b, m_ids.cannPid, "CANN", "CPU", 7);
        meta(b, m_ids.cannPid, m_ids.mainTid, "thread_name", "name", "Thread " + std::to_string(m_ids.mainTid), true);
        meta(b, m_ids.cannPid, m_ids.mainTid, "thread_sort_index", "sort_index", std::to_string(m_ids.mainTid), false);
        processMeta(b, m_ids.hwPid, "Ascend Hardware", npu, 13);
        streamThreads();
        processMeta(b, m_ids.freqPid, "AI Core Freq", npu, 14);
        processMeta(b, m_ids.commPid, "Communication", npu, 15);
        meta(b, m_ids.commPid, 0, "thread_name", "name", "Group 0 Communication", true);
        meta(b, m_ids.commPid, 0, "thread_sort_index", "sort_index", "0", false);
        for (int p = 0; p < m_planes; ++p) {
            meta(b, m_ids.commPid, p + 1, "thread_name", "name", "Plane " + std::to_string(p), true);
            meta(b, m_ids.commPid, p + 1, "thread_sort_index", "sort_index", std::to_string(p + 1), false);
        }
        processMeta(b, m_ids.hbmPid, "HBM", npu, 17);
        processMeta(b, m_ids.ovPid, "Overlap Analysis", npu, 29);
        const int msprofTid[4] = {2, 0, 1, 3}; // the tid order differs between the profilers
        for (int i = 0; i < 4; ++i) {
            meta(b, m_ids.ovPid, msprofTid[i], "thread_name", "name", lanes[i], true);
            meta(b, m_ids.ovPid, msprofTid[i], "thread_sort_index", "sort_index", std::to_string(msprofTid[i]), false);
        }
        return;
    }
    // torch_npu: the order of the level samples. Each process's name, its threads, then its label
    // and sort index; Overlap Analysis names its lanes without sort indexes.
    meta(b, m_ids.hwPid, 0, "process_name", "name", "Ascend Hardware", true);
    streamThreads();
    meta(b, m_ids.hwPid, 0, "process_labels", "labels", "NPU", true);
    meta(b, m_ids.hwPid, 0, "process_sort_index", "sort_index", "13", false);
    processMeta(b, m_ids.hbmPid, "HBM", "NPU", 17);
    meta(b, m_ids.commPid, 0, "process_name", "name", "Communication", true);
    meta(b, m_ids.commPid, 0, "thread_name", "name", "Group 0 Communication", true);
    meta(b, m_ids.commPid, 0, "thread_sort_index", "sort_index", "0", false);
    for (int p = 0; p < m_planes; ++p)
        meta(b, m_ids.commPid, p + 1, "thread_name", "name", "Plane " + std::to_string(p), true);
    for (int p = 0; p < m_planes; ++p)
        meta(b, m_ids.commPid, p + 1, "thread_sort_index", "sort_index", std::to_string(p + 1), false);
    meta(b, m_ids.commPid, 0, "process_labels", "labels", "NPU", true);
    meta(b, m_ids.commPid, 0, "process_sort_index", "sort_index", "15", false);
    // Level 0 keeps no CANN slices: its process is not named, its threads still are.
    if (m_level > 0)
        meta(b, m_ids.cannPid, 0, "process_name", "name", "CANN", true);
    for (const std::int64_t tid : {m_ids.mainTid, m_ids.dequeueTid})
        meta(b, m_ids.cannPid, tid, "thread_name", "name", "Thread " + std::to_string(tid), true);
    for (const std::int64_t tid : {m_ids.mainTid, m_ids.dequeueTid})
        meta(b, m_ids.cannPid, tid, "thread_sort_index", "sort_index", std::to_string(tid), false);
    meta(b, m_ids.cannPid, 0, "process_labels", "labels", "CPU", true);
    meta(b, m_ids.cannPid, 0, "process_sort_index", "sort_index", "7", false);
    meta(b, m_ids.ovPid, 0, "process_name", "name", "Overlap Analysis", true);
    for (int i = 0; i < 4; ++i)
        meta(b, m_ids.ovPid, i, "thread_name", "name", lanes[i], true);
    meta(b, m_ids.ovPid, 0, "process_labels", "labels", "NPU", true);
    meta(b, m_ids.ovPid, 0, "process_sort_index", "sort_index", "23", false);
    processMeta(b, m_ids.freqPid, "AI Core Freq", "NPU", 14);
}

bool TraceWriter::joinBlocks(std::string& error)
{
    OutFile& out = m_main.file;
    auto append = [&](Block& b) {
        b.file.close();
        if (b.events == 0)
            return true;
        if (m_main.events++)
            out.str(m_style.item);
        if (b.path != "/dev/null" && !out.append(b.path)) {
            error = "cannot read back " + b.path;
            return false;
        }
        if (b.path == "/dev/null") // db-only export: the text is discarded, its size still counts
            m_joinedBytes += b.file.bytes();
        return true;
    };
    // the framework block
    if (!append(m_enqueue) || !append(m_dequeue))
        return false;
    writeFrameworkMeta(m_main);
    if (!append(m_pyFunc))
        return false;
    // the CANN block: a json.dump of its own, joined with a bare ","
    out.ch(',');
    m_main.events = 0;
    writeCannMeta(m_main);
    for (auto& [pid, b] : m_processes)
        if (!append(*b))
            return false;
    if (!append(m_timeline))
        return false;
    if (m_flowOrder == FlowOrder::EndsFirst)
        return append(m_torchToNpuEnds) && append(m_torchToNpu);
    return append(m_torchToNpu) && append(m_torchToNpuEnds);
}

bool TraceWriter::finish(std::string& error)
{
    endStep();
    bool ok = true;
    if (!m_msprof) {
        ok = joinBlocks(error);
        std::vector<Block*> sides{&m_enqueue, &m_dequeue, &m_pyFunc, &m_timeline, &m_torchToNpu, &m_torchToNpuEnds};
        for (auto& [pid, b] : m_processes)
            sides.push_back(b.get());
        for (Block* b : sides) {
            b->file.close();
            if (!b->path.empty() && b->path != "/dev/null")
                std::remove(b->path.c_str());
        }
    }
    m_main.file.ch(']');
    m_joinedBytes += m_main.file.bytes();
    if (!m_main.file.close() && ok) {
        error = "write failed: " + m_path;
        ok = false;
    }
    return ok;
}

} // namespace npuscope::synth
