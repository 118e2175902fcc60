// CMP-FUSE: op chains that a fused kernel would run in one pass, as known patterns on
// consecutive tasks of a stream (a) and as repeated windows of consecutive compute tasks (b).
#include "advisor/fusion_physics.h"
#include "advisor/rule_helpers.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace npuscope::advisor {

namespace {

using StreamTasks = std::map<std::int64_t, std::vector<const Task*>>;

// The tasks of each stream (keyed by device and stream), in start order; communication tasks
// too when `withComm`. Each stream's list is sized by a count first: grown by doubling, the
// lists of a million tasks were copied a dozen times into fresh pages.
StreamTasks tasksByStream(const std::vector<Task>& tasks, bool withComm)
{
    const auto keyOf = [](const Task& t) { return (static_cast<std::int64_t>(t.device) << 32) ^ t.stream; };
    std::map<std::int64_t, std::size_t> counts;
    for (const Task& t : tasks)
        if (withComm || t.cls != TaskClass::Comm)
            ++counts[keyOf(t)];
    StreamTasks out;
    for (const auto& [key, n] : counts)
        out[key].reserve(n);
    for (const Task& t : tasks)
        if (withComm || t.cls != TaskClass::Comm)
            out[keyOf(t)].push_back(&t);
    return out;
}

// The replay change of fusing occurrences, gathered flat and made a WhatIfChanges once the
// finding fires (its maps sized once): each task loses its round-trip time, the tasks after the
// first run in the first one's launch, without gaps.
struct FusionChange {
    std::vector<std::pair<std::uint32_t, TimeNs>> save; // slice row, ns (a row may repeat: summed)
    std::vector<std::uint32_t> fused;
    std::size_t unbound = 0; // tasks without a timeline row (left out)

