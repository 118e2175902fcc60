#pragma once
// What the parts of layout detection share (layout.cpp walks folders, layout_names.cpp reads file
// names, layout_runs.cpp groups ranks into runs): lower-cased name matching and a session's
// layout label.
#include "model/formats/layout.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace npuscope::layout::detail {

inline bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
inline bool endsWith(std::string_view s, std::string_view p)
{
    return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}
inline bool allDigits(std::string_view s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}
inline std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}
inline int toInt(std::string_view s, int fallback)
{
    if (!allDigits(s) || s.size() > 9)
        return fallback;
    int v = 0;
    for (char c : s)
        v = v * 10 + (c - '0');
    return v;
}

// "cluster (N ranks, <layout>)", the one rank's layout, or "mixed" inside when they differ.
std::string sessionLayout(const std::vector<RankPlan>& ranks);

} // namespace npuscope::layout::detail
