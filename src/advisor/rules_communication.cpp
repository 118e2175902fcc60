// Communication rules: exposed collectives, waiting, small packets, SDMA contention, alignment.
#include "advisor/rule_helpers.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iterator>
#include <cmath>
#include <map>

namespace npuscope::advisor {

namespace {

const char* kNeedsComm = "needs communication.json (torch_npu ASCEND_PROFILER_OUTPUT, or msprof --analyze=on for PROF_*)";

// ---- COM-EXPOSED ---------------------------------------------------------------------------
void exposed(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    const double share = c.param("exposed_share"), opExposed = c.param("op_exposed"), hide = c.param("hide");
    if (f.commOpsTl.empty() && !f.hasStepTrace)
        return out.notChecked("needs trace_view.json/msprof_*.json with communication ops, or step_trace_time.csv");
    double exposedPerStep = 0;
    TopEvidence ev;
    std::size_t critical = 0;
    std::map<std::string, double> byName;
    if (!f.commOpsTl.empty()) {
        out.inputs.push_back(f.commSource + " (" + std::to_string(f.commOpsTl.size()) + " ops) against the union of "
                             + std::to_string(f.tasks.size()) + " compute tasks");
        // The union counts time where several groups communicate at once only once.
        exposedPerStep = f.perStep(static_cast<double>(totalLength(subtractIntervals(f.commUnion, f.computeUnion))));
        for (const auto& op : f.commOpsTl) {
            const TimeNs ex = op.dur - coveredLength(f.computeUnion, op.start, op.start + op.dur);
            if (ex <= 0)
                continue;
            const double r = op.dur > 0 ? static_cast<double>(ex) / static_cast<double>(op.dur) : 0;
            const bool crit = r >= opExposed;
            critical += crit;
            std::string base = op.name.substr(0, op.name.find("__"));
            byName[base] += static_cast<double>(ex);
            ev.offer(ex, [&] {
                Evidence e;
                e.at.rank = f.rank;
                e.at.device = op.device;
                e.at.ts = op.start;
                e.at.dur = op.dur;
                e.at.op = op.name;
                e.metrics = {{"exposed", static_cast<double>(ex) / 1e3, "µs"}, {"exposed share", r * 100, "%"}};
                e.threshold = crit ? "critical: exposed/dur ≥ " + fmtRatio(opExposed) : "exposed";
                return e;
            });
        }
    } else {
        out.inputs.push_back("step_trace_time.csv: Communication(Not Overlapped)");
        exposedPerStep = f.commNotOverlapped;
    }
    const double s = f.stepTime > 0 ? exposedPerStep / f.stepTime : 0;
    if (s < share)
        return out.pass("exposed communication " + fmtMs(exposedPerStep) + "/step = " + fmtPct(s) + " of step (threshold "
                        + fmtPct(share) + ")");
    Finding& fd = out.fire("critical-path");
    fd.costNs = roundNs(exposedPerStep);
    std::string top;
    double topNs = 0;
    for (const auto& [n, v] : byName)
        if (v > topNs) {
            topNs = v;
            top = n;
        }
    fd.title = "Communication on the critical path: " + fmtMs(exposedPerStep) + "/step not overlapped (" + fmtPct(s)
               + " of step)" + (top.empty() ? std::string() : ", mostly " + top);
    fd.description = "Collectives run while no computation does for " + fmtMs(exposedPerStep) + " per step (" + fmtPct(s)
                     + ", threshold " + fmtPct(share) + ")"
                     + (ev.offered() == 0 ? std::string(" (from step_trace_time.csv)")
                                   : "; " + std::to_string(critical) + " of " + std::to_string(f.commOpsTl.size())
                                         + " ops are at least " + fmtPct(opExposed) + " exposed (critical)")
                     + ". The step waits for the network.";
    fd.suggestions.push_back("Issue collectives asynchronously (dist.all_reduce(..., async_op=True)) and call wait() just "
                             "before the result is used, so computation overlaps them.");
    fd.suggestions.push_back("With DDP, tune bucketing (bucket_cap_mb) so gradient all-reduces start during backward.");
    fd.suggestions.push_back("Otherwise communicate less often: gradient accumulation, a bigger batch, or compression.");
    setGain(fd, exposedPerStep * hide,
            "Σexposed " + fmtMs(exposedPerStep) + " × hide " + fmtRatio(hide) + " = " + fmtMs(exposedPerStep * hide));
    ev.moveInto(fd.evidence);
    fd.scope.steps = "all " + std::to_string(f.nSteps) + " steps (aggregate)";
}

// ---- COM-WAIT ------------------------------------------------------------------------------
void wait(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    if (!f.hasComm)
        return out.notChecked(kNeedsComm);
    const double ratio = c.param("wait_ratio");
    double waitMs = 0, slackMs = 0;
    bool cluster = false;
    std::vector<Evidence> ev;
    std::size_t n = 0, flagged = 0;
    for (const auto& op : f.p.commOps) {
        if (op.totalInfo)
            continue;
        ++n;
        if (!(op.waitRatio >= ratio) || isMissing(op.waitMs))
            continue;
        ++flagged;
        waitMs += op.waitMs;
        // The least any rank waited in the same op: the rest is waiting for a late peer.
        double minWait = op.waitMs;
        bool seen = false;
        for (const auto& other : c.all) {
            if (&other == &f)
                continue;
            for (const auto& o : other.p.commOps)
                if (!o.totalInfo && o.step == op.step && o.fullName == op.fullName && !isMissing(o.waitMs)) {
                    minWait = std::min(minWait, o.waitMs);
                    seen = true;
                }
        }
        for (const auto& o : c.session.cluster.comm)
            if (o.step == op.step && o.fullName == op.fullName && !isMissing(o.waitMs)) {
                minWait = std::min(minWait, o.waitMs);
                seen = true;
            }
        cluster = cluster || seen;
        slackMs += op.waitMs - minWait;
        Evidence e;
        e.at.rank = f.rank;
        if (op.start)
            e.at.ts = *op.start;
        if (!isMissing(op.elapseMs))
            e.at.dur = roundNs(op.elapseMs * 1e6);
        e.at.op = op.opName;
        e.at.row = "communication.json " + op.step + " " + op.fullName;
        e.metrics = {{"wait", op.waitMs, "ms"}, {"transit", op.transitMs, "ms"}, {"wait ratio", op.waitRatio, ""}};
        e.threshold = "wait ratio ≥ " + fmtRatio(ratio);
        e.cost = roundNs(op.waitMs * 1e6);
        ev.push_back(std::move(e));
    }
    out.inputs.push_back("communication.json: Wait Time Ratio (" + std::to_string(n) + " ops)");
    const double perStep = f.perStep(waitMs * 1e6);
    if (flagged == 0 || perStep < c.th.minShare() * f.stepTime)
        return out.pass(std::to_string(flagged) + " of " + std::to_string(n) + " ops with wait ratio ≥ " + fmtRatio(ratio)
                        + ", waiting " + fmtMs(perStep) + "/step (threshold " + fmtPct(c.th.minShare()) + " of step)");
    Finding& fd = out.fire("wait");
    fd.costNs = roundNs(perStep);
    fd.title = "Collectives wait for peers: " + std::to_string(flagged) + " ops with wait ratio ≥ " + fmtRatio(ratio) + ", "
               + fmtMs(perStep) + "/step";
    fd.description = "In " + std::to_string(flagged) + " communication ops this rank spent at least " + fmtPct(ratio)
                     + " of the op waiting (wait/(wait+transit)) before data moved: a peer arrives late.";
    fd.suggestions.push_back("Find the late rank (CLU-SLOWRANK) and balance the load across ranks.");
    fd.suggestions.push_back("Look for host jitter (data loading, GC, Python) on the rank that arrives last.");
    if (cluster)
        setGain(fd, f.perStep(slackMs * 1e6), "Σ(wait − min wait over ranks) = " + fmtMs(f.perStep(slackMs * 1e6)));
    else
        noGain(fd, "needs the other ranks' communication.json to know the unavoidable wait");
    fd.evidence = std::move(ev);
    sortEvidence(fd.evidence, kMaxEvidence);
}

// ---- COM-PACKET ----------------------------------------------------------------------------
void packet(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    if (!f.hasComm)
        return out.notChecked(kNeedsComm);
    const double ratio = c.param("ratio");
    std::string checkText;
    for (const char* transport : {"SDMA", "RDMA"}) {
        const double limitMB = std::string(transport) == "SDMA" ? c.param("sdma_mb") : c.param("rdma_mb");
        double nSmall = 0, nAll = 0, tSmall = 0, sSmall = 0, tLarge = 0, sLarge = 0;
        for (const auto& op : f.p.commOps) {
            if (op.totalInfo)
                continue;
            for (const auto& b : op.bandwidth) {
                if (f.p.str(b.transport) != transport)
                    continue;
                if (!b.sizes.empty()) {
                    for (const auto& sz : b.sizes) {
                        const double mb = std::strtod(sz.sizeMB.c_str(), nullptr);
                        nAll += sz.count;
                        if (mb < limitMB) {
                            nSmall += sz.count;
                            tSmall += sz.timeMs;
                            sSmall += mb * sz.count;
                        } else {
                            tLarge += sz.timeMs;
                            sLarge += mb * sz.count;
                        }
                    }
                } else if (!isMissing(b.sizeMB) && b.sizeMB > 0) {
                    nAll += 1;
                    if (b.sizeMB < limitMB) {
                        nSmall += 1;
                        tSmall += b.timeMs;
                        sSmall += b.sizeMB;
                    } else {
                        tLarge += b.timeMs;
                        sLarge += b.sizeMB;
                    }
                }
            }
        }
        const double r = nAll > 0 ? nSmall / nAll : 0;
        checkText += std::string(checkText.empty() ? "" : "; ") + transport + " small packets " + fmtPct(r) + " of "
                     + fmtNum(nAll, 0);
        if (nAll == 0 || r <= ratio)
            continue;
        Finding& fd = out.fire(transport);
        fd.costNs = roundNs(f.perStep(tSmall * 1e6));
        fd.title = std::string(transport) + " packets too small: " + fmtPct(r) + " under " + fmtNum(limitMB, 0) + " MB";
        fd.description = fmtNum(nSmall, 0) + " of " + fmtNum(nAll, 0) + " " + transport + " transfers are smaller than "
                         + fmtNum(limitMB, 0) + " MB (threshold " + fmtPct(ratio)
                         + "); small transfers do not reach the link bandwidth.";
        fd.suggestions.push_back("Communicate bigger chunks: a bigger batch or gradient accumulation.");
        fd.suggestions.push_back("With ZeRO, try stage 2 or 1 instead of 3 (fewer, larger collectives).");
        fd.suggestions.push_back("Use a fused optimizer so parameters are reduced in one buffer.");
        if (sLarge > 0 && tLarge > 0) {
            const double bw = sLarge / tLarge; // MB/ms
            const double g = f.perStep((tSmall - sSmall / bw) * 1e6);
            setGain(fd, g, "T_small " + fmtMs(f.perStep(tSmall * 1e6)) + " − S_small/BW_large (" + fmtNum(bw, 1)
                               + " GB/s) = " + fmtMs(g));
        } else {
            noGain(fd, "no large packets to take the bandwidth from");
        }
        Evidence e;
        e.at.rank = f.rank;
        e.at.row = std::string("communication.json ") + transport + " Size Distribution";
        e.metrics = {{"small packets", nSmall, ""}, {"all packets", nAll, ""}, {"small share", r * 100, "%"}};
        e.threshold = "share > " + fmtPct(ratio);
        e.cost = fd.costNs;
        fd.evidence.push_back(std::move(e));
    }
    out.inputs.push_back("communication.json: Communication Bandwidth Info, Size Distribution");
    if (out.fired.empty())
        out.pass(checkText + " (threshold " + fmtPct(ratio) + ")");
}

// ---- COM-CONTENTION ------------------------------------------------------------------------
void contention(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    if (!f.hasComm)
        return out.notChecked(kNeedsComm);
    if (!f.hasKernels && f.tasks.empty())
        return out.notChecked("needs " + f.kernelFile() + " (MatMul tasks)");
    const double base = c.param("sdma_baseline_gbps"), ratio = c.param("ratio");
    std::vector<Interval> mm;
    for (const auto& t : f.tasks)
        if (t.cls == TaskClass::Cube && containsCI(f.p.str(t.type), "matmul"))
            mm.push_back({t.start, t.end()});
    const IntervalSet mmU = uniteIntervals(std::move(mm));
    double lost = 0;
    std::size_t n = 0;
    std::vector<Evidence> ev;
    for (const auto& op : f.p.commOps) {
        if (op.totalInfo || !op.start || isMissing(op.elapseMs))
            continue;
        for (const auto& b : op.bandwidth) {
            if (f.p.str(b.transport) != "SDMA" || !(b.sizeMB > 0) || !(b.timeMs > 0))
                continue;
            ++n;
            const double bw = !isMissing(b.bandwidthGBps) ? b.bandwidthGBps : b.sizeMB / b.timeMs;
            const TimeNs s = *op.start, e = s + roundNs(op.elapseMs * 1e6);
            if (bw >= ratio * base || coveredLength(mmU, s, e) <= 0)
                continue;
            const double l = b.timeMs - b.sizeMB / base;
            if (l <= 0)
                continue;
            lost += l;
            Evidence x;
            x.at.rank = f.rank;
            x.at.ts = s;
            x.at.dur = e - s;
            x.at.op = op.opName;
            x.metrics = {{"SDMA bandwidth", bw, "GB/s"}, {"size", b.sizeMB, "MB"}};
            x.threshold = "bw < " + fmtNum(ratio * base, 1) + " GB/s while a MatMul runs";
            x.cost = roundNs(l * 1e6);
            ev.push_back(std::move(x));
        }
    }
    out.inputs.push_back("communication.json SDMA bandwidth (" + std::to_string(n) + " ops); MatMul tasks from "
                         + (f.tasksFromKernels ? f.kernelFile() : std::string("timeline")));
    if (ev.empty())
        return out.pass(std::to_string(n) + " SDMA ops; none below " + fmtNum(ratio * base, 1) + " GB/s while a MatMul runs");
    Finding& fd = out.fire("SDMA-MatMul");
    fd.costNs = roundNs(f.perStep(lost * 1e6));
    fd.title = "SDMA slowed by concurrent MatMul: " + std::to_string(ev.size()) + " ops below " + fmtNum(ratio * base, 1) + " GB/s";
    fd.description = std::to_string(ev.size()) + " SDMA transfers overlapping a MatMul ran below " + fmtPct(ratio)
                     + " of the " + fmtNum(base, 0) + " GB/s baseline: compute and communication compete for memory bandwidth.";
    fd.suggestions.push_back("Compare a run with communication overlap switched off.");
    fd.suggestions.push_back("Reschedule: move the collective away from the heaviest MatMuls.");
    setGain(fd, f.perStep(lost * 1e6), "Σ(t − size/" + fmtNum(base, 0) + " GB/s) = " + fmtMs(f.perStep(lost * 1e6)));
    fd.evidence = std::move(ev);
    sortEvidence(fd.evidence, kMaxEvidence);
}

// ---- COM-ALIGN -----------------------------------------------------------------------------
void align(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    const Profile& p = f.p;
    const double minBytes = c.param("min_bytes");
    struct T {
        std::uint32_t slice;
        double bytes;
    };
    std::vector<T> bad;
    double alignedBytes = 0, alignedNs = 0;
    std::size_t n = 0;
    // The plane tasks' arguments, read together (in file order when they are kept in the file).
    std::vector<std::uint32_t> planeRows, argRows;
    for (const auto& tr : p.tracks)
        if (tr.kind == TrackKind::CommPlane)
            for (std::uint32_t i = tr.sliceBegin; i < tr.sliceEnd; ++i) {
                planeRows.push_back(i);
                argRows.push_back(p.slices.args[i]);
            }
    const std::vector<std::vector<std::string>> args =
        p.args.findMany(argRows, {"transport type", "link type", "size(Byte)"}, p.strings);
    for (std::size_t k = 0; k < planeRows.size(); ++k) {
        const std::uint32_t i = planeRows[k];
        const std::vector<std::string>& arg = args[k];
        if (arg[0] != "SDMA")
            continue;
        ++n;
        if (arg[1] == "ON_CHIP")
            continue;
        const double bytes = std::strtod(arg[2].c_str(), nullptr);
        if (!(bytes > minBytes))
            continue;
        if (std::fmod(bytes, 512.0) != 0)
            bad.push_back({i, bytes});
        else {
            alignedBytes += bytes;
            alignedNs += static_cast<double>(p.slices.dur[i]);
        }
    }
    if (n == 0) {
        if (f.level0 || !f.hasCann)
            return out.notChecked(f.needsLevel1() + " (HCCL tasks with size and link type)");
        return out.pass("no SDMA HCCL tasks in the timeline");
    }
    out.inputs.push_back("timeline HCCL plane tasks (" + std::to_string(n) + " SDMA tasks): size(Byte), link type");
    if (bad.empty())
        return out.pass(std::to_string(n) + " SDMA tasks; none off-chip, > " + fmtNum(minBytes, 0) + " B and unaligned to 512 B");
    const double bw = alignedNs > 0 ? alignedBytes / alignedNs : kNaN; // bytes/ns = GB/s
    double lost = 0, total = 0;
    Finding& fd = out.fire("SDMA-512");
    for (const auto& b : bad) {
        const double t = static_cast<double>(p.slices.dur[b.slice]);
        total += t;
        if (!isMissing(bw))
            lost += std::max(0.0, t - b.bytes / bw);
        Evidence e;
        e.at.rank = f.rank;
        e.at.ts = p.slices.start[b.slice];
        e.at.dur = p.slices.dur[b.slice];
        e.at.op = f.str(p.slices.name[b.slice]);
        e.metrics = {{"size", b.bytes, "B"}, {"size mod 512", std::fmod(b.bytes, 512.0), "B"}};
        e.threshold = "size not a multiple of 512 B";
        e.cost = p.slices.dur[b.slice];
        fd.evidence.push_back(std::move(e));
    }
    fd.costNs = roundNs(f.perStep(total));
    fd.title = "Unaligned SDMA transfers: " + std::to_string(bad.size()) + " tasks not a multiple of 512 B";
    fd.description = std::to_string(bad.size()) + " off-chip SDMA tasks move sizes that are not multiples of 512 bytes, "
                     "which lowers the transfer efficiency.";
    fd.suggestions.push_back("Pad communication buffers to a multiple of 512 bytes.");
    if (!isMissing(bw))
        setGain(fd, f.perStep(lost), "Σ(t − size/aligned bw " + fmtNum(bw, 1) + " GB/s) = " + fmtMs(f.perStep(lost)));
    else
        noGain(fd, "no aligned SDMA transfer to take the bandwidth from");
    sortEvidence(fd.evidence, kMaxEvidence);
}

} // namespace

void addCommunicationRules(std::vector<RuleDef>& out)
{
    out.push_back({"COM-EXPOSED", Category::Communication, false, "Communication not overlapped by computation", exposed});
    out.push_back({"COM-WAIT", Category::Communication, false, "Collectives waiting for late peers", wait});
    out.push_back({"COM-PACKET", Category::Communication, false, "Too many small SDMA/RDMA packets", packet});
    out.push_back({"COM-CONTENTION", Category::Communication, false, "SDMA bandwidth lost to concurrent MatMul", contention});
    out.push_back({"COM-ALIGN", Category::Communication, false, "SDMA sizes not aligned to 512 bytes", align});
}

} // namespace npuscope::advisor
