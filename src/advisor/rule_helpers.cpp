#include "advisor/rule_helpers.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace npuscope::advisor {

Evidence taskEvidence(const ProfileFacts& f, const Task& t, std::vector<Metric> metrics, std::string threshold)
{
    Evidence e;
    e.at = f.locate(t);
    e.metrics = std::move(metrics);
    e.threshold = std::move(threshold);
    e.cost = t.dur;
    return e;
}

std::vector<std::string> dtypeTokens(std::string_view s)
{
    std::vector<std::string> out;
    std::string cur;
    auto flush = [&] {
        while (!cur.empty() && (cur.back() == ' ' || cur.back() == '"'))
            cur.pop_back();
        std::size_t b = 0;
        while (b < cur.size() && (cur[b] == ' ' || cur[b] == '"'))
            ++b;
        cur = cur.substr(b);
        if (!cur.empty())
            out.push_back(cur);
        cur.clear();
    };
    for (char c : s) {
        if (c == ';' || c == ',' || c == '\n')
            flush();
        else
            cur += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    flush();
    return out;
}

namespace {

std::vector<long> versionParts(const std::string& v)
{
    std::vector<long> parts;
    std::string cur;
    auto flush = [&] {
        if (cur.empty())
            return;
        if (cur.rfind("RC", 0) == 0 || cur.rfind("rc", 0) == 0) {
            // A release candidate precedes the release of the same number.
            long n = 0;
            for (char c : cur.substr(2))
                if (std::isdigit(static_cast<unsigned char>(c)))
                    n = n * 10 + (c - '0');
            parts.push_back(n - 1000);
        } else {
            long n = 0;
            bool any = false;
            for (char c : cur)
                if (std::isdigit(static_cast<unsigned char>(c))) {
                    n = n * 10 + (c - '0');
                    any = true;
                }
            if (any)
                parts.push_back(n);
        }
        cur.clear();
    };
    for (char c : v) {
        if (c == '.' || c == '-' || c == ' ')
            flush();
        else
            cur += c;
    }
    flush();
    return parts;
}

} // namespace

int compareCannVersion(const std::string& a, const std::string& b)
{
    auto pa = versionParts(a), pb = versionParts(b);
    if (pa.empty() && pb.empty())
        return 0;
    if (pa.empty())
        return 1;
    if (pb.empty())
        return -1;
    const std::size_t n = std::max(pa.size(), pb.size());
    pa.resize(n, 0);
    pb.resize(n, 0);
    return pa < pb ? -1 : (pa > pb ? 1 : 0);
}

std::string joinList(const std::vector<std::string>& v, const char* sep)
{
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i)
        s += (i ? sep : "") + v[i];
    return s;
}

std::vector<std::string> stringList(const nlohmann::json& j)
{
    std::vector<std::string> out;
    if (j.is_array())
        for (const auto& x : j)
            if (x.is_string())
                out.push_back(x.get<std::string>());
    return out;
}

std::string perStepMs(const ProfileFacts& f, double totalNs) { return fmtMs(f.perStep(totalNs)); }

std::string minorNote(const ProfileFacts& f, double cost, const Thresholds& th)
{
    if (!(cost < th.minShare() * f.stepTime))
        return {};
    return " It costs " + fmtPct(f.stepTime > 0 ? cost / f.stepTime : 0) + " of the step, below min_share " + fmtPct(th.minShare())
           + ": a minor finding.";
}

bool worthAMinorFinding(const TaskGroup& g, double minDurNs)
{
    return std::any_of(g.tasks.begin(), g.tasks.end(), [&](const Task* t) { return static_cast<double>(t->dur) >= minDurNs; });
}

void claimTasks(Finding& fd, const ProfileFacts& f, const std::vector<const Task*>& tasks)
{
    fd.claims.reserve(fd.claims.size() + tasks.size());
    for (const Task* t : tasks)
        fd.claims.push_back(static_cast<std::uint64_t>(t - f.tasks.data()));
}

void setGain(Finding& fd, double nsPerStep, std::string formula)
{
    fd.gain.estimated = true;
    fd.gain.nsPerStep = nsPerStep;
    fd.gain.formula = std::move(formula);
}

