// Chrome-trace / msprof timeline JSON reader: the structural scanner cuts the events array into
// ~2 MB chunks at event boundaries; each chunk is copied into a reused padded buffer and parsed
// with simdjson On-Demand as an array (a chunk that fails falls back to one document per event,
// so a malformed event costs only itself) into an EventBatch, which a TimelineBuilder turns into
// the columnar Profile. Files of more than one chunk use two threads: one scans and parses chunk
// k+1 while the calling thread builds chunk k (two parsers, two batches, alternating).
#include "model/formats/json_event_scanner.h"
#include "model/formats/number_text.h"
#include "model/formats/readers.h"
#include "model/formats/timeline_builder.h"
#include "model/formats/timeline_chunk_parser.h"

#include <simdjson.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

namespace npuscope::readers {

namespace {

// Small chunks keep each parser's copy and its simdjson index (4 bytes per structural byte) in
// a few MB: 8 MB chunks held ~60 MB more at the peak and parsed no faster.
constexpr std::uint64_t kChunkBytes = 2ull << 20;
constexpr std::uint64_t kProgressBytes = 8ull << 20;

std::uint64_t chunkBytes(const ReadContext& ctx)
{
    return ctx.chunkBytes ? ctx.chunkBytes : kChunkBytes;
}

std::unique_ptr<EventChunkParser> makeChunkParser(std::string_view bytes)
{
    // The header-only On-Demand API compiles for the build's baseline CPU (the portable kernel on
    // plain x86-64); use the AVX2 build of the chunk parser when this CPU supports it.
    static const bool haswell = [] {
        const auto* impl = simdjson::get_available_implementations()["haswell"];
        return impl && impl->supported_by_runtime_system();
    }();
    if (haswell)
        if (auto p = makeAvx2ChunkParser(bytes))
            return p;
    return makePortableChunkParser(bytes);
}

// Scans and parses the events array chunk by chunk and hands each parsed batch to `build`, in
// file order. With `threaded`, parsing runs on a second thread one chunk ahead of `build`.
class ChunkPipeline {
public:
    ChunkPipeline(std::string_view bytes, JsonEventScanner& scanner, const ReadContext& ctx)
        : m_scanner(scanner), m_ctx(ctx), m_chunkBytes(chunkBytes(ctx))
    {
        for (auto& s : m_slots)
            s.parser = makeChunkParser(bytes);
    }

    // Returns false when cancelled.
    template <typename Build>
    bool run(bool threaded, Build&& build)
    {
        if (!threaded) {
            Slot& s = m_slots[0];
            while (produce(s))
                build(s.batch);
            return !m_cancelled;
        }
        std::jthread producer([this] {
            for (std::size_t i = 0;; ++i) {
                Slot& s = m_slots[i % 2];
                {
                    std::unique_lock lock(m_mutex);
                    m_cv.wait(lock, [&] { return !s.full || m_stop; });
                    if (m_stop)
                        break;
                }
                const bool more = produce(s);
                std::lock_guard lock(m_mutex);
                if (!more) {
                    m_done = true;
                    m_cv.notify_all();
                    break;
                }
                s.full = true;
                m_cv.notify_all();
            }
        });
        for (std::size_t i = 0;; ++i) {
            Slot& s = m_slots[i % 2];
            {
                std::unique_lock lock(m_mutex);
                m_cv.wait(lock, [&] { return s.full || m_done; });
                if (!s.full)
                    break;
            }
            if (m_ctx.cancelled()) {
                std::lock_guard lock(m_mutex);
                m_stop = true;
                m_cancelled = true;
                m_cv.notify_all();
                break;
            }
            build(s.batch);
            std::lock_guard lock(m_mutex);
            s.full = false;
            m_cv.notify_all();
        }
        producer.join();
        return !m_cancelled;
    }

private:
    struct Slot {
        std::unique_ptr<EventChunkParser> parser;
        std::vector<ElementSpan> spans;
        EventBatch batch;
        bool full = false;
    };

    // Scans and parses the next chunk into `s`. False at the end of the events or when cancelled.
    bool produce(Slot& s)
    {
        if (m_ctx.cancelled()) {
            m_cancelled = true;
            return false;
        }
        s.spans.clear();
        if (!m_scanner.next(s.spans, m_chunkBytes))
            return false;
        s.parser->parse(s.spans, s.batch);
        const std::uint64_t done = s.spans.back().end;
        if (m_ctx.progress && done - m_lastProgress >= kProgressBytes) {
            m_ctx.progress(done);
            m_lastProgress = done;
        }
        return true;
    }

    JsonEventScanner& m_scanner;
    const ReadContext& m_ctx;
    const std::uint64_t m_chunkBytes;
    Slot m_slots[2];
    std::mutex m_mutex;
    std::condition_variable m_cv;
    bool m_done = false, m_stop = false;
    std::atomic<bool> m_cancelled{false};
    std::uint64_t m_lastProgress = 0;
};

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
    ChunkPipeline pipeline(bytes, scanner, ctx);
    const bool threaded = bytes.size() > chunkBytes(ctx) && std::thread::hardware_concurrency() > 1;
    const bool cancelled = !pipeline.run(threaded, [&](const EventBatch& batch) {
        builder.addBatch(batch);
        if (!batch.events.empty())
            builder.planFor(batch.events.back().offset, bytes.size());
    });
    if (!cancelled) // a cancelled load is thrown away: no flow binding or track classification
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
