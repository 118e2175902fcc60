#include "model/analysis/op_mapping.h"

#include "model/analysis/op_stats.h"
#include "model/analysis/overlap.h"
#include "model/analysis/summary.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <unordered_map>

namespace npuscope {

const char* mappingKindName(MappingKind k)
{
    switch (k) {
    case MappingKind::Unchanged: return "unchanged";
    case MappingKind::Changed: return "changed";
    case MappingKind::Replaced: return "replaced";
    case MappingKind::Removed: return "removed";
    case MappingKind::Added: return "added";
    }
    return "";
}

std::size_t OpMapping::count(MappingKind k) const
{
    return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [k](const OpMappingRow& r) { return r.kind == k; }));
}

namespace {

double mean(const std::vector<double>& v)
{
    double s = 0;
    for (double x : v)
        s += x;
    return v.empty() ? kNaN : s / static_cast<double>(v.size());
}

// The median, as T is of the complete steps (summary.h rankSpread: the mean of the two middle
// values of an even count): the verdict's ratio is the headline's.
double median(std::vector<double> v) { return rankSpread(std::move(v)).median; }

} // namespace

RatioInterval bootstrapRatio(const std::vector<double>& baseline, const std::vector<double>& optimized, double level)
{
    RatioInterval ci;
    ci.baselineSteps = static_cast<int>(baseline.size());
    ci.optimizedSteps = static_cast<int>(optimized.size());
    const double mb = median(baseline), mo = median(optimized);
    if (std::isnan(mb) || std::isnan(mo) || mb <= 0)
        return ci;
    ci.ratio = mo / mb;
    if (baseline.size() < 2 || optimized.size() < 2) {
        ci.low = ci.high = ci.ratio;
        return ci;
    }
    constexpr int kResamples = 2000;
    std::mt19937_64 rng(0x6e707573636f7065ULL); // fixed: the same data gives the same interval
    std::vector<double> draw;
    auto resampledMedian = [&rng, &draw](const std::vector<double>& v) {
        draw.resize(v.size());
        for (double& x : draw)
            x = v[static_cast<std::size_t>(rng() % v.size())];
        return median(draw);
    };
    std::vector<double> ratios;
    ratios.reserve(kResamples);
    for (int i = 0; i < kResamples; ++i) {
        const double b = resampledMedian(baseline), o = resampledMedian(optimized);
        if (b > 0)
            ratios.push_back(o / b);
    }
    if (ratios.empty())
        return ci;
    std::sort(ratios.begin(), ratios.end());
    const double alpha = (1.0 - level) / 2.0;
    const auto n = ratios.size();
    const auto lo = static_cast<std::size_t>(std::floor(alpha * static_cast<double>(n)));
    const auto hi = static_cast<std::size_t>(std::ceil((1.0 - alpha) * static_cast<double>(n)));
    ci.low = ratios[std::min(lo, n - 1)];
    ci.high = ratios[std::min(hi == 0 ? 0 : hi - 1, n - 1)];
    return ci;
}

std::string intervalVerdict(const RatioInterval& ci, double sameWithin)
{
    if (std::isnan(ci.ratio))
        return {};
    if (std::abs(ci.ratio - 1.0) <= sameWithin * std::max(1.0, ci.ratio))
        return "same";
    if (ci.valid() && ci.low <= 1.0 && ci.high >= 1.0)
        return "same";
    return ci.ratio < 1.0 ? "improved" : "regressed";
}

