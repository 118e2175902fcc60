// npuscope-bench entry point. Built in the build tree beside `npuscope` (whose `bench` verb
// starts it), never installed by the package.
#include "app/heap_huge_pages.h"
#include "bench/bench.h"

int main(int argc, char** argv)
{
    // The loads are measured with the heap the shipped program gives them.
    npuscope::setUpHeapHugePages();
    return npuscope::bench::run(npuscope::bench::Args(argv + 1, argv + argc));
}
