// RankFacts: the per-rank data the advisor's rules share, computed once per analysis.
#include "model/analysis/rank_facts.h"

#include "model/analysis/op_stats.h"
#include "model/analysis/u64_map.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace npuscope {

namespace {
// ASCII case folding: op and file names are ASCII; other bytes (UTF-8) compare as they are.
inline char asciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }
} // namespace

std::string lower(std::string s)
{
    for (auto& c : s)
        c = asciiLower(c);
    return s;
}

bool containsCI(std::string_view hay, std::string_view needle)
{
    if (needle.empty())
        return true;
    if (needle.size() > hay.size())
        return false;
    const char n0 = asciiLower(needle[0]);
    const std::size_t last = hay.size() - needle.size();
    for (std::size_t i = 0; i <= last; ++i) {
        if (asciiLower(hay[i]) != n0)
            continue;
        std::size_t j = 1;
        while (j < needle.size() && asciiLower(hay[i + j]) == asciiLower(needle[j]))
            ++j;
        if (j == needle.size())
            return true;
    }
    return false;
}

bool isFlashAttention(std::string_view type)
{
    return containsCI(type, "flashattention") || containsCI(type, "fusionattention") || containsCI(type, "FlashAttn");
}

bool isCubeType(std::string_view type)
{
    return containsCI(type, "matmul") || containsCI(type, "gemm") || containsCI(type, "conv");
}

