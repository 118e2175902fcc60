#include "advisor/advisor_diff.h"

#include <algorithm>
#include <map>

namespace npuscope::advisor {

std::vector<AdvisorDiffRow> diffFindings(const AdvisorReport& baseline, const AdvisorReport& optimized)
{
    std::map<std::string, const Finding*> before, after;
    for (const Finding* f : baseline.fired())
        before.emplace(f->id, f);
    for (const Finding* f : optimized.fired())
        after.emplace(f->id, f);
    std::vector<AdvisorDiffRow> rows;
    auto fill = [](AdvisorDiffRow& r, const Finding& f) {
        r.id = f.id;
        r.title = f.title;
        r.category = categoryName(f.category);
    };
    for (const auto& [id, f] : before) {
        AdvisorDiffRow r;
        fill(r, *f);
        r.severityBefore = severityName(f->severity);
        r.costBefore = f->costNs;
        const auto it = after.find(id);
        if (it == after.end()) {
            r.change = FindingChange::Fixed;
        } else {
            r.change = FindingChange::Remaining;
            r.severityAfter = severityName(it->second->severity);
            r.costAfter = it->second->costNs;
        }
        rows.push_back(std::move(r));
    }
    for (const auto& [id, f] : after) {
        if (before.count(id))
            continue;
        AdvisorDiffRow r;
        fill(r, *f);
        r.change = FindingChange::New;
        r.severityAfter = severityName(f->severity);
        r.costAfter = f->costNs;
        rows.push_back(std::move(r));
    }
    std::stable_sort(rows.begin(), rows.end(), [](const AdvisorDiffRow& a, const AdvisorDiffRow& b) {
        if (a.change != b.change)
            return static_cast<int>(a.change) < static_cast<int>(b.change);
        const TimeNs ca = a.change == FindingChange::New ? a.costAfter : a.costBefore;
        const TimeNs cb = b.change == FindingChange::New ? b.costAfter : b.costBefore;
        return ca != cb ? ca > cb : a.id < b.id;
    });
    return rows;
}

} // namespace npuscope::advisor
