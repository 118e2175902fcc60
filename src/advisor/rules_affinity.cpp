// CMP-AFFINITY: PyTorch host-op sequences that one torch_npu API does in a single fused kernel
// (ADVISOR.md). The patterns are data (the rule's "apis" in thresholds.json): a sequence of
// top-level aten ops on one host thread, or one host op by name (the optimizers' step).
#include "advisor/rule_context.h"
#include "advisor/rule_helpers.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <string_view>

namespace npuscope::advisor {

namespace {

// One element of a sequence pattern: "pow", "slice|chunk", "mul{0,2}", "type_as?".
struct Element {
    std::vector<std::string> names; // lower case, without "aten::"
    std::vector<std::uint32_t> ids; // the profile's string ids of "aten::" + each name it holds
    int min = 1, max = 1;
};

// "pow? mean? add? rsqrt mul type_as?" -> elements; empty when the text does not parse.
std::vector<Element> parsePattern(const std::string& text)
{
    std::vector<Element> out;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && text[i] == ' ')
            ++i;
        std::size_t e = i;
        while (e < text.size() && text[e] != ' ')
            ++e;
        std::string token = lower(text.substr(i, e - i));
        i = e;
        if (token.empty())
            continue;
        Element el;
        if (token.back() == '?') {
            el.min = 0;
            token.pop_back();
        } else if (token.back() == '}') {
            const auto open = token.rfind('{'), comma = token.rfind(',');
            if (open == std::string::npos || comma == std::string::npos || comma < open)
                return {};
            el.min = std::atoi(token.substr(open + 1, comma - open - 1).c_str());
            el.max = std::atoi(token.substr(comma + 1).c_str());
            token.resize(open);
            if (el.min < 0 || el.max < std::max(1, el.min) || el.max > 8)
                return {};
        }
        for (std::size_t s = 0; s <= token.size();) {
            const auto bar = token.find('|', s);
            el.names.push_back(token.substr(s, bar == std::string::npos ? std::string::npos : bar - s));
            if (bar == std::string::npos)
                break;
            s = bar + 1;
        }
        if (std::any_of(el.names.begin(), el.names.end(), [](const std::string& n) { return n.empty(); }))
            return {};
        out.push_back(std::move(el));
    }
    return out;
}

// The pattern's names as the profile's string ids (a name the profile never holds matches nothing).
void resolve(std::vector<Element>& pat, const StringPool& strings)
{
    for (Element& el : pat)
        for (const std::string& name : el.names)
            if (const NameId id = strings.find("aten::" + name); id.valid())
                el.ids.push_back(id.v);
}

// The length of a match of pat[k..] at ops[at..] (each element takes as many ops as it can and
// gives them back one by one until the rest matches), or -1 when there is none. Patterns are a
// handful of elements with small repeats: backtracking is cheap.
long matchAt(const std::vector<Element>& pat, std::size_t k, const std::vector<std::uint32_t>& ops, std::size_t at)
{
    if (k == pat.size())
        return 0;
    const Element& el = pat[k];
    auto is = [&](std::size_t i) {
        return i < ops.size() && std::find(el.ids.begin(), el.ids.end(), ops[i]) != el.ids.end();
    };
    int taken = 0;
    while (taken < el.max && is(at + static_cast<std::size_t>(taken)))
        ++taken;
    for (int n = taken; n >= el.min; --n)
        if (const long rest = matchAt(pat, k + 1, ops, at + static_cast<std::size_t>(n)); rest >= 0)
            return n + rest;
    return -1;
}

// A host thread's top-level aten ops (not nested in another aten op), in time order.
struct HostThread {
    std::vector<std::uint32_t> slices;
    std::vector<std::uint32_t> names; // their names' string ids ("aten::pow", as written by PyTorch)
};

// What the rule reads of the host threads, in one pass over their slices.
struct HostOps {
    std::vector<HostThread> threads;
    std::size_t atenOps = 0, slices = 0;
    // The slices of the host ops the patterns name whole ("Optimizer.step#SGD.step"), by name.
    std::map<std::string, std::vector<std::uint32_t>, std::less<>> named;
};

