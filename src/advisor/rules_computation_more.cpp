// Computation rules beyond the memory-bound ones: fusion, AI CPU, block dims, unbound ops,
// frequency drops, dynamic shapes.
#include "advisor/rule_helpers.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

namespace npuscope::advisor {

namespace {

std::string needsOps(const ProfileFacts& f) { return "needs " + f.kernelFile() + " (op_summary_*.csv / kernel_details.csv)"; }

// mte time of a task = dur · (mte2 + max(fixpipe, mte3)), at most dur; 0 without PMU ratios.
struct MteTime {
    const KernelTable& k;
    std::vector<int> mte2, mte3, fix;
    explicit MteTime(const KernelTable& kt)
        : k(kt),
          mte2(metricCols(kt, {"aic_mte2_ratio", "aiv_mte2_ratio", "mte2_ratio"})),
          mte3(metricCols(kt, {"aic_mte3_ratio", "aiv_mte3_ratio", "mte3_ratio"})),
          fix(metricCols(kt, {"aic_fixpipe_ratio", "fixpipe_ratio"}))
    {
    }
    double operator()(const Task& t) const
    {
        if (t.kernel == kNone)
            return 0.0;
        const double a = firstMetric(k, mte2, t.kernel), b = firstMetric(k, mte3, t.kernel), x = firstMetric(k, fix, t.kernel);
        const double r = (!isMissing(a) ? a : 0) + std::max(!isMissing(b) ? b : 0.0, !isMissing(x) ? x : 0.0);
        return static_cast<double>(t.dur) * std::min(1.0, r);
    }
};

using StreamTasks = std::map<std::int64_t, std::vector<const Task*>>;

void fuseWindows(const RuleCtx& c, const MteTime& mteNs, const std::vector<char>& matched, RuleOut& out);

// ---- CMP-FUSE (a): known patterns on consecutive tasks of one stream -----------------------
void fuse(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    if (f.tasks.empty())
        return out.notChecked(needsOps(f) + " or device tasks in the timeline");
    const auto& patterns = c.paramJson("patterns");
    StreamTasks perStream;
    for (const auto& t : f.tasks)
        if (t.cls != TaskClass::Comm)
            perStream[(static_cast<std::int64_t>(t.device) << 32) ^ t.stream].push_back(&t);
    out.inputs.push_back((f.tasksFromKernels ? f.kernelFile() : std::string("timeline")) + ": op types in stream order ("
                         + std::to_string(f.tasks.size()) + " tasks)");
    std::size_t np = 0;
    const MteTime mteNs(f.p.kernels);
    std::vector<char> matched(f.tasks.size(), 0); // tasks of fired patterns, by index: the window search skips them
    std::unordered_map<std::uint32_t, std::string> lowerType; // lower-cased op type, once per type
    for (const auto& t : f.tasks)
        if (auto [it, fresh] = lowerType.try_emplace(t.type.v); fresh)
            it->second = lower(f.str(t.type));
    if (patterns.is_array()) {
        for (const auto& pat : patterns) {
            ++np;
            const auto ops = stringList(pat.value("ops", nlohmann::json::array()));
            if (ops.size() < 2)
                continue;
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
            auto matches = [&](const Task* t, std::size_t i) {
                const std::string& ty = lowerType.find(t->type.v)->second;
                for (const auto& a : alts[i])
                    if (ty == a)
                        return true;
                return false;
            };
            TopEvidence ev;
            std::vector<const Task*> chainTasks;
            double chainTotal = 0, gapTotal = 0, mteTotal = 0;
            std::size_t count = 0;
            for (const auto& [key, v] : perStream) {
                for (std::size_t i = 0; i + alts.size() <= v.size(); ++i) {
                    bool ok = true;
                    for (std::size_t j = 0; j < alts.size() && ok; ++j)
                        ok = matches(v[i + j], j);
                    if (!ok)
                        continue;
                    ++count;
                    const Task* first = v[i];
                    const Task* last = v[i + alts.size() - 1];
                    double sum = 0, gaps = 0;
                    for (std::size_t j = 0; j < alts.size(); ++j) {
                        chainTasks.push_back(v[i + j]);
                        sum += static_cast<double>(v[i + j]->dur);
                        mteTotal += mteNs(*v[i + j]);
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
            if (cost < c.th.minShare() * f.T)
                continue;
            for (const Task* t : chainTasks)
                matched[static_cast<std::size_t>(t - f.tasks.data())] = 1;
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
            const double gain = f.perStep(gapTotal + (n - 1) / n * mteTotal);
            setGain(fd, gain,
                    "Σ inner gaps " + fmtMs(f.perStep(gapTotal)) + " + (n−1)/n · Σmte " + fmtMs(f.perStep(mteTotal))
                        + " (n = " + std::to_string(alts.size()) + ") = " + fmtMs(gain));
            claimTasks(fd, f, chainTasks);
            ev.moveInto(fd.evidence);
        }
    }
    fuseWindows(c, mteNs, matched, out);
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
    StreamTasks perStream;
    for (const auto& t : f.tasks)
        perStream[(static_cast<std::int64_t>(t.device) << 32) ^ t.stream].push_back(&t);
    auto idOf = [&](NameId n) { return f.str(n).empty() ? kEmpty : n.v; };
    U64Map shapeIds, sigIds;
    Runs r;
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
};
struct Stats {
    std::size_t count = 0;
    double wall = 0, dur = 0, mte = 0, gaps = 0; // totals over the profile
    double gain(std::size_t n) const { return gaps + (static_cast<double>(n) - 1) / static_cast<double>(n) * mte; }
};
Stats statsOf(const Sums& s, std::size_t count)
{
    Stats st;
    st.count = count;
    st.wall = static_cast<double>(s.wall);
    st.dur = static_cast<double>(s.dur);
    st.gaps = static_cast<double>(s.gaps);
    st.mte = static_cast<double>(s.mte);
    return st;
}

// Per position: taken (by a fired pattern or a reported window), start, end and dur, and
// running sums over each run of dur, inner gaps, data-movement time (rounded to whole ns, so
// every sum is exact and an occurrence costs O(1)) and taken tasks.
class Positions {
public:
    Positions(const Runs& r, const ProfileFacts& f, const MteTime& mteNs, const std::vector<char>& matched)
    {
        const std::size_t n = r.sig.size();
        m_taken.assign(n, 0);
        m_startAt.resize(n);
        m_endAt.resize(n);
        m_durSum.assign(n + 1, 0);
        m_gapSum.assign(n + 1, 0);
        m_mteSum.assign(n + 1, 0);
        m_takenSum.assign(n + 1, 0);
        for (const Run& run : r.runs)
            for (std::uint32_t j = 0; j < run.size; ++j) {
                const std::uint32_t p = run.begin + j;
                const Task* t = r.taskAt[p];
                m_taken[p] = matched[static_cast<std::size_t>(t - f.tasks.data())];
                m_startAt[p] = t->start;
                m_endAt[p] = t->end();
                m_durSum[p + 1] = m_durSum[p] + t->dur;
                m_gapSum[p + 1] = m_gapSum[p] + (j ? std::max<TimeNs>(0, m_startAt[p] - m_endAt[p - 1]) : 0);
                m_mteSum[p + 1] = m_mteSum[p] + roundNs(mteNs(*t));
            }
        retake();
    }

    TimeNs startAt(std::uint32_t p) const { return m_startAt[p]; }
    TimeNs wallOf(std::uint32_t p, std::uint32_t len) const { return m_endAt[p + len - 1] - m_startAt[p]; }
    TimeNs durOf(std::uint32_t p, std::uint32_t len) const { return m_durSum[p + len] - m_durSum[p]; }
    TimeNs gapsOf(std::uint32_t p, std::uint32_t len) const { return m_gapSum[p + len] - m_gapSum[p + 1]; }
    void addOccurrence(Sums& s, std::uint32_t p, std::uint32_t len) const
    {
        s.wall += wallOf(p, len);
        s.dur += durOf(p, len);
        s.gaps += gapsOf(p, len);
        s.mte += m_mteSum[p + len] - m_mteSum[p];
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
    std::vector<TimeNs> m_startAt, m_endAt;
    std::vector<TimeNs> m_durSum, m_gapSum, m_mteSum;
    std::vector<std::uint32_t> m_takenSum;
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
    const bool wallHit = wall > limits.wallShare * f.T, mteHit = mteShare > limits.mteRatio;
    Finding& fd = out.fire(id);
    fd.family = id.substr(0, id.find(" #")); // "window:A-B-C": its shape variants are "#2", "#3", …
    fd.familyTitle = "Fusible window " + chain + " (" + std::to_string(w.len) + " ops)";
    fd.costNs = roundNs(wall);
    fd.title = "Fusible window " + chain + " (" + std::to_string(w.len) + " ops): " + std::to_string(st.count) + " times, "
               + fmtMs(wall) + "/step" + (hostBound ? ", host-bound" : (mteHit ? ", mte " + fmtRatio(mteShare) : ""));
    fd.description = "The same " + std::to_string(w.len) + " compute tasks (" + chain + ", same shapes) run back to back "
                     + std::to_string(st.count) + " times on one stream (more than "
                     + fmtNum(limits.minCount, 0) + "), taking " + fmtMs(wall) + " of wall time per step ("
                     + fmtPct(f.T > 0 ? wall / f.T : 0) + (wallHit ? " > " : " ≤ ") + fmtPct(limits.wallShare)
                     + "); data movement is " + fmtPct(mteShare) + " of their AI Core time ("
                     + (mteHit ? "> " : "≤ ") + fmtPct(limits.mteRatio) + ").";
    if (hostBound) {
        fd.description += " The tasks fill only " + fmtPct(busy) + " of the window (< " + fmtPct(limits.hostRatio)
                          + "): the device waits for the host to launch them.";
        fd.suggestions.push_back("Host-bound: cut launch overhead first: graph mode (torchair / torch.compile), "
                                 "fewer and larger ops, fewer host-side checks between the launches.");
        fd.suggestions.push_back("Then fuse " + chain + " into one kernel (a fused torch_npu op or a custom op).");
    } else {
        fd.suggestions.push_back("Fuse " + chain + " into one kernel (a fused torch_npu op, graph mode fusion or a "
                                 "custom op): one pass over the data instead of " + std::to_string(w.len) + ".");
    }
    setGain(fd, f.perStep(st.gain(w.len)),
            "Σ inner gaps " + fmtMs(f.perStep(st.gaps)) + " + (n−1)/n · Σmte " + fmtMs(f.perStep(st.mte))
                + " (n = " + std::to_string(w.len) + ") = " + fmtMs(f.perStep(st.gain(w.len))));
    TopEvidence top;
    for (const std::uint32_t p : w.occ) {
        if (!pos.untaken(p, w.len))
            continue;
        for (std::size_t j = 0; j < w.len; ++j)
            fd.claims.push_back(static_cast<std::uint64_t>(r.taskAt[p + j] - f.tasks.data()));
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
    top.moveInto(fd.evidence);
}

} // namespace window_search

// Windows of min_len..max_len consecutive compute tasks (AI Core / vector) of one stream; a
// communication, AI CPU or other task breaks them. A window is keyed by its tasks' types,
// shapes and dtypes; occurrences on a stream do not overlap. A key fires when it occurs more
// than min_count times and its wall time exceeds wall_share of the step or its tasks are
// mostly data movement (Σmte/Σdur > mte_ratio). Longer and costlier windows are reported
// first; their tasks are then taken, so the sub-windows of a reported window do not repeat it.
void fuseWindows(const RuleCtx& c, const MteTime& mteNs, const std::vector<char>& matched, RuleOut& out)
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
    Positions pos(r, f, mteNs, matched);
    std::size_t distinct = 0;
    const std::vector<Window> found = repeatedWindows(r, pos, limits.minLen, limits.maxLen, limits.minCount, distinct);

    auto qualifies = [&](const Stats& st) {
        return static_cast<double>(st.count) > limits.minCount
               && (f.perStep(st.wall) > limits.wallShare * f.T || (st.dur > 0 && st.mte / st.dur > limits.mteRatio));
    };
    std::vector<std::pair<double, const Window*>> cand;
    for (const Window& w : found) {
        const Stats st = statsOf(w.all, w.occ.size());
        if (qualifies(st))
            cand.emplace_back(st.gain(w.len), &w);
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

// ---- CMP-AICPU -----------------------------------------------------------------------------
void aicpu(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    if (!f.hasKernels && f.tasks.empty())
        return out.notChecked(needsOps(f));
    const double minDur = c.param("min_dur_us") * 1e3, r = c.param("r");
    const auto indexOps = stringList(c.paramJson("index_ops"));
    const auto argminOps = stringList(c.paramJson("argmin_ops"));
    const auto doubles = stringList(c.paramJson("double_dtypes"));
    const std::string fixedIn = c.paramJson("argmin_fixed_in").is_string() ? c.paramJson("argmin_fixed_in").get<std::string>() : "";
    const std::string cann = f.p.meta.cannVersion;
    // The AI Core dtype list of the newest entry whose version is ≤ CANN; unknown CANN → newest.
    std::vector<std::string> aicoreTypes;
    std::string listFrom;
    const auto& lists = c.paramJson("aicore_dtypes");
    if (lists.is_array())
        for (const auto& l : lists) {
            const std::string from = l.value("from", std::string("0"));
            if ((cann.empty() || compareCannVersion(from, cann) <= 0)
                && (listFrom.empty() || compareCannVersion(from, listFrom) >= 0)) {
                listFrom = from;
                aicoreTypes = stringList(l.value("dtypes", nlohmann::json::array()));
            }
        }
    std::map<std::string, TaskGroup> groups;
    std::size_t n = 0;
    for (const auto& t : f.tasks) {
        if (t.cls != TaskClass::AiCpu)
            continue;
        ++n;
        if (static_cast<double>(t.dur) < minDur)
            continue; // the task's own duration, not the longest op of the profile
        const std::string type = f.str(t.type);
        auto& g = groups[type];
        g.key = g.type = type;
        g.tasks.push_back(&t);
        g.sumDur += static_cast<double>(t.dur);
    }
    out.inputs.push_back(f.kernelFile() + ": AI_CPU tasks (" + std::to_string(n) + "), input dtypes; AI Core dtype list from CANN "
                         + listFrom + (cann.empty() ? " (CANN version unknown: newest list)" : " (CANN " + cann + ")"));
    for (auto& [type, g] : groups) {
        const double cost = f.perStep(g.sumDur);
        std::set<std::string> reasons;
        std::string badType, castFrom, castTo;
        for (const Task* t : g.tasks) {
            if (t->kernel == kNone)
                continue;
            if (castFrom.empty()) {
                castFrom = f.p.str(f.p.kernels.inputDtypes[t->kernel]);
                castTo = f.p.str(f.p.kernels.outputDtypes[t->kernel]);
            }
            for (const auto& d : dtypeTokens(f.p.str(f.p.kernels.inputDtypes[t->kernel]))) {
                if (std::find(doubles.begin(), doubles.end(), d) != doubles.end())
                    reasons.insert("double");
                else if (!aicoreTypes.empty() && std::find(aicoreTypes.begin(), aicoreTypes.end(), d) == aicoreTypes.end()) {
                    reasons.insert("dtype");
                    badType = d;
                }
            }
        }
        if (std::find(indexOps.begin(), indexOps.end(), type) != indexOps.end())
            reasons.insert("index");
        if (std::find(argminOps.begin(), argminOps.end(), type) != argminOps.end() && !cann.empty()
            && compareCannVersion(cann, fixedIn) < 0)
            reasons.insert("argmin");
        Finding& fd = out.fire(type);
        fd.costNs = roundNs(cost);
        fd.minor = cost < c.th.minShare() * f.T;
        fd.title = type + " runs on AI CPU: " + std::to_string(g.tasks.size()) + " tasks ≥ " + fmtNum(minDur / 1e3, 0)
                   + " µs, " + fmtMs(cost) + "/step";
        fd.description = "The AI CPU executes " + type + " (" + std::to_string(g.tasks.size()) + " tasks of at least "
                         + fmtNum(minDur / 1e3, 0) + " µs each, " + fmtMs(cost)
                         + " per step); AI CPU ops are slow and serialise the stream." + minorNote(f, cost, c.th);
        if (lower(type) == "cast" && !castFrom.empty() && !castTo.empty())
            fd.suggestions.push_back("A Cast on the AI CPU means a dtype pair the AI Core Cast does not take (here "
                                     + castFrom + " → " + castTo + "): keep the tensor in a dtype the AI Core supports "
                                     "(e.g. int32/int64, float16/float32) or drop the conversion.");
        if (reasons.count("double"))
            fd.suggestions.push_back("It takes float64 (DOUBLE) inputs, which AI Core does not support: use float32/float16.");
        if (reasons.count("dtype"))
            fd.suggestions.push_back("Input dtype " + badType + " is not on the AI Core list for CANN " + listFrom
                                     + ": cast it to a supported dtype (e.g. int32, float16).");
        if (reasons.count("index"))
            fd.suggestions.push_back("Index/IndexPut/NonZero run on AI CPU: replace them with masks (torch.where, "
                                     "masked_fill) or gather/scatter on fixed shapes.");
        if (reasons.count("argmin"))
            fd.suggestions.push_back("ArgMin runs on AI CPU before CANN " + fixedIn + ": upgrade CANN or use argmax on "
                                     "the negated tensor.");
        fd.suggestions.push_back("Otherwise replace the op with an AI Core equivalent or move it off the training step.");
        setGain(fd, cost * r, "Σdur " + fmtMs(cost) + " × r " + fmtRatio(r) + " = " + fmtMs(cost * r));
        claimTasks(fd, f, g.tasks);
        addLongestTasks(
            fd, f, g.tasks, [](const Task& t) { return std::vector<Metric>{{"duration", static_cast<double>(t.dur) / 1e3, "µs"}}; },
            "dur ≥ " + fmtNum(minDur / 1e3, 0) + " µs");
    }
    if (out.fired.empty())
        out.pass(std::to_string(n) + " AI CPU tasks; none ≥ " + fmtNum(minDur / 1e3, 0) + " µs");
}

// ---- CMP-BLOCKDIM --------------------------------------------------------------------------
void blockDim(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    if (!f.hasKernels)
        return out.notChecked(needsOps(f) + " with Block Dim");
    if (!f.hasInfo)
        return out.notChecked("needs info.json (device_N/info.json.N in the PROF_* folder: ai_core_num, aiv_num)");
    const double minDur = c.param("min_dur_us") * 1e3;
    const KernelTable& k = f.p.kernels;
    struct G {
        TaskGroup g;
        double lost = 0;
        int b = 0, cores = 0;
    };
    std::map<std::string, G> groups;
    std::size_t total = 0, have = 0;
    for (const auto& t : f.tasks) {
        if ((t.cls != TaskClass::Cube && t.cls != TaskClass::Vector) || t.kernel == kNone)
            continue;
        ++total;
        const std::int64_t b = k.blockDim[t.kernel];
        const DeviceInfo* info = f.p.info(t.device);
        if (b <= 0 || !info)
            continue;
        const std::string tt(f.p.str(t.taskType));
        const bool cube = tt.find("AI_CORE") != std::string::npos || tt.find("MIX_AIC") != std::string::npos;
        const int cores = cube ? info->aiCoreNum : info->aivNum;
        if (cores <= 0)
            continue;
        ++have;
        if (static_cast<double>(t.dur) < minDur || b % cores == 0)
            continue;
        if (tt.find("MIX_AIC") != std::string::npos && info->aivNum > 0 && k.mixBlockDim[t.kernel] > 0
            && k.mixBlockDim[t.kernel] % info->aivNum == 0)
            continue;
        const double waves = std::ceil(static_cast<double>(b) / cores);
        const double eff = static_cast<double>(b) / (waves * cores);
        const std::string type = f.str(t.type);
        G& g = groups[type];
        g.g.key = g.g.type = type;
        g.g.tasks.push_back(&t);
        g.g.sumDur += static_cast<double>(t.dur);
        g.lost += static_cast<double>(t.dur) * (1 - eff);
        g.b = static_cast<int>(b);
        g.cores = cores;
    }
    out.inputs.push_back(f.kernelFile() + ": Block Dim (" + coverage(have, total, "block dims") + "); info.json ai_core_num/aiv_num");
    for (auto& [type, g] : groups) {
        const double cost = f.perStep(g.g.sumDur);
        Finding& fd = out.fire(type);
        fd.costNs = roundNs(cost);
        fd.minor = cost < c.th.minShare() * f.T;
        fd.title = type + " block dim " + std::to_string(g.b) + " not a multiple of " + std::to_string(g.cores) + " cores, "
                   + fmtMs(cost) + "/step";
        fd.description = std::to_string(g.g.tasks.size()) + " " + type + " tasks launch a block count that leaves cores idle "
                         "in the last wave (e.g. " + std::to_string(g.b) + " blocks on " + std::to_string(g.cores)
                         + " cores)." + minorNote(f, cost, c.th);
        fd.suggestions.push_back("Tune the op with AOE (put the top-10 such ops in the tune file).");
        fd.suggestions.push_back("Choose tiling so the block count is a multiple of the core count.");
        const double gain = f.perStep(g.lost);
        setGain(fd, gain, "Σdur·(1 − b/(⌈b/c⌉·c)) = " + fmtMs(gain));
        claimTasks(fd, f, g.g.tasks);
        addLongestTasks(
            fd, f, g.g.tasks,
            [&](const Task& t) { return std::vector<Metric>{{"block dim", static_cast<double>(k.blockDim[t.kernel]), ""}}; },
            "b mod " + std::to_string(g.cores) + " ≠ 0");
    }
    if (out.fired.empty())
        out.pass(std::to_string(have) + " ops with block dims; none ≥ " + fmtNum(minDur / 1e3, 0)
                 + " µs with a partial last wave");
}

// ---- CMP-NOBOUND ---------------------------------------------------------------------------
void noBound(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    if (!f.hasKernels)
        return out.notChecked(needsOps(f) + " with --aic-metrics=PipeUtilization");
    const KernelTable& k = f.p.kernels;
    std::vector<int> cols;
    for (const char* pre : {"aic_", "aiv_", ""})
        for (const char* pipe : {"mac", "vec", "scalar", "mte1", "mte2", "mte3", "fixpipe"}) {
            const int i = k.metricIndex(std::string(pre) + pipe + "_ratio");
            if (i >= 0)
                cols.push_back(i);
        }
    if (cols.empty())
        return out.notChecked("needs " + f.kernelFile() + " with --aic-metrics=PipeUtilization (no *_ratio columns)");
    const double bound = c.param("bound_ratio"), minDur = c.param("min_dur_us") * 1e3;
    struct G {
        TaskGroup g;
        double gain = 0;
        Weighted mx;
    };
    std::vector<G> groups;
    U64Map groupOf; // op type id -> index in groups
    std::size_t total = 0, have = 0;
    for (const auto& t : f.tasks) {
        if ((t.cls != TaskClass::Cube && t.cls != TaskClass::Vector) || t.kernel == kNone)
            continue;
        ++total;
        double mx = kNaN;
        for (int ci : cols) {
            const double v = k.metrics[static_cast<std::size_t>(ci)][t.kernel];
            if (!isMissing(v))
                mx = !isMissing(mx) ? std::max(mx, v) : v;
        }
        if (isMissing(mx))
            continue; // per op: a ratio-less row is not evidence of anything
        ++have;
        if (mx > bound || static_cast<double>(t.dur) <= minDur)
            continue;
        G& g = addToTypeGroup(groups, groupOf, f, t);
        g.gain += static_cast<double>(t.dur) * (1 - mx / bound);
        g.mx.add(static_cast<double>(t.dur), mx);
    }
    out.inputs.push_back(f.kernelFile() + ": pipe ratios (" + coverage(have, total, "ratios") + ")");
    byType(groups);
    for (auto& g : groups) {
        const std::string& type = g.g.type;
        const double cost = f.perStep(g.g.sumDur);
        if (cost < c.th.minShare() * f.T)
            continue;
        Finding& fd = out.fire(type);
        fd.costNs = roundNs(cost);
        fd.title = type + " bound by no pipe: busiest pipe " + fmtRatio(g.mx.mean()) + ", " + fmtMs(cost) + "/step";
        fd.description = std::to_string(g.g.tasks.size()) + " " + type + " tasks longer than " + fmtNum(minDur / 1e3, 0)
                         + " µs keep every pipe below " + fmtRatio(bound)
                         + " busy: latency, synchronisation or a poor tiling, not throughput, limits them.";
        fd.suggestions.push_back("Tune the op with AOE.");
        fd.suggestions.push_back("Revisit the tiling (bigger tiles, double buffering) so one pipe becomes the bound.");
        const double gain = f.perStep(g.gain);
        setGain(fd, gain, "Σdur·(1 − max ratio/" + fmtRatio(bound) + ") = " + fmtMs(gain));
        claimTasks(fd, f, g.g.tasks);
        addLongestTasks(fd, f, g.g.tasks, [](const Task&) { return std::vector<Metric>{}; },
                        "all pipe ratios ≤ " + fmtRatio(bound));
    }
    if (out.fired.empty())
        out.pass(coverage(have, total, "ratios") + "; no op type ≥ " + fmtPct(c.th.minShare()) + " of step with all pipes ≤ "
                 + fmtRatio(bound));
}

} // namespace

void addComputationRulesFreq(std::vector<RuleDef>& out); // rules_computation_freq.cpp

void addComputationRulesMore(std::vector<RuleDef>& out)
{
    out.push_back({"CMP-FUSE", Category::Computation, false, "Op chains that a fused kernel would run in one pass", fuse});
    out.push_back({"CMP-AICPU", Category::Computation, false, "Ops that run on the slow AI CPU", aicpu});
    out.push_back({"CMP-BLOCKDIM", Category::Computation, false, "Block counts that leave AI cores idle in the last wave",
                   blockDim});
    out.push_back({"CMP-NOBOUND", Category::Computation, false, "Long ops bound by no pipe", noBound});
    addComputationRulesFreq(out);
}

} // namespace npuscope::advisor