std::vector<std::vector<std::vector<MappedOp>>> mappingSequences(const Profile& p, std::string* source)
{
    // (step index, stream id) -> ops; the step index is dense from 0 in time order.
    std::map<std::int64_t, std::map<std::int64_t, std::vector<MappedOp>>> byStep;
    const auto spans = profilerSteps(p);
    auto stepOf = [&spans](TimeNs t) -> std::int64_t {
        if (spans.empty())
            return 0;
        // The last span that starts at or before t; ops before the first step go to it.
        auto it = std::upper_bound(spans.begin(), spans.end(), t,
                                   [](TimeNs v, const auto& s) { return v < s.second.begin; });
        return it == spans.begin() ? 0 : static_cast<std::int64_t>(it - spans.begin()) - 1;
    };
    const KernelTable& k = p.kernels;
    if (k.size() > 0) {
        if (source)
            *source = "kernel table";
        const bool stepColumn = std::any_of(k.step.begin(), k.step.end(), [](std::int64_t s) { return s >= 0; });
        for (std::size_t r = 0; r < k.size(); ++r) {
            const std::string_view type = p.str(k.type[r]), name = p.str(k.name[r]), taskType = p.str(k.taskType[r]);
            if (isCommunicationTask(taskType, type.empty() ? name : type) || isHcclTask(taskType, name))
                continue;
            MappedOp op;
            op.type = std::string(type.empty() ? name : type);
            op.shapes = std::string(p.str(k.inputShapes[r]));
            op.start = k.start[r];
            op.dur = k.dur[r];
            const std::int64_t step = stepColumn ? k.step[r] : stepOf(op.start);
            byStep[step][k.streamId[r]].push_back(std::move(op));
        }
    } else {
        if (source)
            *source = "device tasks";
        for (const Track& t : p.tracks) {
            if (t.kind != TrackKind::Stream)
                continue;
            for (std::uint32_t r = t.sliceBegin; r < t.sliceEnd; ++r) {
                const std::string_view name = p.str(p.slices.name[r]);
                if (!isComputeTask(p.str(p.slices.category[r]), name))
                    continue;
                MappedOp op;
                op.type = std::string(name);
                op.start = p.slices.start[r];
                op.dur = p.slices.dur[r];
                byStep[stepOf(op.start)][t.streamId].push_back(std::move(op));
            }
        }
    }
    // Streams by operator count over the whole profile, busiest first (ties by id).
    std::map<std::int64_t, std::size_t> perStream;
    for (const auto& [step, streams] : byStep)
        for (const auto& [stream, ops] : streams)
            perStream[stream] += ops.size();
    std::vector<std::pair<std::int64_t, std::size_t>> order(perStream.begin(), perStream.end());
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::vector<std::vector<std::vector<MappedOp>>> out;
    for (auto& [step, streams] : byStep) {
        std::vector<std::vector<MappedOp>> row;
        for (const auto& [stream, n] : order) {
            auto it = streams.find(stream);
            row.push_back(it == streams.end() ? std::vector<MappedOp>{} : std::move(it->second));
            std::stable_sort(row.back().begin(), row.back().end(),
                             [](const MappedOp& a, const MappedOp& b) { return a.start < b.start; });
        }
        out.push_back(std::move(row));
    }
    return out;
}

namespace {

constexpr int kMaxEditDistance = 2500; // beyond it, a stream pair is not the same program
constexpr std::size_t kEditBudget = 50'000'000; // (N + M) · D steps of one stream pair at most

// Myers' O((N+M)·D) shortest edit script; the matched index pairs in order. False when the
// distance exceeds maxD.
bool myersMatches(const std::vector<int>& a, const std::vector<int>& b, int maxD, std::vector<std::pair<int, int>>& out)
{
    const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
    const int max = n + m;
    std::vector<int> v(static_cast<std::size_t>(2 * max + 3), 0);
    const int off = max + 1;
    std::vector<std::vector<int>> trace; // trace[d][k + d]: furthest x on diagonal k after d edits
    int found = -1;
    for (int d = 0; d <= std::min(max, maxD) && found < 0; ++d) {
        for (int k = -d; k <= d; k += 2) {
            int x = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1] : v[off + k - 1] + 1;
            int y = x - k;
            while (x < n && y < m && a[static_cast<std::size_t>(x)] == b[static_cast<std::size_t>(y)]) {
                ++x;
                ++y;
            }
            v[off + k] = x;
            if (x >= n && y >= m)
                found = d;
        }
        trace.emplace_back(v.begin() + off - d, v.begin() + off + d + 1);
    }
    if (found < 0)
        return false;
    out.clear();
    int x = n, y = m;
    for (int d = found; d > 0; --d) {
        const std::vector<int>& prev = trace[static_cast<std::size_t>(d - 1)];
        auto at = [&prev, d](int k) { return prev[static_cast<std::size_t>(k + d - 1)]; };
        const int k = x - y;
        const int prevK = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1;
        const int prevX = at(prevK), prevY = prevX - prevK;
        const int startX = prevK == k + 1 ? prevX : prevX + 1; // after the edit move
        while (x > startX) {
            out.push_back({x - 1, y - 1});
            --x;
            --y;
        }
        x = prevX;
        y = prevY;
    }
    while (x > 0 && y > 0) {
        out.push_back({x - 1, y - 1});
        --x;
        --y;
    }
    std::reverse(out.begin(), out.end());
    return true;
}

