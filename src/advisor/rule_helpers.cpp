#include "advisor/rule_helpers.h"

#include <algorithm>
#include <cctype>

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

std::string coverage(std::size_t have, std::size_t total, const char* what)
{
    return std::string(what) + " on " + std::to_string(have) + "/" + std::to_string(total) + " ops";
}

} // namespace npuscope::advisor
