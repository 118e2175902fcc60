#pragma once
// Turns parsed Chrome-trace events into the columnar Profile: tracks, slices (X, B/E pairs,
// instants), counters, flows (v1 s/t/f and v2 bind_id), metadata. It knows nothing about JSON
// parsing: the reader hands it one TraceEvent at a time (views valid for that call only).
// Names given by `M` events may come after the events they name, so tracks are named and
// classified (TrackKind, device, stream) in finish().
#include "model/formats/read_context.h"
#include "model/store/profile.h"

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace npuscope {

struct TraceArg {
    enum class Kind : std::uint8_t { String, Number, Literal, Object, Array };
    std::string_view key;
    std::string_view value; // unescaped string, number/literal token, or raw JSON of a container
    Kind kind = Kind::String;
};

struct TraceEvent {
    char ph = 0;
    std::string_view name, cat, id, bp, bindId;
    std::optional<TimeNs> tsNs, durNs; // ts and dur read by the parser (nullopt: unreadable)
    bool hasTs = false, hasDur = false, hasId = false, hasPid = false, hasTid = false;
    bool idIsString = false;
    std::int64_t pid = 0, tid = 0;
    std::string_view pidText, tidText; // set when pid/tid were non-numeric strings
    int flowIn = -1, flowOut = -1;     // v2 flows: -1 absent, 0 false, 1 true
    const TraceArg* argv = nullptr;    // the event's "args" members (owned by the parsed batch)
    std::uint32_t argc = 0;
    std::uint32_t argBegin = 0;        // while parsing: index of the first arg in the batch
    std::uint64_t offset = 0;          // byte offset of the event in the file
    int fields = 0;                    // members seen (an empty `{}` is tolerated)

    std::span<const TraceArg> args() const { return {argv, argc}; }
    void clear() { *this = TraceEvent(); }
};

// One parsed chunk of events, handed from the parsing thread to the builder's thread. The views
// in its events point into the chunk parser that filled it and stay valid until that parser
// parses again. Events that could not be read are kept in file order as skips.
struct EventBatch {
    struct Skip {
        std::size_t beforeEvent; // position among `events`
        std::uint64_t offset;
        std::string reason;
    };
    std::vector<TraceEvent> events;
    std::vector<TraceArg> args;
    std::vector<Skip> skips;

    void clear()
    {
        events.clear();
        args.clear();
        skips.clear();
    }
    // Points each event's argv into `args` (call once the batch is complete).
    void bindArgs()
    {
        for (auto& ev : events)
            ev.argv = ev.argc ? args.data() + ev.argBegin : nullptr;
    }
};

class TimelineBuilder {
public:
    TimelineBuilder(Profile& sink, const ReadContext& ctx);

    // Adds one event. False when it was skipped (reason reported with its offset).
    bool add(const TraceEvent& ev);
    // Adds a parsed batch in file order (its events and its skips).
    void addBatch(const EventBatch& batch);
    // Room for what the rest of the file will add, projected from what `done` of its `total`
    // bytes added: the big columns are filled without being copied as they grow (which would
    // also hold the old and the new copy at once). Cheap to call after every batch.
    void planFor(std::uint64_t done, std::uint64_t total);
    // Closes open B slices, applies metadata, classifies tracks, binds "next slice" flows,
    // reports what was ignored. Call once after the last event. False when the read was
    // cancelled meanwhile (the profile is then to be dropped).
    bool finish();

    std::uint64_t kept() const { return m_kept; }
    std::uint64_t skipped() const { return m_skipped; }
    // Per-phase counts of accepted events, e.g. "X 2212, s 713, f 713, M 32".
    std::string phaseSummary() const;
    std::uint64_t phaseCount(char ph) const { return m_phaseCount[static_cast<unsigned char>(ph)]; }
    // Report (and count as skipped) one event or fragment that could not be read.
    void skip(std::uint64_t offset, const std::string& reason);

private:
    struct PairHash {
        std::size_t operator()(const std::pair<std::int64_t, std::int64_t>& k) const noexcept
        {
            // Unsigned: pids and tids come from the file and may be anywhere in int64's range.
            return std::hash<std::uint64_t>{}(static_cast<std::uint64_t>(k.first) * 1000003u
                                              ^ static_cast<std::uint64_t>(k.second));
        }
    };
    struct OpenSlice {
        std::uint32_t row;
        NameId name;
    };
    // A v1 flow's id as FlowTable keeps it: a plain decimal number by value, any other text
    // interned.
    struct FlowId {
        std::uint64_t value = 0; // the number, or the NameId of the text
        bool number = false;
        bool operator==(const FlowId&) const = default;
    };
    struct FlowEnd {
        TimeNs ts = 0;
        TrackId track;
        NameId name, cat;
        FlowId id;
        std::uint32_t slice = kNone;
        bool bindNext = false; // an f kept until its s comes: it binds to the next slice (no bp:"e")
    };
    struct FlowKey {
        NameId cat;
        FlowId id;
        bool operator==(const FlowKey&) const = default;
    };
    struct FlowKeyHash {
        std::size_t operator()(const FlowKey& k) const noexcept
        {
            std::uint64_t h = (k.id.value ^ (static_cast<std::uint64_t>(k.cat.v) << 40) ^ (k.id.number ? 1u : 0u)) *
                              0x9E3779B97F4A7C15ull;
            return static_cast<std::size_t>(h ^ (h >> 29));
        }
    };
    struct NextBind {
        std::uint32_t flow;
    };

    TrackId track(std::int64_t pid, std::int64_t tid);
    std::int64_t resolvePid(const TraceEvent& ev);
    std::int64_t resolveTid(const TraceEvent& ev, std::int64_t pid);
    std::uint32_t addArgs(const TraceEvent& ev);
    struct ArgKey {
        NameId id;
        std::uint16_t index = 0; // in ArgTable::keys
    };
    const ArgKey& argKey(std::size_t position, std::string_view key);
    // `text`'s id: `last` when that is its id, else interned (and kept in `last`).
    NameId internAgain(NameId& last, std::string_view text);
    // internAgain with the id last seen of `text`'s length.
    template <std::size_t N>
    NameId internByLength(std::array<NameId, N>& lastByLength, std::string_view text)
    {
        return internAgain(lastByLength[text.size() % N], text);
    }
    void addFlow(const FlowEnd& src, const FlowEnd& dst, bool bindNext);
    void ignore(const std::string& reason);
    void onMetadata(const TraceEvent& ev, std::int64_t pid, std::int64_t tid);
    void onCounter(const TraceEvent& ev, std::int64_t pid, TimeNs ts);
    void onFlowV1(const TraceEvent& ev, TrackId t, TimeNs ts);
    void onFlowV2(const TraceEvent& ev, std::uint32_t row, TrackId t, TimeNs ts, NameId cat, NameId name);
    void reportCount(Severity s, std::int64_t offset, const std::string& reason, std::uint64_t n);
    bool bindNextSlices();
    void classifyTracks();

    Profile& m_p;
    const ReadContext& m_ctx;
    std::uint32_t m_argFile = kNone; // ctx.file in m_p.args.files, when its arguments are lazy
    std::uint64_t m_kept = 0, m_skipped = 0;
    std::array<std::uint64_t, 256> m_phaseCount{};
    // Argument keys repeat from event to event in the same places: the id of the key last seen
    // at each (position, length), checked against the pool's text before it is taken.
    std::array<ArgKey, 256> m_argKeys{};
    // The categories and start names of the last v1 flow events, by the text's length: the
    // torch_npu profiles interleave "HostToDevice" and "async_npu" flows, one pair each.
    std::array<NameId, 8> m_flowCategories{}, m_flowNames{};
    // The same for slice categories (a few per file: "cpu_op", "cann", "AI_CORE", ...).
    std::array<NameId, 16> m_sliceCategories{};
    TimeNs m_lastTs = 0;
    bool m_anyTs = false;

    // Track lookup cache: most events repeat the previous event's (pid, tid).
    std::int64_t m_lastPid = 0, m_lastTid = 0;
    TrackId m_lastTrack;
    std::unordered_map<std::pair<std::int64_t, std::int64_t>, TrackId, PairHash> m_tracks;
    std::unordered_map<std::string, std::int64_t> m_stringPids; // "foo" -> synthetic pid
    std::unordered_map<std::string, std::int64_t> m_stringTids;

    std::unordered_map<std::uint32_t, std::vector<OpenSlice>> m_open; // B/E stacks per track
    // v1 flows by (cat, id): the open s/t of each, and each f seen before its s (msprof writes
    // the device f first).
    // The oldest open start per key, keyed by its own category and id. Open addressing with
    // linear probing: torch_npu writes every Enqueue s of a run before the first Dequeue f, so
    // this holds one start per launched operator at once; a node per start would be a heap
    // allocation and a cache miss per lookup.
    class FlowStartMap {
    public:
        FlowEnd* find(const FlowKey& key);
        void insert(const FlowEnd& start); // its key is not in the map
        void erase(const FlowKey& key);
        std::size_t size() const;

    private:
        // The starts of one category whose numeric ids rise in the order they come. torch_npu
        // numbers its enqueues with a counter and writes the Dequeue ends later in the same
        // order, so at 10 GB the map holds millions of starts at once and a table lookup per
        // event is a cache miss. These starts are appended in order, and an end is looked for
        // at the head (the oldest open start) first, then by a binary search over the ids.
        struct RisingQueue {
            struct Entry {
                FlowEnd start;
                bool open = true;
            };
            NameId cat;
            std::vector<Entry> entries; // ids strictly rising; the closed ones before `head` gone
            std::size_t head = 0, open = 0;
            bool accepts(std::uint64_t id) const { return open == 0 || id > entries.back().start.id.value; }
            Entry* find(std::uint64_t id);
            void push(const FlowEnd& start);
            void close(Entry& e);
        };
        RisingQueue* queueOf(NameId cat);
        std::vector<RisingQueue> m_queues; // a few categories: searched in order

        struct Slot {
            FlowEnd start;
            bool used = false;
        };
        static constexpr std::size_t kAbsent = ~std::size_t{0};
        // Every bit of the key reaches the low bits that pick the slot (torch_npu's
        // torch_to_npu ids are a number shifted left by 32: their low bits are all zero).
        static std::uint64_t mix(const FlowKey& key)
        {
            std::uint64_t h = key.id.value ^ (static_cast<std::uint64_t>(key.cat.v) << 1 | (key.id.number ? 1u : 0u)) *
                                                 0xD6E8FEB86659FD93ull;
            h = (h ^ (h >> 32)) * 0xD6E8FEB86659FD93ull;
            h = (h ^ (h >> 32)) * 0xD6E8FEB86659FD93ull;
            return h ^ (h >> 32);
        }
        std::size_t home(const FlowKey& key) const { return mix(key) & (m_slots.size() - 1); }
        std::size_t slotOf(const FlowKey& key) const; // kAbsent when not in the map
        void grow();
        std::vector<Slot> m_slots; // a power of two, at most half used
        std::size_t m_size = 0;
    };
    FlowStartMap m_flowStarts;
    // The open start of the last key, kept out of m_flowStarts while only that key is seen: the
    // f of nearly every flow comes right after its s among the flow events, so most flows never
    // enter the map (a node allocated, hashed, found and freed per flow).
    struct HeldStart {
        FlowKey key;
        FlowEnd start;
        bool valid = false;
    };
    HeldStart m_heldStart;
    // The open start of `key` (held or in m_flowStarts), or null; the held start of another key
    // goes into the map first.
    FlowEnd* openStart(const FlowKey& key);
    void closeStart(const FlowKey& key, FlowEnd* start);
    // Further starts of a key while one is open (an id reused before its first flow ended), in
    // file order: each f ends the oldest open start of its key.
    std::unordered_map<FlowKey, std::deque<FlowEnd>, FlowKeyHash> m_moreFlowStarts;
    // msprof links one launch to each of its device tasks with the same HostToDevice id: one s,
    // then an f per task, next to each other in the file. The starts of the flows ended last,
    // by key hash, so that a further f finds its launch (a bounded cache: an f whose start has
    // left it counts as an f without a start).
    struct ClosedStart {
        FlowKey key;
        FlowEnd start;
        bool valid = false;
    };
    std::vector<ClosedStart> m_closedLaunches;
    // The first f of each key seen before any s of it, in the same kind of map as the starts: a
    // process-ordered export writes its Ascend Hardware block before the CANN block, so every
    // HostToDevice f of the file waits here for its s (ids rising in both blocks: the f's queue
    // up in a RisingQueue and each s finds its f at the head).
    FlowStartMap m_flowEndsFirst;
    std::unordered_map<std::string, FlowEnd> m_flowOuts;             // v2: bind_id -> last flow_out
    std::vector<NextBind> m_nextBind;                                 // flows whose f binds to the next slice
    std::uint64_t m_flowEndsWithoutStart = 0, m_flowInWithoutOut = 0, m_endWithoutBegin = 0;
    std::uint64_t m_nonNumericCounter = 0;

    // Metadata, applied in finish().
    std::unordered_map<std::int64_t, NameId> m_procName, m_procLabel;
    std::unordered_map<std::int64_t, int> m_procSort;
    std::unordered_map<std::pair<std::int64_t, std::int64_t>, NameId, PairHash> m_threadName;
    std::unordered_map<std::pair<std::int64_t, std::int64_t>, int, PairHash> m_threadSort;
    std::unordered_map<std::uint32_t, std::int64_t> m_physStream; // track -> "Physic Stream Id"
    std::unordered_map<std::string, std::uint64_t> m_ignored;      // reason -> count

    // Counter series cache: (pid, name, key) -> index in Profile::counters.
    struct CounterKeyHash {
        std::size_t operator()(const std::array<std::int64_t, 3>& k) const noexcept
        {
            return std::hash<std::int64_t>{}(k[0] * 1000003 ^ (k[1] << 20) ^ k[2]);
        }
    };
    std::unordered_map<std::array<std::int64_t, 3>, std::uint32_t, CounterKeyHash> m_counterCache;
    std::string m_nameBuf;
};

} // namespace npuscope
