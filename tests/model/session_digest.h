#pragma once
// A digest of every table of a session, walked here column by column through the store's public
// fields (strings by their text, numbers by their bits), without the cache's codec: a field the
// codec leaves out or gets wrong differs here even where the codec's own encoding of the two
// sessions agrees. One digest per table, so that a difference names its table.
#include "model/store/session.h"

#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace digest {

using namespace npuscope;

class Fnv {
public:
    void bytes(const void* p, std::size_t n)
    {
        const auto* c = static_cast<const unsigned char*>(p);
        for (std::size_t i = 0; i < n; ++i)
            m_h = (m_h ^ c[i]) * 1099511628211ull;
    }
    template <typename T>
    void num(T v)
    {
        bytes(&v, sizeof v);
    }
    void text(std::string_view s)
    {
        num(s.size());
        bytes(s.data(), s.size());
    }
    template <typename T>
    void opt(const std::optional<T>& v)
    {
        num(v.has_value());
        if (v)
            num(*v);
    }
    std::uint64_t value() const { return m_h; }

private:
    std::uint64_t m_h = 1469598103934665603ull;
};

inline void rankTables(const Profile& p, const std::string& prefix, std::map<std::string, std::uint64_t>& out)
{
    Fnv id;
    id.text(p.name), id.text(p.root), id.text(p.layout), id.num(p.rank), id.num(p.begin), id.num(p.end);
    for (int d : p.devices)
        id.num(d);
    out[prefix + "identity"] = id.value();

    Fnv tracks;
    for (const Track& t : p.tracks) {
        tracks.num(int(t.kind)), tracks.num(t.pid), tracks.num(t.tid), tracks.text(p.str(t.process));
        tracks.text(p.str(t.thread)), tracks.text(p.str(t.processLabel)), tracks.num(t.device), tracks.num(t.streamId);
        tracks.num(t.processSort), tracks.num(t.threadSort), tracks.num(t.sliceBegin), tracks.num(t.sliceEnd), tracks.num(t.maxDepth);
    }
    out[prefix + "tracks"] = tracks.value();

    Fnv slices;
    const SliceTable& s = p.slices;
    for (std::size_t i = 0; i < s.size(); ++i) {
        slices.num(s.start[i]), slices.num(s.dur[i]), slices.text(p.str(s.name[i])), slices.text(p.str(s.category[i]));
        slices.num(s.track[i].v), slices.num(s.taskId[i]), slices.num(s.kernel[i]), slices.num(s.depth[i]);
    }
    out[prefix + "slices"] = slices.value();

    Fnv flows;
    const FlowTable& f = p.flows;
    for (std::size_t i = 0; i < f.srcTs.size(); ++i) {
        flows.text(f.idOf(i, p.strings)), flows.text(f.nameOf(i, p.strings)), flows.text(p.str(f.category[i]));
        flows.num(f.srcTs[i]), flows.num(f.dstTs[i]), flows.num(f.srcTrack[i].v), flows.num(f.dstTrack[i].v);
        flows.num(f.srcSlice[i]), flows.num(f.dstSlice[i]);
    }
    out[prefix + "flows"] = flows.value();

    Fnv counters;
    for (const CounterSeries& c : p.counters) {
        counters.text(p.str(c.process)), counters.text(p.str(c.name)), counters.text(p.str(c.key));
        for (std::size_t i = 0; i < c.ts.size(); ++i)
            counters.num(c.ts[i]), counters.num(c.value[i]);
    }
    out[prefix + "counters"] = counters.value();

    Fnv kernels;
    const KernelTable& k = p.kernels;
    for (std::size_t i = 0; i < k.size(); ++i) {
        kernels.num(k.device[i]), kernels.num(k.step[i]), kernels.num(k.modelId[i]), kernels.num(k.streamId[i]);
        kernels.num(k.taskId[i]), kernels.num(k.contextId[i]), kernels.num(k.start[i]), kernels.num(k.dur[i]);
        kernels.num(k.wait[i]), kernels.num(k.blockDim[i]), kernels.num(k.mixBlockDim[i]), kernels.num(k.slice[i]);
        for (NameId n : {k.name[i], k.type[i], k.taskType[i], k.opState[i], k.inputShapes[i], k.inputDtypes[i],
                         k.inputFormats[i], k.outputShapes[i], k.outputDtypes[i], k.outputFormats[i]})
            kernels.text(p.str(n));
        for (const auto& m : k.metrics)
            kernels.num(m[i]);
        for (const auto& e : k.extra)
            kernels.text(p.str(e[i]));
    }
    for (const auto& n : k.metricNames)
        kernels.text(n);
    for (const auto& n : k.extraNames)
        kernels.text(n);
    out[prefix + "kernels"] = kernels.value();

    Fnv comm;
    for (const CommOp& c : p.commOps) {
        comm.text(c.step), comm.text(c.kind), comm.text(c.fullName), comm.text(c.opName), comm.text(c.group);
        comm.num(c.totalInfo), comm.opt(c.start), comm.num(c.elapseMs), comm.num(c.transitMs), comm.num(c.waitMs);
        comm.num(c.syncMs), comm.num(c.idleMs), comm.num(c.waitRatio), comm.num(c.syncRatio);
        for (const CommBandwidth& b : c.bandwidth) {
            comm.text(p.str(b.transport)), comm.num(b.sizeMB), comm.num(b.timeMs), comm.num(b.bandwidthGBps);
            comm.num(b.largePacketRatio);
            for (const SizeBucket& z : b.sizes)
                comm.text(z.sizeMB);
        }
    }
    out[prefix + "communication"] = comm.value();

    Fnv links;
    for (const CommLink& l : p.commLinks) {
        for (NameId n : {l.step, l.kind, l.fullName, l.opName, l.group, l.transport})
            links.text(p.str(n));
        links.num(l.sizeMB), links.num(l.timeMs), links.num(l.bandwidthGBps);
    }
    out[prefix + "communication_matrix"] = links.value();

    Fnv steps;
    for (const StepRow& r : p.steps) {
        steps.text(r.step), steps.num(r.device), steps.text(r.type), steps.text(r.index);
        for (const auto& v : {r.computing, r.commNotOverlapped, r.overlapped, r.communication, r.free, r.stage, r.bubble,
                              r.commNotOverlappedExclReceive, r.preparing})
            steps.opt(v);
    }
    out[prefix + "steps"] = steps.value();

    Fnv stats;
    for (const StatRow& r : p.stats) {
        stats.num(r.device), stats.text(r.kind), stats.text(p.str(r.name)), stats.text(p.str(r.coreType));
        stats.num(r.count), stats.num(r.total), stats.num(r.min), stats.num(r.avg), stats.num(r.max);
        stats.num(r.ratio), stats.num(r.variance);
    }
    out[prefix + "statistics"] = stats.value();

    Fnv l2;
    for (const L2Row& r : p.l2)
        l2.num(r.device), l2.num(r.streamId), l2.num(r.taskId), l2.num(r.hitRate), l2.num(r.victimRate), l2.text(p.str(r.opName));
    out[prefix + "l2_cache"] = l2.value();

    Fnv memory;
    for (const OpAllocation& a : p.opMemory) {
        memory.text(p.str(a.name)), memory.num(a.bytes), memory.num(a.allocAt), memory.opt(a.releaseAt);
        memory.opt(a.activeReleaseAt), memory.opt(a.duration), memory.num(a.allocTotalAllocated);
        memory.num(a.allocTotalReserved), memory.num(a.allocTotalActive), memory.num(a.releaseTotalAllocated);
        memory.num(a.releaseTotalReserved), memory.num(a.releaseTotalActive), memory.num(a.streamPtr), memory.num(a.device);
    }
    out[prefix + "operator_memory"] = memory.value();

    Fnv details;
    for (const OpDetailRow& r : p.opDetails) {
        details.text(p.str(r.name)), details.text(p.str(r.inputShapes)), details.text(p.str(r.callStack));
        for (const auto& t : {r.hostSelf, r.hostTotal, r.deviceSelf, r.deviceTotal, r.deviceSelfAiCore, r.deviceTotalAiCore})
            details.opt(t.optional());
    }
    out[prefix + "operator_details"] = details.value();

    Fnv devices;
    for (const DeviceInfo& d : p.deviceInfo)
        devices.num(d.device), devices.num(d.aiCoreNum), devices.num(d.aivNum), devices.num(d.aicFrequencyMHz),
            devices.text(d.chip), devices.num(d.hbmPeakGBps);
    out[prefix + "device_info"] = devices.value();

    Fnv meta;
    for (const auto& [key, value] : p.meta.env)
        meta.text(key), meta.text(value);
    for (const ParallelGroup& g : p.meta.groups) {
        meta.text(g.name), meta.text(g.groupName);
        for (int r : g.ranks)
            meta.num(r);
    }
    meta.text(p.meta.profilerLevel), meta.text(p.meta.exportType), meta.text(p.meta.cannVersion);
    meta.text(p.meta.torchNpuVersion), meta.text(p.meta.profilerInfo.dump()), meta.text(p.meta.profilerMetadata.dump());
    out[prefix + "metadata"] = meta.value();

    Fnv files;
    for (const FileRecord& r : p.files)
        files.text(r.path), files.num(int(r.status));
    for (const Diagnostic& d : p.diagnostics)
        files.num(int(d.severity)), files.text(d.file), files.num(d.line), files.num(d.byteOffset), files.text(d.reason),
            files.num(d.count);
    out[prefix + "files_and_diagnostics"] = files.value();
}

inline std::map<std::string, std::uint64_t> tables(const Session& s)
{
    std::map<std::string, std::uint64_t> out;
    for (std::size_t r = 0; r < s.ranks.size(); ++r)
        rankTables(*s.ranks[r], "rank " + std::to_string(r) + " ", out);
    return out;
}

} // namespace digest
