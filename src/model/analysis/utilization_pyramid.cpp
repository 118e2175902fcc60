#include "model/analysis/utilization_pyramid.h"

#include "model/analysis/op_stats.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace npuscope {

namespace {

// Level 0 has about as many bins as the profile has tasks, within these bounds: a window too
// fine for it holds few tasks, read straight from the table; and it stays small (a few MB) on a
// 10 M-task profile.
constexpr std::size_t kMinFinestBins = 1024;
constexpr std::size_t kMaxFinestBins = std::size_t(1) << 19;

double sumCols(const KernelTable& k, const std::vector<int>& cols, std::size_t row)
{
    double s = kNaN;
    for (int c : cols)
        if (const double v = k.metric(c, row); !std::isnan(v))
            s = std::isnan(s) ? v : s + v;
    return s;
}

std::vector<int> cols(const KernelTable& k, std::initializer_list<const char*> names)
{
    std::vector<int> out;
    for (const char* n : names)
        if (int i = k.metricIndex(std::string(n)); i >= 0)
            out.push_back(i);
    return out;
}

int durationClass(TimeNs dur) { return static_cast<int>(std::bit_width(static_cast<std::uint64_t>(dur))); }

// Largest power of two at most v (v >= 1).
TimeNs floorPow2(TimeNs v) { return static_cast<TimeNs>(std::bit_floor(static_cast<std::uint64_t>(std::max<TimeNs>(1, v)))); }

} // namespace

UtilizationPyramid::UtilizationPyramid(const Profile& p, int device, TimeNs begin, TimeNs end)
    : m_k(&p.kernels), m_begin(begin), m_end(std::max(begin, end))
{
    const KernelTable& k = p.kernels;
    m_cols.cube = k.metricIndex({"cube_utilization(%)"});
    m_cols.mac = k.metricIndex({"aic_mac_ratio", "mac_ratio"});
    m_cols.vec = k.metricIndex({"aiv_vec_ratio", "vec_ratio"});
    m_cols.l2Rate = k.metricIndex({"l2_hit_rate"});
    m_cols.bwRead = cols(k, {"aic_main_mem_read_bw(GB/s)", "aiv_main_mem_read_bw(GB/s)"});
    if (m_cols.bwRead.empty())
        m_cols.bwRead = cols(k, {"main_mem_read_bw(GB/s)"});
    m_cols.bwWrite = cols(k, {"aic_main_mem_write_bw(GB/s)", "aiv_main_mem_write_bw(GB/s)"});
    if (m_cols.bwWrite.empty())
        m_cols.bwWrite = cols(k, {"main_mem_write_bw(GB/s)"});
    for (std::size_t i = 0; i < k.metricNames.size(); ++i) {
        const std::string& n = k.metricNames[i];
        if (n.size() > 10 && n.compare(n.size() - 10, 10, "_cache_hit") == 0)
            m_cols.hits.push_back(static_cast<int>(i));
        else if (n.size() > 20 && n.compare(n.size() - 20, 20, "_cache_miss_allocate") == 0)
            m_cols.misses.push_back(static_cast<int>(i));
    }

    // The tasks that count, by duration class (0: does not count).
    std::vector<std::uint8_t> cls(k.size(), 0);
    std::size_t counted = 0;
    for (std::size_t r = 0; r < k.size(); ++r) {
        if ((device >= 0 && k.device[r] != device) || k.dur[r] <= 0)
            continue;
        const std::string_view type = p.str(k.type[r]);
        if (isCommunicationTask(p.str(k.taskType[r]), type.empty() ? p.str(k.name[r]) : type))
            continue;
        cls[r] = static_cast<std::uint8_t>(durationClass(k.dur[r]));
        ++counted;
    }
    if (m_end <= m_begin || counted == 0)
        return;
    const std::size_t target = std::clamp<std::size_t>(std::bit_ceil(counted), kMinFinestBins, kMaxFinestBins);
    while (static_cast<std::size_t>((m_end - m_begin + m_width0 - 1) / m_width0) > target)
        m_width0 *= 2;
    m_bins0 = static_cast<std::size_t>((m_end - m_begin + m_width0 - 1) / m_width0);
    buildLevels(cls);
    indexTasks(cls, counted);
}