// Longest common subsequence by classic dynamic programming (small inputs: runs of a gap).
std::vector<std::pair<int, int>> lcsMatches(const std::vector<int>& a, const std::vector<int>& b)
{
    const std::size_t n = a.size(), m = b.size();
    std::vector<std::vector<int>> L(n + 1, std::vector<int>(m + 1, 0));
    for (std::size_t i = n; i-- > 0;)
        for (std::size_t j = m; j-- > 0;)
            L[i][j] = a[i] == b[j] ? L[i + 1][j + 1] + 1 : std::max(L[i + 1][j], L[i][j + 1]);
    std::vector<std::pair<int, int>> out;
    std::size_t i = 0, j = 0;
    while (i < n && j < m) {
        if (a[i] == b[j]) {
            out.push_back({static_cast<int>(i), static_cast<int>(j)});
            ++i;
            ++j;
        } else if (L[i + 1][j] >= L[i][j + 1]) {
            ++i;
        } else {
            ++j;
        }
    }
    return out;
}

struct Acc {
    MappingKind kind = MappingKind::Unchanged; // Unchanged stands for "anchor" until classified
    std::string baseline, optimized, shapes;
    std::uint64_t occurrences = 0;
    std::vector<double> before, after;
};

class Mapper {
public:
    explicit Mapper(int steps) : m_steps(steps) {}

    void mapPair(int step, const std::vector<MappedOp>& a, const std::vector<MappedOp>& b, bool& mapped)
    {
        std::vector<int> ka, kb, ta, tb;
        for (const MappedOp& op : a) {
            ka.push_back(id(m_keys, op.type + '\x1f' + op.shapes));
            ta.push_back(id(m_types, op.type));
        }
        for (const MappedOp& op : b) {
            kb.push_back(id(m_keys, op.type + '\x1f' + op.shapes));
            tb.push_back(id(m_types, op.type));
        }
        std::vector<std::pair<int, int>> anchors;
        // The work is (N + M) · D: long sequences get a smaller distance budget, so a large pair of
        // different programs gives up early instead of stalling the comparison.
        const std::size_t len = a.size() + b.size();
        const int maxD = static_cast<int>(std::min<std::size_t>(kMaxEditDistance, std::max<std::size_t>(64, kEditBudget / (len + 1))));
        mapped = !a.empty() && !b.empty() && myersMatches(ka, kb, maxD, anchors);
        // Pieces: (baseline range, optimized range, is-anchor).
        struct Piece {
            int a0, a1, b0, b1;
            bool anchor;
        };
        std::vector<Piece> pieces;
        std::size_t typeMatched = 0;
        if (mapped) {
            int pa = 0, pb = 0;
            auto gap = [&](int a1, int b1) {
                refineGap(ta, tb, pa, a1, pb, b1, pieces, typeMatched);
                pa = a1;
                pb = b1;
            };
            for (const auto& [i, j] : anchors) {
                gap(i, j);
                pieces.push_back({i, i + 1, j, j + 1, true});
                pa = i + 1;
                pb = j + 1;
            }
            gap(static_cast<int>(a.size()), static_cast<int>(b.size()));
            const std::size_t shorter = std::min(a.size(), b.size());
            const std::size_t covered = anchors.size() + typeMatched;
            mapped = covered >= 2 && covered * 3 >= shorter;
        }
        if (!mapped) {
            pieces.clear();
            if (!a.empty())
                pieces.push_back({0, static_cast<int>(a.size()), 0, 0, false});
            if (!b.empty())
                pieces.push_back({0, 0, 0, static_cast<int>(b.size()), false});
        }
        for (const Piece& pc : pieces) {
            const int na = pc.a1 - pc.a0, nb = pc.b1 - pc.b0;
            if (pc.anchor) {
                const MappedOp& x = a[static_cast<std::size_t>(pc.a0)];
                Acc& acc = slot("A\x1f" + x.type + '\x1f' + x.shapes, MappingKind::Unchanged, x.type, x.type, x.shapes);
                ++acc.occurrences;
                acc.before[static_cast<std::size_t>(step)] += static_cast<double>(x.dur);
                acc.after[static_cast<std::size_t>(step)] += static_cast<double>(b[static_cast<std::size_t>(pc.b0)].dur);
            } else if (na > 0 && nb > 0 && static_cast<std::size_t>(na) <= kMaxReplacementWindow
                       && static_cast<std::size_t>(nb) <= kMaxReplacementWindow) {
                const std::string sa = signature(a, pc.a0, pc.a1), sb = signature(b, pc.b0, pc.b1);
                Acc& acc = slot("R\x1f" + sa + '\x1f' + sb, MappingKind::Replaced, sa, sb, {});
                ++acc.occurrences;
                acc.before[static_cast<std::size_t>(step)] += total(a, pc.a0, pc.a1);
                acc.after[static_cast<std::size_t>(step)] += total(b, pc.b0, pc.b1);
            } else {
                for (int i = pc.a0; i < pc.a1; ++i) {
                    const MappedOp& x = a[static_cast<std::size_t>(i)];
                    Acc& acc = slot("-\x1f" + x.type, MappingKind::Removed, x.type, {}, {});
                    ++acc.occurrences;
                    acc.before[static_cast<std::size_t>(step)] += static_cast<double>(x.dur);
                }
                for (int j = pc.b0; j < pc.b1; ++j) {
                    const MappedOp& y = b[static_cast<std::size_t>(j)];
                    Acc& acc = slot("+\x1f" + y.type, MappingKind::Added, {}, y.type, {});
                    ++acc.occurrences;
                    acc.after[static_cast<std::size_t>(step)] += static_cast<double>(y.dur);
                }
            }
        }
    }

