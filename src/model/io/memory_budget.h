#pragma once
// How much heap a load may use, so that a file larger than the memory left fails with a message
// instead of the process being killed by the kernel's OOM killer. Memory-mapped input does not
// count (the kernel pages it in and out); what counts is what the readers build from it.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace npuscope {

// The budget for one load: NPUSCOPE_MEMORY_BUDGET (bytes, or with a K/M/G suffix) when set,
// else MemAvailable from /proc/meminfo; nullopt when neither is known (no check then).
std::optional<std::uint64_t> memoryBudgetBytes();
// "512M", "2G", "1048576" -> bytes; nullopt for junk.
std::optional<std::uint64_t> parseByteSize(std::string_view text);
// Estimated heap a reader of `kind` (FileRecord::kind) builds from `fileBytes` of input:
// the tables it fills plus its working buffers (FORMATS.md readers, measured on the samples).
std::uint64_t estimatedHeapBytes(std::string_view kind, std::uint64_t fileBytes);
// "3.2 GiB", "12 MiB", "800 KiB", "12 bytes".
std::string formatBytes(std::uint64_t bytes);

// While a load runs, heap blocks of 1 MiB and more get pages of their own and go back to the
// system when freed. Otherwise glibc keeps them in the heap (once a large block has been freed it
// raises that limit, up to 32 MiB), where a load's freed working buffers (event batches, sort
// buffers) stay resident: about 14 MB of a 100 MB load's peak. When no load runs the limit is
// 32 MiB, so that the views' per-frame buffers are reused instead of mapped and faulted in again
// every frame. Nested and concurrent scopes share the one setting. Does nothing outside glibc.
class LoadAllocationScope {
public:
    LoadAllocationScope();
    ~LoadAllocationScope();
    LoadAllocationScope(const LoadAllocationScope&) = delete;
    LoadAllocationScope& operator=(const LoadAllocationScope&) = delete;
};

} // namespace npuscope
