// Chrome-trace / msprof timeline JSON reader: the structural scanner cuts the events array into
// ~2 MB chunks at event boundaries. A chunk whose events are all of the plain form is read from
// the file's bytes (plain_event_reader.h), in place or, when the loader can copy them without
// touching the mapping (ReadContext::copyBytes), from a copy; any other is copied into a reused
// padded buffer and parsed with simdjson On-Demand as an array (a chunk that fails falls back to
// one document per event, so a malformed event costs only itself). Either gives an EventBatch,
// which a TimelineBuilder turns into the columnar Profile. Files of more than one chunk use two
// threads that share the scanning, parsing and building (see ChunkPipeline).
#include "model/formats/json_event_scanner.h"
#include "model/formats/number_text.h"
#include "model/formats/readers.h"
#include "model/formats/timeline_builder.h"
#include "model/formats/timeline_chunk_parser.h"
#include "model/io/memory_budget.h"

#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

namespace npuscope::readers {

namespace {

// Small chunks keep each parser's copy and its simdjson index (4 bytes per structural byte) in
// a few MB: larger chunks raise the peak and parse no faster. A parsed chunk holds
// about 2x its bytes (a 216-byte TraceEvent and 40 bytes per argument, for ~170 bytes of JSON
// an event) in each of the two slots.
// Files under kLargeLoadBytes (memory_budget.h) take 512 KiB chunks and report their progress
// (which drops the pages read) after every 2 MiB, for a lower peak. Larger files take 2 MiB
// chunks and report every 8 MiB: there the small chunks and the frequent reports cost more
// time than the memory they save is worth.
struct ChunkSizes {
    std::uint64_t chunk, progress;
};

ChunkSizes chunkSizes(std::uint64_t fileBytes, const ReadContext& ctx)
{
    ChunkSizes s = fileBytes < kLargeLoadBytes ? ChunkSizes{512ull << 10, 2ull << 20}
                                               : ChunkSizes{2ull << 20, 8ull << 20};
    if (ctx.chunkBytes)
        s.chunk = ctx.chunkBytes;
    return s;
}

std::unique_ptr<EventChunkParser> makeChunkParser(std::string_view bytes, const ChunkParserOptions& options)
{
    // The header-only On-Demand API compiles for the build's baseline CPU (the portable kernel on
    // plain x86-64); use the AVX2 build of the chunk parser when this CPU supports it.
    static const bool haswell = [] {
        const auto* impl = simdjson::get_available_implementations()["haswell"];
        return impl && impl->supported_by_runtime_system();
    }();
    if (haswell)
        if (auto p = makeAvx2ChunkParser(bytes, options))
            return p;
    return makePortableChunkParser(bytes, options);
}

// Scans, parses and builds the events array chunk by chunk. Scanning (cutting the next chunk at
// event boundaries) is sequential and so is building (in file order); parsing a scanned chunk
// can be done by either thread. With two threads (run()), they run the same loop over a ring of
// slots: each builds the next chunk when it is parsed, else scans the next one into a free slot,
// else parses a scanned one. So neither waits while there is work: with parsing on one thread
// only, that thread is busy for the whole load while the building thread is idle most of the
// time.
//
// With plain events, chunks are cut by a guess (JsonEventScanner::nextGuess) instead of a scan
// of every byte, and read as plain events from their first byte to their last (parseRange).
// Before a guessed chunk is built it is settled: kept when it was read whole and starts where
// the chunk before it ended (so, by induction from the array's start, at an element's end);
// else its bytes are cut exactly from there and read again. When that exact cut ends elsewhere
// than the guess, the chunks cut after it are dropped and scanning goes on exactly from there.
// That reading again is done by the building thread alone, so after a guessed chunk that was
// not all plain events, chunks are cut exactly until a run of them were all plain events
// (twice as long a run after each such guess, so a file of other events is soon cut exactly
// to its end).
class ChunkPipeline {
public:
    ChunkPipeline(std::string_view bytes, JsonEventScanner& scanner, const ReadContext& ctx)
        : m_bytes(bytes), m_scanner(scanner), m_ctx(ctx), m_sizes(chunkSizes(bytes.size(), ctx)),
          m_guess(ctx.plainEvents), m_settled(scanner.position()),
          m_slotCount(std::clamp<std::size_t>(ctx.chunkSlots ? ctx.chunkSlots : bytes.size() >= kLargeLoadBytes ? 3 : 2,
                                              2, kMaxSlots))
    {
        const ChunkParserOptions options{ctx.plainEvents, ctx.copyBytes ? &ctx.copyBytes : nullptr};
        for (auto& s : m_slots)
            s.parser = makeChunkParser(bytes, options);
    }