namespace {

// A task's class from its task type, op type and name, on op_stats.h's one definition of what
// communicates and what computes (isCommunicationTask, isHcclTask, isComputeTask): a kernel-table
// row computes unless it communicates, as in the overlap without a timeline; a timeline task when
// isComputeTask says so. Task types and names are few and interned: each pair is tested once.
class Classifier {
public:
    Classifier(const Profile& p, bool kernelRows) : m_p(p), m_kernelRows(kernelRows) {}
    TaskClass operator()(NameId taskType, NameId type, NameId name)
    {
        const std::uint32_t kind = m_kinds.memo((std::uint64_t{taskType.v} << 32) | name.v, [&] {
            const std::string_view tt = m_p.str(taskType), n = m_p.str(name), ty = m_p.str(type);
            if (isCommunicationTask(tt, ty.empty() ? n : ty) || containsCI(tt, "HCCL") || n.rfind("hcom_", 0) == 0)
                return kComm;
            if (isHcclTask(tt, n) || !(m_kernelRows || isComputeTask(tt, n)))
                return kOther;
            return containsCI(tt, "AI_CPU") || containsCI(tt, "AICPU") ? kAiCpu : kCore;
        });
        if (kind != kCore)
            return kind == kComm ? TaskClass::Comm : kind == kAiCpu ? TaskClass::AiCpu : TaskClass::Other;
        return m_types.memo(type.v, [&] { return isCubeType(m_p.str(type)); }) ? TaskClass::Cube : TaskClass::Vector;
    }

private:
    enum : std::uint32_t { kComm, kAiCpu, kCore, kOther };
    const Profile& m_p;
    bool m_kernelRows;
    U64Map m_kinds, m_types;
};

// What the profile holds: kernels, timeline, communication, device info, levels (the step trace
// is findSteps').
void findCapabilities(RankFacts& f)
{
    const Profile& p = f.p;
    f.hasKernels = p.kernels.size() > 0;
    for (const auto& op : p.commOps)
        if (!op.totalInfo)
            f.hasComm = true;
    for (const auto& d : p.deviceInfo)
        if (d.aiCoreNum > 0 || !isMissing(d.aicFrequencyMHz))
            f.hasInfo = true;
    f.hasMeta = !p.meta.env.empty() || !p.meta.profilerMetadata.is_null();
    f.torchNpu = p.layout.find("torch_npu") != std::string::npos;

    // Timeline-wide flags.
    for (const auto& t : p.tracks) {
        if (t.sliceEnd <= t.sliceBegin)
            continue;
        if (t.kind == TrackKind::Stream)
            f.hasTimeline = true;
        if (t.kind == TrackKind::Python)
            f.hasPython = true;
        if (t.kind == TrackKind::Cann) {
            for (std::uint32_t i = t.sliceBegin; i < t.sliceEnd && !f.hasCann; ++i)
                if (p.str(p.slices.name[i]).rfind("AscendCL@", 0) == 0)
                    f.hasCann = true;
        }
    }
    if (f.hasPython)
        f.torchNpu = true;
    f.level0 = p.meta.profilerLevel == "Level0" || (f.torchNpu && !f.hasCann);
}

// Device tasks, sorted by start: the kernel table's rows when there are any, else the timeline's
// stream slices.
std::vector<Task> deviceTasks(const Profile& p, bool fromKernels)
{
    std::vector<Task> tasks;
    Classifier classify(p, fromKernels);
    if (fromKernels) {
        const auto& k = p.kernels;
        tasks.reserve(k.size());
        for (std::size_t i = 0; i < k.size(); ++i) {
            Task t;
            t.start = k.start[i];
            t.dur = k.dur[i];
            t.kernel = static_cast<std::uint32_t>(i);
            t.slice = i < k.slice.size() ? k.slice[i] : kNone;
            t.device = k.device[i];
            t.stream = k.streamId[i];
            t.name = k.name[i];
            t.type = k.type[i];
            t.taskType = k.taskType[i];
            t.cls = classify(t.taskType, t.type, t.name);
            tasks.push_back(t);
        }
    } else {
        for (const auto& tr : p.tracks) {
            if (tr.kind != TrackKind::Stream)
                continue;
            for (std::uint32_t i = tr.sliceBegin; i < tr.sliceEnd; ++i) {
                if (p.slices.dur[i] <= 0 && p.slices.depth[i] > 0)
                    continue;
                Task t;
                t.start = p.slices.start[i];
                t.dur = p.slices.dur[i];
                t.slice = i;
                t.device = tr.device;
                t.stream = tr.streamId;
                t.name = p.slices.name[i];
                t.type = p.slices.name[i];
                t.taskType = p.slices.category[i];
                t.cls = classify(t.taskType, t.type, t.name);
                tasks.push_back(t);
            }
        }
    }
    auto byStart = [](const Task& a, const Task& b) { return a.start < b.start; };
    if (!std::is_sorted(tasks.begin(), tasks.end(), byStart))
        std::stable_sort(tasks.begin(), tasks.end(), byStart);
    return tasks;
}

// Collective ops: timeline comm groups, else kernel comm rows, else communication.json; sorted
// by start, with their source named.
void findCommOps(RankFacts& f)
{
    const Profile& p = f.p;
    for (const auto& tr : p.tracks) {
        if (tr.kind != TrackKind::CommGroup)
            continue;
        for (std::uint32_t i = tr.sliceBegin; i < tr.sliceEnd; ++i)
            if (p.slices.depth[i] == 0)
                f.commOpsTl.push_back({p.slices.start[i], p.slices.dur[i], std::string(p.str(p.slices.name[i])), i, tr.device});
    }
    f.commSource = "timeline communication groups";
    if (f.commOpsTl.empty()) {
        for (const auto& t : f.tasks)
            if (t.cls == TaskClass::Comm)
                f.commOpsTl.push_back({t.start, t.dur, f.str(t.name), t.slice, t.device});
        f.commSource = f.tasksFromKernels ? f.kernelFile() + " communication rows" : "timeline communication tasks";
    }
    if (f.commOpsTl.empty()) {
        for (const auto& op : p.commOps)
            if (!op.totalInfo && op.start && !isMissing(op.elapseMs))
                f.commOpsTl.push_back({*op.start, roundNs(op.elapseMs * 1e6), op.opName, kNone, -1});
        f.commSource = "communication.json";
    }
    if (f.commOpsTl.empty())
        f.commSource.clear();
    std::sort(f.commOpsTl.begin(), f.commOpsTl.end(),
              [](const RankFacts::CommInterval& a, const RankFacts::CommInterval& b) { return a.start < b.start; });
    std::vector<Interval> v;
    for (const auto& c : f.commOpsTl)
        v.push_back({c.start, c.start + c.dur});
    f.commUnion = uniteIntervals(std::move(v));
}

// The advisor's name for the source of the step split.
std::string stepSourceName(const OverlapResult& o)
{
    switch (o.source) {
    case OverlapSource::StepTrace: return "step_trace_time.csv";
    case OverlapSource::OverlapTracks: return "timeline (" + o.stepTimeSource + ")";
    case OverlapSource::Tasks:
        return o.spans.empty() ? "timeline (E2E, first to last device task)" : "timeline (ProfilerStep#)";
    case OverlapSource::None: break;
    }
    return {};
}

// The steps and their split, from the analysis layer (computeOverlap), so that the advisor, the
// summary strip and `info` give the same numbers. A step_trace_time.csv row takes its
// ProfilerStep#N span when there are as many spans as rows.
void findSteps(RankFacts& f)
{
    f.overlap = computeOverlap(f.p);
    const OverlapResult& o = f.overlap;
    f.hasStepTrace = o.source == OverlapSource::StepTrace; // the rank's step_trace_time.csv rows
    const bool rowsTakeSpans = o.source == OverlapSource::StepTrace && o.spans.size() == o.steps.size();
    for (std::size_t i = 0; i < o.steps.size(); ++i) {
        const StepBreakdown& b = o.steps[i];
        RankStep s;
        s.split = b;
        if (b.step.rfind("ProfilerStep#", 0) == 0)
            s.name = b.step.substr(13);
        else
            s.name = b.step.empty() ? "E2E" : b.step;
        s.hasRange = o.source != OverlapSource::StepTrace || rowsTakeSpans;
        s.start = rowsTakeSpans ? o.spans[i].second.begin : b.begin;
        s.end = rowsTakeSpans ? o.spans[i].second.end : b.end;
        s.partial = i < o.stats.isPartial.size() && o.stats.isPartial[i];
        f.steps.push_back(std::move(s));
    }
    f.stepSource = stepSourceName(o);
}

// T and its split: the median complete step's (computeOverlap's typical step).
void typicalStep(RankFacts& f)
{
    f.nSteps = std::max<int>(1, static_cast<int>(f.steps.size()));
    const StepBreakdown& t = f.overlap.typical;
    f.stepTime = static_cast<double>(f.overlap.stepTime);
    f.computing = static_cast<double>(t.computing);
    f.commNotOverlapped = static_cast<double>(t.commNotOverlapped);
    f.free = static_cast<double>(t.free);
}

// Computing split by kind (Σdur per kind, scaled to the Computing time). The tests on op types,
// task types and names are made once per interned string.
std::vector<SplitPart> computingSplit(const RankFacts& f)
{
    const Profile& p = f.p;
    static constexpr const char* kKinds[] = {"FA", "Conv", "MatMul", "Vector", "SDMA", "other"};
    enum { kFA, kConv, kMatMul, kVector, kSDMA, kOtherKind, kNoKind };
    double parts[6] = {0, 0, 0, 0, 0, 0};
    double partSum = 0;
    U64Map typeKind, sdmaTaskType, sdmaName;
    for (const auto& t : f.tasks) {
        if (t.cls == TaskClass::Comm)
            continue;
        int kind = static_cast<int>(typeKind.memo(t.type.v, [&] {
            const std::string_view ty = p.str(t.type);
            if (isFlashAttention(ty))
                return kFA;
            return containsCI(ty, "conv") ? kConv : kNoKind;
        }));
        if (kind == kNoKind) {
            if (t.cls == TaskClass::Cube)
                kind = kMatMul;
            else if (t.cls == TaskClass::Vector)
                kind = kVector;
            else if (sdmaTaskType.memo(t.taskType.v, [&] { return containsCI(p.str(t.taskType), "SDMA"); })
                     || sdmaName.memo(t.name.v, [&] {
                            const std::string_view nm = p.str(t.name);
                            return containsCI(nm, "SDMA") || containsCI(nm, "MEMCPY");
                        }))
                kind = kSDMA;
            else if (t.cls != TaskClass::AiCpu)
                continue; // waits, event records: not computing
            else
                kind = kOtherKind;
        }
        parts[kind] += static_cast<double>(t.dur);
        partSum += static_cast<double>(t.dur);
    }
    std::vector<SplitPart> out;
    for (int i = 0; i < 6; ++i)
        out.push_back({kKinds[i], partSum > 0 ? parts[i] / partSum * f.computing : 0});
    return out;
}

// Communication (not overlapped) split into wait and transmit by communication.json's times;
// none when it has neither.
std::vector<SplitPart> communicationSplit(const RankFacts& f)
{
    double wait = 0, transit = 0;
    for (const auto& op : f.p.commOps) {
        if (op.totalInfo)
            continue;
        if (!isMissing(op.waitMs))
            wait += op.waitMs;
        if (!isMissing(op.transitMs))
            transit += op.transitMs;
    }
    if (!(wait + transit > 0))
        return {};
    return {{"wait", wait / (wait + transit) * f.commNotOverlapped},
            {"transmit", transit / (wait + transit) * f.commNotOverlapped}};
}

// The groups of opTypes and opShapes (rank_facts.h). Each interned (type, shapes, dtypes)
// triple is mapped to its group once; groups are merged by their key text, then sorted.
void groupOps(RankFacts& f)
{
    const KernelTable& k = f.p.kernels;
    std::map<std::pair<TaskClass, std::string>, std::uint32_t> typeKeys, shapeKeys;
    std::vector<TaskGroup> types, shapes;
    U64Map typeOf[2], shapeIdOf, shapeOf[2]; // per class: type id -> group; (type, shapes id) -> group
    const auto groupFor = [](std::vector<TaskGroup>& groups, std::map<std::pair<TaskClass, std::string>, std::uint32_t>& keys,
                             TaskClass cls, const std::string& key) {
        const auto [it, added] = keys.try_emplace({cls, key}, static_cast<std::uint32_t>(groups.size()));
        if (added) {
            groups.emplace_back();
            groups.back().key = key;
            groups.back().cls = cls;
        }
        return it->second;
    };
    for (const Task& t : f.tasks) {
        if ((t.cls != TaskClass::Cube && t.cls != TaskClass::Vector) || t.kernel == kNone)
            continue;
        const int ci = t.cls == TaskClass::Cube ? 0 : 1;
        bool fresh = false;
        std::uint32_t& ti = typeOf[ci].tryEmplace(t.type.v, 0, &fresh);
        if (fresh) {
            ti = groupFor(types, typeKeys, t.cls, f.str(t.type));
            types[ti].type = types[ti].key;
        }
        const NameId shapesId = k.inputShapes[t.kernel], dtypesId = k.inputDtypes[t.kernel];
        const std::uint32_t sd = shapeIdOf.tryEmplace((static_cast<std::uint64_t>(shapesId.v) << 32) | dtypesId.v,
                                                      static_cast<std::uint32_t>(shapeIdOf.size()));
        std::uint32_t& si = shapeOf[ci].tryEmplace((static_cast<std::uint64_t>(t.type.v) << 32) | sd, 0, &fresh);
        if (fresh) {
            const std::string type = f.str(t.type), dtypes = f.str(dtypesId);
            const std::string text = f.str(shapesId) + (dtypes.empty() ? "" : " " + dtypes);
            si = groupFor(shapes, shapeKeys, t.cls, type + " [" + text + "]");
            shapes[si].type = type;
            shapes[si].shapes = text;
            shapes[si].dtypes = dtypes;
        }
        for (TaskGroup* g : {&types[ti], &shapes[si]}) {
            g->tasks.push_back(&t);
            g->sumDur += static_cast<double>(t.dur);
        }
    }
    const auto sorted = [](std::vector<TaskGroup>& groups, const std::map<std::pair<TaskClass, std::string>, std::uint32_t>& keys) {
        std::vector<TaskGroup> out;
        out.reserve(groups.size());
        for (const auto& [key, gi] : keys)
            out.push_back(std::move(groups[gi]));
        return out;
    };
    f.opTypes = sorted(types, typeKeys);
    f.opShapes = sorted(shapes, shapeKeys);
}

} // namespace

