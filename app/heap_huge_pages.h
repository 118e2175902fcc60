#pragma once
// Transparent huge pages for the heap of large loads (see LoadAllocationScope).

namespace npuscope {

// glibc advises huge pages for the heap only when its glibc.malloc.hugetlb tunable is set, and only
// for its main heap (glibc.malloc.arena_max=1 keeps every thread there); it reads tunables when a
// process starts. So when the system gives huge pages on request only (transparent_hugepage/
// enabled is "madvise") and neither tunable is set, this starts the program again with both
// (execv of /proc/self/exe with the same arguments); it returns only when it did not. The new
// process puts GLIBC_TUNABLES back as it was, so that the programs it starts see the caller's
// environment, and lets LoadAllocationScope turn huge pages on for large loads only.
// NPUSCOPE_HUGE_PAGES=0 turns this off; so do sanitizer builds and runs under Valgrind.
// Call first thing in main().
void startWithHeapHugePages(char** argv);

} // namespace npuscope
