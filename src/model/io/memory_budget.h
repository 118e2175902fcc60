#pragma once
// How much heap a load may use, so that a file larger than the memory left fails with a message
// instead of the process being killed by the kernel's OOM killer. Memory-mapped input does not
// count (the kernel pages it in and out); what counts is what the readers build from it.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace npuscope {

// The budget for one load: NPUSCOPE_MEMORY_BUDGET (bytes, or with a K/M/G suffix) when set,
// else MemAvailable from /proc/meminfo; nullopt when neither is known (no check then).
std::optional<std::uint64_t> memoryBudgetBytes();
// "512M", "2G", "1048576" -> bytes; nullopt for junk.
std::optional<std::uint64_t> parseByteSize(std::string_view text);
// "3.2 GiB", "12 MiB", "800 KiB", "12 bytes".
std::string formatBytes(std::uint64_t bytes);

// Where a load counts as large. A load (or a file) of at least kLargeLoadBytes is read for
// throughput: 2 MiB timeline chunks, three of them in flight, pages mapped ahead, the
// communication files last. A smaller one is read for a low peak: 512 KiB chunks, two in flight,
// pages dropped every 2 MiB, the communication files first. Either way, the heap the
// communication files freed is reused by the rest of the load.
// Each choice is measured on the benchmark profiles where it is made.
inline constexpr std::uint64_t kLargeLoadBytes = 256ull << 20;

// While a load or an advisor run is in progress, the memory it frees stays in the process and
// is reused by its later allocations: no block gets pages of its own (they would be unmapped when
// freed) and the heap is not trimmed. A fresh page costs a fault and clearing (about 10 µs each on
// the development machine), so reuse saves a large part of a big load's faults and of the
// advisor rules' time. When the last scope ends, free heap memory goes back to the
// system (malloc_trim) and the idle limits return: blocks of 32 MiB and more get pages of their
// own, smaller ones stay in the heap, so the views' per-frame buffers are reused instead of
// faulted in again every frame. Nested and concurrent scopes share the one setting. Does nothing
// outside glibc.
//
// Large loads also get transparent huge pages for their heap, once the process manages them (see
// manageHeapHugePages): one fault maps 2 MiB instead of 4 KiB. A scope whose input is at least
// kHugePagesInputBytes turns them on until it ends; smaller loads keep 4 KiB pages, whose partly
// used huge pages would raise their peak by more than they save. Where a first touch of a 4 KiB
// page is slow (a virtual machine), a huge page maps the same memory for a fraction of the cost:
// the load gets much faster for a somewhat higher peak.
class LoadAllocationScope {
public:
    // `inputBytes`: the bytes the load will read; 0 for a scope that reads nothing (the rules).
    explicit LoadAllocationScope(std::uint64_t inputBytes = 0);
    ~LoadAllocationScope();
    LoadAllocationScope(const LoadAllocationScope&) = delete;
    LoadAllocationScope& operator=(const LoadAllocationScope&) = delete;

    static constexpr std::uint64_t kHugePagesInputBytes = 64ull << 20;

private:
    bool m_hugePages = false;
};

// Inside a LoadAllocationScope, for a reader that is about to fill about `bytes` of new tables
// from the thread that creates it (a session cache entry read back): the heap's free end is
// grown by that much and a second thread faults its pages in (MADV_POPULATE_WRITE) while the
// reader fills them, so the kernel's zeroing of fresh pages runs beside the reading instead of
// inside it. Nothing is written: memory the reader does not reach is free heap again, returned
// when the scope ends. The helper stops and is joined when this ends. Does nothing outside
// glibc on Linux, under a sanitizer's allocator, or for less than 64 MiB.
class HeapPrefault {
public:
    explicit HeapPrefault(std::uint64_t bytes);
    ~HeapPrefault();
    HeapPrefault(const HeapPrefault&) = delete;
    HeapPrefault& operator=(const HeapPrefault&) = delete;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// Called by the application at its start when the system gives huge pages on request: huge
// pages are turned off for the process (prctl PR_SET_THP_DISABLE) except while a large load's
// scope is open, and each large load's scope grows the heap ahead by twice its input's size and
// advises huge pages for that stretch (MADV_HUGEPAGE). Without this call the scopes leave huge
// pages as the system has them. Linux only; else does nothing.
void manageHeapHugePages();
// True once manageHeapHugePages() was called.
bool heapHugePagesManaged();
// True while huge pages are managed and turned on (a large load's scope is open).
bool heapHugePagesOn();

// On a host that takes free memory back, a fresh 4 KiB page costing this long (µs) or more makes
// huge pages pay (app/heap_huge_pages.h measures it at start).
inline constexpr double kSlowFreshPageMicros = 7.0;

// True in sanitizer builds: their allocator replaces glibc's heap, whose tunables and trimming
// then do not apply (and malloc_trim from two threads at once can crash on glibc's heap that was
// never set up).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitizerHeap = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
inline constexpr bool kSanitizerHeap = true;
#else
inline constexpr bool kSanitizerHeap = false;
#endif
#else
inline constexpr bool kSanitizerHeap = false;
#endif

// Gives free heap memory back to the system now, scope or not: after a stage whose freed memory
// the rest of the work would not reuse, or after a scope ended (a cancelled load's tables).
void releaseFreeHeap();

} // namespace npuscope
