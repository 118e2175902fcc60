// Chrome-trace / msprof timeline JSON reader: the structural scanner cuts the events array into
// ~32 MB chunks at event boundaries; each chunk is copied into one reused padded buffer and
// parsed with simdjson On-Demand as an array; a chunk that fails falls back to one document per
// event, so a malformed event costs only itself. Events go to a TimelineBuilder.
#include "model/formats/json_event_scanner.h"
#include "model/formats/number_text.h"
#include "model/formats/readers.h"
#include "model/formats/timeline_builder.h"
#include "model/formats/timeline_chunk_parser.h"

#include <simdjson.h>

#include <cstring>
#include <memory>

namespace npuscope::readers {

namespace {

constexpr std::uint64_t kChunkBytes = 32ull << 20;
constexpr std::uint64_t kProgressBytes = 8ull << 20;

std::unique_ptr<EventChunkParser> makeChunkParser(std::string_view bytes, TimelineBuilder& builder)
{
    // The header-only On-Demand API compiles for the build's baseline CPU (the portable kernel on
    // plain x86-64); use the AVX2 build of the chunk parser when this CPU supports it.
    static const bool haswell = [] {
        const auto* impl = simdjson::get_available_implementations()["haswell"];
        return impl && impl->supported_by_runtime_system();
    }();
    if (haswell)
        if (auto p = makeAvx2ChunkParser(bytes, builder))
            return p;
    return makePortableChunkParser(bytes, builder);
}

} // namespace

FileRecord readTimelineJson(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    FileRecord rec;
    rec.path = ctx.file;
    rec.kind = "timeline";
    rec.bytes = bytes.size();

    JsonEventScanner scanner(bytes);
    std::string error;
    if (!scanner.findEventsArray(&error)) {
        rec.status = FileStatus::Failed;
        rec.note = error;
        sink.report(Severity::Error, ctx.file, -1, 0, error);
        return rec;
    }

    TimelineBuilder builder(sink, ctx);
    const auto chunks = makeChunkParser(bytes, builder);
    std::vector<ElementSpan> spans;
    std::uint64_t lastProgress = 0;
    bool cancelled = false;
    while (true) {
        if (ctx.cancelled()) {
            cancelled = true;
            break;
        }
        spans.clear();
        if (!scanner.next(spans, kChunkBytes))
            break;
        chunks->parse(spans);
        const std::uint64_t done = spans.back().end;
        if (ctx.progress && done - lastProgress >= kProgressBytes) {
            ctx.progress(done);
            lastProgress = done;
        }
    }
    builder.finish();

    rec.records = builder.kept();
    rec.skipped = builder.skipped();
    const auto stop = static_cast<std::int64_t>(scanner.position());
    std::string stopNote;
    if (cancelled) {
        stopNote = "cancelled at byte " + std::to_string(stop) + "; " + std::to_string(rec.records) + " events kept";
    } else if (scanner.state() == JsonEventScanner::State::Truncated) {
        const bool fragment = skipJsonSpace(bytes, scanner.position()) < bytes.size();
        if (fragment) {
            ++rec.skipped; // the cut event
            stopNote = "truncated: the event at byte " + std::to_string(stop) + " is incomplete; " +
                       std::to_string(rec.records) + " complete events kept";
            sink.report(Severity::Error, ctx.file, -1, stop, stopNote);
        } else {
            // Only the closing ']' (and '}') are missing: every event is complete.
            stopNote = "no closing ']' at byte " + std::to_string(stop) + "; all " + std::to_string(rec.records) +
                       " events kept";
            sink.report(Severity::Warning, ctx.file, -1, stop, stopNote);
        }
    } else if (scanner.state() == JsonEventScanner::State::Garbage) {
        ++rec.skipped;
        stopNote = "unexpected '" + std::string(1, bytes[scanner.position()]) + "' at byte " + std::to_string(stop) +
                   ": parsing stopped; " + std::to_string(rec.records) + " events kept";
        sink.report(Severity::Error, ctx.file, -1, stop, stopNote);
    }

    const std::string phases = builder.phaseSummary();
    if (rec.records == 0 && !cancelled) {
        rec.status = FileStatus::Failed;
        rec.note = rec.skipped > 0 ? "not a JSON trace: no readable event (" + std::to_string(rec.skipped) +
                                         " skipped)"
                                   : "no trace events in the file";
        if (!stopNote.empty())
            rec.note += "; " + stopNote;
        sink.report(Severity::Error, ctx.file, -1, -1, rec.note);
        return rec;
    }
    if (cancelled || rec.skipped > 0 || !stopNote.empty())
        rec.status = FileStatus::Partial;
    rec.note = stopNote.empty() ? phases : stopNote + " (" + phases + ")";
    if (cancelled)
        rec.note = "cancelled; " + rec.note;
    if (ctx.progress)
        ctx.progress(cancelled ? scanner.position() : bytes.size());
    return rec;
}

} // namespace npuscope::readers
