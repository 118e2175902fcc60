// libFuzzer harness for the whole path from input to output: a small real torch_npu folder
// (the rank-0 files of shared/samples/real/msinsight/server/src/test/test_data/test_rank_0 and
// the first events of msprof-analyze's real trace_view.json) with one file replaced by the
// fuzz input, loaded by loadSession like any folder, then given to every writer into memory:
// the advisor's text, Markdown, JSON and HTML reports, the Chrome-trace export, the compare
// report in its four formats and the operator tables. JSON output must parse with a strict
// parser and every output must be valid UTF-8; anything else aborts.
// Input: the first byte picks the file (kSlots), the rest is its content.
#include "advisor/advisor.h"
#include "model/analysis/chrome_export.h"
#include "model/analysis/compare.h"
#include "model/analysis/compare_report.h"
#include "model/formats/loader.h"
#include "model/store/safe_text.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace npuscope;
namespace fs = std::filesystem;

namespace {

struct Slot {
    const char* path; // inside the profile folder
    std::string base; // the real file's bytes ("" = the folder has none)
};

std::vector<Slot> kSlots = {
    {"ASCEND_PROFILER_OUTPUT/trace_view.json", {}},       {"ASCEND_PROFILER_OUTPUT/kernel_details.csv", {}},
    {"ASCEND_PROFILER_OUTPUT/op_statistic.csv", {}},      {"ASCEND_PROFILER_OUTPUT/step_trace_time.csv", {}},
    {"ASCEND_PROFILER_OUTPUT/communication.json", {}},    {"ASCEND_PROFILER_OUTPUT/communication_matrix.json", {}},
    {"ASCEND_PROFILER_OUTPUT/memory_record.csv", {}},     {"ASCEND_PROFILER_OUTPUT/npu_module_mem.csv", {}},
    {"ASCEND_PROFILER_OUTPUT/operator_memory.csv", {}},   {"ASCEND_PROFILER_OUTPUT/operator_details.csv", {}},
    {"profiler_info_0.json", {}},                         {"profiler_metadata.json", {}},
    {"ASCEND_PROFILER_OUTPUT/l2_cache.csv", {}},          {"ASCEND_PROFILER_OUTPUT/api_statistic.csv", {}},
};

fs::path g_root;

std::string readFile(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void writeFile(const fs::path& p, const char* data, std::size_t size)
{
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(data, static_cast<std::streamsize>(size));
}

void put(const Slot& s, const std::string& bytes)
{
    const fs::path p = g_root / s.path;
    if (bytes.empty() && s.base.empty()) {
        std::error_code ec;
        fs::remove(p, ec);
        return;
    }
    writeFile(p, bytes.data(), bytes.size());
}

void mustBeJson(const std::string& s)
{
    if (!text::isValidUtf8(s))
        std::abort();
    try {
        (void)nlohmann::json::parse(s);
    } catch (const std::exception&) {
        std::abort();
    }
}

void mustBeUtf8(const std::string& s)
{
    if (!text::isValidUtf8(s))
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    const fs::path samples = NPUSCOPE_SAMPLES;
    const fs::path rank = samples / "msinsight/server/src/test/test_data/test_rank_0";
    const fs::path level1 = samples / "msinsight/test/data/pytorch/text/level1/rank0_ascend_pt";
    for (auto& s : kSlots) {
        fs::path from = rank / s.path;
        if (!fs::exists(from))
            from = level1 / s.path;
        if (fs::exists(from) && fs::file_size(from) < (64u << 10))
            s.base = readFile(from);
    }
    // The real trace is 635 KB on one line: its first events, closed again.
    std::string trace = readFile(samples / "msprof-analyze/test/ut/advisor/timeline_advice/trace_view.json");
    const std::size_t cut = trace.find("}, {\"ph\"", 48u << 10);
    if (cut != std::string::npos)
        trace = trace.substr(0, cut + 1) + "]";
    kSlots[0].base = trace;
    char tmpl[] = "/tmp/npuscope-fuzz-pipeline.XXXXXX";
    if (!::mkdtemp(tmpl))
        std::abort();
    g_root = fs::path(tmpl) / "fuzz_ascend_pt";
    fs::create_directories(g_root / "ASCEND_PROFILER_OUTPUT");
    for (const auto& s : kSlots)
        put(s, s.base);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size < 1)
        return 0;
    const Slot& slot = kSlots[data[0] % kSlots.size()];
    const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
    writeFile(g_root / slot.path, bytes.data(), bytes.size());

    LoadOptions options;
    options.threads = 1;
    const LoadResult r = loadSession(g_root.string(), options);
    if (r.session) {
        const Session& s = *r.session;
        static const advisor::Thresholds th = advisor::Thresholds::load(advisor::ThresholdsOptions{});
        const advisor::AdvisorReport report = advisor::runAdvisor(s, th);
        mustBeUtf8(advisor::writeText(report));
        mustBeUtf8(advisor::writeMarkdown(report));
        mustBeUtf8(advisor::writeHtml(report));
        mustBeJson(advisor::writeJson(report));
        mustBeJson(chromeTraceJson(s));
        const CompareResult c = compareSessions(s, s);
        for (const char* format : {"table", "csv", "markdown"})
            mustBeUtf8(formatCompareReport(c, g_root.string(), g_root.string(), format));
        mustBeJson(formatCompareReport(c, g_root.string(), g_root.string(), "json"));
    }
    put(slot, slot.base);
    return 0;
}
