#include "model/formats/timeline_builder.h"

#include "model/formats/lazy_args.h"
#include "model/formats/number_text.h"
#include "model/store/cancellable_rows.h"

#include <algorithm>

namespace npuscope {

namespace {

const TraceArg* findArg(const TraceEvent& ev, std::string_view key)
{
    for (const auto& a : ev.args())
        if (a.key == key)
            return &a;
    return nullptr;
}

} // namespace

TimelineBuilder::TimelineBuilder(Profile& sink, const ReadContext& ctx) : m_p(sink), m_ctx(ctx)
{
    // A file that cannot be looked at, or one too many, keeps its arguments.
    if (ArgFile f; ctx.lazyArgs && argFileOf(ctx.file, f, nullptr)) {
        m_argFile = m_p.args.fileIndex(f);
        if (m_argFile != kNone && !m_p.args.reader)
            m_p.args.reader = makeTraceArgReader();
    }
}

void TimelineBuilder::skip(std::uint64_t offset, const std::string& reason)
{
    ++m_skipped;
    m_p.report(Severity::Warning, m_ctx.file, -1, static_cast<std::int64_t>(offset), reason);
}

void TimelineBuilder::addBatch(const EventBatch& batch)
{
    std::size_t k = 0;
    for (std::size_t i = 0; i < batch.events.size(); ++i) {
        for (; k < batch.skips.size() && batch.skips[k].beforeEvent <= i; ++k)
            skip(batch.skips[k].offset, batch.skips[k].reason);
        add(batch.events[i]);
    }
    for (; k < batch.skips.size(); ++k)
        skip(batch.skips[k].offset, batch.skips[k].reason);
}

void TimelineBuilder::planFor(std::uint64_t done, std::uint64_t total)
{
    if (done == 0 || done >= total)
        return;
    // Projected size with 30 % to spare; reserved only when what is left would not fit, so
    // this reserves a few times per file at most. Capacity never written costs no memory, while
    // a late reserve copies the whole table, and a file's events can get denser near its end,
    // where a tight projection runs out.
    auto project = [&](std::size_t n) {
        return static_cast<std::size_t>(static_cast<double>(n) * static_cast<double>(total) / static_cast<double>(done) * 1.3);
    };
    auto plan = [&](std::size_t size, std::size_t capacity, auto&& reserve) {
        const std::size_t want = project(size);
        if (size > 0 && want > capacity && (capacity - size) * 4 < want - size)
            reserve(want);
    };
    // A reserve copies what is there: in steps that look at the cancel flag (a cancel stops the
    // read at the next chunk).
    const auto cancelled = [this] { return m_ctx.cancelled(); };
    plan(m_p.slices.size(), m_p.slices.start.capacity(), [&](std::size_t n) { m_p.slices.reserve(n, m_ctx.cancel); });
    plan(m_p.args.args.size(), m_p.args.args.capacity(), [&](std::size_t n) { reserveRows(m_p.args.args, n, cancelled); });
    plan(m_p.args.rows.size(), m_p.args.rows.capacity(), [&](std::size_t n) { reserveRows(m_p.args.rows, n, cancelled); });
    auto& f = m_p.flows;
    plan(f.size(), f.srcTs.capacity(), [&](std::size_t n) {
        (void)(reserveRows(f.category, n, cancelled) && reserveRows(f.name, n, cancelled)
               && reserveRows(f.idNumber, n, cancelled) && reserveRows(f.idText, n, cancelled)
               && reserveRows(f.srcTs, n, cancelled) && reserveRows(f.dstTs, n, cancelled)
               && reserveRows(f.srcTrack, n, cancelled) && reserveRows(f.dstTrack, n, cancelled)
               && reserveRows(f.srcSlice, n, cancelled) && reserveRows(f.dstSlice, n, cancelled));
    });
}

void TimelineBuilder::ignore(const std::string& reason) { ++m_ignored[reason]; }

void TimelineBuilder::reportCount(Severity s, std::int64_t offset, const std::string& reason, std::uint64_t n)
{
    if (n == 0)
        return;
    m_p.report(s, m_ctx.file, -1, offset, reason);
    for (auto it = m_p.diagnostics.rbegin(); it != m_p.diagnostics.rend(); ++it) {
        if (it->file == m_ctx.file && it->reason == reason && it->severity == s) {
            it->count += n - 1;
            break;
        }
    }
}

TrackId TimelineBuilder::track(std::int64_t pid, std::int64_t tid)
{
    if (m_lastTrack.valid() && pid == m_lastPid && tid == m_lastTid)
        return m_lastTrack;
    const auto key = std::make_pair(pid, tid);
    auto it = m_tracks.find(key);
    TrackId t;
    if (it != m_tracks.end()) {
        t = it->second;
    } else {
        t = m_p.trackFor(pid, tid);
        m_tracks.emplace(key, t);
    }
    m_lastPid = pid;
    m_lastTid = tid;
    m_lastTrack = t;
    return t;
}

std::int64_t TimelineBuilder::resolvePid(const TraceEvent& ev)
{
    if (!ev.hasPid)
        return 0;
    if (ev.pidText.empty())
        return ev.pid;
    // Generic traces may name processes by string: give each string a stable negative pid (real
    // pids are never negative) and use the string as the process name unless `M` renames it.
    auto [it, inserted] =
        m_stringPids.try_emplace(std::string(ev.pidText), -static_cast<std::int64_t>(m_stringPids.size()) - 1);
    if (inserted)
        m_procName.try_emplace(it->second, m_p.strings.intern(ev.pidText));
    return it->second;
}

std::int64_t TimelineBuilder::resolveTid(const TraceEvent& ev, std::int64_t pid)
{
    if (!ev.hasTid)
        return pid;
    if (ev.tidText.empty())
        return ev.tid;
    auto [it, inserted] =
        m_stringTids.try_emplace(std::string(ev.tidText), -static_cast<std::int64_t>(m_stringTids.size()) - 1);
    if (inserted)
        m_threadName.try_emplace(std::make_pair(pid, it->second), m_p.strings.intern(ev.tidText));
    return it->second;
}

std::uint32_t TimelineBuilder::addArgs(const TraceEvent& ev)
{
    if (ev.argc == 0)
        return kNone;
    if (m_argFile != kNone && ev.offset <= ArgTable::kMaxLazyOffset)
        return m_p.args.addLazyRow(m_argFile, ev.offset);
    const std::size_t first = m_p.args.args.size();
    std::size_t position = 0;
    for (const auto& a : ev.args()) {
        const ArgKey& k = argKey(position++, a.key);
        m_p.args.addArg(k.index, k.id, a.value, m_p.strings);
    }
    return m_p.args.endRow(first);
}

// Comparing the key with the text of the id last seen in its place costs less than half of
// interning it (hashing it, then comparing it in the pool's cache of recent strings): 99 % of
// the keys of the benchmark profiles are found so.
const TimelineBuilder::ArgKey& TimelineBuilder::argKey(std::size_t position, std::string_view key)
{
    ArgKey& k = m_argKeys[(position * 16 + key.size()) % m_argKeys.size()];
    if (!k.id.valid() || m_p.strings.view(k.id) != key) {
        k.id = m_p.strings.intern(key);
        k.index = m_p.args.keyIndex(k.id);
    }
    return k;
}

NameId TimelineBuilder::internAgain(NameId& last, std::string_view text)
{
    if (!last.valid() || m_p.strings.view(last) != text)
        last = m_p.strings.intern(text);
    return last;
}

bool TimelineBuilder::add(const TraceEvent& ev)
{
    if (ev.ph == 0) {
        if (ev.fields == 0) {
            ignore("empty event object {}");
            return true;
        }
        skip(ev.offset, "event without \"ph\" skipped");
        return false;
    }
    TimeNs ts = 0;
    if (ev.hasTs) {
        const auto& v = ev.tsNs;
        if (!v) {
            skip(ev.offset, "event with an unreadable \"ts\" skipped");
            return false;
        }
        ts = *v;
    } else if (ev.ph != 'M') {
        skip(ev.offset, "event without \"ts\" skipped");
        return false;
    }
    TimeNs dur = 0;
    if (ev.hasDur) {
        const auto& v = ev.durNs;
        if (!v) {
            skip(ev.offset, "event with an unreadable \"dur\" skipped");
            return false;
        }
        dur = *v < 0 ? 0 : *v;
        if (*v < 0)
            m_p.report(Severity::Warning, m_ctx.file, -1, static_cast<std::int64_t>(ev.offset),
                       "event with a negative \"dur\" kept with duration 0");
    }
    if (ev.hasTs) {
        const TimeNs end = ts + dur;
        if (!m_anyTs || end > m_lastTs)
            m_lastTs = end;
        m_anyTs = true;
    }
    ++m_phaseCount[static_cast<unsigned char>(ev.ph)];
    const std::int64_t pid = resolvePid(ev);

    switch (ev.ph) {
    case 'X':
    case 'B':
    case 'i':
    case 'I':
    case 'R':
    case 'n': {
        const std::int64_t tid = resolveTid(ev, pid);
        const TrackId t = track(pid, tid);
        NameId cat;
        std::uint32_t taskId = kNone, subtask = kNone;
        std::uint32_t argsRow = kNone;
        const TraceArg* taskType = ev.ph == 'X' ? findArg(ev, "Task Type") : nullptr;
        if (taskType) {
            // A device task: its known args become columns and the rest is not stored (the store
            // budget is 48 bytes per task event; op_summary/kernel_details carry the details).
            cat = internByLength(m_sliceCategories, taskType->value);
            if (const TraceArg* a = findArg(ev, "Task Id"))
                if (auto v = parseUInt64(a->value); v && *v < kNone)
                    taskId = static_cast<std::uint32_t>(*v);
            // A MIX task's Subtask Id picks its kernel row among those of one task id (Context ID).
            if (taskType->value.substr(0, 4) == "MIX_")
                if (const TraceArg* a = findArg(ev, "Subtask Id"))
                    if (auto v = parseUInt64(a->value); v && *v < kNone)
                        subtask = static_cast<std::uint32_t>(*v);
            const TraceArg* ps = findArg(ev, "Physic Stream Id");
            if (!ps)
                ps = findArg(ev, "Stream Id");
            if (ps)
                if (auto v = parseInt64(ps->value); v && *v != tid)
                    m_physStream.try_emplace(t.v, *v);
        } else {
            cat = internByLength(m_sliceCategories, ev.cat);
            argsRow = addArgs(ev);
        }
        if (ev.ph == 'X' && !ev.hasDur)
            ignore("X events without \"dur\" kept with duration 0");
        const NameId name = m_p.strings.intern(ev.name);
        const std::uint32_t row =
            m_p.slices.add(ts, ev.ph == 'X' ? dur : 0, name, cat, t, taskId, argsRow);
        if (subtask != kNone)
            m_p.slices.setSubtask(row, subtask);
        if (ev.ph == 'B')
            m_open[t.v].push_back(OpenSlice{row, name});
        if (!ev.bindId.empty() && (ev.ph == 'X' || ev.ph == 'B'))
            onFlowV2(ev, row, t, ts, cat, name);
        break;
    }
    case 'E': {
        const std::int64_t tid = resolveTid(ev, pid);
        const TrackId t = track(pid, tid);
        auto it = m_open.find(t.v);
        if (it == m_open.end() || it->second.empty()) {
            ++m_endWithoutBegin;
            break;
        }
        auto& stack = it->second;
        // The innermost open B with the same name; an E without a name (or whose name matches
        // nothing, as catapult does) closes the innermost one.
        std::size_t k = stack.size() - 1;
        if (!ev.name.empty()) {
            const NameId n = m_p.strings.find(ev.name);
            for (std::size_t j = stack.size(); j-- > 0;)
                if (stack[j].name == n) {
                    k = j;
                    break;
                }
        }
        const std::uint32_t row = stack[k].row;
        const TimeNs d = ts - m_p.slices.start[row];
        m_p.slices.dur[row] = d < 0 ? 0 : d;
        stack.erase(stack.begin() + static_cast<std::ptrdiff_t>(k));
        break;
    }
    case 'M':
        onMetadata(ev, pid, resolveTid(ev, pid));
        break;
    case 'C':
        onCounter(ev, pid, ts);
        break;
    case 's':
    case 't':
    case 'f':
        onFlowV1(ev, track(pid, resolveTid(ev, pid)), ts);
        break;
    case 'S':
    case 'T':
    case 'F':
    case 'p':
    case 'b':
    case 'e':
        ignore("async events (S/T/F/p/b/e) not shown");
        return true;
    case 'O':
    case 'D':
    case 'N':
        ignore("object events (O/D/N) not used");
        return true;
    case 'P':
        ignore("sample events (P) not used");
        return true;
    default:
        ignore(std::string("events of unknown phase '") + ev.ph + "' ignored");
        return true;
    }
    ++m_kept;
    return true;
}

void TimelineBuilder::onMetadata(const TraceEvent& ev, std::int64_t pid, std::int64_t tid)
{
    auto text = [&](std::string_view key) -> const TraceArg* { return findArg(ev, key); };
    if (ev.name == "process_name") {
        if (auto* a = text("name"))
            m_procName[pid] = m_p.strings.intern(a->value);
    } else if (ev.name == "thread_name") {
        if (auto* a = text("name"))
            m_threadName[std::make_pair(pid, tid)] = m_p.strings.intern(a->value);
    } else if (ev.name == "process_labels") {
        if (auto* a = text("labels"))
            m_procLabel[pid] = m_p.strings.intern(a->value);
    } else if (ev.name == "process_sort_index") {
        if (auto* a = text("sort_index"))
            if (auto v = parseInt64(a->value))
                m_procSort[pid] = static_cast<int>(*v);
    } else if (ev.name == "thread_sort_index") {
        if (auto* a = text("sort_index"))
            if (auto v = parseInt64(a->value))
                m_threadSort[std::make_pair(pid, tid)] = static_cast<int>(*v);
    } else {
        ignore("metadata events other than process/thread names, labels and sort indexes ignored");
    }
}

void TimelineBuilder::onCounter(const TraceEvent& ev, std::int64_t pid, TimeNs ts)
{
    NameId name;
    if (ev.hasId && !ev.id.empty()) {
        // Counters with an id are separate instances of one counter (catapult shows them apart).
        m_nameBuf.assign(ev.name);
        m_nameBuf += ' ';
        m_nameBuf += ev.id;
        name = m_p.strings.intern(m_nameBuf);
    } else {
        name = m_p.strings.intern(ev.name);
    }
    for (const auto& a : ev.args()) {
        std::optional<double> v;
        if (a.kind == TraceArg::Kind::Number || a.kind == TraceArg::Kind::String)
            v = parseDouble(a.value);
        if (!v) {
            ++m_nonNumericCounter;
            continue;
        }
        const NameId key = m_p.strings.intern(a.key);
        const std::array<std::int64_t, 3> ck{pid, name.v, key.v};
        auto it = m_counterCache.find(ck);
        std::uint32_t idx;
        if (it != m_counterCache.end()) {
            idx = it->second;
        } else {
            CounterSeries& c = m_p.counterFor(pid, name, key);
            idx = static_cast<std::uint32_t>(&c - m_p.counters.data());
            m_counterCache.emplace(ck, idx);
        }
        m_p.counters[idx].ts.push_back(ts);
        m_p.counters[idx].value.push_back(*v);
    }
}

void TimelineBuilder::addFlow(const FlowEnd& src, const FlowEnd& dst, bool bindNext)
{
    auto& f = m_p.flows;
    if (bindNext)
        m_nextBind.push_back(NextBind{static_cast<std::uint32_t>(f.size())});
    f.category.push_back(src.cat);
    f.name.push_back(src.name);
    f.idNumber.push_back(src.id.number ? src.id.value : 0);
    f.idText.push_back(src.id.number ? NameId() : NameId(static_cast<std::uint32_t>(src.id.value)));
    f.srcTs.push_back(src.ts);
    f.dstTs.push_back(dst.ts);
    f.srcTrack.push_back(src.track);
    f.dstTrack.push_back(dst.track);
    f.srcSlice.push_back(src.slice);
    f.dstSlice.push_back(dst.slice);
}

std::size_t TimelineBuilder::FlowStartMap::slotOf(const FlowKey& key) const
{
    if (m_size == 0)
        return kAbsent;
    for (std::size_t i = home(key);; i = (i + 1) & (m_slots.size() - 1)) {
        const Slot& s = m_slots[i];
        if (!s.used)
            return kAbsent;
        if (s.start.cat == key.cat && s.start.id == key.id)
            return i;
    }
}

TimelineBuilder::FlowStartMap::RisingQueue::Entry* TimelineBuilder::FlowStartMap::RisingQueue::find(std::uint64_t id)
{
    if (open == 0 || id < entries[head].start.id.value || id > entries.back().start.id.value)
        return nullptr;
    if (entries[head].start.id.value == id)
        return &entries[head];
    const auto it = std::lower_bound(entries.begin() + static_cast<std::ptrdiff_t>(head) + 1, entries.end(), id,
                                     [](const Entry& e, std::uint64_t v) { return e.start.id.value < v; });
    return it != entries.end() && it->open && it->start.id.value == id ? &*it : nullptr;
}

void TimelineBuilder::FlowStartMap::RisingQueue::push(const FlowEnd& start)
{
    if (open == 0) {
        entries.clear();
        head = 0;
    }
    entries.push_back(Entry{start, true});
    ++open;
}

void TimelineBuilder::FlowStartMap::RisingQueue::close(Entry& e)
{
    e.open = false;
    --open;
    while (head < entries.size() && !entries[head].open)
        ++head;
    // Drop the closed head once it is half the queue: each entry is moved at most once per
    // halving, and the queue never holds more than twice its open starts for long.
    if (head >= 4096 && 2 * head >= entries.size()) {
        entries.erase(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(head));
        head = 0;
    }
}

TimelineBuilder::FlowStartMap::RisingQueue* TimelineBuilder::FlowStartMap::queueOf(NameId cat)
{
    for (RisingQueue& q : m_queues)
        if (q.cat == cat)
            return &q;
    return nullptr;
}

std::size_t TimelineBuilder::FlowStartMap::size() const
{
    std::size_t n = m_size;
    for (const RisingQueue& q : m_queues)
        n += q.open;
    return n;
}

TimelineBuilder::FlowEnd* TimelineBuilder::FlowStartMap::find(const FlowKey& key)
{
    if (key.id.number)
        if (RisingQueue* q = queueOf(key.cat))
            if (RisingQueue::Entry* e = q->find(key.id.value))
                return &e->start;
    const std::size_t i = slotOf(key);
    return i == kAbsent ? nullptr : &m_slots[i].start;
}

void TimelineBuilder::FlowStartMap::insert(const FlowEnd& start)
{
    if (start.id.number) {
        RisingQueue* q = queueOf(start.cat);
        if (!q)
            q = &m_queues.emplace_back(RisingQueue{start.cat, {}, 0, 0});
        if (q->accepts(start.id.value)) {
            q->push(start);
            return;
        }
    }
    if (2 * (m_size + 1) > m_slots.size())
        grow();
    std::size_t i = home(FlowKey{start.cat, start.id});
    while (m_slots[i].used)
        i = (i + 1) & (m_slots.size() - 1);
    m_slots[i] = Slot{start, true};
    ++m_size;
}

void TimelineBuilder::FlowStartMap::erase(const FlowKey& key)
{
    if (key.id.number)
        if (RisingQueue* q = queueOf(key.cat))
            if (RisingQueue::Entry* e = q->find(key.id.value)) {
                q->close(*e);
                return;
            }
    std::size_t hole = slotOf(key);
    if (hole == kAbsent)
        return;
    const std::size_t mask = m_slots.size() - 1;
    m_slots[hole].used = false;
    --m_size;
    // Backward shift: a later slot of the same run moves into the hole when its home is not
    // between the hole and itself (cyclically), so that every lookup still finds it.
    for (std::size_t i = (hole + 1) & mask; m_slots[i].used; i = (i + 1) & mask) {
        const std::size_t h = home(FlowKey{m_slots[i].start.cat, m_slots[i].start.id});
        const bool stays = hole <= i ? (hole < h && h <= i) : (hole < h || h <= i);
        if (stays)
            continue;
        m_slots[hole] = m_slots[i];
        m_slots[i].used = false;
        hole = i;
    }
}

void TimelineBuilder::FlowStartMap::grow()
{
    std::vector<Slot> old = std::move(m_slots);
    m_slots.assign(std::max<std::size_t>(64, old.size() * 2), Slot{});
    m_size = 0;
    for (const Slot& s : old)
        if (s.used)
            insert(s.start);
}

TimelineBuilder::FlowEnd* TimelineBuilder::openStart(const FlowKey& key)
{
    if (m_heldStart.valid) {
        if (m_heldStart.key == key)
            return &m_heldStart.start;
        if (!m_flowStarts.find(m_heldStart.key)) // its key had no other open start
            m_flowStarts.insert(m_heldStart.start);
        m_heldStart.valid = false;
    }
    return m_flowStarts.find(key);
}

void TimelineBuilder::closeStart(const FlowKey& key, FlowEnd* start)
{
    if (start == &m_heldStart.start)
        m_heldStart.valid = false;
    else
        m_flowStarts.erase(key);
}

void TimelineBuilder::onFlowV1(const TraceEvent& ev, TrackId t, TimeNs ts)
{
    const NameId cat = internByLength(m_flowCategories, ev.cat);
    // A plain number (msprof's ids, one per flow) is kept by value: a flow's ends cost no string
    // lookups, and the table stores the number.
    FlowId id;
    const std::string_view idText = ev.id;
    id.number = FlowTable::plainNumber(idText, id.value);
    if (!id.number)
        id.value = m_p.strings.intern(idText).v;
    const FlowKey key{cat, id};
    // After this, no start of another key is held apart: a new start of this one may be.
    FlowEnd* const open = openStart(key);
    // A flow takes its category, name and id from its start; an f end needs none of its own.
    // A name that is the category followed by the id (msprof's "HostToDevice<id>", one per flow)
    // is not stored: the table holds an invalid NameId() and FlowTable::nameOf() rebuilds it.
    auto startName = [&]() {
        const bool derived = ev.name.size() == ev.cat.size() + idText.size() && ev.name.starts_with(ev.cat) &&
                             ev.name.ends_with(idText);
        return derived ? NameId() : internByLength(m_flowNames, ev.name);
    };
    auto end = [&]() { return FlowEnd{ts, t, ev.ph == 'f' ? NameId() : startName(), cat, id, kNone}; };
    switch (ev.ph) {
    case 's':
        if (const FlowEnd* e = m_flowEndsFirst.find(key)) {
            addFlow(end(), *e, e->bindNext);
            m_flowEndsFirst.erase(key);
        } else if (open) {
            m_moreFlowStarts[key].push_back(end()); // the open one keeps its f: the next one
        } else {
            m_heldStart = {key, end(), true};
        }
        break;
    case 't':
        // A step ends the previous leg and starts the next one; it binds to its enclosing slice.
        if (open) {
            const FlowEnd cur = end();
            addFlow(*open, cur, false);
            *open = cur;
        } else {
            m_heldStart = {key, end(), true};
        }
        break;
    default: { // 'f'
        const bool launch = ev.cat == "HostToDevice";
        if (!open && launch && !m_closedLaunches.empty()) {
            const ClosedStart& c = m_closedLaunches[FlowKeyHash{}(key) & (m_closedLaunches.size() - 1)];
            if (c.valid && c.key == key) { // another device task of the same launch
                addFlow(c.start, end(), ev.bp != "e");
                break;
            }
        }
        if (!open) {
            // Its s may come later in the file: keep the first such f per key until the end.
            if (m_flowEndsFirst.find(key)) {
                ++m_flowEndsWithoutStart;
            } else {
                FlowEnd waiting = end();
                waiting.bindNext = ev.bp != "e";
                m_flowEndsFirst.insert(waiting);
            }
            break;
        }
        // bp:"e" binds to the slice enclosing ts (finalize() does that); otherwise the f binds to
        // the next slice starting at or after ts (catapult's rule), resolved in finish().
        addFlow(*open, end(), ev.bp != "e");
        if (launch) {
            if (m_closedLaunches.empty())
                m_closedLaunches.resize(4096);
            m_closedLaunches[FlowKeyHash{}(key) & (m_closedLaunches.size() - 1)] = {key, *open, true};
        }
        if (auto more = m_moreFlowStarts.empty() ? m_moreFlowStarts.end() : m_moreFlowStarts.find(key);
            more != m_moreFlowStarts.end()) {
            *open = more->second.front();
            more->second.pop_front();
            if (more->second.empty())
                m_moreFlowStarts.erase(more);
        } else {
            closeStart(key, open);
        }
        break;
    }
    }
}

void TimelineBuilder::onFlowV2(const TraceEvent& ev, std::uint32_t row, TrackId t, TimeNs ts, NameId cat,
                               NameId name)
{
    const FlowId id{m_p.strings.intern(ev.bindId).v, false};
    const FlowEnd here{ts, t, name, cat, id, row};
    if (ev.flowIn == 1) {
        auto it = m_flowOuts.find(std::string(ev.bindId));
        if (it != m_flowOuts.end())
            addFlow(it->second, here, false);
        else
            ++m_flowInWithoutOut;
    }
    if (ev.flowOut == 1)
        m_flowOuts[std::string(ev.bindId)] = here;
}

bool TimelineBuilder::bindNextSlices()
{
    if (m_nextBind.empty())
        return true;
    const auto cancelled = [this] { return m_ctx.cancelled(); };
    auto& f = m_p.flows;
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> rows;
    for (const auto& nb : m_nextBind)
        rows.try_emplace(f.dstTrack[nb.flow].v);
    const auto& s = m_p.slices;
    for (std::uint32_t r = 0; r < s.size(); ++r) {
        if (r % kRowsBetweenCancelChecks == 0 && cancelled())
            return false;
        if (auto it = rows.find(s.track[r].v); it != rows.end())
            it->second.push_back(r);
    }
    for (auto& [tr, v] : rows) {
        // The order finalize() will use: start, longer first, file order.
        const auto inOrder = [&s](std::uint32_t a, std::uint32_t b) {
            if (s.start[a] != s.start[b])
                return s.start[a] < s.start[b];
            return s.dur[a] > s.dur[b];
        };
        if (!stableSortRows(v.data(), v.data() + v.size(), inOrder, cancelled))
            return false;
    }
    for (std::size_t n = 0; n < m_nextBind.size(); ++n) {
        if (n % kRowsBetweenCancelChecks == 0 && cancelled())
            return false;
        const auto& nb = m_nextBind[n];
        const auto& v = rows[f.dstTrack[nb.flow].v];
        const TimeNs ts = f.dstTs[nb.flow];
        auto it = std::lower_bound(v.begin(), v.end(), ts, [&s](std::uint32_t r, TimeNs t) { return s.start[r] < t; });
        if (it != v.end())
            f.dstSlice[nb.flow] = *it; // pre-finalize row: finalize() renumbers it
    }
    return true;
}

bool TimelineBuilder::finish()
{
    std::uint64_t unclosed = 0;
    for (auto& [tr, stack] : m_open) {
        for (const auto& o : stack) {
            const TimeNs d = m_lastTs - m_p.slices.start[o.row];
            m_p.slices.dur[o.row] = d < 0 ? 0 : d;
            ++unclosed;
        }
        stack.clear();
    }
    reportCount(Severity::Warning, -1, "B events never closed: kept, ending at the last timestamp of the file",
                unclosed);
    classifyTracks();
    if (!bindNextSlices())
        return false;
    reportCount(Severity::Warning, -1, "flow ends (f) without a start (s) ignored",
                m_flowEndsWithoutStart + m_flowEndsFirst.size());
    std::size_t openStarts = m_flowStarts.size() + (m_heldStart.valid ? 1 : 0);
    for (const auto& [key, more] : m_moreFlowStarts)
        openStarts += more.size();
    reportCount(Severity::Info, -1, "flow starts (s/t) without an end (f) ignored", openStarts);
    reportCount(Severity::Info, -1, "flow_in without an earlier flow_out (bind_id) ignored", m_flowInWithoutOut);
    reportCount(Severity::Warning, -1, "E events without an open B ignored", m_endWithoutBegin);
    reportCount(Severity::Info, -1, "non-numeric counter values ignored", m_nonNumericCounter);
    std::vector<std::pair<std::string, std::uint64_t>> ignored(m_ignored.begin(), m_ignored.end());
    std::sort(ignored.begin(), ignored.end());
    for (const auto& [reason, n] : ignored)
        reportCount(Severity::Info, -1, reason, n);
    return true;
}

std::string TimelineBuilder::phaseSummary() const
{
    std::string out;
    auto put = [&](unsigned char c) {
        if (m_phaseCount[c] == 0)
            return;
        if (!out.empty())
            out += ", ";
        out += static_cast<char>(c);
        out += ' ';
        out += std::to_string(m_phaseCount[c]);
    };
    const std::string_view order = "XBEiIRnMCstfSTFpbeODNP";
    for (char c : order)
        put(static_cast<unsigned char>(c));
    for (unsigned c = 1; c < 256; ++c)
        if (order.find(static_cast<char>(c)) == std::string_view::npos)
            put(static_cast<unsigned char>(c));
    return out;
}

} // namespace npuscope
