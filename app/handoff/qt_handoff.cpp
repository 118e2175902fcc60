// `npuscope` without Qt: what needs it is handed over to npuscope-gui (see app/qt_parts.h).
#include "app/gui_main.h"
#include "app/qt_parts.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

namespace npuscope::cli {

namespace {

// npuscope-gui beside this binary (the build tree and an installed bin/ alike).
std::string guiBinary(char** argv)
{
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    const std::filesystem::path dir = !ec ? self.parent_path()
                                          : std::filesystem::path(argv && argv[0] ? argv[0] : "npuscope").parent_path();
    return (dir / "npuscope-gui").string();
}

} // namespace

void needQt()
{
    char** argv = commandLine();
    const std::string gui = guiBinary(argv);
    std::fflush(nullptr);
    if (argv) {
        ::execv(gui.c_str(), argv); // returns only when it failed
    } else {
        errno = EINVAL;
    }
    std::fprintf(stderr, "npuscope: cannot start %s (the window and the drawn reports run there): %s\n",
                 gui.c_str(), std::strerror(errno));
    std::exit(1);
}

// Reached only when a verb forgot to call needQt() first: the whole command line then runs
// again in npuscope-gui.
int writeAdvicePdf(const advisor::AdvisorReport&, const std::string&)
{
    needQt();
    return 1;
}

int writeDrawnComparison(const CompareResult&, const std::string&, const std::string&, const std::string&,
                         const std::string&)
{
    needQt();
    return 1;
}

} // namespace npuscope::cli

namespace npuscope {

int runGui(int, char**)
{
    cli::needQt();
    return 1;
}

} // namespace npuscope
