#include "app/cli.h"

namespace npuscope::cli {

bool wantsHelp(const Args& args)
{
    for (const auto& a : args)
        if (a == "--help" || a == "-h")
            return true;
    return false;
}

bool parsePrefer(const std::string& value, Prefer& out)
{
    if (value == "text")
        out = Prefer::Text;
    else if (value == "db")
        out = Prefer::Db;
    else
        return false;
    return true;
}

} // namespace npuscope::cli
