#include "app/cli_table.h"

#include "model/analysis/atomic_file.h"

#include <cstdio>

namespace npuscope::cli {

bool writeOutput(const std::string& verb, const std::string& path, const std::string& text)
{
    if (path.empty() || path == "-") {
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
        return true;
    }
    std::string error;
    if (!npuscope::writeFileAtomically(path, text, &error)) {
        std::fprintf(stderr, "npuscope %s: %s\n", verb.c_str(), error.c_str());
        return false;
    }
    return true;
}

} // namespace npuscope::cli