    void add(const std::vector<const Task*>& occ, const ChainSaving& s)
    {
        for (std::size_t j = 0; j < occ.size(); ++j) {
            if (occ[j]->slice == kNone) {
                ++unbound;
                continue;
            }
            if (const TimeNs ns = roundNs(s.taskNs[j]); ns > 0)
                save.emplace_back(occ[j]->slice, ns);
            if (j)
                fused.push_back(occ[j]->slice);
        }
    }
    // Moves the rows into `c`.
    void into(WhatIfChanges& c)
    {
        c.saveRows.merge(std::move(save), [](TimeNs a, TimeNs b) { return a + b; });
        c.fusedRows.insert(std::move(fused));
    }
};

std::string fusionGainText(const ProfileFacts& f, double tripNs, double bytes, double gapNs, std::size_t boundaries,
                           std::size_t known, double upperBound, std::size_t n)
{
    return "HBM round trips of the intermediates " + fmtMs(f.perStep(tripNs)) + " (" + fmtNum(f.perStep(bytes) / 1e6, 1)
           + " MB/step written and read back, each side at its op's achieved bandwidth, within its data-movement time and (n−1)/n of the chain's; "
           + std::to_string(known) + " of " + std::to_string(boundaries) + " intermediates with known bytes) + Σ inner gaps "
           + fmtMs(f.perStep(gapNs)) + " = " + fmtMs(f.perStep(tripNs + gapNs)) + "; upper bound Σ inner gaps + (n−1)/n · Σmte (n = "
           + std::to_string(n) + ") = " + fmtMs(upperBound);
}

void fuseWindows(const RuleCtx& c, const FusionPhysics& phys, const std::vector<char>& matched, RuleOut& out);

// A pattern's ops, each as its lower-cased alternatives ("Add|AddV2" -> {"add", "addv2"}).
std::vector<std::vector<std::string>> patternAlternatives(const std::vector<std::string>& ops)
{
    std::vector<std::vector<std::string>> alts;
    for (const auto& o : ops) {
        std::vector<std::string> a;
        std::size_t s = 0;
        while (s <= o.size()) {
            const auto e = o.find('|', s);
            a.push_back(lower(o.substr(s, e == std::string::npos ? std::string::npos : e - s)));
            if (e == std::string::npos)
                break;
            s = e + 1;
        }
        alts.push_back(std::move(a));
    }
    return alts;
}

// ---- CMP-FUSE (a): known patterns on consecutive tasks of one stream -----------------------
void fuse(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    if (f.tasks.empty())
        return out.notChecked(needsOps(f) + " or device tasks in the timeline");
    const auto& patterns = c.paramJson("patterns");
    const StreamTasks perStream = tasksByStream(f.tasks, false);
    out.inputs.push_back((f.tasksFromKernels ? f.kernelFile() : std::string("timeline")) + ": op types in stream order ("
                         + std::to_string(f.tasks.size()) + " tasks)");
    std::size_t np = 0;
    const FusionPhysics phys(f.p);
    std::vector<char> matched(f.tasks.size(), 0); // tasks of fired patterns, by index: the window search skips them
    // Each stream's tasks as indices into the distinct lower-cased op types (found once per
    // type), and whether a fired pattern took them, in the stream's order: a pattern's op j is
    // then one lookup per task, okOf[j][type], along arrays read in order.
    U64Map typeIndex;
    std::vector<std::string> lowerTypes;
    std::vector<std::vector<std::uint32_t>> typesOf;
    std::vector<std::vector<char>> takenOf;
    for (const auto& [key, v] : perStream) {
        std::vector<std::uint32_t>& types = typesOf.emplace_back();
        types.reserve(v.size());
        for (const Task* t : v)
            types.push_back(typeIndex.memo(t->type.v, [&] {
                lowerTypes.push_back(lower(f.str(t->type)));
                return static_cast<std::uint32_t>(lowerTypes.size() - 1);
            }));
        takenOf.emplace_back(v.size(), 0);
    }
    if (patterns.is_array()) {
        for (const auto& pat : patterns) {
            ++np;
            const auto ops = stringList(pat.value("ops", nlohmann::json::array()));
            if (ops.size() < 2)
                continue;
            const std::vector<std::vector<std::string>> alts = patternAlternatives(ops);
            std::vector<std::vector<char>> okOf(alts.size(), std::vector<char>(lowerTypes.size(), 0));
            for (std::size_t j = 0; j < alts.size(); ++j)
                for (std::size_t ty = 0; ty < lowerTypes.size(); ++ty)
                    okOf[j][ty] = std::find(alts[j].begin(), alts[j].end(), lowerTypes[ty]) != alts[j].end();
            TopEvidence ev;
            std::vector<const Task*> chainTasks;
            std::vector<char*> chainTaken; // where each of chainTasks is marked taken
            double chainTotal = 0, gapTotal = 0, mteTotal = 0, tripTotal = 0, bytesTotal = 0;
            std::size_t count = 0, boundaries = 0, known = 0;
            FusionChange replay;
            std::size_t stream = 0;
            for (const auto& [key, v] : perStream) {
                const std::uint32_t* types = typesOf[stream].data();
                char* taken = takenOf[stream++].data();
                for (std::size_t i = 0; i + alts.size() <= v.size(); ++i) {
                    bool ok = true;
                    for (std::size_t j = 0; j < alts.size() && ok; ++j)
                        ok = okOf[j][types[i + j]] != 0;
                    // A task an earlier pattern fused is not fused again.
                    for (std::size_t j = 0; j < alts.size() && ok; ++j)
                        ok = !taken[i + j];
                    if (!ok)
                        continue;
                    ++count;
                    const std::vector<const Task*> occ(v.begin() + static_cast<std::ptrdiff_t>(i),
                                                       v.begin() + static_cast<std::ptrdiff_t>(i + alts.size()));
                    const ChainSaving save = phys.chain(occ);
                    tripTotal += save.roundTripNs;
                    bytesTotal += save.bytes;
                    boundaries += save.boundaries;
                    known += save.known;
                    replay.add(occ, save);
                    const Task* first = v[i];
                    const Task* last = v[i + alts.size() - 1];
                    double sum = 0, gaps = 0;
                    for (std::size_t j = 0; j < alts.size(); ++j) {
                        chainTasks.push_back(v[i + j]);
                        chainTaken.push_back(taken + i + j);
                        sum += static_cast<double>(v[i + j]->dur);
                        mteTotal += phys.mte()(*v[i + j]);
                        if (j)
                            gaps += std::max<double>(0, static_cast<double>(v[i + j]->start - v[i + j - 1]->end()));
                    }
                    chainTotal += sum;
                    gapTotal += gaps;
                    ev.offer(roundNs(sum + gaps), [&] {
                        Evidence e;
                        e.at = f.locate(*first);
                        e.at.dur = last->end() - first->start;
                        e.at.op = joinList(ops, "→");
                        e.metrics = {{"tasks", sum / 1e3, "µs"}, {"gaps", gaps / 1e3, "µs"}};
                        e.threshold = "pattern match";
                        return e;
                    });
                    i += alts.size() - 1;
                }
            }
            if (!count)
                continue;
            const double cost = f.perStep(chainTotal + gapTotal);
            if (cost < c.th.minShare() * f.stepTime)
                continue;
            for (std::size_t k = 0; k < chainTasks.size(); ++k) {
                *chainTaken[k] = 1;
                matched[static_cast<std::size_t>(chainTasks[k] - f.tasks.data())] = 1;
            }
            const std::string fused = pat.value("fused", std::string());
            Finding& fd = out.fire(joinList(ops, "-"));
            fd.costNs = roundNs(cost);
            fd.title = "Fusible chain " + joinList(ops, "→") + ": " + std::to_string(count) + " times, " + fmtMs(cost)
                       + "/step";
            fd.description = "The op sequence " + joinList(ops, " → ") + " runs " + std::to_string(count)
                             + " times on one stream, costing " + fmtMs(cost)
                             + " per step including the gaps between its tasks. A fused kernel does it in one pass.";
            if (!fused.empty())
                fd.suggestions.push_back("Use " + fused + ".");
            fd.suggestions.push_back("Otherwise fuse the chain (graph mode fusion passes, or a custom fused op).");
            const double n = static_cast<double>(alts.size());
            const double gain = f.perStep(gapTotal + tripTotal);
            setGain(fd, gain,
                    fusionGainText(f, tripTotal, bytesTotal, gapTotal, boundaries, known, f.perStep(gapTotal + (n - 1) / n * mteTotal),
                                   alts.size()));
            replay.into(fd.replay);
            if (replay.unbound)
                fd.inputs.push_back(std::to_string(replay.unbound)
                                    + " of its tasks have no timeline row: the replay leaves them as they ran");
            claimTasks(fd, f, chainTasks);
            ev.moveInto(fd.evidence);
        }
    }
    fuseWindows(c, phys, matched, out);
    if (out.fired.empty())
        out.pass(std::to_string(np) + " fusion patterns searched; none costs ≥ " + fmtPct(c.th.minShare())
                 + " of step; " + out.check);
}

// ---- CMP-FUSE (b): repeated windows of consecutive compute tasks ---------------------------
namespace window_search {

constexpr std::uint32_t kEmpty = ~0u;

// Runs of consecutive compute tasks, laid end to end in flat arrays (a run's positions are
// contiguous); each task is reduced to a signature id (type, input shapes and dtypes, compared
// as interned strings).
struct Run {
    std::uint32_t begin = 0, size = 0;
    std::uint32_t tmpl = 0; // the first run with the same signatures
};
struct Runs {
    std::vector<Run> runs;
    std::vector<std::uint32_t> sig;      // per position
    std::vector<const Task*> taskAt;     // per position
    // Per position: a GEMM (cube task), an elementwise op. A window holds at most one GEMM, as its
    // first task, followed by elementwise ops only (its epilogue): no kernel fuses two GEMMs.
    std::vector<char> gemm, elementwise;
    // Runs repeat (every layer, every step): the windows of a run are searched once per distinct
    // run (a template) and repeated for its copies.
    std::vector<std::uint32_t> tmplRuns; // template -> its first run
    std::vector<std::uint32_t> copies;   // template -> runs with its signatures
};

// A hash of n signatures, extended one at a time.
std::uint64_t extend(std::uint64_t h, std::uint32_t x)
{
    h = (h ^ (x + 1ULL)) * 0x100000001b3ULL;
    return h ^ (h >> 29);
}

// Hash-keyed lookup that compares the keys themselves: `head` maps a hash to the first entry,
// `next` chains entries whose keys hash the same. Returns the entry equal to `same`, or `fresh`
// after linking it in.
template <typename Same>
std::uint32_t lookup(U64Map& head, std::vector<std::uint32_t>& next, std::uint64_t h, std::uint32_t fresh, Same&& same)
{
    bool inserted = false;
    std::uint32_t* idx = &head.tryEmplace(h, fresh, &inserted);
    if (inserted)
        return fresh;
    while (*idx != kEmpty && !same(*idx))
        idx = &next[*idx];
    if (*idx == kEmpty)
        *idx = fresh;
    return *idx;
}

// The runs of every stream (every task class: communication and AI CPU tasks break them).
Runs computeRuns(const ProfileFacts& f)
{
    const StreamTasks perStream = tasksByStream(f.tasks, true);
    auto idOf = [&](NameId n) { return f.str(n).empty() ? kEmpty : n.v; };
    U64Map shapeIds, sigIds, elementwiseOf; // elementwiseOf: op type -> isElementwiseType (found once per type)
    Runs r;
    // Room for every task: what is never written is never touched.
    r.sig.reserve(f.tasks.size());
    r.taskAt.reserve(f.tasks.size());
    r.gemm.reserve(f.tasks.size());
    r.elementwise.reserve(f.tasks.size());
    for (const auto& [key, v] : perStream) {
        r.runs.push_back({static_cast<std::uint32_t>(r.sig.size()), 0, 0});
        for (const Task* t : v) {
            if (t->cls != TaskClass::Cube && t->cls != TaskClass::Vector) {
                if (r.runs.back().size)
                    r.runs.push_back({static_cast<std::uint32_t>(r.sig.size()), 0, 0});
                continue;
            }
            std::uint64_t shapes = (static_cast<std::uint64_t>(kEmpty) << 32) | kEmpty;
            if (t->kernel != kNone)
                shapes = (static_cast<std::uint64_t>(idOf(f.p.kernels.inputShapes[t->kernel])) << 32)
                         | idOf(f.p.kernels.inputDtypes[t->kernel]);
            const std::uint32_t shape = shapeIds.tryEmplace(shapes, static_cast<std::uint32_t>(shapeIds.size()));
            const std::uint64_t sigKey = (static_cast<std::uint64_t>(t->type.v) << 32) | shape;
            r.sig.push_back(sigIds.tryEmplace(sigKey, static_cast<std::uint32_t>(sigIds.size())));
            r.taskAt.push_back(t);
            r.gemm.push_back(t->cls == TaskClass::Cube);
            r.elementwise.push_back(static_cast<char>(
                elementwiseOf.memo(t->type.v, [&] { return isElementwiseType(lower(f.str(t->type))) ? 1 : 0; })));
            ++r.runs.back().size;
        }
    }
    constexpr std::uint64_t kSeed = 0x9e3779b97f4a7c15ULL;
    std::vector<std::uint32_t> tmplNext;
    U64Map byHash(r.runs.size());
    for (std::uint32_t i = 0; i < r.runs.size(); ++i) {
        Run& run = r.runs[i];
        std::uint64_t h = kSeed ^ run.size;
        for (std::uint32_t j = 0; j < run.size; ++j)
            h = extend(h, r.sig[run.begin + j]);
        const auto fresh = static_cast<std::uint32_t>(r.tmplRuns.size());
        run.tmpl = lookup(byHash, tmplNext, h, fresh, [&](std::uint32_t t) {
            const Run& o = r.runs[r.tmplRuns[t]];
            // Pointers from data(): an empty run may begin at sig.size() (or sig may be empty),
            // where sig[i] would bind a reference past the end.
            return o.size == run.size
                   && std::equal(r.sig.data() + o.begin, r.sig.data() + o.begin + o.size, r.sig.data() + run.begin);
        });
        if (run.tmpl == fresh) {
            r.tmplRuns.push_back(i);
            tmplNext.push_back(kEmpty);
            r.copies.push_back(0);
        }
        ++r.copies[run.tmpl];
    }
    return r;
}

// Totals over occurrences (first position p, len tasks).
struct Sums {
    TimeNs wall = 0, dur = 0, gaps = 0, mte = 0;
    double save = 0, bytes = 0; // HBM round trips of the intermediates (fusion_physics.h)
    std::size_t boundaries = 0, known = 0;
};
struct Stats {
    std::size_t count = 0;
    double wall = 0, dur = 0, mte = 0, gaps = 0; // totals over the profile
    double save = 0, bytes = 0;
    std::size_t boundaries = 0, known = 0;
    double gain() const { return gaps + save; }
    double upperBound(std::size_t n) const { return gaps + (static_cast<double>(n) - 1) / static_cast<double>(n) * mte; }
};
Stats statsOf(const Sums& s, std::size_t count)
{
    Stats st;
    st.count = count;
    st.wall = static_cast<double>(s.wall);
    st.dur = static_cast<double>(s.dur);
    st.gaps = static_cast<double>(s.gaps);
    st.mte = static_cast<double>(s.mte);
    st.save = s.save;
    st.bytes = s.bytes;
    st.boundaries = s.boundaries;
    st.known = s.known;
    return st;
}

// Per position: taken (by a fired pattern or a reported window), its task (start and end), and
// running sums over each run of dur, inner gaps, data-movement time (rounded to whole ns, so
// every sum is exact and an occurrence costs O(1)) and taken tasks.
class Positions {
public:
    Positions(const Runs& r, const ProfileFacts& f, const FusionPhysics& phys, const std::vector<char>& matched)
        : m_taskAt(r.taskAt)
    {
        const MteTime& mteNs = phys.mte();
        const std::size_t n = r.sig.size();
        m_taken.assign(n, 0);
        m_durSum.assign(n + 1, 0);
        m_gapSum.assign(n + 1, 0);
        m_mteSum.assign(n + 1, 0);
        m_takenSum.assign(n + 1, 0);
        m_next.assign(n, FusionPhysics::Boundary{});
        m_cap.assign(n, 0);
        for (const Run& run : r.runs)
            for (std::uint32_t j = 0; j < run.size; ++j) {
                const std::uint32_t p = run.begin + j;
                const Task* t = r.taskAt[p];
                m_taken[p] = matched[static_cast<std::size_t>(t - f.tasks.data())];
                m_durSum[p + 1] = m_durSum[p] + t->dur;
                m_gapSum[p + 1] = m_gapSum[p] + (j ? std::max<TimeNs>(0, t->start - r.taskAt[p - 1]->end()) : 0);
                const double mte = mteNs(*t);
                m_mteSum[p + 1] = m_mteSum[p] + roundNs(mte);
                m_cap[p] = FusionPhysics::cap(*t, mte);
                if (j + 1 < run.size)
                    m_next[p] = phys.boundary(*t, *r.taskAt[p + 1]);
            }
        retake();
    }

