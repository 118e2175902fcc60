#include "app/cli.h"

#include "model/store/safe_text.h"

#include <cstdio>

namespace npuscope::cli {

bool wantsHelp(const Args& args)
{
    for (const auto& a : args)
        if (a == "--help" || a == "-h")
            return true;
    return false;
}

std::vector<InputProblem> warnInputProblems(const std::string& verb, const Session& s)
{
    std::vector<InputProblem> problems = inputProblems(s);
    for (const auto& p : problems)
        std::fprintf(stderr, "npuscope %s: warning: %s\n", verb.c_str(), text::forTerminal(describe(p)).c_str());
    return problems;
}

void printError(const std::string& verb, const std::string& message)
{
    std::fprintf(stderr, "npuscope %s: %s\n", verb.c_str(), text::forTerminal(message).c_str());
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