// `named`: the op names to collect, each with an empty list.
HostOps hostOps(const Profile& p, std::map<std::string, std::vector<std::uint32_t>, std::less<>> named)
{
    HostOps out;
    out.named = std::move(named);
    // What a name is (kNamed, kAten), by string id: most slices share a few hundred names.
    constexpr std::uint8_t kNamed = 1, kAten = 2, kUnknown = 0xFF;
    std::vector<std::uint8_t> kinds(p.strings.size(), kUnknown);
    auto kindOf = [&](NameId id) {
        std::uint8_t unknown = kUnknown;
        std::uint8_t& k = id.v < kinds.size() ? kinds[id.v] : unknown;
        if (k == kUnknown) {
            const std::string_view name = p.str(id);
            k = static_cast<std::uint8_t>((out.named.count(name) ? kNamed : 0) | (name.rfind("aten::", 0) == 0 ? kAten : 0));
        }
        return k;
    };
    for (const Track& t : p.tracks) {
        if (t.kind != TrackKind::Python)
            continue;
        HostThread h;
        TimeNs outerEnd = std::numeric_limits<TimeNs>::min();
        for (std::uint32_t i = t.sliceBegin; i < t.sliceEnd; ++i) {
            const NameId id = p.slices.name[i];
            const std::uint8_t k = kindOf(id);
            if (k & kNamed)
                out.named.find(p.str(id))->second.push_back(i);
            if (!(k & kAten) || p.slices.start[i] < outerEnd)
                continue;
            outerEnd = p.slices.end(i);
            h.slices.push_back(i);
            h.names.push_back(id.v);
        }
        out.slices += t.sliceEnd - t.sliceBegin;
        out.atenOps += h.slices.size();
        if (!h.slices.empty())
            out.threads.push_back(std::move(h));
    }
    return out;
}

// Device time launched from a host thread between two times: the async_npu / HostToDevice flows
// that leave the thread then, summed over the device tasks they reach.
class LaunchedTime {
public:
    explicit LaunchedTime(const Profile& p)
    {
        const FlowTable& fl = p.flows;
        // The flows that reach a stream, counted per launching track first, so that the list of
        // every track is cut from one array of the size needed.
        auto launcher = [&](std::size_t i) {
            const std::uint32_t dst = fl.dstSlice[i];
            if (dst == kNone || dst >= p.slices.size() || !fl.srcTrack[i].valid() || p.slices.track[dst].v >= p.tracks.size()
                || p.tracks[p.slices.track[dst].v].kind != TrackKind::Stream)
                return kNone;
            m_any = true;
            // A source track that is no track is never asked for.
            return fl.srcTrack[i].v < p.tracks.size() ? fl.srcTrack[i].v : kNone;
        };
        m_first.assign(p.tracks.size() + 1, 0);
        for (std::size_t i = 0; i < fl.srcTs.size(); ++i)
            if (const std::uint32_t t = launcher(i); t != kNone)
                ++m_first[t + 1];
        for (std::size_t t = 0; t < p.tracks.size(); ++t)
            m_first[t + 1] += m_first[t];
        m_launches.resize(m_first.back());
        std::vector<std::size_t> next(m_first.begin(), m_first.end() - 1);
        for (std::size_t i = 0; i < fl.srcTs.size(); ++i)
            if (const std::uint32_t t = launcher(i); t != kNone)
                m_launches[next[t]++] = {fl.srcTs[i], p.slices.dur[fl.dstSlice[i]]};
        for (std::size_t t = 0; t < p.tracks.size(); ++t) {
            const auto b = m_launches.begin() + static_cast<std::ptrdiff_t>(m_first[t]);
            const auto e = m_launches.begin() + static_cast<std::ptrdiff_t>(m_first[t + 1]);
            if (!std::is_sorted(b, e)) // flows come in launch order
                std::sort(b, e);
            TimeNs sum = 0;
            for (auto it = b; it != e; ++it)
                it->second = sum += it->second; // prefix sums
        }
    }
    bool any() const { return m_any; }
    TimeNs between(TrackId track, TimeNs begin, TimeNs end) const
    {
        if (track.v + std::size_t{1} >= m_first.size())
            return 0;
        const auto b = m_launches.begin() + static_cast<std::ptrdiff_t>(m_first[track.v]);
        const auto e = m_launches.begin() + static_cast<std::ptrdiff_t>(m_first[track.v + 1]);
        auto at = [&](TimeNs ts) {
            return std::lower_bound(b, e, std::pair<TimeNs, TimeNs>{ts, std::numeric_limits<TimeNs>::min()}) - b;
        };
        const auto x = at(begin), y = at(end);
        return (y > 0 ? b[y - 1].second : 0) - (x > 0 ? b[x - 1].second : 0);
    }

private:
    std::vector<std::size_t> m_first;                       // by track: where its launches start
    std::vector<std::pair<TimeNs, TimeNs>> m_launches;      // (launch ts, Σ device dur so far)
    bool m_any = false;
};