    // Returns false when cancelled. Two threads run when there is more than one chunk and a
    // second core.
    template <typename Build>
    bool run(Build&& build)
    {
        if (m_bytes.size() <= m_sizes.chunk || std::thread::hardware_concurrency() < 2) {
            Slot& s = m_slots[0];
            while (scan(s)) {
                parse(s);
                if (!settle(s))
                    m_scanner = m_resync;
                build(s.batch);
                progress();
            }
            return !m_cancelled;
        }
        std::jthread helper([&] { work(build); });
        work(build);
        helper.join();
        return !m_cancelled;
    }

private:
    enum class State : std::uint8_t { Free, Scanning, Scanned, Parsing, Parsed, Building };
    struct Slot {
        std::unique_ptr<EventChunkParser> parser;
        std::vector<ElementSpan> spans; // a chunk cut exactly
        bool guessed = false;           // else a chunk cut by a guess: `range`,
        ElementSpan range;
        bool read = false;              // and read whole as plain events
        bool plain = false;             // a chunk cut exactly, all of whose events were plain
        EventBatch batch;
        State state = State::Free;
    };
    // Three in large files, where they keep both threads busier than two once the chunks are cut
    // by guesses (the 10 GB profile's timeline is read 10 % sooner); two in smaller ones, where
    // a third loaded the 1 GB profile no faster and raised the 100 MB one's peak by 15 MB.
    static constexpr std::size_t kMaxSlots = 3;

    // One thread's loop: build, else scan, else parse, else wait; until every chunk is built.
    template <typename Build>
    void work(Build& build)
    {
        std::unique_lock lock(m_mutex);
        for (;;) {
            Slot& next = m_slots[m_built % m_slotCount];
            if (m_stop || (m_scanDone && m_built == m_scanned))
                return;
            if (next.state == State::Parsed && m_built < m_scanned) {
                next.state = State::Building;
                lock.unlock();
                const bool cancelled = m_ctx.cancelled();
                bool aligned = true;
                if (!cancelled) {
                    aligned = settle(next);
                    build(next.batch);
                    progress();
                }
                lock.lock();
                if (!aligned) {
                    // The chunks cut after this one start inside an element: dropped, once no
                    // thread is cutting or reading them.
                    m_cv.wait(lock, [&] {
                        for (std::size_t k = 1; k < m_slotCount; ++k) {
                            const State st = m_slots[(m_built + k) % m_slotCount].state;
                            if (st == State::Scanning || st == State::Parsing)
                                return false;
                        }
                        return true;
                    });
                    for (std::uint64_t k = m_built + 1; k < m_scanned; ++k)
                        m_slots[k % m_slotCount].state = State::Free;
                    m_scanned = std::min(m_scanned, m_built + 1);
                    m_scanner = m_resync;
                    m_scanDone = false;
                }
                next.state = State::Free;
                ++m_built;
                if (cancelled) {
                    m_cancelled = true;
                    m_stop = true;
                }
                m_cv.notify_all();
                continue;
            }
            // One scanner at a time: while a chunk is scanned, its slot (the one after the last
            // scanned) is not Free.
            Slot& free = m_slots[m_scanned % m_slotCount];
            if (!m_scanDone && free.state == State::Free) {
                free.state = State::Scanning;
                lock.unlock();
                const bool more = scan(free);
                lock.lock();
                if (more) {
                    free.state = State::Scanned;
                    ++m_scanned;
                } else {
                    free.state = State::Free;
                    m_scanDone = true;
                }
                m_cv.notify_all();
                continue;
            }
            Slot* toParse = nullptr;
            for (std::uint64_t k = m_built; k < m_scanned && !toParse; ++k)
                if (m_slots[k % m_slotCount].state == State::Scanned)
                    toParse = &m_slots[k % m_slotCount];
            if (toParse) {
                toParse->state = State::Parsing;
                lock.unlock();
                parse(*toParse);
                lock.lock();
                toParse->state = State::Parsed;
                m_cv.notify_all();
                continue;
            }
            m_cv.wait(lock);
        }
    }