RankFacts::RankFacts(const Profile& profile) : p(profile)
{
    rank = p.rank;
    findCapabilities(*this);
    tasksFromKernels = hasKernels;
    tasks = deviceTasks(p, hasKernels);
    std::vector<Interval> cv;
    cv.reserve(tasks.size()); // what is never written is never touched
    for (const auto& t : tasks)
        if (t.cls == TaskClass::Cube || t.cls == TaskClass::Vector || t.cls == TaskClass::AiCpu)
            cv.push_back({t.start, t.end()});
    computeUnion = uniteIntervals(std::move(cv));
    findCommOps(*this);
    findSteps(*this);
    typicalStep(*this);
    computingParts = computingSplit(*this);
    commParts = communicationSplit(*this);
    groupOps(*this);
}

std::string RankFacts::shapesOf(const Task& t) const
{
    if (t.kernel == kNone)
        return {};
    std::string s(p.str(p.kernels.inputShapes[t.kernel]));
    const std::string_view d = p.str(p.kernels.inputDtypes[t.kernel]);
    if (!d.empty())
        s += (s.empty() ? "" : " ") + std::string(d);
    return s;
}

TimeNs RankFacts::inSteps(TimeNs start, TimeNs end) const
{
    if (steps.empty() || !std::all_of(steps.begin(), steps.end(), [](const RankStep& s) { return s.hasRange; }))
        return std::max<TimeNs>(0, end - start);
    TimeNs in = 0;
    for (const auto& s : steps)
        in += std::max<TimeNs>(0, std::min(end, s.end) - std::max(start, s.start));
    return in;
}

std::string RankFacts::fileOf(FileRole role, const char* otherwise) const
{
    for (const auto& f : p.files)
        if (f.has(role)) {
            const auto pos = f.path.find_last_of('/');
            return pos == std::string::npos ? f.path : f.path.substr(pos + 1);
        }
    return otherwise;
}

std::string RankFacts::kernelFile() const
{
    return fileOf(FileRole::Kernels, torchNpu ? "kernel_details.csv" : "op_summary.csv");
}

} // namespace npuscope