    std::vector<OpMappingRow> rows(double sameWithin) const
    {
        std::vector<OpMappingRow> out;
        for (const auto& [key, acc] : m_acc) {
            OpMappingRow r;
            r.kind = acc.kind;
            r.baseline = acc.baseline;
            r.optimized = acc.optimized;
            r.shapes = acc.shapes;
            r.occurrences = acc.occurrences;
            r.beforePerStep = acc.before;
            r.afterPerStep = acc.after;
            r.beforeNs = mean(acc.before);
            r.afterNs = mean(acc.after);
            if (acc.kind == MappingKind::Unchanged || acc.kind == MappingKind::Replaced) {
                r.ci = bootstrapRatio(acc.before, acc.after);
                r.verdict = intervalVerdict(r.ci, sameWithin);
                if (acc.kind == MappingKind::Unchanged && r.verdict != "same")
                    r.kind = MappingKind::Changed;
            }
            out.push_back(std::move(r));
        }
        auto rank = [](MappingKind k) {
            switch (k) {
            case MappingKind::Replaced: return 0;
            case MappingKind::Changed: return 1;
            case MappingKind::Unchanged: return 2;
            case MappingKind::Removed: return 3;
            case MappingKind::Added: return 4;
            }
            return 5;
        };
        std::stable_sort(out.begin(), out.end(), [&rank](const OpMappingRow& x, const OpMappingRow& y) {
            if (rank(x.kind) != rank(y.kind))
                return rank(x.kind) < rank(y.kind);
            return std::abs(x.afterNs - x.beforeNs) > std::abs(y.afterNs - y.beforeNs);
        });
        return out;
    }

private:
    static int id(std::unordered_map<std::string, int>& ids, const std::string& s)
    {
        return ids.emplace(s, static_cast<int>(ids.size())).first->second;
    }

    static std::string signature(const std::vector<MappedOp>& ops, int begin, int end)
    {
        std::string s;
        for (int i = begin; i < end; ++i)
            s += (i > begin ? "→" : "") + ops[static_cast<std::size_t>(i)].type;
        return s;
    }

    static double total(const std::vector<MappedOp>& ops, int begin, int end)
    {
        double s = 0;
        for (int i = begin; i < end; ++i)
            s += static_cast<double>(ops[static_cast<std::size_t>(i)].dur);
        return s;
    }

