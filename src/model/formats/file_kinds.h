#pragma once
// The file kinds npuscope knows (FORMATS.md §1), one row each in one table (file_kinds.cpp):
// how a file of the kind is recognised by its name, which reader takes it, where what it reads
// goes (the timeline, the side tables or the cluster), which export it belongs to, the heap its
// read is estimated to build and its label for people. Layout detection, the loader, its memory
// budget check and the views take all of that from the table: a new kind is a row there and a
// reader in readers.h. What a file is to the code above the readers is its row's roles, which
// the loader sets on the file's record: that code tests a role, not the kind's name.
#include "model/store/diagnostics.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace npuscope {
struct ClusterData;
class Profile;
struct ReadContext;
} // namespace npuscope

namespace npuscope::layout {

// Which reader a file goes to.
enum class FileKind : std::uint8_t {
    Unknown, // not read (the PlannedFile says why)
    Timeline,
    Kernels,
    OpStatistic,
    ApiStatistic,
    CommStatistic,
    TaskTime,
    StepTrace,
    Memory,
    L2Cache,
    Communication,
    CommunicationMatrix,
    DeviceInfo,
    ProfilerInfo,
    ProfilerMetadata,
    ClusterStepTrace,
    ClusterCommunication,
    ClusterCommunicationMatrix,
    ProfilerDb, // msprof_*.db, ascend_pytorch_profiler[_N].db (SQLite export)
    AnalysisDb, // torch_npu analysis.db, msprof analyze/communication_analyzer.db (SQLite export)
    OperatorDetails, // torch_npu operator_details.csv (no table in the SQLite export: read with either)
    SimplifiedTasks, // the simplified {"tasks":[…]} JSON: a file planned as a timeline, told by its content
};

// Where a kind's reader puts what it reads, and so on which thread the loader reads it.
enum class ReadsInto : std::uint8_t {
    None, // not read
    Timeline, // the rank's tracks, slices, counters (or all of a rank, a SQLite export): read in
              // plan order on the rank's own thread
    SideTables, // tables only, no tracks, slices, flows or counters: read into a Profile of their
                // own on a second thread while the timeline is read, then joined
                // (Profile::absorbSideTables)
    Cluster, // the session's cluster data, wherever the file sits
};

// Which export a kind belongs to, for a rank folder that holds both the text and the SQLite one.
enum class Export : std::uint8_t {
    Either, // read with either export
    Text, // replaced by the SQLite export when the loader reads that instead (and vice versa)
    Sqlite, // the SQLite export
};

using BytesReader = FileRecord (*)(std::string_view bytes, Profile& sink, const ReadContext& ctx);
// SQLite exports: SQLite opens the file itself, so their readers take the path.
using PathReader = FileRecord (*)(const std::string& path, Profile& sink, const ReadContext& ctx);
using ClusterReader
    = FileRecord (*)(std::string_view bytes, ClusterData& sink, std::vector<Diagnostic>& diags, const ReadContext& ctx);

struct FileKindRow {
    FileKind kind = FileKind::Unknown; // Unknown: a name recognised but not read
    // The kind fills side tables of its own (statistics, operator details, L2, steps,
    // communication): the loader may read such a file into a Profile apart, on whichever thread is
    // free, and absorb it after the side thread's tables with the same rows, strings and
    // diagnostics (loader.cpp).
    bool readableApart = false;
    std::string_view name {}; // FileRecord::kind, unique in the table
    std::string_view label {}; // for people (the Files list)
    // Detection, on the lower-cased file name: it ends with one of `nameEnds`, or its
    // parseFileName() module is one of `modules` ("*": any) and its extension one of `exts`
    // ("": any). Lists are '|'-separated; empty ones match nothing. The first row that matches
    // a name is its kind.
    std::string_view modules {};
    std::string_view exts {};
    std::string_view nameEnds {};
    ReadsInto into = ReadsInto::None;
    Export exportKind = Export::Either;
    int order = 7; // read order inside a rank, lower first: identity and device facts, then the
                   // timeline, then the tables the join uses
    // Estimated heap a read builds from N bytes of input, for the memory budget:
    // heapFactor × N + min(N, heapBuffer) (the tables it fills plus its working buffers).
    std::uint64_t heapFactor = 1;
    std::uint64_t heapBuffer = 0;
    // The reader: one of these, as `into` says (Cluster: readCluster).
    BytesReader readBytes = nullptr;
    PathReader readPath = nullptr;
    ClusterReader readCluster = nullptr;
    // A kind told by content instead of name: a file planned as `contentOf` whose first
    // kContentHeadBytes make `looksLike` true is read as this kind.
    FileKind contentOf = FileKind::Unknown;
    bool (*looksLike)(std::string_view head) = nullptr;
    // A name recognised but not read: the note saying why, from the file's name as given.
    std::string (*whyNotRead)(std::string_view fileName) = nullptr;
    // False for files that are no problem of the profile when not read (SQLite's own files
    // beside a database, read by SQLite with it): the Problems list leaves them out.
    bool ignoredIsProblem = true;
    // What a file of the row is to the rest of the program (FileRole, store/diagnostics.h),
    // set on its FileRecord by the loader with its name.
    FileRoles roles{};

    constexpr std::uint64_t heapBytes(std::uint64_t fileBytes) const
    {
        return heapFactor * fileBytes + (fileBytes < heapBuffer ? fileBytes : heapBuffer);
    }
};

// How much of a file's start `FileKindRow::looksLike` sees.
inline constexpr std::size_t kContentHeadBytes = 4096;

// Every row, in detection order.
std::span<const FileKindRow> fileKinds();
// "" when every row has one reader that fits where it reads into and the rows of one kind agree;
// else the first row that does not (the test of the table checks it).
std::string fileKindTableProblem();
// The row of a kind (its first, when several names share it; they agree on everything but
// name, label, detection and roles). For Unknown, a row that reads nothing.
const FileKindRow& kindRow(FileKind kind);
// The row named `name` (FileRecord::kind), or null.
const FileKindRow* kindRowNamed(std::string_view name);
// The roles of the kind named `name` (FileRecord::kind): its row's, none when no row is named so
// (a file not recognised, a summary's own records).
FileRoles kindRoles(std::string_view name);
// The first row whose detection matches a lower-cased file name with parseFileName() `module`
// and `ext`, or null.
const FileKindRow* matchFileName(std::string_view lowerName, std::string_view module, std::string_view ext);
// The row a file planned as `planned` is read with, given its bytes: a kind told by content
// (the simplified JSON for a timeline) when its check says so, else the planned kind's row.
const FileKindRow& kindRowForContent(FileKind planned, std::string_view bytes);

} // namespace npuscope::layout
