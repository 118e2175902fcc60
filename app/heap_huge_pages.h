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
// chose). Call first thing in main(), before any thread starts.
void setUpHeapHugePages();

} // namespace npuscope
