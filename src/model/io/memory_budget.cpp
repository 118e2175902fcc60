#include "model/io/memory_budget.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <mutex>
#include <system_error>
#include <thread>

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#include <sys/prctl.h>
#endif

namespace npuscope {

std::optional<std::uint64_t> parseByteSize(std::string_view text)
{
    while (!text.empty() && (text.back() == ' ' || text.back() == '\n'))
        text.remove_suffix(1);
    std::uint64_t scale = 1;
    if (!text.empty()) {
        switch (text.back()) {
        case 'k': case 'K': scale = 1ull << 10; break;
        case 'm': case 'M': scale = 1ull << 20; break;
        case 'g': case 'G': scale = 1ull << 30; break;
        default: break;
        }
        if (scale != 1)
            text.remove_suffix(1);
    }
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || p != text.data() + text.size())
        return std::nullopt;
    if (v > std::numeric_limits<std::uint64_t>::max() / scale)
        return std::numeric_limits<std::uint64_t>::max();
    return v * scale;
}

std::optional<std::uint64_t> memoryBudgetBytes()
{
    if (const char* env = std::getenv("NPUSCOPE_MEMORY_BUDGET"); env && *env)
        if (auto v = parseByteSize(env))
            return v;
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    std::uint64_t kib = 0;
    std::string unit;
    while (meminfo >> key >> kib) {
        std::getline(meminfo, unit);
        if (key == "MemAvailable:")
            return kib * 1024;
    }
    return std::nullopt;
}

std::string formatBytes(std::uint64_t bytes)
{
    char buf[64];
    if (bytes >= (1ull << 30))
        std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(1ull << 30));
    else if (bytes >= (1ull << 20))
        std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / double(1ull << 20));
    else if (bytes >= (1ull << 10))
        std::snprintf(buf, sizeof buf, "%.1f KiB", double(bytes) / double(1ull << 10));
    else
        std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(bytes));
    return buf;
}

namespace {
std::mutex g_loadsMutex;
int g_loads = 0;
int g_hugeLoads = 0;
bool g_manageHugePages = false;

// Huge pages for new faults of the whole process on or off.
void setHugePages(bool on)
{
#if defined(__linux__)
    ::prctl(PR_SET_THP_DISABLE, on ? 0 : 1, 0, 0, 0);
#else
    (void)on;
#endif
}
// glibc advises huge pages for the heap it grows only under its hugetlb tunable, read when a
// process starts. Instead, the heap is grown here by about what the load will build (taken and
// given back at once: inside a scope it is neither trimmed nor mapped apart, so the load's
// tables are cut from it) and that stretch advised. Growth past it gets the system's pages.
void adviseHeapAhead(std::uint64_t bytes)
{
#if defined(__GLIBC__) && defined(__linux__)
    constexpr std::uintptr_t kHuge = 2u << 20;
    for (bytes = std::min<std::uint64_t>(bytes, std::uint64_t{1} << 40); bytes >= kHuge * 32; bytes /= 2) {
        void* block = std::malloc(static_cast<std::size_t>(bytes));
        if (!block)
            continue; // more than the system lends at once: try half
        const auto at = reinterpret_cast<std::uintptr_t>(block);
        const std::uintptr_t from = (at + kHuge - 1) & ~(kHuge - 1);
        const std::uintptr_t to = (at + bytes) & ~(kHuge - 1);
        if (to > from)
            ::madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
        std::free(block);
        return;
    }
#else
    (void)bytes;
#endif
}
} // namespace

void manageHeapHugePages()
{
    const std::lock_guard lock(g_loadsMutex);
    if (g_manageHugePages)
        return;
    g_manageHugePages = true;
    setHugePages(g_hugeLoads > 0);
}

bool heapHugePagesManaged()
{
    const std::lock_guard lock(g_loadsMutex);
    return g_manageHugePages;
}

bool heapHugePagesOn()
{
    const std::lock_guard lock(g_loadsMutex);
    return g_manageHugePages && g_hugeLoads > 0;
}

LoadAllocationScope::LoadAllocationScope(std::uint64_t inputBytes)
    : m_hugePages(inputBytes >= kHugePagesInputBytes)
{
    const std::lock_guard lock(g_loadsMutex);
#if defined(__GLIBC__)
    if (g_loads == 0) {
        mallopt(M_MMAP_MAX, 0);
        mallopt(M_TRIM_THRESHOLD, -1); // never: -1 turns trimming off (INT_MAX would trim a free top of 2 GiB)
    }
#endif
    ++g_loads;
    if (m_hugePages && g_hugeLoads++ == 0 && g_manageHugePages)
        setHugePages(true);
    if (m_hugePages && g_manageHugePages)
        adviseHeapAhead(inputBytes * 2); // what a load builds stays well under twice its input
}

LoadAllocationScope::~LoadAllocationScope()
{
    const std::lock_guard lock(g_loadsMutex);
    if (m_hugePages && --g_hugeLoads == 0 && g_manageHugePages)
        setHugePages(false); // pages already mapped stay as they are
#if defined(__GLIBC__)
    if (g_loads == 1) {
        mallopt(M_MMAP_MAX, 65536); // glibc's default
        mallopt(M_MMAP_THRESHOLD, 32 << 20);
        mallopt(M_TRIM_THRESHOLD, 128 << 10); // glibc's default
        releaseFreeHeap();
    }
#endif
    --g_loads;
}

struct HeapPrefault::Impl {
    std::atomic<bool> stop{false};
    std::thread helper;
};

HeapPrefault::HeapPrefault(std::uint64_t bytes)
{
#if defined(__GLIBC__) && defined(__linux__) && defined(MADV_POPULATE_WRITE)
    if (kSanitizerHeap || bytes < (64ull << 20) || bytes > (std::uint64_t{1} << 40))
        return;
    // Taken and given back at once: the heap's top now reaches that far (the scope keeps the
    // allocator from trimming or mapping large blocks apart), and the reader's tables are cut
    // from it in order.
    void* block = std::malloc(static_cast<std::size_t>(bytes));
    if (!block)
        return;
    const auto from = reinterpret_cast<std::uintptr_t>(block);
    std::free(block);
    m_impl = std::make_unique<Impl>();
    try {
        m_impl->helper = std::thread([impl = m_impl.get(), from, bytes] {
            constexpr std::uintptr_t kChunk = 8u << 20;
            const std::uintptr_t begin = (from + 4095) & ~std::uintptr_t{4095};
            const std::uintptr_t end = (from + bytes) & ~std::uintptr_t{4095};
            for (std::uintptr_t at = begin; at < end && !impl->stop.load(std::memory_order_relaxed); at += kChunk)
                if (::madvise(reinterpret_cast<void*>(at), std::min<std::uintptr_t>(kChunk, end - at), MADV_POPULATE_WRITE) != 0)
                    break; // not mapped any more (or not supported): nothing to do
        });
    } catch (const std::system_error&) {
        m_impl.reset(); // no thread to spare: the reader faults its pages itself
    }
#else
    (void)bytes;
#endif
}

HeapPrefault::~HeapPrefault()
{
    if (!m_impl)
        return;
    m_impl->stop = true;
    if (m_impl->helper.joinable())
        m_impl->helper.join();
}

void releaseFreeHeap()
{
#if defined(__GLIBC__)
    if (!kSanitizerHeap)
        malloc_trim(0);
#endif
}

} // namespace npuscope
