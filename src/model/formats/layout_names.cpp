// File names: their parts (module, slice, middle, timestamp) and the kind they name, from the
// FileKind table first, then the modules known and not read.
#include "model/formats/layout_internal.h"

#include <set>

namespace npuscope::layout {

using namespace detail;

namespace {

constexpr const char* kNotProfiler = "not a profiler file";

// Profiler modules we know but do not read yet: named so the user sees they were recognised.
bool knownUnusedModule(std::string_view m)
{
    static const std::set<std::string, std::less<>> kModules = {
        "hbm", "llc_read_write", "llc", "hccs", "pcie", "nic", "roce",
        "ai_core_utilization", "ai_vector_core_utilization", "ai_cpu", "aicpu", "fusion_op", "dp", "ddr",
        "dvpp", "msprof_tx", "static_op_mem", "cpu_usage", "sys_cpu_usage", "process_cpu_usage", "sys_mem",
        "process_mem", "host_cpu_usage", "host_mem_usage", "host_disk_usage", "host_network_usage",
        "os_runtime_statistic", "data_preparation", "dataset", "task_time", "op_summary_l2", "qos",
        "stars_soc", "stars_chip_trans", "acc_pmu", "biu_perf", "npu_module", "communication_analyzer",
        "trace", "data_process", "api_call", "ge_op_execute", "l2_cache_summary", "hccl", "msprof_json"};
    return kModules.count(m) != 0;
}

} // namespace

FileName parseFileName(std::string_view name)
{
    FileName out;
    std::string n = lower(name);
    // info.json.<N>: the device number follows the extension.
    if (startsWith(n, "info.json")) {
        out.module = "info.json";
        out.ext = "json";
        if (n.size() > 10 && n[9] == '.')
            out.middle = n.substr(10);
        return out;
    }
    std::string stem = n;
    const auto dot = n.rfind('.');
    if (dot != std::string::npos && dot > 0) {
        out.ext = n.substr(dot + 1);
        stem = n.substr(0, dot);
    }
    std::vector<std::string> tokens;
    std::size_t pos = 0;
    while (true) {
        const auto us = stem.find('_', pos);
        tokens.push_back(stem.substr(pos, us == std::string::npos ? std::string::npos : us - pos));
        if (us == std::string::npos)
            break;
        pos = us + 1;
    }
    std::size_t endTok = tokens.size();
    if (endTok > 1 && allDigits(tokens.back()) && tokens.back().size() >= 8) {
        out.timestamp = tokens.back();
        --endTok;
    }
    std::size_t i = 0;
    for (; i < endTok; ++i) {
        if (i > 0 && (allDigits(tokens[i]) || (tokens[i] == "slice" && i + 1 < endTok && allDigits(tokens[i + 1]))))
            break;
        if (i > 0)
            out.module += '_';
        out.module += tokens[i];
    }
    if (i < endTok && tokens[i] == "slice") {
        out.slice = toInt(tokens[i + 1], 0);
        i += 2;
    }
    for (; i < endTok; ++i) {
        if (!out.middle.empty())
            out.middle += '_';
        out.middle += tokens[i];
    }
    return out;
}

Classification classifyFileName(std::string_view name)
{
    const std::string n = lower(name);
    const FileName fn = parseFileName(n);
    const std::string& m = fn.module;
    if (const FileKindRow* row = matchFileName(n, m, fn.ext))
        return {row->kind, std::string(row->name), row->whyNotRead ? row->whyNotRead(name) : std::string(), row};
    if (m == "step_trace" && (fn.ext == "csv" || fn.ext == "json"))
        return {FileKind::Unknown, m, "graph-mode step trace: not read by this build"};
    if ((fn.ext == "csv" || fn.ext == "json") && knownUnusedModule(m))
        return {FileKind::Unknown, m, std::string(name) + ": not used yet"};
    // The capture's own records in a raw PROF_* folder (start_info.0, end_info, host_start.log,
    // dev_start.log.0, sample.json): when and how it was collected, which the exports restate.
    std::string_view base = n;
    if (const auto dot = base.rfind('.');
        dot != std::string_view::npos && dot + 1 < base.size()
        && base.find_first_not_of("0123456789", dot + 1) == std::string_view::npos)
        base = base.substr(0, dot);
    for (const std::string_view record : {"start_info", "end_info", "host_start.log", "dev_start.log", "sample.json"})
        if (base == record)
            return {FileKind::Unknown, "collection_record",
                    "the capture's start/end record (raw PROF_* folder): its times are in the exported files"};
    return {FileKind::Unknown, "", kNotProfiler};
}

} // namespace npuscope::layout
