// `npuscope analyze`: top operators / communication ops of one or more profiles, with the flags
// of the msprof_analysis.py workflow, as a table, CSV, JSON or a Chrome trace export.
#include "app/cli.h"
#include "app/cli_collectives.h"
#include "app/cli_analyze_causal.h"
#include "app/cli_table.h"

#include "model/analysis/chrome_export.h"
#include "model/analysis/memory.h"
#include "model/analysis/op_stats.h"
#include "model/analysis/summary.h"
#include "model/analysis/units.h"
#include "model/cluster_summary/cluster_summary.h"
#include "model/store/safe_text.h"
#include "model/formats/loader.h"
#include "model/io/memory_budget.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

namespace npuscope::cli {

namespace {

// --help, around the metrics' lines that metricHelp() writes from the table.
const char* kHelpHead =
    "Usage: npuscope analyze --import PATH... [options]\n"
    "\n"
    "Rank operators (or communication ops) of one or more profiles by cost.\n"
    "\n"
    "  --import PATH...        profile folders or files; several paths and globs (ranks of a cluster)\n";
const char* kHelpOptions =
    "  --top N                 rows per rank (default 10, 0 = all)\n"
    "  --sort ORDER            descending (default) | ascending\n"
    "  --group-by G            type (OP Type, default) | name (Op Name)\n"
    "  --format F              table | csv | json | chrome_trace (whole session, needs --export)\n"
    "  --export FILE           write to FILE (format from .csv/.json when --format is absent); '-' = stdout\n"
    "  --peak-hbm-gbps X       peak HBM bandwidth for memory_bandwidth_utilization (default: per chip, 1200)\n"
    "  --prefer text|db        which export to read when a folder has both (default text)\n"
    "  --run N                 the run to open when the path holds several unrelated runs\n"
    "                          ('npuscope info PATH' lists them)\n"
    "  --no-cache              read the files, not the session cache, and do not write it\n"
    "  -h, --help              this help\n"
    "\n"
    "Columns:\n";
const char* kHelpTail =
    "A 'device' column (the profile's rank id) is added when several ranks are imported.\n"
    "Exit codes: 0 ok, 1 input problem, 2 usage.\n";

int analyzeUsage(const std::string& msg)
{
    std::fprintf(stderr, "npuscope analyze: %s\nTry 'npuscope analyze --help'.\n", msg.c_str());
    return 2;
}

struct Metric;
const Metric* findMetric(const std::string& name);

struct AnalyzeOptions {
    std::vector<std::string> imports;
    std::string metric = "duration";
    long top = 10;
    bool ascending = false;
    GroupBy groupBy = GroupBy::Type;
    std::string format;   // empty: from --export's extension, else table
    std::string exportPath;
    double peak = kNaN;
    Prefer prefer = Prefer::Auto;
    bool useCache = true;
    std::size_t run = 0;
    ClockOptions clock; // --clock, --clock-offset (the metrics of a whole cluster)
    ClockAlignment aligned; // of several ranks: what the times of a metric subtract (clock_align.h)
};

bool hasGlobChars(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

bool exists(const std::string& p)
{
    struct stat st;
    return ::stat(p.c_str(), &st) == 0;
}

// Paths as given, globs the shell left unexpanded expanded here (sorted by glob(3)).
bool expandImports(const std::vector<std::string>& in, std::vector<std::string>& out)
{
    for (const auto& p : in) {
        if (exists(p) || !hasGlobChars(p)) {
            if (!exists(p)) {
                std::fprintf(stderr, "npuscope analyze: %s: no such file or directory\n", p.c_str());
                return false;
            }
            out.push_back(p);
            continue;
        }
        glob_t g{};
        const int rc = ::glob(p.c_str(), 0, nullptr, &g);
        if (rc != 0 || g.gl_pathc == 0) {
            ::globfree(&g);
            std::fprintf(stderr, "npuscope analyze: %s: no file matches\n", p.c_str());
            return false;
        }
        for (std::size_t i = 0; i < g.gl_pathc; ++i)
            out.emplace_back(g.gl_pathv[i]);
        ::globfree(&g);
    }
    return true;
}

std::string extension(const std::string& path)
{
    const auto slash = path.find_last_of('/');
    const auto dot = path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
        return "";
    std::string e = path.substr(dot + 1);
    for (auto& c : e)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return e;
}

// Returns -1 when parsing went fine, else the exit code.
int parse(const Args& args, AnalyzeOptions& o)
{
    auto value = [&](std::size_t& i, const std::string& flag, std::string& out) -> bool {
        const std::string& a = args[i];
        if (a.size() > flag.size() && a.compare(0, flag.size() + 1, flag + "=") == 0) {
            out = a.substr(flag.size() + 1);
            return true;
        }
        if (i + 1 >= args.size())
            return false;
        out = args[++i];
        return true;
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto is = [&](const char* flag) { return a == flag || a.rfind(std::string(flag) + "=", 0) == 0; };
        std::string v;
        if (is("--import")) {
            if (a.find('=') != std::string::npos) {
                o.imports.push_back(a.substr(a.find('=') + 1));
                continue;
            }
            // Every following argument up to the next option.
            std::size_t n = 0;
            while (i + 1 < args.size() && !(args[i + 1].size() > 1 && args[i + 1][0] == '-')) {
                o.imports.push_back(args[++i]);
                ++n;
            }
            if (n == 0)
                return analyzeUsage("--import needs at least one path");
        } else if (is("--metric")) {
            if (!value(i, "--metric", v))
                return analyzeUsage("--metric needs a value");
            if (!findMetric(v))
                return analyzeUsage("unknown metric '" + v + "' (" + metricNames(", ") + ")");
            o.metric = v;
        } else if (is("--top")) {
            if (!value(i, "--top", v))
                return analyzeUsage("--top needs a number");
            char* end = nullptr;
            o.top = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end || o.top < 0)
                return analyzeUsage("--top needs a non-negative number, not '" + v + "'");
        } else if (is("--sort")) {
            if (!value(i, "--sort", v))
                return analyzeUsage("--sort needs a value");
            if (v != "descending" && v != "ascending")
                return analyzeUsage("unknown sort order '" + v + "' (descending, ascending)");
            o.ascending = v == "ascending";
        } else if (is("--group-by")) {
            if (!value(i, "--group-by", v))
                return analyzeUsage("--group-by needs a value");
            if (v != "type" && v != "name")
                return analyzeUsage("unknown grouping '" + v + "' (type, name)");
            o.groupBy = v == "name" ? GroupBy::Name : GroupBy::Type;
        } else if (is("--format")) {
            if (!value(i, "--format", v))
                return analyzeUsage("--format needs a value");
            if (v != "csv" && v != "json" && v != "table" && v != "chrome_trace")
                return analyzeUsage("unknown format '" + v + "' (csv, json, table, chrome_trace)");
            o.format = v;
        } else if (is("--export") || is("--output") || a == "-o") {
            if (!value(i, a == "-o" ? "-o" : (is("--export") ? "--export" : "--output"), v))
                return analyzeUsage("--export needs a file name");
            o.exportPath = v;
        } else if (is("--peak-hbm-gbps")) {
            if (!value(i, "--peak-hbm-gbps", v))
                return analyzeUsage("--peak-hbm-gbps needs a number");
            char* end = nullptr;
            o.peak = std::strtod(v.c_str(), &end);
            if (v.empty() || *end || !(o.peak > 0))
                return analyzeUsage("--peak-hbm-gbps needs a positive number, not '" + v + "'");
        } else if (is("--prefer")) {
            if (!value(i, "--prefer", v) || !parsePrefer(v, o.prefer))
                return analyzeUsage("--prefer needs text or db");
        } else if (is("--run")) {
            if (!value(i, "--run", v) || !parseRun(v, o.run))
                return analyzeUsage("--run needs a run number from 1 up");
        } else if (const std::string flag = a.substr(0, a.find('=')); flag == "--clock" || flag == "--clock-offset") {
            if (const std::string why = value(i, flag, v) ? parseClockOption(flag, v, o.clock) : flag + " needs a value"; !why.empty())
                return analyzeUsage(why);
        } else if (a == "--no-cache") {
            o.useCache = false;
        } else if (a.size() > 1 && a[0] == '-') {
            return analyzeUsage("unknown option '" + a + "'");
        } else {
            return analyzeUsage("unexpected argument '" + a + "' (paths go after --import)");
        }
    }
    if (o.imports.empty())
        return analyzeUsage("no input: give --import PATH");
    if (o.format.empty()) {
        const std::string e = o.exportPath == "-" ? "" : extension(o.exportPath);
        o.format = e == "csv" ? "csv" : (e == "json" ? "json" : "table");
    }
    if (o.format == "chrome_trace" && (o.exportPath.empty() || o.exportPath == "-"))
        return analyzeUsage("--format chrome_trace needs --export FILE");
    return -1;
}

std::string ms(TimeNs ns) { return nsToMillisText(ns); }
std::string us(TimeNs ns) { return nsToMicrosText(ns); }
std::string count(std::uint64_t n) { return std::to_string(n); }

// Rows of one rank for the operator metrics, already sorted and cut.
void operatorRows(const Profile& p, const AnalyzeOptions& o, bool multi, Table& t, bool bw)
{
    OpStatsOptions so;
    so.groupBy = o.groupBy;
    const double peak = hbmPeakFor(p, o.peak);
    so.peakHbmGBps = peak;
    so.rankGenericSlices = true; // a generic Chrome trace ranks its slices by name
    std::vector<OpGroupStats> groups = computeOpStats(p, so).groups;
    auto bwOf = [](const OpGroupStats& g) {
        if (std::isnan(g.readGBps) && std::isnan(g.writeGBps))
            return kNaN;
        return (std::isnan(g.readGBps) ? 0 : g.readGBps) + (std::isnan(g.writeGBps) ? 0 : g.writeGBps);
    };
    if (bw && !groups.empty()
        && std::none_of(groups.begin(), groups.end(), [&](const OpGroupStats& g) { return !std::isnan(bwOf(g)); }))
        std::fprintf(stderr,
                     "npuscope analyze: %s: no memory bandwidth metrics (*_main_mem_read_bw(GB/s) in kernel_details or "
                     "op_summary: collect with aic_metrics Memory); the rows are in name order\n",
                     p.name.c_str());
    std::stable_sort(groups.begin(), groups.end(), [&](const OpGroupStats& a, const OpGroupStats& b) {
        if (bw) {
            const double x = bwOf(a), y = bwOf(b);
            if (std::isnan(x) != std::isnan(y))
                return !std::isnan(x); // rows without bandwidth last, either order
            if (!std::isnan(x) && x != y)
                return o.ascending ? x < y : x > y;
        } else if (a.total != b.total) {
            return o.ascending ? a.total < b.total : a.total > b.total;
        }
        return a.key < b.key;
    });
    if (o.top > 0 && groups.size() > static_cast<std::size_t>(o.top))
        groups.resize(static_cast<std::size_t>(o.top));
    const std::string device = std::to_string(p.rank);
    long position = 0;
    for (const OpGroupStats& g : groups) {
        std::vector<std::string> r;
        r.push_back(std::to_string(++position));
        r.push_back(g.key);
        if (bw) {
            const double total = bwOf(g);
            r.push_back(fixed(g.readGBps, 3));
            r.push_back(fixed(g.writeGBps, 3));
            r.push_back(fixed(peak > 0 ? total / peak : kNaN, 4));
            r.push_back(ms(g.total));
            r.push_back(count(g.count));
            r.push_back(g.taskType);
            r.push_back(boundTypeName(g.bound));
        } else {
            r.push_back(ms(g.total));
            r.push_back(fixed(g.aicUtilization, 4));
            r.push_back(fixed(g.l2HitRate, 4));
            r.push_back(count(g.count));
            r.push_back(fixed(g.avgNs / 1000.0, 3));
            r.push_back(us(g.max));
            r.push_back(fixed(g.share, 4));
            r.push_back(us(g.min));
            r.push_back(us(g.p50));
            r.push_back(us(g.p90));
            r.push_back(us(g.p99));
            r.push_back(g.taskType);
            r.push_back(boundTypeName(g.bound));
            r.push_back(ms(g.self));
        }
        if (multi)
            r.push_back(device);
        t.rows.push_back(std::move(r));
    }
}

// The table in its format; JSON is {"metric", "input_problems", "rows"}: the rows alone would
// not say that they cover part of the input.
std::string rendered(const Table& t, const AnalyzeOptions& o, const std::vector<InputProblem>& problems)
{
    if (o.format != "json")
        return t.render(o.format);
    return "{\"metric\": " + jsonString(o.metric) + ",\n\"input_problems\": " + text::dumpJson(toJson(problems))
           + ",\n\"rows\": " + t.toJson() + "}\n";
}

Table makeTable(const Metric& metric, bool multi);

void commRows(std::vector<CommStats> s, int rank, const AnalyzeOptions& o, bool multi, Table& t)
{
    std::stable_sort(s.begin(), s.end(), [&](const CommStats& a, const CommStats& b) {
        if (a.total != b.total)
            return o.ascending ? a.total < b.total : a.total > b.total;
        return a.key < b.key;
    });
    if (o.top > 0 && s.size() > static_cast<std::size_t>(o.top))
        s.resize(static_cast<std::size_t>(o.top));
    long position = 0;
    for (const CommStats& c : s) {
        std::vector<std::string> r{std::to_string(++position), c.key, ms(c.total), fixed(c.volumeGB, 6), count(c.count),
                                   fixed(c.waitMs, 6), fixed(c.transitMs, 6)};
        if (multi)
            r.push_back(std::to_string(rank));
        t.rows.push_back(std::move(r));
    }
}

// One row per operator allocation (operator_memory), largest first (--sort ascending: smallest).
void memoryRows(const Profile& p, const AnalyzeOptions& o, bool multi, Table& t)
{
    std::vector<std::uint32_t> rows = memory::allocationsBySize(p);
    if (o.ascending)
        std::stable_sort(rows.begin(), rows.end(), [&p](auto a, auto b) {
            const auto& x = p.opMemory[a];
            const auto& y = p.opMemory[b];
            return x.bytes != y.bytes ? x.bytes < y.bytes : x.allocAt < y.allocAt;
        });
    if (o.top > 0 && rows.size() > static_cast<std::size_t>(o.top))
        rows.resize(static_cast<std::size_t>(o.top));
    long position = 0;
    for (auto i : rows) {
        const OpAllocation& a = p.opMemory[i];
        std::vector<std::string> r{std::to_string(++position), std::string(p.str(a.name)),
                                   fixed(a.bytes / (1024.0 * 1024.0), 6), ms(a.allocAt - o.aligned.offsetOfRank(p.rank)),
                                   a.releaseAt ? ms(*a.releaseAt - o.aligned.offsetOfRank(p.rank)) : std::string(),
                                   a.releaseAt ? ms(*a.releaseAt - a.allocAt) : std::string()};
        if (multi)
            r.push_back(std::to_string(p.rank));
        t.rows.push_back(std::move(r));
    }
}

// The per-rank communication statistics a cluster summary keeps (docs/CLUSTER-SUMMARY.md).
bool summaryCommRows(const std::string& path, const AnalyzeOptions& o, Table*& t, std::unique_ptr<Table>& holder)
{
    nlohmann::json doc;
    std::string error;
    if (!cluster_summary::readSummary(path, doc, &error)) {
        std::fprintf(stderr, "npuscope analyze: %s\n", error.c_str());
        return false;
    }
    const bool multi = doc["ranks"].size() > 1;
    holder = std::make_unique<Table>(makeTable(*findMetric(o.metric), multi));
    t = holder.get();
    for (const auto& r : doc["ranks"]) {
        std::vector<CommStats> stats;
        for (const auto& c : r.value("comm_stats", nlohmann::json::array())) {
            CommStats cs;
            cs.key = c.value("key", std::string());
            cs.rank = r.value("rank", -1);
            cs.count = c.value("count", std::uint64_t(0));
            cs.total = c.value("total_ns", TimeNs(0));
            cs.volumeGB = c["volume_gb"].is_number() ? c["volume_gb"].get<double>() : 0;
            cs.waitMs = c["wait_ms"].is_number() ? c["wait_ms"].get<double>() : 0;
            cs.transitMs = c["transit_ms"].is_number() ? c["transit_ms"].get<double>() : 0;
            stats.push_back(std::move(cs));
        }
        commRows(std::move(stats), r.value("rank", -1), o, multi, *t);
    }
    return true;
}

// One row per --metric: its name, its columns in order (rank, the row's position, and
// operator_name are columns of the metrics that have them, not of every table), the rows of one
// rank, its lines under "Columns:" in --help, and what an input without rows lacks. Parsing,
// --help, the usage messages and `npuscope --help` read it; a new metric is one row here.
struct Metric {
    struct Column {
        const char* name;
        bool numeric;
    };
    const char* name;
    std::vector<Column> columns;
    void (*rows)(const Profile& p, const AnalyzeOptions& o, bool multi, Table& t);
    const char* help;    // lines after its columns in --help, each ending in a newline
    const char* missing; // "no <missing>" when no rank gives a row
    // A metric of the whole session (its rows compare ranks): writes the whole output from the
    // empty table; `rows` is then unused.
    std::string (*session)(const Session& s, const AnalyzeOptions& o, Table t, const std::vector<InputProblem>& problems) = nullptr;
};

// The columns of a metric written in cli_analyze_causal.cpp, from its name and number lists.
template <std::size_t N>
std::vector<Metric::Column> causalColumns(const char* const (&names)[N], const bool (&numeric)[N])
{
    std::vector<Metric::Column> out;
    for (std::size_t i = 0; i < N; ++i)
        out.push_back({names[i], numeric[i]});
    return out;
}

const std::vector<Metric>& metrics()
{
    static const std::vector<Metric> table{
        {"duration",
         {{"rank", true}, {"operator_name", false}, {"duration_ms", true}, {"aic_utilization", true},
          {"l2_cache_hit_rate", true}, {"count", true}, {"avg_us", true}, {"max_us", true}, {"share", true},
          {"min_us", true}, {"p50_us", true}, {"p90_us", true}, {"p99_us", true}, {"task_type", false},
          {"bound", false}, {"self_ms", true}},
         [](const Profile& p, const AnalyzeOptions& o, bool multi, Table& t) { operatorRows(p, o, multi, t, false); },
         "", "device tasks (kernel_details/op_summary or a timeline)"},
        {"memory_bandwidth",
         {{"rank", true}, {"operator_name", false}, {"memory_read_GBps", true}, {"memory_write_GBps", true},
          {"memory_bandwidth_utilization", true}, {"duration_ms", true}, {"count", true}, {"task_type", false},
          {"bound", false}},
         [](const Profile& p, const AnalyzeOptions& o, bool multi, Table& t) { operatorRows(p, o, multi, t, true); },
         "", "device tasks (kernel_details/op_summary or a timeline)"},
        {"communication_duration",
         {{"rank", true}, {"operator_name", false}, {"duration_ms", true}, {"communication_volume_GB", true},
          {"count", true}, {"wait_ms", true}, {"transit_ms", true}},
         [](const Profile& p, const AnalyzeOptions& o, bool multi, Table& t) { commRows(computeCommStats(p), p.rank, o, multi, t); },
         "", "communication ops (communication.json or a Communication timeline)"},
        {"memory",
         {{"rank", true}, {"operator_name", false}, {"allocation_MB", true}, {"allocated_at_ms", true},
          {"released_at_ms", true}, {"duration_ms", true}},
         memoryRows,
         "one row per allocation of operator_memory.csv (or OP_MEMORY), by size (MB = 2^20 B);\n"
         "times are the profile's clock in ms (of several ranks aligned, see --clock);\n"
         "released_at_ms and duration_ms are empty for an allocation still held when\n"
         "the capture ended\n",
         "operator allocations (operator_memory.csv or the OP_MEMORY table: collect with profile_memory=True)"},
        {"collectives",
         {{kCollectivesColumns[0], false}, {kCollectivesColumns[1], false}, {kCollectivesColumns[2], false},
          {kCollectivesColumns[3], true}, {kCollectivesColumns[4], true}, {kCollectivesColumns[5], true},
          {kCollectivesColumns[6], false}, {kCollectivesColumns[7], true}, {kCollectivesColumns[8], true},
          {kCollectivesColumns[9], true}, {kCollectivesColumns[10], true}, {kCollectivesColumns[11], false},
          {kCollectivesColumns[12], true}},
         [](const Profile&, const AnalyzeOptions&, bool, Table&) {}, kCollectivesHelp,
         "collective shared by two ranks",
         [](const Session& s, const AnalyzeOptions& o, Table t, const std::vector<InputProblem>& problems) {
             return collectivesReport(s, o.clock, std::move(t), o.format, o.top, o.ascending, problems);
         }},
        {"idle",
         causalColumns(kIdleColumns, kIdleNumeric),
         [](const Profile&, const AnalyzeOptions&, bool, Table&) {}, kIdleHelp,
         "device idle time (no device tasks)",
         [](const Session& s, const AnalyzeOptions& o, Table t, const std::vector<InputProblem>& problems) {
             return idleReport(s, std::move(t), o.format, problems);
         }},
        {"critical_path",
         causalColumns(kCriticalPathColumns, kCriticalPathNumeric),
         [](const Profile&, const AnalyzeOptions&, bool, Table&) {}, kCriticalPathHelp,
         "step to walk (no device tasks)",
         [](const Session& s, const AnalyzeOptions& o, Table t, const std::vector<InputProblem>& problems) {
             return criticalPathReport(s, std::move(t), o.format, problems);
         }},
    };
    return table;
}

const Metric* findMetric(const std::string& name)
{
    for (const Metric& m : metrics())
        if (name == m.name)
            return &m;
    return nullptr;
}

Table makeTable(const Metric& metric, bool multi)
{
    Table t;
    for (const Metric::Column& c : metric.columns)
        t.addColumn(c.name, c.numeric);
    if (multi)
        t.addColumn("device", true);
    return t;
}

// The --metric line and the "Columns:" lines of --help; the columns wrapped under each other.
std::string metricHelp()
{
    const std::string indent(26, ' ');
    std::string out = "  --metric M              ";
    for (const Metric& m : metrics())
        out += std::string(&m == &metrics().front() ? "" : " | ") + m.name + (&m == &metrics().front() ? " (default)" : "");
    out += "\n";
    std::string options = kHelpOptions;
    options.insert(options.find("  -h, --help"), kClockHelp);
    out += options;
    for (const Metric& m : metrics()) {
        std::string line = "  " + std::string(m.name) + ":";
        line.resize(std::max(line.size() + 1, indent.size()), ' ');
        for (const Metric::Column& c : m.columns) {
            const std::string item = std::string(c.name) + (&c == &m.columns.back() ? "" : ",");
            if (line.size() + item.size() > 100 && line.size() > indent.size()) {
                out += line + "\n";
                line = indent;
            }
            line += item;
        }
        out += line + "\n";
        for (const char* h = m.help; *h;) {
            const char* eol = std::strchr(h, '\n');
            out += indent + std::string(h, eol) + "\n";
            h = eol + 1;
        }
    }
    return out;
}

} // namespace

std::string metricNames(const char* separator)
{
    std::string out;
    for (const Metric& m : metrics())
        out += (out.empty() ? "" : separator) + std::string(m.name);
    return out;
}

int analyze(const Args& args)
{
    for (const auto& a : args)
        if (a == "--help" || a == "-h") {
            std::fputs((kHelpHead + metricHelp() + kHelpTail).c_str(), stdout);
            return 0;
        }
    AnalyzeOptions o;
    if (const int rc = parse(args, o); rc >= 0)
        return rc;
    std::vector<std::string> paths;
    if (!expandImports(o.imports, paths))
        return 1;

    if (paths.size() == 1 && cluster_summary::isSummaryFile(paths[0])) {
        if (o.metric != "communication_duration" || o.format == "chrome_trace") {
            std::fprintf(stderr, "npuscope analyze: %s is a cluster summary: it answers --metric communication_duration "
                                 "(open a rank's folder for the rest)\n", paths[0].c_str());
            return 1;
        }
        Table* t = nullptr;
        std::unique_ptr<Table> holder;
        if (!summaryCommRows(paths[0], o, t, holder))
            return 1;
        return writeOutput("analyze", o.exportPath, rendered(*t, o, {})) ? 0 : 1;
    }
    LoadOptions lo;
    lo.prefer = o.prefer;
    lo.run = o.run;
    const bool tty = ::isatty(2) == 1;
    if (tty)
        lo.progress = [](const LoadProgress& p) {
            std::fprintf(stderr, "\r\033[K%s %3.0f%%", p.stage.c_str(), p.fraction * 100.0);
        };
    const LoadResult loaded = loadForVerb("analyze", paths, lo, o.useCache);
    if (tty)
        std::fputs("\r\033[K", stderr);
    if (!loaded.session) {
        printError("analyze", loaded.error.empty() ? paths[0] + ": cannot be loaded" : loaded.error);
        if (!loaded.runs.empty())
            std::fprintf(stderr, "%sChoose one with --run N.\n", runList(loaded.runs).c_str());
        return 1;
    }
    const std::vector<InputProblem> problems = warnInputProblems("analyze", *loaded.session);
    const Session& s = *loaded.session;
    if (s.ranks.empty()) {
        printError("analyze", paths[0] + ": no profile found");
        return 1;
    }
    // The passes over a large session get the heap a load of its size gets.
    const LoadAllocationScope analysis(s.loadedBytes());

    if (o.format == "chrome_trace") {
        std::string error;
        if (!exportChromeTrace(s, o.exportPath, &error)) {
            printError("analyze", error);
            return 1;
        }
        return 0;
    }

    const bool multi = s.ranks.size() > 1;
    if (multi)
        o.aligned = alignClocks(s, o.clock);
    const Metric& metric = *findMetric(o.metric);
    if (metric.session)
        return writeOutput("analyze", o.exportPath, metric.session(s, o, makeTable(metric, false), problems)) ? 0 : 1;
    Table t = makeTable(metric, multi);
    for (const ProfilePtr& p : s.ranks)
        metric.rows(*p, o, multi, t);
    if (t.rows.empty())
        printError("analyze", paths[0] + ": no " + metric.missing);
    return writeOutput("analyze", o.exportPath, rendered(t, o, problems)) ? 0 : 1;
}

} // namespace npuscope::cli