std::size_t UtilizationPyramid::binOf(TimeNs t) const
{
    if (t <= m_begin)
        return 0;
    return std::min(m_bins0 - 1, static_cast<std::size_t>((t - m_begin) / m_width0));
}

// By class, then by level-0 bin of the start: two counting sorts, no comparison of starts. A
// window's tasks are then a run of each class, found by the bins.
void UtilizationPyramid::indexTasks(const std::vector<std::uint8_t>& cls, std::size_t counted)
{
    const KernelTable& k = *m_k;
    std::vector<std::uint32_t> byBin(counted);
    {
        std::vector<std::uint32_t> at(m_bins0 + 1, 0);
        for (std::size_t r = 0; r < k.size(); ++r)
            if (cls[r] > 0)
                ++at[binOf(k.start[r]) + 1];
        for (std::size_t b = 0; b < m_bins0; ++b)
            at[b + 1] += at[b];
        for (std::size_t r = 0; r < k.size(); ++r)
            if (cls[r] > 0)
                byBin[at[binOf(k.start[r])]++] = static_cast<std::uint32_t>(r);
    }
    std::array<std::size_t, 65> perClass{};
    for (const std::uint32_t r : byBin)
        ++perClass[cls[r]];
    for (std::size_t c = 1; c < 64; ++c)
        m_classStart[c + 1] = m_classStart[c] + perClass[c];
    m_rows.resize(counted);
    std::array<std::size_t, 65> fill = m_classStart;
    for (const std::uint32_t r : byBin)
        m_rows[fill[cls[r]]++] = r;
}

unsigned UtilizationPyramid::ratesOf(std::size_t row, Rates& r) const
{
    const KernelTable& k = *m_k;
    r.fill(0);
    unsigned has = 0;
    double u = k.metric(m_cols.cube, row);
    if (!std::isnan(u)) {
        u /= 100.0;
        has |= kFromCube;
    } else {
        const double a = k.metric(m_cols.mac, row), b = k.metric(m_cols.vec, row);
        u = std::isnan(a) ? b : (std::isnan(b) ? a : std::max(a, b));
    }
    if (!std::isnan(u)) {
        r[kUtil] = u;
        has |= kHasUtil;
    }
    const double rw = sumCols(k, m_cols.bwRead, row), ww = sumCols(k, m_cols.bwWrite, row);
    if (!std::isnan(rw) || !std::isnan(ww)) {
        r[kBandwidth] = (std::isnan(rw) ? 0 : rw) + (std::isnan(ww) ? 0 : ww);
        has |= kHasBandwidth;
    }
    const double hh = sumCols(k, m_cols.hits, row), mm = sumCols(k, m_cols.misses, row);
    if (!std::isnan(hh) || !std::isnan(mm)) {
        // A task's counters spread in proportion to its time.
        const double d = static_cast<double>(k.dur[row]);
        r[kHits] = (std::isnan(hh) ? 0 : hh) / d;
        r[kMisses] = (std::isnan(mm) ? 0 : mm) / d;
        has |= kHasCounters;
    } else if (const double rate = k.metric(m_cols.l2Rate, row); !std::isnan(rate)) {
        r[kRateSum] = rate;
        r[kRateWeight] = 1;
        has |= kHasRate;
    }
    return has;
}