    // Cuts the gap [a0, a1) × [b0, b1) at a longest common subsequence of its runs of one type.
    template <class Piece>
    static void refineGap(const std::vector<int>& ta, const std::vector<int>& tb, int a0, int a1, int b0, int b1,
                          std::vector<Piece>& pieces, std::size_t& typeMatched)
    {
        if (a0 == a1 && b0 == b1)
            return;
        auto runs = [](const std::vector<int>& t, int begin, int end) {
            std::vector<std::pair<int, int>> r; // [begin, end) of each run
            for (int i = begin; i < end; ++i)
                if (r.empty() || t[static_cast<std::size_t>(i)] != t[static_cast<std::size_t>(r.back().first)])
                    r.push_back({i, i + 1});
                else
                    r.back().second = i + 1;
            return r;
        };
        const auto ra = runs(ta, a0, a1), rb = runs(tb, b0, b1);
        constexpr std::size_t kMaxRuns = 256; // a gap this long is not a fusion; left whole
        std::vector<std::pair<int, int>> match;
        if (!ra.empty() && !rb.empty() && ra.size() <= kMaxRuns && rb.size() <= kMaxRuns) {
            std::vector<int> xa, xb;
            for (const auto& r : ra)
                xa.push_back(ta[static_cast<std::size_t>(r.first)]);
            for (const auto& r : rb)
                xb.push_back(tb[static_cast<std::size_t>(r.first)]);
            match = lcsMatches(xa, xb);
        }
        int pa = a0, pb = b0;
        for (const auto& [i, j] : match) {
            const auto& x = ra[static_cast<std::size_t>(i)];
            const auto& y = rb[static_cast<std::size_t>(j)];
            if (pa < x.first || pb < y.first)
                pieces.push_back({pa, x.first, pb, y.first, false});
            pieces.push_back({x.first, x.second, y.first, y.second, false});
            typeMatched += static_cast<std::size_t>(std::min(x.second - x.first, y.second - y.first));
            pa = x.second;
            pb = y.second;
        }
        if (pa < a1 || pb < b1)
            pieces.push_back({pa, a1, pb, b1, false});
    }

    Acc& slot(const std::string& key, MappingKind kind, const std::string& base, const std::string& opt,
              const std::string& shapes)
    {
        auto [it, added] = m_acc.try_emplace(key);
        if (added) {
            it->second.kind = kind;
            it->second.baseline = base;
            it->second.optimized = opt;
            it->second.shapes = shapes;
            it->second.before.assign(static_cast<std::size_t>(m_steps), 0.0);
            it->second.after.assign(static_cast<std::size_t>(m_steps), 0.0);
        }
        return it->second;
    }

    int m_steps;
    std::unordered_map<std::string, int> m_keys, m_types;
    std::map<std::string, Acc> m_acc;
};

} // namespace

OpMapping mapOperators(const Profile& baseline, const Profile& optimized, double sameWithin)
{
    OpMapping m;
    const auto sa = mappingSequences(baseline, &m.source);
    const auto sb = mappingSequences(optimized);
    m.baselineSteps = static_cast<int>(sa.size());
    m.optimizedSteps = static_cast<int>(sb.size());
    m.steps = static_cast<int>(std::min(sa.size(), sb.size()));
    Mapper mapper(m.steps);
    for (int s = 0; s < m.steps; ++s) {
        const auto& xa = sa[static_cast<std::size_t>(s)];
        const auto& xb = sb[static_cast<std::size_t>(s)];
        const std::size_t streams = std::max(xa.size(), xb.size());
        static const std::vector<MappedOp> kEmpty;
        for (std::size_t i = 0; i < streams; ++i) {
            bool mapped = false;
            mapper.mapPair(s, i < xa.size() ? xa[i] : kEmpty, i < xb.size() ? xb[i] : kEmpty, mapped);
            if (s == 0) {
                ++m.streamPairs;
                m.mappedStreamPairs += mapped ? 1 : 0;
            }
        }
    }
    m.rows = mapper.rows(sameWithin);
    return m;
}

OpMapping mapOperators(const Session& baseline, const Session& optimized, double sameWithin)
{
    if (baseline.ranks.empty() || optimized.ranks.empty())
        return {};
    return mapOperators(*baseline.ranks.front(), *optimized.ranks.front(), sameWithin);
}

} // namespace npuscope
