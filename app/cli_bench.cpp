// `npuscope bench`: the benchmarks are a program of their own, npuscope-bench (bench/), so that
// the shipped binary carries none of their code. In a build tree it sits beside npuscope and is
// started here on the same options; the package does not install it, and there this verb says
// where it comes from.
#include "app/cli.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace npuscope::cli {

namespace {

const char* kWhere =
    "npuscope bench: the benchmarks are a separate program, npuscope-bench, built from bench/ in a\n"
    "build tree (the npuscope-bench target, written beside npuscope) and not installed by the package.\n"
    "In a build tree, 'npuscope bench OPTION...' starts it; 'npuscope-bench --help' lists its options.\n";

std::string benchBinary()
{
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : (self.parent_path() / "npuscope-bench").string();
}

} // namespace

int bench(const Args& args)
{
    std::string path = benchBinary();
    if (path.empty() || ::access(path.c_str(), X_OK) != 0) {
        const bool help = !args.empty() && (args[0] == "--help" || args[0] == "-h");
        std::fputs(kWhere, help ? stdout : stderr);
        return help ? 0 : 1;
    }
    std::vector<std::string> copies(args);
    std::vector<char*> argv{path.data()};
    for (std::string& a : copies)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    std::fflush(nullptr);
    ::execv(path.c_str(), argv.data()); // returns only when it failed
    std::fprintf(stderr, "npuscope bench: cannot start %s: %s\n", path.c_str(), std::strerror(errno));
    return 1;
}

} // namespace npuscope::cli
