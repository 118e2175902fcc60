// libFuzzer harnesses for the readers. One source, built once per harness with
// NPUSCOPE_FUZZ_TARGET naming which reader family it feeds. Each harness hands the bytes to the
// reader exactly as the loader does (a string_view over the file's bytes; a temporary file for
// SQLite, which reads the file itself), then finalizes and joins like the loader, so the
// post-processing of whatever the reader kept is fuzzed too. Where one harness covers several
// readers, the first byte picks the reader and the rest is the file.
#include "model/formats/csv.h"
#include "model/formats/readers.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

using namespace npuscope;

namespace {

enum Target { Timeline, Simplified, KernelCsv, TableCsv, CommJson, InfoJson, Sqlite };

#ifndef NPUSCOPE_FUZZ_TARGET
#error "define NPUSCOPE_FUZZ_TARGET"
#endif

ReadContext context(const char* name)
{
    ReadContext ctx;
    ctx.file = name;
    ctx.progress = [](std::uint64_t) {};
    return ctx;
}

// The loader's work after the readers: index, join, and the span of everything.
void finish(Profile& p)
{
    p.finalize();
    if (p.slices.size() > 0 && p.kernels.size() > 0)
        readers::joinKernels(p);
    (void)p.skippedTotal();
}

// The CSV block scan must cut every record exactly as the byte-by-byte walk does.
void compareCsvScans(std::string_view bytes)
{
    CsvReader blocks(bytes), walk(bytes, CsvReader::Scan::BytesOnly);
    for (;;) {
        const bool a = blocks.next(), b = walk.next();
        if (a != b)
            std::abort();
        if (!a)
            return;
        if (blocks.line() != walk.line() || blocks.byteOffset() != walk.byteOffset()
            || blocks.position() != walk.position() || blocks.terminated() != walk.terminated()
            || blocks.cells() != walk.cells())
            std::abort();
    }
}

void tableCsv(std::uint8_t pick, std::string_view bytes)
{
    compareCsvScans(bytes);
    Profile p;
    const ReadContext ctx = context("fuzz.csv");
    switch (pick % 8) {
    case 0: readers::readOpStatisticCsv(bytes, p, ctx); break;
    case 1: readers::readApiStatisticCsv(bytes, p, ctx); break;
    case 2: readers::readCommStatisticCsv(bytes, p, ctx); break;
    case 3: readers::readTaskTimeCsv(bytes, p, ctx); break;
    case 4: readers::readStepTraceCsv(bytes, p, ctx); break;
    case 5: readers::readMemoryCsv(bytes, p, ctx); break;
    case 6: readers::readL2CacheCsv(bytes, p, ctx); break;
    default: {
        ClusterData cluster;
        std::vector<Diagnostic> diags;
        readers::readClusterStepTraceCsv(bytes, cluster, diags, ctx);
        return;
    }
    }
    finish(p);
}

void commJson(std::uint8_t pick, std::string_view bytes)
{
    Profile p;
    ClusterData cluster;
    std::vector<Diagnostic> diags;
    const ReadContext ctx = context("fuzz.json");
    switch (pick % 4) {
    case 0: readers::readCommunicationJson(bytes, p, ctx); break;
    case 1: readers::readCommunicationMatrixJson(bytes, p, ctx); break;
    case 2: readers::readClusterCommunicationJson(bytes, cluster, diags, ctx); break;
    default: readers::readClusterCommunicationMatrixJson(bytes, cluster, diags, ctx); break;
    }
    finish(p);
}

void infoJson(std::uint8_t pick, std::string_view bytes)
{
    Profile p;
    const ReadContext ctx = context("fuzz.json");
    switch (pick % 3) {
    case 0: readers::readInfoJson(bytes, p, ctx); break;
    case 1: readers::readProfilerInfoJson(bytes, p, ctx); break;
    default: readers::readProfilerMetadataJson(bytes, p, ctx); break;
    }
    finish(p);
}

void sqlite(std::uint8_t pick, std::string_view bytes)
{
    // SQLite opens the file itself: write the input to a private temporary file.
    static std::string path = [] {
        const char* tmp = std::getenv("TMPDIR");
        return std::string(tmp && *tmp ? tmp : "/tmp") + "/npuscope-fuzz-" + std::to_string(::getpid()) + ".db";
    }();
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        std::abort();
    if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size())
        std::abort();
    std::fclose(f);
    Profile p;
    const ReadContext ctx = context(path.c_str());
    if (pick % 2 == 0)
        readers::readProfilerDb(path, p, ctx);
    else
        readers::readAnalysisDb(path, p, ctx);
    finish(p);
    std::remove(path.c_str());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view all(reinterpret_cast<const char*>(data), size);
    const Target target = NPUSCOPE_FUZZ_TARGET;
    if (target == Timeline || target == Simplified || target == KernelCsv) {
        Profile p;
        const ReadContext ctx = context("fuzz.input");
        if (target == KernelCsv) {
            compareCsvScans(all);
            readers::readKernelCsv(all, p, ctx);
        }
        else if (target == Simplified)
            readers::readSimplifiedTasksJson(all, p, ctx);
        else if (readers::looksLikeSimplifiedTasks(all.substr(0, std::min<std::size_t>(all.size(), 4096))))
            readers::readSimplifiedTasksJson(all, p, ctx); // the loader's sniffing, as in loadRank
        else {
            // Three times: as one chunk; in small chunks cut by guesses where the events are
            // plain; and in small chunks cut exactly with every event read by simdjson (no
            // plain-form reading, plain_event_reader.h). All must store the same.
            ReadContext small = ctx, general = ctx;
            small.chunkBytes = general.chunkBytes = 64 + size % 1024;
            general.plainEvents = false;
            Profile q, r;
            const FileRecord one = readers::readTimelineJson(all, p, ctx);
            const FileRecord many = readers::readTimelineJson(all, q, small);
            const FileRecord exact = readers::readTimelineJson(all, r, general);
            for (const auto& [rec, other] : {std::pair{&many, &q}, std::pair{&exact, &r}})
                if (one.records != rec->records || one.skipped != rec->skipped || p.slices.size() != other->slices.size() ||
                    p.flows.size() != other->flows.size() || p.counters.size() != other->counters.size() ||
                    p.diagnostics.size() != other->diagnostics.size() || p.args.args.size() != other->args.args.size())
                    std::abort();
            finish(q);
        }
        finish(p);
        return 0;
    }
    if (size == 0)
        return 0;
    const std::uint8_t pick = data[0];
    const std::string_view bytes = all.substr(1);
    switch (target) {
    case TableCsv: tableCsv(pick, bytes); break;
    case CommJson: commJson(pick, bytes); break;
    case InfoJson: infoJson(pick, bytes); break;
    case Sqlite: sqlite(pick, bytes); break;
    default: break;
    }
    return 0;
}
