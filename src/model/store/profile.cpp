#include "model/store/profile.h"

#include "model/store/cancellable_rows.h"
#include "model/store/decimal_digits.h"
#include "model/store/session.h"

#include <algorithm>
#include <initializer_list>

namespace npuscope {

const char* trackKindName(TrackKind k)
{
    switch (k) {
    case TrackKind::Stream: return "stream";
    case TrackKind::CommGroup: return "communication";
    case TrackKind::CommPlane: return "plane";
    case TrackKind::Overlap: return "overlap";
    case TrackKind::Cann: return "cann";
    case TrackKind::Python: return "python";
    case TrackKind::Other: return "other";
    }
    return "other";
}

std::uint32_t SliceTable::add(TimeNs s, TimeNs d, NameId n, NameId cat, TrackId t, std::uint32_t taskIdValue,
                              std::uint32_t argsRow)
{
    const auto row = static_cast<std::uint32_t>(start.size());
    start.push_back(s);
    dur.push_back(d < 0 ? 0 : d);
    name.push_back(n);
    category.push_back(cat);
    track.push_back(t);
    taskId.push_back(taskIdValue);
    kernel.push_back(kNone);
    args.push_back(argsRow);
    depth.push_back(0);
    return row;
}

void SliceTable::setSubtask(std::uint32_t row, std::uint32_t id)
{
    subtaskRow.push_back(row);
    subtaskId.push_back(id);
}

std::uint32_t SliceTable::subtask(std::uint32_t row) const
{
    const auto it = std::lower_bound(subtaskRow.begin(), subtaskRow.end(), row);
    if (it == subtaskRow.end() || *it != row)
        return kNone;
    return subtaskId[static_cast<std::size_t>(it - subtaskRow.begin())];
}

bool SliceTable::reserve(std::size_t n, const std::atomic<bool>* cancel)
{
    const auto cancelled = [cancel] { return isCancelled(cancel); };
    return reserveRows(start, n, cancelled) && reserveRows(dur, n, cancelled) && reserveRows(name, n, cancelled)
           && reserveRows(category, n, cancelled) && reserveRows(track, n, cancelled)
           && reserveRows(taskId, n, cancelled) && reserveRows(kernel, n, cancelled) && reserveRows(args, n, cancelled)
           && reserveRows(depth, n, cancelled);
}


bool FlowTable::plainNumber(std::string_view text, std::uint64_t& value)
{
    return (text.size() == 1 || (!text.empty() && text[0] != '0')) && digits::plainDecimal(text, 19, value);
}

void FlowTable::addId(std::string_view text, StringPool& pool)
{
    std::uint64_t v = 0;
    if (plainNumber(text, v)) {
        idNumber.push_back(v);
        idText.push_back(NameId());
    } else {
        idNumber.push_back(0);
        idText.push_back(pool.intern(text));
    }
}

std::string FlowTable::idOf(std::size_t flow, const StringPool& pool) const
{
    if (idText[flow].valid())
        return std::string(pool.view(idText[flow]));
    return std::to_string(idNumber[flow]);
}

std::string FlowTable::nameOf(std::size_t flow, const StringPool& pool) const
{
    if (name[flow].valid())
        return std::string(pool.view(name[flow]));
    return std::string(pool.view(category[flow])) + idOf(flow, pool);
}

int KernelTable::metricIndex(std::initializer_list<const char*> names) const
{
    for (const char* n : names) {
        for (std::size_t i = 0; i < metricNames.size(); ++i)
            if (metricNames[i] == n)
                return static_cast<int>(i);
    }
    return -1;
}

int KernelTable::metricIndex(const std::string& n) const
{
    for (std::size_t i = 0; i < metricNames.size(); ++i)
        if (metricNames[i] == n)
            return static_cast<int>(i);
    return -1;
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> Profile::sliceRanges(TrackKind kind) const
{
    std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;
    for (const Track& t : tracks)
        if (t.kind == kind && t.sliceEnd > t.sliceBegin)
            ranges.emplace_back(t.sliceBegin, t.sliceEnd);
    return ranges;
}

void Profile::restoreIndexes(bool finalized)
{
    m_trackIndex.clear();
    for (std::size_t i = 0; i < tracks.size(); ++i)
        m_trackIndex.emplace(std::make_pair(tracks[i].pid, tracks[i].tid), static_cast<std::uint32_t>(i));
    m_counterIndex.clear();
    for (std::size_t i = 0; i < counters.size(); ++i)
        m_counterIndex.emplace(std::make_tuple(counters[i].pid, counters[i].name.v, counters[i].key.v),
                               static_cast<std::uint32_t>(i));
    args.rebuildKeyIndex();
    m_finalized = finalized;
}

TrackId Profile::trackFor(std::int64_t pid, std::int64_t tid)
{
    const auto key = std::make_pair(pid, tid);
    if (auto it = m_trackIndex.find(key); it != m_trackIndex.end())
        return TrackId(it->second);
    Track t;
    t.pid = pid;
    t.tid = tid;
    tracks.push_back(t);
    const auto id = static_cast<std::uint32_t>(tracks.size() - 1);
    m_trackIndex.emplace(key, id);
    m_finalized = false;
    return TrackId(id);
}

CounterSeries& Profile::counterFor(std::int64_t pid, NameId n, NameId key)
{
    const auto k = std::make_tuple(pid, n.v, key.v);
    if (auto it = m_counterIndex.find(k); it != m_counterIndex.end())
        return counters[it->second];
    CounterSeries c;
    c.pid = pid;
    c.name = n;
    c.key = key;
    counters.push_back(std::move(c));
    m_counterIndex.emplace(k, static_cast<std::uint32_t>(counters.size() - 1));
    m_finalized = false;
    return counters.back();
}

void Profile::report(Severity s, std::string file, std::int64_t line, std::int64_t byteOffset, std::string reason)
{
    // Merge repeats of the same reason in the same file: keep the first location, count the rest.
    for (auto it = diagnostics.rbegin(); it != diagnostics.rend() && it - diagnostics.rbegin() < 64; ++it) {
        if (it->file == file && it->reason == reason && it->severity == s) {
            ++it->count;
            return;
        }
    }
    diagnostics.push_back(Diagnostic{s, std::move(file), line, byteOffset, std::move(reason), 1});
}

const DeviceInfo* Profile::info(int device) const
{
    for (const auto& d : deviceInfo)
        if (d.device == device)
            return &d;
    if (device < 0 && !deviceInfo.empty())
        return &deviceInfo.front();
    return nullptr;
}

std::uint64_t Profile::skippedTotal() const
{
    std::uint64_t n = 0;
    for (const auto& f : files)
        n += f.skipped;
    return n;
}

std::uint64_t Session::skippedTotal() const
{
    std::uint64_t n = 0;
    for (const auto& f : files)
        n += f.skipped;
    for (const auto& r : ranks)
        n += r->skippedTotal();
    return n;
}

std::uint64_t Session::loadedBytes() const
{
    std::uint64_t n = 0;
    const auto add = [&n](const std::vector<FileRecord>& files) {
        for (const auto& f : files)
            if (wasRead(f))
                n += f.bytes;
    };
    add(files);
    for (const auto& r : ranks)
        add(r->files);
    return n;
}

} // namespace npuscope
