#include "app/heap_huge_pages.h"

#include "model/io/memory_budget.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace npuscope {

namespace {

bool hugePagesOnRequest()
{
    std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    return std::getline(f, line) && line.find("[madvise]") != std::string::npos;
}

// True on a virtual machine whose memory balloon reports free pages to the host
// (VIRTIO_BALLOON_F_REPORTING): the host drops them, and memory the process touches for the
// first time is then faulted in from the host, a huge page 2 MiB at once.
bool hostReclaimsFreeMemory()
{
    std::error_code ec;
    for (std::filesystem::directory_iterator it("/sys/bus/virtio/drivers/virtio_balloon", ec), end; !ec && it != end;
         it.increment(ec)) {
        // One character per feature bit, bit 0 first; VIRTIO_BALLOON_F_REPORTING is bit 5.
        std::ifstream f(it->path() / "features");
        std::string bits;
        if (std::getline(f, bits) && bits.size() > 5 && bits[5] == '1')
            return true;
    }
    return false;
}

// The time a fresh 4 KiB page takes to fault in, µs: 256 of them touched in a new mapping
// (about 1-4 ms), the faster of two tries; 0 when it cannot be measured.
double freshPageMicros()
{
#if defined(MADV_NOHUGEPAGE)
    constexpr std::size_t kPages = 256, kPage = 4096;
    double best = 0;
    for (int round = 0; round < 2; ++round) {
        void* m = ::mmap(nullptr, kPages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return 0;
        ::madvise(m, kPages * kPage, MADV_NOHUGEPAGE);
        auto* bytes = static_cast<volatile char*>(m);
        const auto t0 = std::chrono::steady_clock::now();
        for (std::size_t i = 0; i < kPages; ++i)
            bytes[i * kPage] = 1;
        const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count()
                          / static_cast<double>(kPages);
        ::munmap(m, kPages * kPage);
        best = round == 0 ? us : std::min(best, us);
    }
    return best;
#else
    return 0;
#endif
}

bool g_leftOffForHost = false;
double g_freshPageMicros = 0;

} // namespace

bool heapHugePagesLeftOffForHost()
{
    return g_leftOffForHost;
}

double heapFreshPageMicros()
{
    return g_freshPageMicros;
}

void setUpHeapHugePages()
{
#if defined(__linux__) && defined(__GLIBC__)
    if (kSanitizerHeap || std::getenv("VALGRIND_LAUNCHER"))
        return;
    const char* opt = std::getenv("NPUSCOPE_HUGE_PAGES");
    if (opt && std::strcmp(opt, "0") == 0)
        return;
    const char* set = std::getenv("GLIBC_TUNABLES");
    const std::string tunables = set ? set : "";
    if (tunables.find("glibc.malloc.hugetlb") != std::string::npos
        || tunables.find("glibc.malloc.arena_max") != std::string::npos)
        return; // the caller chose
    if (!hugePagesOnRequest())
        return; // "always": the heap has them already; "never": nothing to gain
    // One heap for all threads: the side thread of a 1 GB load faulted 78 k pages in a heap of
    // its own, which the advice for the main heap does not reach; and memory one thread frees is
    // reused by the others (a worker's heap of its own is at most 64 MiB: its larger blocks get
    // pages of their own, faulted in afresh every time).
    mallopt(M_ARENA_MAX, 1);
    if (!(opt && std::strcmp(opt, "1") == 0) && hostReclaimsFreeMemory()) {
        g_freshPageMicros = freshPageMicros();
        if (g_freshPageMicros < kSlowFreshPageMicros) {
            g_leftOffForHost = true; // see heap_huge_pages.h
            return;
        }
    }
    manageHeapHugePages();
#endif
}

} // namespace npuscope
