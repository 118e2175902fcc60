#pragma once
// Transparent huge pages for the heap of large loads (see LoadAllocationScope).

namespace npuscope {

// When the system gives huge pages on request only (transparent_hugepage/enabled is "madvise"),
// keeps every thread's allocations in glibc's main heap (one arena: the other threads' heaps
// would not get huge pages) and lets LoadAllocationScope advise huge pages for the heap of large
// loads (manageHeapHugePages). Done in this process: glibc's own hugetlb tunable is read only
// when a process starts, and starting again to set it cost a second dynamic link of every
// library. NPUSCOPE_HUGE_PAGES=0 turns this off; so do sanitizer builds, runs under Valgrind,
// and a caller who set glibc.malloc.hugetlb or glibc.malloc.arena_max in GLIBC_TUNABLES (they
// chose). A virtual machine whose host takes free memory back (its memory balloon reports free
// pages) faults a huge page in from the host again after every pause: there the heap gets huge
// pages only when a fresh 4 KiB page is slow too (kSlowFreshPageMicros or more, measured at
// start), or with NPUSCOPE_HUGE_PAGES=1. On the 2-core development VM, with fresh small pages at
// about 3 µs, huge pages made a load 0.6-1.3 s slower (a 1.26 GB profile: `info --no-cache` 4.1 s
// against 2.7 s after a few seconds idle) and a reopen from the cache 1.9 against 0.95 s; on the
// same kind of VM with small pages at 11-15 µs, they made the reopen 0.4-0.9 against 1.24-1.29 s
// and `info --no-cache` 3.1-3.4 against 4.1-5.3 s (bench/RESULTS.md). Call first thing in main(),
// before any thread starts.
void setUpHeapHugePages();

// True when setUpHeapHugePages() would have managed huge pages but left them off because the
// host takes free memory back (and small pages are fast there).
bool heapHugePagesLeftOffForHost();

// The fresh 4 KiB page's time setUpHeapHugePages() measured (µs), 0 when it measured none.
double heapFreshPageMicros();

} // namespace npuscope
