#pragma once
// A flow's name. msprof names each HostToDevice flow by its category and id
// ("HostToDevice197568495616"), a distinct string per flow; the timeline reader stores an invalid
// NameId() for such names instead of interning each, and this rebuilds the text.
#include "model/store/profile.h"

#include <string>

namespace npuscope {

inline std::string flowName(const Profile& p, std::size_t flow)
{
    const FlowTable& f = p.flows;
    if (f.name[flow].valid())
        return std::string(p.str(f.name[flow]));
    std::string s(p.str(f.category[flow]));
    s += p.str(f.id[flow]);
    return s;
}

} // namespace npuscope
