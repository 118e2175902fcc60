#include "app/heap_huge_pages.h"

#include "model/io/memory_budget.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace npuscope {

namespace {

bool hugePagesOnRequest()
{
    std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    return std::getline(f, line) && line.find("[madvise]") != std::string::npos;
}

} // namespace

void setUpHeapHugePages()
{
#if defined(__linux__) && defined(__GLIBC__)
    if (kSanitizerHeap || std::getenv("VALGRIND_LAUNCHER"))
        return;
    if (const char* opt = std::getenv("NPUSCOPE_HUGE_PAGES"); opt && std::strcmp(opt, "0") == 0)
        return;
    const char* set = std::getenv("GLIBC_TUNABLES");
    const std::string tunables = set ? set : "";
    if (tunables.find("glibc.malloc.hugetlb") != std::string::npos
        || tunables.find("glibc.malloc.arena_max") != std::string::npos)
        return; // the caller chose
    if (!hugePagesOnRequest())
        return; // "always": the heap has them already; "never": nothing to gain
    // One heap for all threads: the side thread of a 1 GB load faulted 78 k pages in a heap of
    // its own, which the advice for the main heap does not reach.
    mallopt(M_ARENA_MAX, 1);
    manageHeapHugePages();
#endif
}

} // namespace npuscope