void noGain(Finding& fd, std::string reason)
{
    fd.gain.estimated = false;
    fd.gain.reason = std::move(reason);
}

namespace {
// Critical values of Dixon's test at 99.5 % for n = 3..100 (GB/T 4883), index n − 3.
constexpr double kDixon995[] = {
    0.994, 0.920, 0.823, 0.744, 0.680, 0.723, 0.676, 0.638, 0.707, 0.675, 0.649, 0.672, 0.649, 0.629, 0.611, 0.595,
    0.580, 0.568, 0.556, 0.545, 0.536, 0.526, 0.519, 0.510, 0.503, 0.496, 0.489, 0.484, 0.478, 0.473, 0.468, 0.463,
    0.458, 0.454, 0.450, 0.446, 0.442, 0.439, 0.435, 0.432, 0.429, 0.425, 0.423, 0.420, 0.417, 0.414, 0.412, 0.409,
    0.407, 0.405, 0.402, 0.400, 0.398, 0.396, 0.394, 0.392, 0.391, 0.388, 0.387, 0.385, 0.383, 0.382, 0.380, 0.379,
    0.377, 0.376, 0.374, 0.372, 0.371, 0.370, 0.368, 0.368, 0.366, 0.365, 0.364, 0.363, 0.361, 0.360, 0.359, 0.358,
    0.356, 0.356, 0.355, 0.353, 0.352, 0.352, 0.351, 0.350, 0.349, 0.348, 0.347, 0.346, 0.345, 0.344, 0.344, 0.343,
    0.341, 0.341};
constexpr std::size_t kDixonMax = 100;
static_assert(sizeof(kDixon995) / sizeof(double) == kDixonMax - 2);
} // namespace

std::vector<std::size_t> lastArrivers(const std::vector<double>& times, std::string* method)
{
    const std::size_t n = times.size();
    if (n < 3)
        return {};
    const std::size_t iMin = static_cast<std::size_t>(std::min_element(times.begin(), times.end()) - times.begin());
    if (n <= kDixonMax) {
        std::vector<double> x = times;
        std::sort(x.begin(), x.end());
        // Gap of the minimum to its neighbour (or second neighbour) over the range without the top.
        const std::size_t lo = n <= 10 ? 1 : 2;                       // x2 or x3
        const std::size_t hi = n <= 7 ? n - 1 : (n <= 13 ? n - 2 : n - 3); // xn, x(n−1) or x(n−2)
        const double range = x[hi] - x[0];
        if (!(range > 0))
            return {};
        const double r = (x[lo] - x[0]) / range;
        const double crit = kDixon995[n - 3];
        if (method) {
            const char* stat = n <= 7 ? "r10" : (n <= 10 ? "r11" : (n <= 13 ? "r21" : "r22"));
            *method = std::string("Dixon ") + stat + " " + fmtNum(r, 3) + (r > crit ? " > " : " ≤ ") + fmtNum(crit, 3)
                      + " (99.5 %, n = " + std::to_string(n) + ")";
        }
        if (r > crit)
            return {iMin};
        return {};
    }
    double mean = 0;
    for (double t : times)
        mean += t;
    mean /= static_cast<double>(n);
    double var = 0;
    for (double t : times)
        var += (t - mean) * (t - mean);
    const double sd = std::sqrt(var / static_cast<double>(n));
    if (method)
        *method = "below mean − 3σ (" + fmtNum(mean - 3 * sd, 3) + ", n = " + std::to_string(n) + ")";
    std::vector<std::size_t> out;
    if (sd > 0)
        for (std::size_t i = 0; i < n; ++i)
            if (times[i] < mean - 3 * sd)
                out.push_back(i);
    return out;
}

std::string coverage(std::size_t have, std::size_t total, const char* what)
{
    return std::string(what) + " on " + std::to_string(have) + "/" + std::to_string(total) + " ops";
}

std::string needsOps(const ProfileFacts& f)
{
    return "needs " + f.kernelFile() + " (op_summary_*.csv / kernel_details.csv)";
}

} // namespace npuscope::advisor