void UtilizationPyramid::buildLevels(const std::vector<std::uint8_t>& cls)
{
    const KernelTable& k = *m_k;
    const std::size_t n0 = m_bins0;
    // Partial bins at a task's ends are added at once; its whole bins in between as a rate
    // that starts and stops (a difference array), so a long task costs no more than a short one.
    // The tasks open in a bin are counted too: where none is, the rate is exactly 0, not what
    // adding and taking back doubles leaves.
    // Each array is made when a task first needs it: most profiles use four channels of six.
    std::array<std::vector<double>, kChannels> sums, rateSteps;
    std::array<std::vector<std::int32_t>, kChannels> openSteps;
    const TimeNs gridEnd = m_begin + static_cast<TimeNs>(n0) * m_width0;
    unsigned seen = 0;
    Rates r;
    for (std::size_t row = 0; row < k.size(); ++row) {
        if (cls[row] == 0)
            continue;
        const unsigned has = ratesOf(row, r);
        seen |= has;
        const TimeNs s = std::max(k.start[row], m_begin), e = std::min(k.start[row] + k.dur[row], gridEnd);
        if (!has || e <= s)
            continue;
        const auto b0 = static_cast<std::size_t>((s - m_begin) / m_width0);
        const auto b1 = static_cast<std::size_t>((e - 1 - m_begin) / m_width0);
        for (std::size_t c = 0; c < kChannels; ++c) {
            const double rate = r[c];
            if (rate == 0)
                continue;
            if (sums[c].empty())
                sums[c].assign(n0, 0.0);
            if (b0 == b1) {
                sums[c][b0] += rate * static_cast<double>(e - s);
                continue;
            }
            sums[c][b0] += rate * static_cast<double>(m_begin + static_cast<TimeNs>(b0 + 1) * m_width0 - s);
            sums[c][b1] += rate * static_cast<double>(e - (m_begin + static_cast<TimeNs>(b1) * m_width0));
            if (b1 > b0 + 1) {
                if (rateSteps[c].empty()) {
                    rateSteps[c].assign(n0 + 1, 0.0);
                    openSteps[c].assign(n0 + 1, 0);
                }
                rateSteps[c][b0 + 1] += rate;
                rateSteps[c][b1] -= rate;
                ++openSteps[c][b0 + 1];
                --openSteps[c][b1];
            }
        }
    }
    m_counters = seen & kHasCounters;
    m_present[kUtil] = seen & kHasUtil;
    m_present[kBandwidth] = seen & kHasBandwidth;
    m_present[kHits] = m_present[kMisses] = m_counters;
    // With counters anywhere, the L2 rate is theirs: a task with only l2_hit_rate is not mixed in.
    m_present[kRateSum] = m_present[kRateWeight] = !m_counters && (seen & kHasRate);
    m_utilSource = seen & kFromCube ? "cube_utilization(%)" : "dominant pipe ratio (aic_mac_ratio, aiv_vec_ratio)";
    for (std::size_t size = n0, start = 0;; size = (size + 1) / 2) {
        m_levelStart.push_back(start);
        m_levelSize.push_back(size);
        start += size;
        if (size == 1)
            break;
    }
    const std::size_t total = m_levelStart.back() + 1;
    for (std::size_t c = 0; c < kChannels; ++c) {
        if (!m_present[c])
            continue;
        std::vector<double>& all = m_levels[c];
        all.assign(total, 0.0); // a channel every task adds 0 to has no arrays
        if (!sums[c].empty())
            std::copy(sums[c].begin(), sums[c].end(), all.begin());
        if (!rateSteps[c].empty()) {
            double rate = 0;
            std::int32_t open = 0;
            for (std::size_t i = 0; i < n0; ++i) {
                rate += rateSteps[c][i];
                open += openSteps[c][i];
                if (open == 0)
                    rate = 0;
                all[i] += rate * static_cast<double>(m_width0);
            }
        }
        for (std::size_t lv = 1; lv < m_levelSize.size(); ++lv) {
            const double* below = all.data() + m_levelStart[lv - 1];
            const std::size_t belowSize = m_levelSize[lv - 1];
            double* here = all.data() + m_levelStart[lv];
            for (std::size_t i = 0; i < m_levelSize[lv]; ++i)
                here[i] = below[2 * i] + (2 * i + 1 < belowSize ? below[2 * i + 1] : 0.0);
        }
    }
}

