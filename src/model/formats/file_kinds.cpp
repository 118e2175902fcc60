#include "model/formats/file_kinds.h"

#include "model/formats/readers.h"

#include <algorithm>
#include <array>

namespace npuscope::layout {

namespace {

std::string sqliteOwnFile(std::string_view fileName)
{
    // "x.db-wal" -> "x.db": the side suffix is the last '-' on.
    return "SQLite's own file of " + std::string(fileName.substr(0, fileName.rfind('-'))) + ", read with it";
}

std::string sqliteNotRead(std::string_view)
{
    return "SQLite export of a kind npuscope does not read";
}

// Heap estimates (measured on the samples): a timeline's columnar slices and args take about as
// much as its JSON text, plus one chunk buffer; JSON side files are parsed into a DOM (about 8x
// the text); CSV tables and SQLite exports, about the size of the text or the pages.
constexpr std::uint64_t kTimelineChunkBuffer = 40ull << 20;
constexpr std::uint64_t kJsonDom = 8;

using enum FileKind;

// In detection order: SQLite's own files before the databases, the databases before any name
// with another extension (info.json.N has none of its own).
constexpr std::array kRows = {
    FileKindRow { .kind = Unknown,
        .name = "sqlite_sidecar",
        .label = "SQLite journal (read with its database)",
        .nameEnds = ".db-wal|.db-shm|.db-journal",
        .whyNotRead = sqliteOwnFile,
        .ignoredIsProblem = false },
    FileKindRow { .kind = ProfilerDb,
        .name = "profiler_db",
        .label = "SQLite export",
        .modules = "ascend_pytorch_profiler|msprof",
        .exts = "db",
        .into = ReadsInto::Timeline,
        .exportKind = Export::Sqlite,
        .readPath = readers::readProfilerDb },
    FileKindRow { .kind = AnalysisDb,
        .name = "analysis_db",
        .label = "SQLite analysis export",
        .modules = "analysis",
        .exts = "db",
        .into = ReadsInto::Timeline,
        .exportKind = Export::Sqlite,
        .readPath = readers::readAnalysisDb },
    // msprof --analyze: the same CommAnalyzer* tables.
    FileKindRow { .kind = AnalysisDb,
        .name = "communication_analyzer_db",
        .label = "SQLite communication analysis",
        .modules = "communication_analyzer",
        .exts = "db",
        .into = ReadsInto::Timeline,
        .exportKind = Export::Sqlite,
        .readPath = readers::readAnalysisDb },
    FileKindRow { .kind = Unknown,
        .name = "sqlite",
        .label = "SQLite database (not read)",
        .modules = "*",
        .exts = "db",
        .exportKind = Export::Sqlite,
        .whyNotRead = sqliteNotRead },
    FileKindRow { .kind = DeviceInfo,
        .name = "info_json",
        .label = "Device facts",
        .modules = "info.json",
        .into = ReadsInto::SideTables,
        .order = 2,
        .heapFactor = kJsonDom,
        .readBytes = readers::readInfoJson },
    FileKindRow { .kind = FileKind::Timeline,
        .name = "timeline",
        .label = "Timeline",
        .modules = "msprof|trace_view",
        .exts = "json",
        .into = ReadsInto::Timeline,
        .exportKind = Export::Text,
        .order = 3,
        .heapBuffer = kTimelineChunkBuffer,
        .readBytes = readers::readTimelineJson,
        .roles = { FileRole::Timeline, FileRole::Slices } },
    FileKindRow { .kind = SimplifiedTasks,
        .name = "simplified_tasks",
        .label = "Simplified task list",
        .into = ReadsInto::Timeline,
        .exportKind = Export::Text,
        .order = 3,
        .heapFactor = kJsonDom,
        .readBytes = readers::readSimplifiedTasksJson,
        .contentOf = FileKind::Timeline,
        .looksLike = readers::looksLikeSimplifiedTasks,
        .roles = FileRole::Slices },
    FileKindRow { .kind = Communication, .readableApart = true,
        .name = "communication",
        .label = "Communication operators",
        .modules = "communication",
        .exts = "json",
        .into = ReadsInto::SideTables,
        .exportKind = Export::Text,
        .heapFactor = kJsonDom,
        .readBytes = readers::readCommunicationJson,
        .roles = FileRole::CoversRunBeside },
    FileKindRow { .kind = CommunicationMatrix, .readableApart = true,
        .name = "communication_matrix",
        .label = "Communication matrix",
        .modules = "communication_matrix",
        .exts = "json",
        .into = ReadsInto::SideTables,
        .exportKind = Export::Text,
        .heapFactor = kJsonDom,
        .readBytes = readers::readCommunicationMatrixJson,
        .roles = FileRole::CoversRunBeside },
    FileKindRow { .kind = ProfilerInfo,
        .name = "profiler_info",
        .label = "Profiler settings and rank",
        .modules = "profiler_info",
        .exts = "json",
        .into = ReadsInto::SideTables,
        .order = 0,
        .heapFactor = kJsonDom,
        .readBytes = readers::readProfilerInfoJson },
    FileKindRow { .kind = ProfilerMetadata,
        .name = "profiler_metadata",
        .label = "Profiler metadata",
        .modules = "profiler_metadata",
        .exts = "json",
        .into = ReadsInto::SideTables,
        .order = 1,
        .heapFactor = kJsonDom,
        .readBytes = readers::readProfilerMetadataJson },
    FileKindRow { .kind = ClusterCommunication,
        .name = "cluster_communication",
        .label = "Cluster communication operators",
        .modules = "cluster_communication",
        .exts = "json",
        .into = ReadsInto::Cluster,
        .heapFactor = kJsonDom,
        .readCluster = readers::readClusterCommunicationJson,
        .roles = FileRole::Cluster },
    FileKindRow { .kind = ClusterCommunicationMatrix,
        .name = "cluster_communication_matrix",
        .label = "Cluster communication matrix",
        .modules = "cluster_communication_matrix",
        .exts = "json",
        .into = ReadsInto::Cluster,
        .heapFactor = kJsonDom,
        .readCluster = readers::readClusterCommunicationMatrixJson,
        .roles = FileRole::Cluster },
    FileKindRow { .kind = Kernels,
        .name = "op_summary",
        .label = "Kernel table (msprof)",
        .modules = "op_summary",
        .exts = "csv",
        .into = ReadsInto::SideTables,
        .exportKind = Export::Text,
        .order = 5,
        .readBytes = readers::readKernelCsv,
        .roles = { FileRole::Kernels, FileRole::CoversRunBeside } },
    FileKindRow { .kind = Kernels,
        .name = "kernel_details",
        .label = "Kernel table (torch_npu)",
        .modules = "kernel_details",
        .exts = "csv",
        .into = ReadsInto::SideTables,
        .exportKind = Export::Text,
        .order = 5,
        .readBytes = readers::readKernelCsv,
        .roles = { FileRole::Kernels, FileRole::CoversRunBeside } },
    FileKindRow { .kind = OpStatistic, .readableApart = true,
        .name = "op_statistic",
        .label = "Operator statistics",
        .modules = "op_statistic",
        .exts = "csv",
        .into = ReadsInto::SideTables,
        .exportKind = Export::Text,
        .readBytes = readers::readOpStatisticCsv,
        .roles = FileRole::CoversRunBeside },
    FileKindRow { .kind = ApiStatistic, .readableApart = true,
        .name = "api_statistic",
        .label = "API statistics",
        .modules = "api_statistic",
        .exts = "csv",
        .into = ReadsInto::SideTables,
        .exportKind = Export::Text,
        .readBytes = readers::readApiStatisticCsv },
    FileKindRow { .kind = CommStatistic, .readableApart = true,
        .name = "communication_statistic",
        .label = "Communication statistics",
        .modules = "communication_statistic",
        .exts = "csv",
        .into = ReadsInto::SideTables,
        .exportKind = Export::Text,
        .readBytes = readers::readCommStatisticCsv },
    FileKindRow { .kind = CommStatistic, .readableApart = true,
        .name = "hccl_statistic",
        .label = "Communication statistics (HCCL)",
        .modules = "hccl_statistic",
        .exts = "csv",
        .into = ReadsInto::SideTables,
        .exportKind = Export::Text,
        .readBytes = readers::readCommStatisticCsv },
    FileKindRow { .kind = TaskTime,
        .name = "task_time",
        .label = "Task times",
        .modules = "task_time",
        .exts = "csv",
        .into = ReadsInto::Timeline,
        .exportKind = Export::Text,
        .order = 4,
        .readBytes = readers::readTaskTimeCsv },
    FileKindRow { .kind = StepTrace, .readableApart = true,
        .name = "step_trace_time",
        .label = "Step times",
        .modules = "step_trace_time",
        .exts = "csv",
        .into = ReadsInto::SideTables,
        .exportKind = Export::Text,
        .readBytes = readers::readStepTraceCsv,
        .roles = FileRole::CoversRunBeside },
    FileKindRow { .kind = Memory,
        .name = "npu_mem",
        .label = "Device memory",
        .modules = "npu_mem",
        .exts = "csv",
        .into = ReadsInto::Timeline,
        .exportKind = Export::Text,
        .readBytes = readers::readMemoryCsv },
    FileKindRow { .kind = Memory,
        .name = "memory_record",
        .label = "Memory records",
        .modules = "memory_record",
        .exts = "csv",
        .into = ReadsInto::Timeline,
        .exportKind = Export::Text,
        .readBytes = readers::readMemoryCsv,
        .roles = FileRole::MemoryRecords },
    FileKindRow { .kind = Memory,
        .name = "npu_module_mem",
        .label = "Device memory by module",
        .modules = "npu_module_mem",
        .exts = "csv",
        .into = ReadsInto::Timeline,
        .exportKind = Export::Text,
        .readBytes = readers::readMemoryCsv },
    FileKindRow { .kind = Memory,
        .name = "operator_memory",
        .label = "Operator memory",
        .modules = "operator_memory",
        .exts = "csv",
        .into = ReadsInto::Timeline,
        .exportKind = Export::Text,
        .readBytes = readers::readMemoryCsv,
        .roles = FileRole::OperatorMemory },
    FileKindRow { .kind = L2Cache, .readableApart = true,
        .name = "l2_cache",
        .label = "L2 cache",
        .modules = "l2_cache",
        .exts = "csv",
        .into = ReadsInto::SideTables,
        .exportKind = Export::Text,
        .order = 6,
        .readBytes = readers::readL2CacheCsv },
    FileKindRow { .kind = OperatorDetails, .readableApart = true,
        .name = "operator_details",
        .label = "Operator details",
        .modules = "operator_details",
        .exts = "csv",
        .into = ReadsInto::SideTables,
        .readBytes = readers::readOperatorDetailsCsv },
    FileKindRow { .kind = ClusterStepTrace,
        .name = "cluster_step_trace_time",
        .label = "Cluster step times",
        .modules = "cluster_step_trace_time",
        .exts = "csv",
        .into = ReadsInto::Cluster,
        .readCluster = readers::readClusterStepTraceCsv,
        .roles = FileRole::Cluster },
};

// A read kind's row when there is none (Unknown): reads nothing.
constexpr FileKindRow kNoRow {};

constexpr bool listHas(std::string_view list, std::string_view word)
{
    if (list == "*")
        return true;
    while (!list.empty()) {
        const auto bar = list.find('|');
        if (list.substr(0, bar) == word)
            return true;
        if (bar == std::string_view::npos)
            break;
        list.remove_prefix(bar + 1);
    }
    return false;
}

constexpr bool endsWithOneOf(std::string_view name, std::string_view list)
{
    while (!list.empty()) {
        const auto bar = list.find('|');
        const std::string_view end = list.substr(0, bar);
        if (!end.empty() && name.ends_with(end))
            return true;
        if (bar == std::string_view::npos)
            break;
        list.remove_prefix(bar + 1);
    }
    return false;
}

// What the rows of one kind must agree on: all but name, label, detection and roles.
bool sameKindFacts(const FileKindRow& a, const FileKindRow& b)
{
    return a.readableApart == b.readableApart && a.into == b.into && a.exportKind == b.exportKind && a.order == b.order && a.heapFactor == b.heapFactor
        && a.heapBuffer == b.heapBuffer && a.readBytes == b.readBytes && a.readPath == b.readPath
        && a.readCluster == b.readCluster && a.contentOf == b.contentOf && a.looksLike == b.looksLike;
}

// A read kind has one reader, of the shape its destination takes; a kind not read has none and
// says why.
bool readerFits(const FileKindRow& r)
{
    const int count = (r.readBytes != nullptr) + (r.readPath != nullptr) + (r.readCluster != nullptr);
    if (r.kind == Unknown)
        return count == 0 && r.into == ReadsInto::None && r.whyNotRead != nullptr;
    if (r.into == ReadsInto::Cluster)
        return count == 1 && r.readCluster != nullptr;
    return count == 1 && r.readCluster == nullptr && r.into != ReadsInto::None && r.whyNotRead == nullptr;
}

// Checked at compile time: what does not involve the readers' addresses (comparing a function's
// address is not a constant expression under every compiler's sanitizers).
constexpr bool namesAreConsistent()
{
    for (std::size_t i = 0; i < kRows.size(); ++i) {
        if (kRows[i].name.empty() || kRows[i].label.empty())
            return false;
        for (std::size_t j = 0; j < i; ++j)
            if (kRows[j].name == kRows[i].name)
                return false;
    }
    return true;
}

constexpr bool everyKindHasARow()
{
    for (int k = static_cast<int>(FileKind::Unknown) + 1; k <= static_cast<int>(FileKind::SimplifiedTasks); ++k)
        if (std::none_of(
                kRows.begin(), kRows.end(), [k](const FileKindRow& r) { return static_cast<int>(r.kind) == k; }))
            return false;
    return true;
}

// The roles that follow from a row's other columns: the cluster files are those read into the
// cluster, the kernel tables the Kernels kind, the timeline the Timeline kind; the slices come
// from files read into the timeline; a name not read has none.
constexpr bool rolesAreConsistent()
{
    for (const FileKindRow& r : kRows) {
        if (r.roles.has(FileRole::Cluster) != (r.into == ReadsInto::Cluster)
            || r.roles.has(FileRole::Kernels) != (r.kind == Kernels)
            || r.roles.has(FileRole::Timeline) != (r.kind == FileKind::Timeline)
            || (r.roles.has(FileRole::Slices) && r.into != ReadsInto::Timeline)
            || (r.kind == Unknown && r.roles != FileRoles {}))
            return false;
    }
    return true;
}

static_assert(namesAreConsistent(), "file kind rows: unique, non-empty names and labels");
static_assert(rolesAreConsistent(), "file kind rows: roles that contradict the row's kind or destination");
static_assert(everyKindHasARow(), "file kinds: every FileKind but Unknown has a row");

} // namespace

std::string fileKindTableProblem()
{
    for (std::size_t i = 0; i < kRows.size(); ++i) {
        const std::string name(kRows[i].name);
        if (!readerFits(kRows[i]))
            return name + ": not exactly one reader of the shape its destination takes";
        if ((kRows[i].contentOf != Unknown) != (kRows[i].looksLike != nullptr))
            return name + ": a content kind without its content test, or the reverse";
        for (std::size_t j = 0; j < i; ++j)
            if (kRows[j].kind == kRows[i].kind && kRows[i].kind != Unknown && !sameKindFacts(kRows[j], kRows[i]))
                return name + ": disagrees with " + std::string(kRows[j].name) + ", a row of the same kind";
    }
    return {};
}

std::span<const FileKindRow> fileKinds()
{
    return kRows;
}

const FileKindRow& kindRow(FileKind kind)
{
    if (kind == Unknown)
        return kNoRow;
    for (const auto& r : kRows)
        if (r.kind == kind)
            return r;
    return kNoRow;
}

const FileKindRow* kindRowNamed(std::string_view name)
{
    for (const auto& r : kRows)
        if (r.name == name)
            return &r;
    return nullptr;
}

FileRoles kindRoles(std::string_view name)
{
    const FileKindRow* row = kindRowNamed(name);
    return row ? row->roles : FileRoles {};
}

const FileKindRow* matchFileName(std::string_view lowerName, std::string_view module, std::string_view ext)
{
    for (const auto& r : kRows) {
        if (endsWithOneOf(lowerName, r.nameEnds))
            return &r;
        if (!r.modules.empty() && listHas(r.modules, module) && (r.exts.empty() || listHas(r.exts, ext)))
            return &r;
    }
    return nullptr;
}

const FileKindRow& kindRowForContent(FileKind planned, std::string_view bytes)
{
    const std::string_view head = bytes.substr(0, std::min(bytes.size(), kContentHeadBytes));
    for (const auto& r : kRows)
        if (r.contentOf == planned && planned != Unknown && r.looksLike(head))
            return r;
    return kindRow(planned);
}

} // namespace npuscope::layout
