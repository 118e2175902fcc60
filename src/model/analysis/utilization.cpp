#include "model/analysis/utilization.h"

#include "model/analysis/op_stats.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

namespace npuscope {

namespace {

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

struct Buckets {
    TimeNs begin = 0, width = 1;
    std::size_t n = 0;
    // Calls f(bucket, overlap ns) for every bucket [s, s+d) touches.
    template <typename F>
    void spread(TimeNs s, TimeNs d, F&& f) const
    {
        if (d <= 0 || n == 0)
            return;
        const TimeNs e = s + d;
        auto first = static_cast<std::int64_t>((std::max(s, begin) - begin) / width);
        for (auto b = static_cast<std::size_t>(std::max<std::int64_t>(first, 0)); b < n; ++b) {
            const TimeNs bs = begin + static_cast<TimeNs>(b) * width, be = bs + width;
            if (bs >= e)
                break;
            const TimeNs ov = std::min(e, be) - std::max(s, bs);
            if (ov > 0)
                f(b, ov);
        }
    }
    std::vector<TimeNs> starts() const
    {
        std::vector<TimeNs> t(n);
        for (std::size_t i = 0; i < n; ++i)
            t[i] = begin + static_cast<TimeNs>(i) * width;
        return t;
    }
};

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

void derivedSeries(const Profile& p, const Buckets& bk, int device, bool wantBandwidth, std::vector<Series>& out)
{
    const KernelTable& k = p.kernels;
    const int cube = k.metricIndex({"cube_utilization(%)"});
    const int mac = k.metricIndex({"aic_mac_ratio", "mac_ratio"});
    const int vec = k.metricIndex({"aiv_vec_ratio", "vec_ratio"});
    const int l2Rate = k.metricIndex({"l2_hit_rate"});
    auto bwRead = cols(k, {"aic_main_mem_read_bw(GB/s)", "aiv_main_mem_read_bw(GB/s)"});
    if (bwRead.empty())
        bwRead = cols(k, {"main_mem_read_bw(GB/s)"});
    auto bwWrite = cols(k, {"aic_main_mem_write_bw(GB/s)", "aiv_main_mem_write_bw(GB/s)"});
    if (bwWrite.empty())
        bwWrite = cols(k, {"main_mem_write_bw(GB/s)"});
    std::vector<int> hits, misses;
    for (std::size_t i = 0; i < k.metricNames.size(); ++i) {
        const std::string& n = k.metricNames[i];
        if (n.size() > 10 && n.compare(n.size() - 10, 10, "_cache_hit") == 0)
            hits.push_back(static_cast<int>(i));
        else if (n.size() > 20 && n.compare(n.size() - 20, 20, "_cache_miss_allocate") == 0)
            misses.push_back(static_cast<int>(i));
    }

    std::vector<double> util(bk.n, 0.0), bw(bk.n, 0.0), h(bk.n, 0.0), m(bk.n, 0.0), rateSum(bk.n, 0.0),
        rateW(bk.n, 0.0);
    bool anyUtil = false, anyBw = false, anyCounters = false, anyRate = false;
    std::string utilSource;
    for (std::size_t r = 0; r < k.size(); ++r) {
        if (device >= 0 && k.device[r] != device)
            continue;
        const std::string_view type = p.str(k.type[r]);
        if (isCommunicationTask(p.str(k.taskType[r]), type.empty() ? p.str(k.name[r]) : type))
            continue;
        double u = k.metric(cube, r);
        if (!std::isnan(u)) {
            u /= 100.0;
            utilSource = "cube_utilization(%)";
        } else {
            const double a = k.metric(mac, r), b = k.metric(vec, r);
            u = std::isnan(a) ? b : (std::isnan(b) ? a : std::max(a, b));
            if (!std::isnan(u) && utilSource.empty())
                utilSource = "dominant pipe ratio (aic_mac_ratio, aiv_vec_ratio)";
        }
        const double rw = sumCols(k, bwRead, r), ww = sumCols(k, bwWrite, r);
        const double b = std::isnan(rw) && std::isnan(ww) ? kNaN : (std::isnan(rw) ? 0 : rw) + (std::isnan(ww) ? 0 : ww);
        const double hh = sumCols(k, hits, r), mm = sumCols(k, misses, r);
        const double rate = k.metric(l2Rate, r);
        const double d = static_cast<double>(k.dur[r]);
        bk.spread(k.start[r], k.dur[r], [&](std::size_t i, TimeNs ov) {
            const double w = static_cast<double>(ov);
            if (!std::isnan(u)) {
                util[i] += u * w;
                anyUtil = true;
            }
            if (!std::isnan(b)) {
                bw[i] += b * w;
                anyBw = true;
            }
            if (!std::isnan(hh) || !std::isnan(mm)) {
                h[i] += (std::isnan(hh) ? 0 : hh) * w / d;
                m[i] += (std::isnan(mm) ? 0 : mm) * w / d;
                anyCounters = true;
            } else if (!std::isnan(rate)) {
                rateSum[i] += rate * w;
                rateW[i] += w;
                anyRate = true;
            }
        });
    }
    const std::string suffix = device >= 0 ? " (device " + std::to_string(device) + ")" : "";
    const double width = static_cast<double>(bk.width);
    if (anyUtil) {
        Series s{"AI Core utilization" + suffix, "%", "derived: time-weighted from kernel table " + utilSource, bk.starts(), {}, device};
        s.v.resize(bk.n);
        for (std::size_t i = 0; i < bk.n; ++i)
            s.v[i] = std::min(1.0, util[i] / width) * 100.0;
        out.push_back(std::move(s));
    }
    if (anyBw && wantBandwidth) {
        Series s{"Memory bandwidth" + suffix, "GB/s",
                 "derived: time-weighted from kernel table main_mem_{read,write}_bw(GB/s)", bk.starts(), {}, device};
        s.v.resize(bk.n);
        for (std::size_t i = 0; i < bk.n; ++i)
            s.v[i] = bw[i] / width;
        out.push_back(std::move(s));
    }
    if (anyCounters || anyRate) {
        Series s{"L2 hit rate" + suffix, "%",
                 anyCounters ? "derived: L2 hit/miss counters of the kernel table, spread by time"
                             : "derived: time-weighted l2_cache Hit Rate",
                 bk.starts(), {}, device};
        s.v.resize(bk.n);
        for (std::size_t i = 0; i < bk.n; ++i) {
            if (anyCounters)
                s.v[i] = h[i] + m[i] > 0 ? h[i] / (h[i] + m[i]) * 100.0 : kNaN;
            else
                s.v[i] = rateW[i] > 0 ? rateSum[i] / rateW[i] * 100.0 : kNaN;
        }
        out.push_back(std::move(s));
    }
}

} // namespace

std::vector<Series> utilizationSeries(const Profile& p, TimeNs bucketNs)
{
    std::vector<Series> out;
    // Span: the profile's, else the kernel table's.
    TimeNs begin = p.begin, end = p.end;
    if (end <= begin && p.kernels.size() > 0) {
        begin = *std::min_element(p.kernels.start.begin(), p.kernels.start.end());
        end = begin;
        for (std::size_t r = 0; r < p.kernels.size(); ++r)
            end = std::max(end, p.kernels.start[r] + p.kernels.dur[r]);
    }
    Buckets bk;
    bk.begin = begin;
    if (end > begin) {
        bk.width = bucketNs > 0 ? bucketNs : std::max<TimeNs>(1000, (end - begin + 1999) / 2000);
        bk.n = static_cast<std::size_t>((end - begin + bk.width - 1) / bk.width);
    }

    bool haveHbm = false;
    for (const CounterSeries& c : p.counters) {
        const std::string_view key = p.str(c.key);
        if (contains(p.str(c.process), "HBM") && (key == "Read(MB/s)" || key == "Write(MB/s)"))
            haveHbm = true;
    }

    if (p.kernels.size() > 0 && bk.n > 0) {
        std::vector<int> devices;
        for (int d : p.kernels.device)
            if (std::find(devices.begin(), devices.end(), d) == devices.end())
                devices.push_back(d);
        if (devices.size() <= 1)
            derivedSeries(p, bk, -1, !haveHbm, out);
        else {
            std::sort(devices.begin(), devices.end());
            for (int d : devices)
                if (d >= 0)
                    derivedSeries(p, bk, d, !haveHbm, out);
        }
    }

    for (const CounterSeries& c : p.counters) {
        const std::string_view process = p.str(c.process), name = p.str(c.name), key = p.str(c.key);
        Series s;
        s.t = c.ts;
        s.device = c.device;
        std::string label(name.empty() ? process : name);
        if (contains(process, "AI Core Freq") || contains(name, "AI Core Freq")) {
            s.name = label;
            s.unit = "MHz";
            s.source = "sampled: AI Core Freq counter";
            s.v = c.value;
        } else if (contains(process, "HBM") && (key == "Read(MB/s)" || key == "Write(MB/s)")) {
            // Real counters are named "HBM 0/Read" and "HBM 0/Write": the direction is said once.
            const bool read = key == "Read(MB/s)";
            const bool named = label.ends_with(read ? "/Read" : "/Write");
            s.name = named ? label : label + (read ? " read" : " write");
            s.unit = "GB/s";
            s.source = "sampled: HBM counter " + std::string(key);
            s.v.reserve(c.value.size());
            for (double v : c.value)
                s.v.push_back(v / 1000.0);
        } else if (contains(key, "(MB)") || contains(key, "(KB)") || key == "MB" || key == "KB") {
            const bool kb = contains(key, "KB");
            // The values become MB: the name keeps the quantity, not the file's unit.
            std::string quantity(key);
            for (const char* unit : {"(KB)", "(MB)", "KB", "MB"})
                if (quantity.ends_with(unit)) {
                    quantity.resize(quantity.size() - std::strlen(unit));
                    break;
                }
            while (!quantity.empty() && quantity.back() == ' ')
                quantity.pop_back();
            s.name = quantity.empty() ? label : label + " " + quantity;
            s.unit = "MB";
            s.source = "sampled: " + std::string(process) + " counter";
            s.v.reserve(c.value.size());
            for (double v : c.value)
                s.v.push_back(kb ? v / 1024.0 : v);
        } else {
            continue;
        }
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace npuscope