// The innermost frames of a call stack that are not the framework's ("file(line): func ← ...").
std::string userFrames(std::string_view stack, int keep = 3)
{
    std::string out;
    int kept = 0;
    std::size_t s = 0;
    while (s < stack.size() && kept < keep) {
        auto e = stack.find(';', s);
        if (e == std::string_view::npos)
            e = stack.size();
        std::string_view frame = stack.substr(s, e - s);
        while (!frame.empty() && (frame.front() == '\r' || frame.front() == '\n' || frame.front() == ' '))
            frame.remove_prefix(1);
        s = e + 1;
        if (frame.empty() || frame.find("site-packages/") != std::string_view::npos || frame.find("dist-packages/") != std::string_view::npos)
            continue;
        out += (kept++ ? " ← " : "") + std::string(frame);
    }
    return out;
}

struct ApiMatch {
    std::size_t count = 0;
    TimeNs device = 0, host = 0;
    std::vector<std::string> sequences; // distinct op sequences matched, as "pow→mean→…"
    std::vector<std::vector<std::uint32_t>> sequenceIds; // the same by name id
    TopEvidence evidence;

    // The index in `sequences` of the ops' name ids, `text` (made only for a new one) appended
    // when they are new.
    template <typename Text>
    std::size_t sequence(const std::uint32_t* first, std::size_t n, Text text)
    {
        for (std::size_t k = 0; k < sequenceIds.size(); ++k)
            if (std::equal(first, first + n, sequenceIds[k].begin(), sequenceIds[k].end()))
                return k;
        sequenceIds.emplace_back(first, first + n);
        sequences.push_back(text());
        return sequences.size() - 1;
    }
};

