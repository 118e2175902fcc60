#include "app/cli.h"

namespace npuscope::cli {

bool wantsHelp(const Args& args)
{
    for (const auto& a : args)
        if (a == "--help" || a == "-h")
            return true;
    return false;
}

} // namespace npuscope::cli
