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

} // namespace npuscope