bool UtilizationPyramid::has(DerivedQuantity q) const
{
    switch (q) {
    case DerivedQuantity::AiCoreUtilization:
        return m_present[kUtil];
    case DerivedQuantity::Bandwidth:
        return m_present[kBandwidth];
    case DerivedQuantity::L2HitRate:
        return m_present[kHits] || m_present[kRateSum];
    }
    return false;
}

// The value of q for channel integrals over widthNs (rates when widthNs is 1): utilisation capped
// at 100 % (concurrent tasks add up), bandwidth the mean, the L2 hit rate NaN where no task ran.
double UtilizationPyramid::value(DerivedQuantity q, bool counters, const Rates& in, double widthNs)
{
    switch (q) {
    case DerivedQuantity::AiCoreUtilization:
        return std::min(1.0, in[kUtil] / widthNs) * 100.0;
    case DerivedQuantity::Bandwidth:
        return in[kBandwidth] / widthNs;
    case DerivedQuantity::L2HitRate:
        if (counters)
            return in[kHits] + in[kMisses] > 0 ? in[kHits] / (in[kHits] + in[kMisses]) * 100.0 : kNaN;
        return in[kRateWeight] > 0 ? in[kRateSum] / in[kRateWeight] * 100.0 : kNaN;
    }
    return kNaN;
}

double UtilizationPyramid::binValue(DerivedQuantity q, int level, std::size_t bin) const
{
    Rates in{};
    const std::size_t at = m_levelStart[static_cast<std::size_t>(level)] + bin;
    for (std::size_t c = 0; c < kChannels; ++c)
        if (!m_levels[c].empty())
            in[c] = m_levels[c][at];
    return value(q, m_counters, in, static_cast<double>(m_width0 << level));
}

std::vector<std::uint32_t> UtilizationPyramid::tasksIn(TimeNs from, TimeNs to) const
{
    const KernelTable& k = *m_k;
    std::vector<std::uint32_t> out;
    if (m_rows.empty())
        return out;
    for (std::size_t c = 1; c < 64; ++c) {
        const auto first = m_rows.begin() + static_cast<std::ptrdiff_t>(m_classStart[c]);
        const auto last = m_rows.begin() + static_cast<std::ptrdiff_t>(m_classStart[c + 1]);
        if (first == last)
            continue;
        // A task of this class lasts less than 2^c ns: one that ends after `from` starts after
        // from - 2^c. The class is in order of start bin: its candidates are one run.
        const TimeNs reach = TimeNs(1) << std::min<std::size_t>(c, 62);
        const TimeNs earliest = from < std::numeric_limits<TimeNs>::min() + reach ? std::numeric_limits<TimeNs>::min()
                                                                                  : from - reach;
        const std::size_t firstBin = binOf(earliest), lastBin = binOf(to);
        auto it = std::partition_point(first, last, [&](std::uint32_t r) { return binOf(k.start[r]) < firstBin; });
        for (; it != last && binOf(k.start[*it]) <= lastBin; ++it)
            if (k.start[*it] < to && k.start[*it] + k.dur[*it] > from)
                out.push_back(*it);
    }
    return out;
}

CurveWindow UtilizationPyramid::exactEdges(DerivedQuantity q, const std::vector<std::uint32_t>& rows, TimeNs from,
                                           TimeNs to) const
{
    const KernelTable& k = *m_k;
    struct Edge {
        TimeNs t;
        std::uint32_t row;
        bool opens;
    };
    std::vector<Edge> edges;
    edges.reserve(rows.size() * 2);
    for (const std::uint32_t r : rows) {
        edges.push_back({std::max(k.start[r], from), r, true});
        if (k.start[r] + k.dur[r] < to)
            edges.push_back({k.start[r] + k.dur[r], r, false});
    }
    std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.t < b.t; });
    CurveWindow w;
    Rates sum{}, r;
    std::array<std::int64_t, kChannels> open{}; // tasks adding to each channel: none, exactly 0
    TimeNs at = from;
    auto emit = [&](TimeNs t) {
        w.t.push_back(t);
        w.v.push_back(value(q, m_counters, sum, 1.0));
    };
    for (std::size_t i = 0; i < edges.size();) {
        if (edges[i].t > at)
            emit(at);
        at = edges[i].t;
        for (; i < edges.size() && edges[i].t == at; ++i) {
            if (!ratesOf(edges[i].row, r))
                continue;
            const int sign = edges[i].opens ? 1 : -1;
            for (std::size_t c = 0; c < kChannels; ++c)
                if (r[c] != 0) {
                    sum[c] += sign * r[c];
                    open[c] += sign;
                    if (open[c] == 0)
                        sum[c] = 0;
                }
        }
    }
    emit(at);
    const double last = w.v.back();
    w.t.push_back(to);
    w.v.push_back(last);
    return w;
}

