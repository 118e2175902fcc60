// The changes a what-if replay takes (whatif.h): composing them and saying them in words.
#include "model/analysis/idle_causes.h"
#include "model/analysis/whatif.h"

#include <algorithm>
#include <cstdio>

namespace npuscope {

const std::vector<std::string>& whatIfCauses()
{
    static const std::vector<std::string> causes = [] {
        std::vector<std::string> v;
        for (std::size_t i = 0; i < kIdleCauseCount; ++i)
            v.push_back(idleCauseKey(static_cast<IdleCause>(i)));
        return v;
    }();
    return causes;
}

bool WhatIfChanges::empty() const
{
    return scaleTypes.empty() && scaleRows.empty() && saveRows.empty() && fusedRows.empty() && removeCauses.empty()
           && !overlapComm;
}

void WhatIfChanges::add(const WhatIfChanges& o)
{
    scaleTypes.insert(scaleTypes.end(), o.scaleTypes.begin(), o.scaleTypes.end());
    if (!o.scaleRows.empty())
        scaleRows.merge({o.scaleRows.begin(), o.scaleRows.end()}, [](double a, double b) { return a * b; });
    if (!o.saveRows.empty())
        saveRows.merge({o.saveRows.begin(), o.saveRows.end()}, [](TimeNs a, TimeNs b) { return a + b; });
    if (!o.fusedRows.empty())
        fusedRows.insert({o.fusedRows.begin(), o.fusedRows.end()});
    for (const auto& c : o.removeCauses)
        if (std::find(removeCauses.begin(), removeCauses.end(), c) == removeCauses.end())
            removeCauses.push_back(c);
    overlapComm = overlapComm || o.overlapComm;
}

std::vector<std::string> WhatIfChanges::describe() const
{
    std::vector<std::string> out;
    for (const auto& [t, f] : scaleTypes) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g", f);
        out.push_back("scale " + t + " x " + buf);
    }
    if (!scaleRows.empty())
        out.push_back("scale " + std::to_string(scaleRows.size()) + " tasks by their findings' estimates");
    if (!saveRows.empty()) {
        double ns = 0;
        for (const auto& [r, s] : saveRows)
            ns += static_cast<double>(s);
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.3f", ns / 1e6);
        out.push_back("shorten " + std::to_string(saveRows.size()) + " tasks by " + buf + " ms in all (HBM round trips saved)");
    }
    if (!fusedRows.empty())
        out.push_back("fuse " + std::to_string(fusedRows.size()) + " tasks into their stream predecessors (no gap, no launch)");
    for (const auto& c : removeCauses)
        out.push_back("remove " + c);
    if (overlapComm)
        out.push_back("overlap communication (compute no longer waits for collectives)");
    return out;
}

} // namespace npuscope
