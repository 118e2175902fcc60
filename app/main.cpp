// npuscope entry point: a CLI verb, or the GUI (on the given paths, or on the demo profile).
#include "app/cli.h"
#include "app/gui_main.h"
#include "app/heap_huge_pages.h"
#include "app/qt_parts.h"
#include "model/io/memory_budget.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace {

void printHelp()
{
    std::printf(
        "npuscope " NPUSCOPE_VERSION " - trace viewer and performance advisor for Ascend NPU profiling data\n"
        "\n"
        "Usage:\n"
        "  npuscope [PATH]...                  open the GUI (on folders or files, if given)\n"
        "  npuscope --demo                     open the GUI on the bundled demo profile\n"
        "                                      (headless: print its top operators and advisor summary)\n"
        "  npuscope BASELINE --compare OPTIMIZED  open the GUI on BASELINE with the Compare tab\n"
        "  npuscope PATH --zoom START END      open the GUI showing START..END (from the trace start,\n"
        "                                      with units: 12.1ms, 500us, 1.2s, 800ns)\n"
        "  npuscope PATH --select START END    open the GUI with START..END selected, shown with 10 %%\n"
        "                                      of its width on each side\n"
        "  npuscope PATH ... --critical-path   open with each step's critical path outlined (key P)\n"
        "  npuscope PATH ... --screenshot FILE save the window as a PNG once loaded, then quit\n"
        "  npuscope info PATH... [--format text|json] [--prefer text|db] [--no-cache]\n"
        "  npuscope analyze --import PATH... [--metric %s]\n"
        "           [--top N] [--sort descending|ascending] [--group-by type|name]\n"
        "           [--format csv|json|table|chrome_trace] [--export FILE] [--peak-hbm-gbps X]\n"
        "  npuscope advise PATH [--format text|markdown|json|html|pdf] [-o FILE] [--advisor-config FILE]\n"
        "           [--clock raw|aligned] [--clock-offset RANK=NS]...\n"
        "  npuscope compare BASELINE OPTIMIZED [--format table|csv|json|markdown|html|pdf] [-o FILE] [--same-within PCT]\n"
        "           [--per-step|--whole-run] [--no-advisor] [--clock raw|aligned] [--clock-offset RANK=NS]...\n"
        "  npuscope whatif PATH [--scale OPTYPE=F]... [--remove CAUSE]... [--overlap-comm] [--format text|json]\n"
        "  npuscope synth OUT_DIR [--scenario llama2-baseline|llama2-optimized|cluster-slowrank]\n"
        "           [--layout torch_npu|msprof]\n"
        "           [--ranks N] [--steps N] [--seed N] [--target-mb N] [--shape NAME]\n"
        "  npuscope bench [OPTION]...          the benchmarks: starts npuscope-bench, built beside npuscope\n"
        "                                      in a build tree (not installed by the package)\n"
        "  npuscope cache list|clear           the session cache (info, analyze, advise and compare\n"
        "                                      take --no-cache)\n"
        "  [mpirun -np P] npuscope cluster-summary ROOT -o SUMMARY [--ranks-from FILE] [--threads N]\n"
        "           [--timeout SEC] [--buckets N]\n"
        "  npuscope --version | --help\n"
        "\n"
        "Each verb takes --help. Exit codes: 0 ok, 1 input problem, 2 usage.\n",
        npuscope::cli::metricNames("|").c_str());
}

} // namespace

int main(int argc, char** argv)
{
    npuscope::cli::setCommandLine(argv);
    npuscope::setUpHeapHugePages();
    if (argc >= 2) {
        const std::string verb = argv[1];
        npuscope::cli::Args rest(argv + 2, argv + argc);
        if (verb == "--help" || verb == "-h" || verb == "help") {
            printHelp();
            return 0;
        }
        if (verb == "--version" || verb == "-v") {
            std::printf("npuscope %s\n", NPUSCOPE_VERSION);
            const double fresh = npuscope::heapFreshPageMicros();
            if (npuscope::heapHugePagesManaged() && fresh > 0)
                std::printf("heap: transparent huge pages for loads of %llu MiB or more (the host takes free memory "
                            "back, but a fresh 4 KiB page took %.1f us, %.0f us or more: small pages cost more; "
                            "NPUSCOPE_HUGE_PAGES=0 turns them off)\n",
                            static_cast<unsigned long long>(npuscope::LoadAllocationScope::kHugePagesInputBytes >> 20),
                            fresh, npuscope::kSlowFreshPageMicros);
            else if (npuscope::heapHugePagesManaged())
                std::printf("heap: transparent huge pages for loads of %llu MiB or more\n",
                            static_cast<unsigned long long>(npuscope::LoadAllocationScope::kHugePagesInputBytes >> 20));
            else if (npuscope::heapHugePagesLeftOffForHost())
                std::printf("heap: pages as the system gives them (the host takes free memory back and a fresh 4 KiB "
                            "page took %.1f us, under %.0f us: huge pages would be faulted in from the host; "
                            "NPUSCOPE_HUGE_PAGES=1 turns them on)\n",
                            fresh, npuscope::kSlowFreshPageMicros);
            else
                std::printf("heap: pages as the system gives them\n");
            return 0;
        }
        if (verb == "info")
            return npuscope::cli::info(rest);
        if (verb == "analyze")
            return npuscope::cli::analyze(rest);
        if (verb == "advise")
            return npuscope::cli::advise(rest);
        if (verb == "compare")
            return npuscope::cli::compare(rest);
        if (verb == "synth")
            return npuscope::cli::synth(rest);
        if (verb == "bench")
            return npuscope::cli::bench(rest);
        if (verb == "cache")
            return npuscope::cli::cache(rest);
        if (verb == "cluster-summary")
            return npuscope::cli::clusterSummary(rest);
        if (verb == "whatif")
            return npuscope::cli::whatif(rest);
        if (verb.size() > 1 && verb[0] == '-' && verb != "--demo" && verb.rfind("-platform", 0) != 0
            && verb.rfind("--style", 0) != 0) {
            std::fprintf(stderr, "npuscope: unknown option '%s'\nTry 'npuscope --help'.\n", verb.c_str());
            return 2;
        }
    }
    return npuscope::runGui(argc, argv);
}
