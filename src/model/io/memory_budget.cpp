#include "model/io/memory_budget.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__linux__)
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
        mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
    }
#endif
    ++g_loads;
    if (m_hugePages && g_hugeLoads++ == 0 && g_manageHugePages)
        setHugePages(true);
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

void releaseFreeHeap()
{
#if defined(__GLIBC__)
    if (!kSanitizerHeap)
        malloc_trim(0);
#endif
}

} // namespace npuscope