    // Cuts the next chunk into `s`: by a guess while plain events are read that way, else
    // exactly. False at the end of the events or when cancelled.
    bool scan(Slot& s)
    {
        if (m_ctx.cancelled()) {
            m_cancelled = true;
            return false;
        }
        s.spans.clear();
        s.guessed = m_guess && m_scanner.nextGuess(m_sizes.chunk, s.range);
        return s.guessed || m_scanner.next(s.spans, m_sizes.chunk);
    }

    void parse(Slot& s)
    {
        if (s.guessed)
            s.read = s.parser->parseRange(s.range.begin, s.range.end, s.batch);
        else
            s.plain = s.parser->parse(s.spans, s.batch);
    }

    // Makes `s` the chunk that starts where the last one built ended (see the class comment).
    // False when its exact cut ends elsewhere than its guess: the scanner is then to go on
    // exactly from m_resync. Called by the one thread building.
    bool settle(Slot& s)
    {
        bool aligned = true;
        if (s.guessed && s.read && s.range.begin == m_settled) {
            m_settled = s.range.end;
            return aligned;
        }
        if (s.guessed) {
            JsonEventScanner exact(m_bytes);
            exact.resumeAt(m_settled);
            s.spans.clear();
            exact.next(s.spans, s.range.end > m_settled ? s.range.end - m_settled : 1);
            s.parser->parse(s.spans, s.batch);
            s.guessed = false;
            aligned = exact.state() == JsonEventScanner::State::Scanning && exact.position() == s.range.end;
            if (!aligned)
                m_resync = exact;
            // Cut exactly from now on (a cut already made stays a guess, settled in turn), until
            // twice as many chunks in a row as last time were all plain events.
            m_guess = false;
            m_plainRun = 0;
            m_plainRunToGuess = std::min(2 * m_plainRunToGuess, kMaxPlainRunToGuess);
        } else if (m_ctx.plainEvents) {
            m_plainRun = s.plain ? m_plainRun + 1 : 0;
            if (m_plainRun >= m_plainRunToGuess) {
                m_guess = true; // the scanner stands at the end of this chunk's last element
                m_plainRun = 0;
            }
        }
        if (!s.spans.empty())
            m_settled = s.spans.back().end;
        return aligned;
    }

    // After a chunk was built: every byte before its end has been parsed (chunks are built in
    // order), so the caller may drop those pages.
    void progress()
    {
        const std::uint64_t done = m_settled;
        if (m_ctx.progress && done - m_lastProgress >= m_sizes.progress) {
            m_ctx.progress(done);
            m_lastProgress = done;
        }
    }

    std::string_view m_bytes;
    JsonEventScanner& m_scanner;
    const ReadContext& m_ctx;
    const ChunkSizes m_sizes;
    std::atomic<bool> m_guess;    // chunks cut by guesses
    // Exactly cut chunks of plain events in a row (settled so far), and how many make the
    // scanner guess again: a file's events of other forms often come in one stretch (torch_npu
    // writes the operators' events, whose shapes hold escapes, before all others).
    static constexpr unsigned kMaxPlainRunToGuess = 1024;
    unsigned m_plainRun = 0, m_plainRunToGuess = 4;
    std::uint64_t m_settled;      // where the last chunk built ended: an element's end
    JsonEventScanner m_resync{std::string_view()};
    const std::size_t m_slotCount;
    Slot m_slots[kMaxSlots];
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::uint64_t m_scanned = 0, m_built = 0; // chunks scanned and built so far
    bool m_scanDone = false, m_stop = false;
    std::atomic<bool> m_cancelled{false};
    std::uint64_t m_lastProgress = 0;
};

} // namespace

FileRecord readTimelineJson(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    FileRecord rec;
    rec.path = ctx.file;
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
    bool cancelled = !pipeline.run([&](const EventBatch& batch) {
        builder.addBatch(batch);
        if (!batch.events.empty())
            builder.planFor(batch.events.back().offset, bytes.size());
    });
    if (!cancelled) // a cancelled load is thrown away: no flow binding or track classification
        cancelled = !builder.finish();

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