    TimeNs startAt(std::uint32_t p) const { return m_taskAt[p]->start; }
    TimeNs wallOf(std::uint32_t p, std::uint32_t len) const { return m_taskAt[p + len - 1]->end() - m_taskAt[p]->start; }
    TimeNs durOf(std::uint32_t p, std::uint32_t len) const { return m_durSum[p + len] - m_durSum[p]; }
    TimeNs gapsOf(std::uint32_t p, std::uint32_t len) const { return m_gapSum[p + len] - m_gapSum[p + 1]; }
    void addOccurrence(Sums& s, std::uint32_t p, std::uint32_t len) const
    {
        s.wall += wallOf(p, len);
        s.dur += durOf(p, len);
        s.gaps += gapsOf(p, len);
        s.mte += m_mteSum[p + len] - m_mteSum[p];
        const double k = scaleOf(p, len);
        for (std::uint32_t j = 0; j < len; ++j) {
            const double x = (j + 1 < len ? m_next[p + j].prodNs : 0.0) + (j ? m_next[p + j - 1].consNs : 0.0);
            s.save += k * std::min(x, m_cap[p + j]);
            if (j + 1 < len) {
                ++s.boundaries;
                s.known += m_next[p + j].known();
                s.bytes += m_next[p + j].bytes;
            }
        }
    }
    // Task j's saving in the occurrence at p of len tasks.
    double saveOf(std::uint32_t p, std::uint32_t len, std::uint32_t j) const
    {
        const double x = (j + 1 < len ? m_next[p + j].prodNs : 0.0) + (j ? m_next[p + j - 1].consNs : 0.0);
        return scaleOf(p, len) * std::min(x, m_cap[p + j]);
    }
    // The fused kernel still reads the window's inputs and writes its outputs: its savings are
    // scaled to at most (n − 1)/n of its data-movement time (as FusionPhysics::chain does).
    double scaleOf(std::uint32_t p, std::uint32_t len) const
    {
        double save = 0;
        for (std::uint32_t j = 0; j < len; ++j)
            save += std::min((j + 1 < len ? m_next[p + j].prodNs : 0.0) + (j ? m_next[p + j - 1].consNs : 0.0), m_cap[p + j]);
        const double mte = static_cast<double>(m_mteSum[p + len] - m_mteSum[p]);
        const double bound = (static_cast<double>(len) - 1) / static_cast<double>(len) * mte;
        return mte > 0 && save > bound ? bound / save : 1.0;
    }
    // Whether none of the occurrence's tasks is taken (as of the last retake()).
    bool untaken(std::uint32_t p, std::uint32_t len) const { return m_takenSum[p + len] == m_takenSum[p]; }
    void take(std::uint32_t p, std::uint32_t len) { std::fill(&m_taken[p], &m_taken[p] + len, 1); }
    // Brings the running sum of taken tasks up to date.
    void retake()
    {
        for (std::size_t p = 0; p < m_taken.size(); ++p)
            m_takenSum[p + 1] = m_takenSum[p] + (m_taken[p] ? 1 : 0);
    }

private:
    std::vector<char> m_taken;
    const std::vector<const Task*>& m_taskAt; // the runs' tasks, by position
    std::vector<TimeNs> m_durSum, m_gapSum, m_mteSum;
    std::vector<std::uint32_t> m_takenSum;
    std::vector<FusionPhysics::Boundary> m_next; // the intermediate between p and p + 1
    std::vector<double> m_cap;
};

struct Window {
    std::uint32_t len = 0;
    std::vector<std::uint32_t> occ; // first positions; non-overlapping within a run
    std::uint32_t lastTmpl = kEmpty, lastEnd = 0;
    Sums all; // over every occurrence
};

// The windows of minLen..maxLen signatures that occur more than minCount times, with their
// non-overlapping occurrences in every copy of each run; `distinct` counts every window.
// Windows get exact ids as a trie: the window of length len at i is the window of length len-1
// at i extended by one signature, so (parent id, signature) names it. One lookup per window and
// no key compared. Pass 1 counts every window (overlaps included, an upper bound); pass 2
// collects non-overlapping occurrences of the windows that can reach min_count only, so rare
// windows cost no memory.
std::vector<Window> repeatedWindows(const Runs& r, const Positions& pos, std::size_t minLen, std::size_t maxLen,
                                    double minCount, std::size_t& distinct)
{
    U64Map trie(1024);
    std::vector<std::uint32_t> count;
    auto forEachWindow = [&](bool grow, auto&& fn) {
        for (std::uint32_t t = 0; t < r.tmplRuns.size(); ++t) {
            const Run& run = r.runs[r.tmplRuns[t]];
            for (std::uint32_t i = 0; i < run.size; ++i) {
                std::uint32_t node = kEmpty;
                for (std::uint32_t len = 1; len <= maxLen && i + len <= run.size; ++len) {
                    const std::uint32_t q = run.begin + i + len - 1;
                    if (len > 1 && (r.gemm[q] || (r.gemm[run.begin + i] && !r.elementwise[q])))
                        break; // a second GEMM, or an epilogue op that is not elementwise
                    const std::uint64_t key = (static_cast<std::uint64_t>(node) << 32) | r.sig[run.begin + i + len - 1];
                    if (grow) {
                        bool fresh = false;
                        node = trie.tryEmplace(key, static_cast<std::uint32_t>(count.size()), &fresh);
                        if (fresh) {
                            count.push_back(0);
                            distinct += len >= minLen;
                        }
                    } else {
                        node = *trie.find(key);
                    }
                    if (len >= minLen)
                        fn(t, i, len, node);
                }
            }
        }
    };
    forEachWindow(true, [&](std::uint32_t t, std::uint32_t, std::uint32_t, std::uint32_t node) {
        count[node] = static_cast<std::uint32_t>(std::min<std::uint64_t>(kEmpty - 1, std::uint64_t(count[node]) + r.copies[t]));
    });

    std::vector<Window> windows;
    std::vector<std::uint32_t> windowOf(count.size(), kEmpty); // trie node -> window
    std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> tmplOcc(r.tmplRuns.size()); // (window, start)
    forEachWindow(false, [&](std::uint32_t t, std::uint32_t i, std::uint32_t len, std::uint32_t node) {
        if (static_cast<double>(count[node]) <= minCount)
            return;
        if (windowOf[node] == kEmpty) {
            windowOf[node] = static_cast<std::uint32_t>(windows.size());
            windows.emplace_back();
            windows.back().len = len;
        }
        Window& w = windows[windowOf[node]];
        if (w.lastTmpl == t && i < w.lastEnd)
            return; // overlaps the previous occurrence
        tmplOcc[t].emplace_back(windowOf[node], i);
        w.lastTmpl = t;
        w.lastEnd = i + len;
    });
    trie = U64Map();
    count = {};
    windowOf = {};
    // Occurrences in every copy of each run, summed as they are listed (in position order).
    for (const Run& run : r.runs)
        for (const auto& [wi, i] : tmplOcc[run.tmpl]) {
            Window& w = windows[wi];
            w.occ.push_back(run.begin + i);
            pos.addOccurrence(w.all, run.begin + i, w.len);
        }
    return windows;
}

// The window's occurrences none of whose tasks is taken.
Stats untakenStats(const Window& w, const Positions& pos)
{
    Sums sums;
    std::size_t count = 0;
    for (const std::uint32_t p : w.occ)
        if (pos.untaken(p, w.len)) {
            ++count;
            pos.addOccurrence(sums, p, w.len);
        }
    return statsOf(sums, count);
}

struct Params {
    std::size_t minLen = 2, maxLen = 2;
    double minCount = 0, wallShare = 0, mteRatio = 0, hostRatio = 0;
};

// A finding for window `w`, whose untaken occurrences `st` are; `id` names it.
void fireWindow(const ProfileFacts& f, const Runs& r, const Positions& pos, const Window& w, const Stats& st,
                const Params& limits, const std::string& id, const std::string& chain, RuleOut& out)
{
    const double wall = f.perStep(st.wall), mteShare = st.dur > 0 ? st.mte / st.dur : 0,
                 busy = st.wall > 0 ? st.dur / st.wall : 1;
    const bool hostBound = busy < limits.hostRatio;
    const bool wallHit = wall > limits.wallShare * f.stepTime, mteHit = mteShare > limits.mteRatio;
    Finding& fd = out.fire(id);
    fd.family = id.substr(0, id.find(" #")); // "window:A-B-C": its shape variants are "#2", "#3", …
    fd.familyTitle = "Fusible window " + chain + " (" + std::to_string(w.len) + " ops)";
    fd.costNs = roundNs(wall);
    fd.title = "Fusible window " + chain + " (" + std::to_string(w.len) + " ops): " + std::to_string(st.count) + " times, "
               + fmtMs(wall) + "/step" + (hostBound ? ", host-bound" : (mteHit ? ", mte " + fmtRatio(mteShare) : ""));
    fd.description = "The same " + std::to_string(w.len) + " compute tasks (" + chain + ", same shapes) run back to back "
                     + std::to_string(st.count) + " times on one stream (more than "
                     + fmtNum(limits.minCount, 0) + "), taking " + fmtMs(wall) + " of wall time per step ("
                     + fmtPct(f.stepTime > 0 ? wall / f.stepTime : 0) + (wallHit ? " > " : " ≤ ") + fmtPct(limits.wallShare)
                     + "); data movement is " + fmtPct(mteShare) + " of their AI Core time ("
                     + (mteHit ? "> " : "≤ ") + fmtPct(limits.mteRatio) + ").";
    const bool epilogue = r.gemm[w.occ.front()];
    const std::string how = epilogue ? "Run " + chain + " as one GEMM with its elementwise epilogue: torch_npu.npu_linear "
                                           "(MatMul + bias), or graph mode (torchair) epilogue fusion"
                                     : "Fuse the vector ops " + chain + " into one kernel: graph mode (torchair) fuses "
                                           "consecutive vector ops, or one Ascend C custom op";
    if (hostBound) {
        fd.description += " The tasks fill only " + fmtPct(busy) + " of the window (< " + fmtPct(limits.hostRatio)
                          + "): the device waits for the host to launch them.";
        fd.suggestions.push_back("Host-bound: cut launch overhead first: graph mode (torchair / torch.compile), "
                                 "fewer and larger ops, fewer host-side checks between the launches.");
        fd.suggestions.push_back("Then: " + how + ".");
    } else {
        fd.suggestions.push_back(how + ": one pass over the data instead of " + std::to_string(w.len) + ".");
    }
    setGain(fd, f.perStep(st.gain()),
            fusionGainText(f, st.save, st.bytes, st.gaps, st.boundaries, st.known, f.perStep(st.upperBound(w.len)), w.len));
    TopEvidence top;
    FusionChange change;
    for (const std::uint32_t p : w.occ) {
        if (!pos.untaken(p, w.len))
            continue;
        std::vector<const Task*> occ;
        ChainSaving save;
        for (std::uint32_t j = 0; j < w.len; ++j) {
            fd.claims.push_back(static_cast<std::uint64_t>(r.taskAt[p + j] - f.tasks.data()));
            occ.push_back(r.taskAt[p + j]);
            save.taskNs.push_back(pos.saveOf(p, w.len, j));
        }
        change.add(occ, save);
        const TimeNs wallNs = pos.wallOf(p, w.len);
        top.offer(wallNs, [&] {
            const auto sum = static_cast<double>(pos.durOf(p, w.len)), gaps = static_cast<double>(pos.gapsOf(p, w.len));
            Evidence e;
            e.at = f.locate(*r.taskAt[p]);
            e.at.dur = wallNs;
            e.at.op = chain;
            e.metrics = {{"tasks", sum / 1e3, "µs"}, {"gaps", gaps / 1e3, "µs"}, {"wall", static_cast<double>(wallNs) / 1e3, "µs"}};
            e.threshold = "count " + std::to_string(st.count) + " > " + fmtNum(limits.minCount, 0);
            return e;
        });
    }
    change.into(fd.replay);
    top.moveInto(fd.evidence);
}

} // namespace window_search

// Windows of min_len..max_len consecutive compute tasks (AI Core / vector) of one stream; a
// communication, AI CPU or other task breaks them. A window is keyed by its tasks' types,
// shapes and dtypes; occurrences on a stream do not overlap. A key fires when it occurs more
// than min_count times and its wall time exceeds wall_share of the step or its tasks are
// mostly data movement (Σmte/Σdur > mte_ratio). Longer and costlier windows are reported
// first; their tasks are then taken, so the sub-windows of a reported window do not repeat it.
void fuseWindows(const RuleCtx& c, const FusionPhysics& phys, const std::vector<char>& matched, RuleOut& out)
{
    using namespace window_search;
    const ProfileFacts& f = *c.f;
    Params limits;
    limits.minLen = static_cast<std::size_t>(std::max(2.0, c.param("min_len")));
    limits.maxLen = static_cast<std::size_t>(std::max<double>(static_cast<double>(limits.minLen), c.param("max_len")));
    limits.minCount = c.param("min_count");
    limits.wallShare = c.param("wall_share");
    limits.mteRatio = c.param("mte_ratio");
    limits.hostRatio = c.param("host_ratio");
    constexpr std::size_t kMaxWindowFindings = 10;

    const Runs r = computeRuns(f);
    Positions pos(r, f, phys, matched);
    std::size_t distinct = 0;
    const std::vector<Window> found = repeatedWindows(r, pos, limits.minLen, limits.maxLen, limits.minCount, distinct);

    auto qualifies = [&](const Stats& st) {
        return static_cast<double>(st.count) > limits.minCount
               && (f.perStep(st.wall) > limits.wallShare * f.stepTime || (st.dur > 0 && st.mte / st.dur > limits.mteRatio));
    };
    std::vector<std::pair<double, const Window*>> cand;
    for (const Window& w : found) {
        const Stats st = statsOf(w.all, w.occ.size());
        if (qualifies(st))
            cand.emplace_back(st.gain(), &w);
    }
    // Costliest first, then longer; the key order breaks ties deterministically.
    std::sort(cand.begin(), cand.end(), [&](const auto& a, const auto& b) {
        if (a.first != b.first)
            return a.first > b.first;
        if (a.second->len != b.second->len)
            return a.second->len > b.second->len;
        const std::uint32_t pa = a.second->occ.front(), pb = b.second->occ.front();
        if (pos.startAt(pa) != pos.startAt(pb))
            return pos.startAt(pa) < pos.startAt(pb);
        return pa < pb;
    });
    std::size_t reported = 0, more = 0;
    std::set<std::string> ids;
    for (const auto& candidate : cand) {
        const Window& w = *candidate.second;
        const Stats st = untakenStats(w, pos);
        if (!qualifies(st))
            continue;
        if (reported == kMaxWindowFindings) {
            ++more;
            continue;
        }
        ++reported;
        std::vector<std::string> types;
        const std::uint32_t first = *std::find_if(w.occ.begin(), w.occ.end(), [&](std::uint32_t p) { return pos.untaken(p, w.len); });
        for (std::size_t j = 0; j < w.len; ++j)
            types.push_back(f.str(r.taskAt[first + j]->type));
        std::string id = "window:" + joinList(types, "-");
        for (int n = 2; ids.count(id); ++n)
            id = "window:" + joinList(types, "-") + " #" + std::to_string(n);
        ids.insert(id);
        fireWindow(f, r, pos, w, st, limits, id, joinList(types, "→"), out);
        // The reported occurrences' tasks are taken (untaken() reads the running sums, which
        // change only at retake(), so every occurrence is judged as it was before this window).
        for (const std::uint32_t p : w.occ)
            if (pos.untaken(p, w.len))
                pos.take(p, w.len);
        pos.retake();
    }
    out.check = std::to_string(distinct) + " task windows of " + std::to_string(limits.minLen) + ".." + std::to_string(limits.maxLen)
                + " ops searched, none repeated > " + fmtNum(limits.minCount, 0) + " times with wall > " + fmtPct(limits.wallShare)
                + " of step or mte > " + fmtPct(limits.mteRatio);
    if (reported)
        out.inputs.push_back("windows of " + std::to_string(limits.minLen) + ".." + std::to_string(limits.maxLen) + " compute tasks: "
                             + std::to_string(distinct) + " distinct, " + std::to_string(reported) + " reported"
                             + (more ? ", " + std::to_string(more) + " more qualify (not listed)" : std::string()));
}

} // namespace

void addFusionRules(std::vector<RuleDef>& out)
{
    out.push_back({"CMP-FUSE", Category::Computation, false, "Op chains that a fused kernel would run in one pass", fuse});
}

} // namespace npuscope::advisor
