#include "model/analysis/utilization.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

namespace npuscope {

namespace {

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

constexpr TimeNs kAutoBuckets = 2000;

// The derived series of one device (-1: all), in buckets of bucketNs from `begin`, or (0) of the
// automatic width: the pyramid's level with at least kAutoBuckets bins over the span.
void derivedSeries(const Profile& p, TimeNs begin, TimeNs end, TimeNs bucketNs, int device, bool wantBandwidth,
                   std::vector<Series>& out)
{
    auto pyramid = std::make_shared<const UtilizationPyramid>(p, device, begin, end);
    const std::string suffix = device >= 0 ? " (device " + std::to_string(device) + ")" : "";
    const auto width = bucketNs > 0 ? bucketNs : std::max<TimeNs>(1000, (end - begin + kAutoBuckets - 1) / kAutoBuckets);
    auto add = [&](DerivedQuantity q, std::string name, std::string unit, std::string source) {
        if (!pyramid->has(q))
            return;
        CurveWindow w = bucketNs > 0
            ? pyramid->buckets(q, begin, bucketNs, static_cast<std::size_t>((end - begin + bucketNs - 1) / bucketNs))
            : pyramid->window(q, begin, end, width);
        if (!w.t.empty()) { // a series holds where each value starts; the window's end goes
            w.t.pop_back();
            w.v.pop_back();
        }
        Series s{std::move(name) + suffix, std::move(unit), std::move(source), std::move(w.t), std::move(w.v), device, pyramid, q};
        out.push_back(std::move(s));
    };
    add(DerivedQuantity::AiCoreUtilization, "AI Core utilization", "%",
        "derived: time-weighted from kernel table " + pyramid->utilizationSource());
    if (wantBandwidth)
        add(DerivedQuantity::Bandwidth, "Memory bandwidth", "GB/s",
            "derived: time-weighted from kernel table main_mem_{read,write}_bw(GB/s)");
    add(DerivedQuantity::L2HitRate, "L2 hit rate", "%",
        pyramid->l2FromCounters() ? "derived: L2 hit/miss counters of the kernel table, spread by time"
                                  : "derived: time-weighted l2_cache Hit Rate");
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

    bool haveHbm = false;
    for (const CounterSeries& c : p.counters) {
        const std::string_view key = p.str(c.key);
        if (contains(p.str(c.process), "HBM") && (key == "Read(MB/s)" || key == "Write(MB/s)"))
            haveHbm = true;
    }

    if (p.kernels.size() > 0 && end > begin) {
        std::vector<int> devices;
        for (int d : p.kernels.device)
            if (std::find(devices.begin(), devices.end(), d) == devices.end())
                devices.push_back(d);
        if (devices.size() <= 1)
            derivedSeries(p, begin, end, bucketNs, -1, !haveHbm, out);
        else {
            std::sort(devices.begin(), devices.end());
            for (int d : devices)
                if (d >= 0)
                    derivedSeries(p, begin, end, bucketNs, d, !haveHbm, out);
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