CurveWindow UtilizationPyramid::buckets(DerivedQuantity q, TimeNs gridBegin, TimeNs width, std::size_t n) const
{
    const KernelTable& k = *m_k;
    CurveWindow w;
    w.binNs = width;
    if (n == 0 || width <= 0)
        return w;
    const TimeNs gridEnd = gridBegin + static_cast<TimeNs>(n) * width;
    std::vector<Rates> in(n, Rates{});
    Rates r;
    for (const std::uint32_t row : tasksIn(gridBegin, gridEnd)) {
        if (!ratesOf(row, r))
            continue;
        const TimeNs s = std::max(k.start[row], gridBegin), e = std::min(k.start[row] + k.dur[row], gridEnd);
        for (auto b = static_cast<std::size_t>((s - gridBegin) / width); b < n; ++b) {
            const TimeNs bs = gridBegin + static_cast<TimeNs>(b) * width;
            if (bs >= e)
                break;
            const double ov = static_cast<double>(std::min(e, bs + width) - std::max(s, bs));
            for (std::size_t c = 0; c < kChannels; ++c)
                in[b][c] += r[c] * ov;
        }
    }
    w.t.resize(n + 1);
    w.v.resize(n + 1);
    for (std::size_t b = 0; b < n; ++b) {
        w.t[b] = gridBegin + static_cast<TimeNs>(b) * width;
        w.v[b] = value(q, m_counters, in[b], static_cast<double>(width));
    }
    w.t[n] = gridEnd;
    w.v[n] = w.v[n - 1];
    return w;
}

CurveWindow UtilizationPyramid::window(DerivedQuantity q, TimeNs from, TimeNs to, TimeNs maxBinNs) const
{
    from = std::max(from, m_begin);
    to = std::min(to, m_end);
    if (to <= from || !has(q) || m_levelSize.empty())
        return {};
    maxBinNs = std::max<TimeNs>(1, maxBinNs);
    if (maxBinNs >= m_width0) {
        int level = 0;
        while (level + 1 < levelCount() && (m_width0 << (level + 1)) <= maxBinNs)
            ++level;
        const TimeNs width = m_width0 << level;
        const auto first = static_cast<std::size_t>((from - m_begin) / width);
        const auto last = std::min(m_levelSize[static_cast<std::size_t>(level)],
                                   static_cast<std::size_t>((to - m_begin + width - 1) / width));
        CurveWindow w;
        w.binNs = width;
        for (std::size_t b = first; b < last; ++b) {
            w.t.push_back(m_begin + static_cast<TimeNs>(b) * width);
            w.v.push_back(binValue(q, level, b));
        }
        w.t.push_back(m_begin + static_cast<TimeNs>(last) * width);
        w.v.push_back(w.v.back());
        return w;
    }
    // Finer than level 0: from the window's own tasks, on a power-of-two grid from the span's start.
    const TimeNs width = floorPow2(maxBinNs);
    const TimeNs gridFrom = m_begin + (from - m_begin) / width * width;
    const auto bins = static_cast<std::size_t>((to - gridFrom + width - 1) / width);
    const std::vector<std::uint32_t> rows = tasksIn(from, to);
    if (rows.size() * 2 + 1 <= bins)
        return exactEdges(q, rows, from, to);
    return buckets(q, gridFrom, width, bins);
}

} // namespace npuscope