void affinity(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    const Profile& p = f.p;
    const nlohmann::json& apis = c.paramJson("apis");
    std::map<std::string, std::vector<std::uint32_t>, std::less<>> wanted;
    for (const nlohmann::json& api : apis.is_array() ? apis : nlohmann::json::array())
        for (const auto& op : api.value("ops", nlohmann::json::array()))
            if (op.is_string())
                wanted[op.get<std::string>()];
    const HostOps host = hostOps(p, std::move(wanted));
    if (host.slices == 0)
        return out.notChecked("needs the PyTorch host ops (cpu_op events of a torch_npu profile, level 1 or 2)");
    const LaunchedTime launched(p);
    out.inputs.push_back("timeline: " + std::to_string(host.atenOps) + " top-level aten ops on " + std::to_string(host.threads.size())
                         + " host threads" + (launched.any() ? ", their launches (async_npu flows)" : ""));
    const double r = c.param("r");
    std::size_t checked = 0;
    for (const nlohmann::json& api : apis.is_array() ? apis : nlohmann::json::array()) {
        const std::string name = api.value("api", std::string());
        if (name.empty())
            continue;
        ++checked;
        ApiMatch m;
        auto offer = [&](std::uint32_t first, std::uint32_t last, TrackId track, std::size_t seq) {
            const TimeNs b = p.slices.start[first], e = p.slices.end(last);
            const TimeNs dev = launched.between(track, b, e);
            ++m.count;
            m.device += dev;
            m.host += e - b;
            m.evidence.offer(dev > 0 ? dev : e - b, [&] {
                Evidence ev;
                ev.at.rank = f.rank;
                ev.at.ts = b;
                ev.at.dur = e - b;
                ev.at.op = m.sequences[seq];
                const std::string stack = userFrames(p.args.find(p.slices.args[first], "Call stack", p.strings));
                if (!stack.empty())
                    ev.at.row = stack;
                ev.metrics = {{"device", static_cast<double>(dev) / 1e3, "µs"}, {"host", static_cast<double>(e - b) / 1e3, "µs"}};
                ev.threshold = "pattern match";
                ev.cost = dev;
                return ev;
            });
        };
        for (const auto& text : api.value("sequences", nlohmann::json::array())) {
            std::vector<Element> pat = text.is_string() ? parsePattern(text.get<std::string>()) : std::vector<Element>{};
            if (pat.empty())
                continue;
            resolve(pat, p.strings);
            for (const HostThread& h : host.threads)
                for (std::size_t i = 0; i < h.names.size();) {
                    const long match = matchAt(pat, 0, h.names, i);
                    const std::size_t n = match > 0 ? static_cast<std::size_t>(match) : 0;
                    if (n < 2) {
                        ++i;
                        continue;
                    }
                    const std::size_t seq = m.sequence(&h.names[i], n, [&] {
                        std::string joined;
                        for (std::size_t j = i; j < i + n; ++j)
                            joined += (j > i ? "→" : "") + std::string(p.str(NameId{h.names[j]}).substr(6));
                        return joined;
                    });
                    offer(h.slices[i], h.slices[i + n - 1], p.slices.track[h.slices[i]], seq);
                    i += n;
                }
        }
        for (const auto& op : api.value("ops", nlohmann::json::array()))
            if (const auto it = op.is_string() ? host.named.find(op.get<std::string>()) : host.named.end(); it != host.named.end())
                for (std::uint32_t s : it->second) {
                    const std::uint32_t id = p.slices.name[s].v;
                    offer(s, s, p.slices.track[s], m.sequence(&id, 1, [&] { return it->first; }));
                }
        if (m.count == 0)
            continue;
        const double device = f.perStep(static_cast<double>(m.device));
        const double host = f.perStep(static_cast<double>(m.host));
        Finding& fd = out.fire(name);
        fd.costNs = roundNs(launched.any() ? device : host);
        const std::string shown = m.sequences.front() + (m.sequences.size() > 1 ? " (+" + std::to_string(m.sequences.size() - 1) + " variants)" : "");
        const std::string times = m.count == 1 ? "once" : std::to_string(m.count) + " times";
        fd.title = "Replaceable by " + name + ": " + shown + ", " + times + ", "
                   + (launched.any() ? fmtMs(device) + "/step on the device" : fmtMs(host) + "/step on the host");
        fd.description = "PyTorch runs " + shown + " as separate operators, " + times + "; " + name + " does the same in one fused kernel"
                         + (api.contains("since") ? " (" + api.value("since", std::string()) + ")" : std::string()) + ".";
        fd.suggestions.push_back("Call " + name + " where the evidence's call stack points"
                                 + (api.contains("note") ? ": " + api.value("note", std::string()) : std::string(".")));
        fd.suggestions.push_back("Check that the installed CANN and torch_npu have it (" + api.value("since", std::string("see the torch_npu API list")) + ").");
        if (launched.any())
            setGain(fd, device * r, "Σ device time of the matched ops " + fmtMs(device) + " × r " + fmtRatio(r));
        else
            noGain(fd, "the profile links no host op to its device tasks (no async_npu flows)");
        m.evidence.moveInto(fd.evidence);
    }
    if (out.fired.empty())
        out.pass(std::to_string(host.atenOps) + " host ops, none in the " + std::to_string(checked) + " API patterns");
}

} // namespace

void addAffinityRules(std::vector<RuleDef>& out)
{
    out.push_back({"CMP-AFFINITY", Category::Computation, false,
                   "PyTorch op sequences that a fused torch_npu API replaces (RMSNorm, rotary, SwiGLU, attention, optimizers)",
                   affinity});
}

} // namespace npuscope::advisor
