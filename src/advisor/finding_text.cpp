// The names and texts of findings and their parts (finding.h, report.h): categories,
// statuses, severities, locators (as text and as npuscope:// links), gains and scopes.
#include "advisor/finding.h"
#include "advisor/report.h"

#include <cctype>
#include <optional>
#include <string>
#include <vector>

namespace npuscope::advisor {

const char* categoryName(Category c)
{
    switch (c) {
    case Category::Computation: return "computation";
    case Category::Communication: return "communication";
    case Category::Scheduling: return "scheduling";
    case Category::Memory: return "memory";
    case Category::Cluster: return "cluster";
    }
    return "computation";
}

const char* statusName(Status s)
{
    switch (s) {
    case Status::Fired: return "fired";
    case Status::Passed: return "passed";
    case Status::Disabled: return "disabled";
    case Status::NotChecked: return "not_checked";
    case Status::Error: return "error";
    }
    return "passed";
}

const char* severityColour(FindingSeverity s)
{
    switch (s) {
    case FindingSeverity::High: return "#B5495B";
    case FindingSeverity::Medium: return "#fcaf17";
    case FindingSeverity::Low: return "#65c294";
    case FindingSeverity::None: break;
    }
    return "#999999";
}

const char* severityName(FindingSeverity s)
{
    switch (s) {
    case FindingSeverity::High: return "high";
    case FindingSeverity::Medium: return "medium";
    case FindingSeverity::Low: return "low";
    case FindingSeverity::None: return "";
    }
    return "";
}

FindingSeverity severityFromName(const std::string& s)
{
    if (s == "high")
        return FindingSeverity::High;
    if (s == "medium")
        return FindingSeverity::Medium;
    if (s == "low")
        return FindingSeverity::Low;
    return FindingSeverity::None;
}

std::string Locator::text(std::optional<TimeNs> origin) const
{
    std::string s;
    auto add = [&s](const std::string& part) {
        if (part.empty())
            return;
        if (!s.empty())
            s += " · ";
        s += part;
    };
    if (rank >= 0)
        add("rank " + std::to_string(rank));
    if (device >= 0)
        add("device " + std::to_string(device));
    if (stream >= 0)
        add("stream " + std::to_string(stream));
    if (ts)
        add((origin ? "at " : "ts ") + fmtNum(static_cast<double>(*ts - origin.value_or(0)) / 1e6, 3) + " ms"
            + (dur ? " (" + fmtNum(static_cast<double>(*dur) / 1e3, 1) + " µs)" : std::string()));
    if (!op.empty())
        add(op + (shapes.empty() ? std::string() : " [" + shapes + "]"));
    add(link);
    add(row);
    return s;
}

namespace {

std::string urlEncode(const std::string& s)
{
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : s) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

} // namespace

std::string Locator::url() const
{
    std::string q;
    auto arg = [&q](const char* k, const std::string& v) {
        q += (q.empty() ? "?" : "&");
        q += k;
        q += "=";
        q += urlEncode(v);
    };
    if (ts) {
        if (rank >= 0)
            arg("rank", std::to_string(rank));
        if (device >= 0)
            arg("device", std::to_string(device));
        if (stream >= 0)
            arg("stream", std::to_string(stream));
        arg("ts", std::to_string(*ts));
        arg("dur", std::to_string(dur.value_or(0)));
        return "npuscope://timeline" + q;
    }
    if (!op.empty()) {
        if (rank >= 0)
            arg("rank", std::to_string(rank));
        arg("op", op);
        return "npuscope://ops" + q;
    }
    if (!link.empty() || rank >= 0) {
        if (rank >= 0)
            arg("rank", std::to_string(rank));
        if (!link.empty())
            arg("link", link);
        return "npuscope://cluster" + q;
    }
    return {};
}

std::string Gain::text() const
{
    if (!estimated)
        return "not estimated (" + reason + ")";
    return fmtMs(nsPerStep) + "/step (" + fmtPct(shareOfT) + " of step): " + formula;
}

std::string Scope::text() const
{
    std::string s;
    if (cluster)
        s = "cluster";
    if (!ranks.empty()) {
        s += s.empty() ? "" : ", ";
        s += ranks.size() == 1 ? "rank " : "ranks ";
        for (std::size_t i = 0; i < ranks.size(); ++i)
            s += (i ? "," : "") + std::to_string(ranks[i]);
    }
    if (device >= 0)
        s += (s.empty() ? "" : ", ") + std::string("device ") + std::to_string(device);
    if (!steps.empty())
        s += (s.empty() ? "" : ", ") + steps;
    if (!worstStep.empty())
        s += (s.empty() ? "" : ", worst ") + worstStep;
    return s;
}

std::vector<const Finding*> AdvisorReport::fired() const
{
    return withStatus(Status::Fired);
}

std::vector<const Finding*> AdvisorReport::withStatus(Status s) const
{
    std::vector<const Finding*> out;
    for (const auto& f : findings)
        if (f.status == s)
            out.push_back(&f);
    return out;
}

} // namespace npuscope::advisor
