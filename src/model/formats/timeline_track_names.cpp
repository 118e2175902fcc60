// TimelineBuilder's naming and classifying of tracks once every event is in, and the names of
// processes whose metadata was never read.
#include "model/formats/timeline_track_names.h"
#include "model/formats/number_text.h"
#include "model/formats/timeline_builder.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>
#include <unordered_map>

namespace npuscope {

namespace {

// What the events of one track say, in the order one sign outweighs another: a device task
// makes a stream whatever else the track holds.
enum Sign : std::uint8_t { None, Python, Cann, Overlap, Device };

constexpr std::array<std::string_view, 4> kOverlapLanes = {"Computing", "Communication",
                                                           "Communication(Not Overlapped)", "Free"};
constexpr std::array<std::string_view, 5> kPythonCategories = {"cpu_op", "python_function", "enqueue", "dequeue",
                                                               "user_annotation"};

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// "Stream 212" -> 212; "NPU 3" -> 3 (the number after the prefix), else nullopt.
std::optional<std::int64_t> numberAfter(std::string_view s, std::string_view prefix)
{
    if (!startsWith(s, prefix))
        return std::nullopt;
    return parseInt64(s.substr(prefix.size()));
}

std::string_view processOf(Sign s)
{
    switch (s) {
    case Device: return "Ascend Hardware";
    case Overlap: return "Overlap Analysis";
    case Cann: return "CANN";
    case Python: return "Python";
    case None: break;
    }
    return {};
}

} // namespace

std::vector<InferredTrackName> inferTrackNames(const Profile& p, const std::function<bool(std::int64_t)>& processNamed,
                                               const std::function<bool(std::int64_t, std::int64_t)>& threadNamed)
{
    std::vector<char> unnamed(p.tracks.size(), 0);
    bool any = false;
    for (std::size_t t = 0; t < p.tracks.size(); ++t) {
        const Track& tr = p.tracks[t];
        unnamed[t] = !processNamed(tr.pid) || !threadNamed(tr.pid, tr.tid);
        any = any || unnamed[t];
    }
    if (!any)
        return {};

    // The signs by string id, each string looked at once.
    std::vector<NameId> python;
    for (std::string_view c : kPythonCategories)
        if (const NameId id = p.strings.find(c); id.valid())
            python.push_back(id);
    std::unordered_map<std::uint32_t, Sign> nameSign;
    auto signOfName = [&](NameId name) {
        auto [it, fresh] = nameSign.try_emplace(name.v, None);
        if (fresh) {
            const std::string_view n = p.strings.view(name);
            if (n.starts_with("AscendCL@"))
                it->second = Cann;
            for (std::string_view lane : kOverlapLanes)
                if (n == lane)
                    it->second = Overlap;
        }
        return it->second;
    };
    std::vector<Sign> trackSign(p.tracks.size(), None);
    std::vector<NameId> laneName(p.tracks.size()); // an overlap lane's one name
    const SliceTable& s = p.slices;
    for (std::size_t row = 0; row < s.size(); ++row) {
        const std::uint32_t t = s.track[row].v;
        if (t >= unnamed.size() || !unnamed[t] || trackSign[t] == Device)
            continue;
        Sign sign = None;
        if (s.taskId[row] != kNone)
            sign = Device;
        else if (std::find(python.begin(), python.end(), s.category[row]) != python.end())
            sign = Python;
        else
            sign = signOfName(s.name[row]);
        if (sign == Overlap)
            laneName[t] = s.name[row];
        trackSign[t] = std::max(trackSign[t], sign);
    }
    // A process is what its most telling track says.
    std::unordered_map<std::int64_t, Sign> processSign;
    for (std::size_t t = 0; t < p.tracks.size(); ++t)
        if (unnamed[t]) {
            Sign& ps = processSign[p.tracks[t].pid];
            ps = std::max(ps, trackSign[t]);
        }

    std::vector<InferredTrackName> out;
    for (std::size_t t = 0; t < p.tracks.size(); ++t) {
        if (!unnamed[t])
            continue;
        const Track& tr = p.tracks[t];
        const Sign ps = processSign[tr.pid];
        InferredTrackName n;
        n.track = static_cast<std::uint32_t>(t);
        if (!processNamed(tr.pid))
            n.process = std::string(processOf(ps));
        if (!threadNamed(tr.pid, tr.tid)) {
            if (trackSign[t] == Device)
                n.thread = "Stream " + std::to_string(tr.tid);
            else if (trackSign[t] == Overlap && laneName[t].valid())
                n.thread = std::string(p.strings.view(laneName[t]));
        }
        if (!n.process.empty() || !n.thread.empty())
            out.push_back(std::move(n));
    }
    return out;
}

void TimelineBuilder::classifyTracks()
{
    auto deviceFor = [this](std::int64_t pid) -> int {
        std::string_view label;
        if (auto it = m_procLabel.find(pid); it != m_procLabel.end())
            label = m_p.strings.view(it->second);
        if (auto d = numberAfter(label, "NPU "); d && *d >= 0 && *d < 1 << 20)
            return static_cast<int>(*d);
        // msprof packs realPid<<10 | sortIndex<<5 | device (31 = host). Older torch_npu pids are
        // not packed, so decode only when the sort index is really encoded in the pid.
        if (auto it = m_procSort.find(pid);
            it != m_procSort.end() && pid >= 1024 && ((pid >> 5) & 31) == it->second && (pid & 31) != 31)
            return static_cast<int>(pid & 31);
        if (startsWith(label, "NPU") && m_ctx.device >= 0)
            return m_ctx.device;
        return -1;
    };
    // Processes whose metadata was never read (it follows their events: timeline_track_names.h).
    std::uint64_t inferred = 0;
    for (const InferredTrackName& n : inferTrackNames(
             m_p, [this](std::int64_t pid) { return m_procName.contains(pid); },
             [this](std::int64_t pid, std::int64_t tid) { return m_threadName.contains({pid, tid}); })) {
        const Track& t = m_p.tracks[n.track];
        if (!n.process.empty())
            inferred += m_procName.try_emplace(t.pid, m_p.strings.intern(n.process)).second;
        if (!n.thread.empty())
            m_threadName.try_emplace({t.pid, t.tid}, m_p.strings.intern(n.thread));
    }
    reportCount(Severity::Warning, -1, "processes without process_name metadata named by their events", inferred);
    std::vector<int> devices = m_p.devices;
    for (std::size_t i = 0; i < m_p.tracks.size(); ++i) {
        Track& t = m_p.tracks[i];
        if (auto it = m_procName.find(t.pid); it != m_procName.end())
            t.process = it->second;
        if (auto it = m_threadName.find({t.pid, t.tid}); it != m_threadName.end())
            t.thread = it->second;
        if (auto it = m_procLabel.find(t.pid); it != m_procLabel.end())
            t.processLabel = it->second;
        if (auto it = m_procSort.find(t.pid); it != m_procSort.end())
            t.processSort = it->second;
        if (auto it = m_threadSort.find({t.pid, t.tid}); it != m_threadSort.end())
            t.threadSort = it->second;
        t.device = deviceFor(t.pid);
        const std::string_view proc = m_p.strings.view(t.process);
        const std::string_view thread = m_p.strings.view(t.thread);
        if (proc == "Ascend Hardware") {
            t.kind = TrackKind::Stream;
            t.streamId = numberAfter(thread, "Stream ").value_or(t.tid);
            if (auto it = m_physStream.find(static_cast<std::uint32_t>(i)); it != m_physStream.end())
                t.streamId = it->second;
            if (t.device >= 0 && std::find(devices.begin(), devices.end(), t.device) == devices.end())
                devices.push_back(t.device);
        } else if (proc == "Communication" || proc == "HCCL") {
            if (startsWith(thread, "Plane"))
                t.kind = TrackKind::CommPlane;
            else if (startsWith(thread, "Group") || thread.find("Communication") != std::string_view::npos)
                t.kind = TrackKind::CommGroup;
            else
                t.kind = TrackKind::Other;
        } else if (proc == "Overlap Analysis") {
            t.kind = TrackKind::Overlap;
        } else if (proc == "CANN") {
            t.kind = TrackKind::Cann;
        } else if (proc == "Python") {
            t.kind = TrackKind::Python;
        } else {
            t.kind = TrackKind::Other;
        }
    }
    std::sort(devices.begin(), devices.end());
    m_p.devices = devices;
    for (auto& c : m_p.counters) {
        if (auto it = m_procName.find(c.pid); it != m_procName.end() && !c.process.valid())
            c.process = it->second;
        if (c.device < 0)
            c.device = deviceFor(c.pid);
    }
}

} // namespace npuscope
