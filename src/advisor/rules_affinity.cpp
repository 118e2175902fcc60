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

// The length of a match of pat[k..] at ops[at..] (each element takes as many ops as it can and
// gives them back one by one until the rest matches), or -1 when there is none. Patterns are a
// handful of elements with small repeats: backtracking is cheap.
long matchAt(const std::vector<Element>& pat, std::size_t k, const std::vector<std::string_view>& ops, std::size_t at)
{
    if (k == pat.size())
        return 0;
    const Element& el = pat[k];
    auto is = [&](std::size_t i) {
        return i < ops.size() && std::find(el.names.begin(), el.names.end(), ops[i]) != el.names.end();
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
    std::vector<std::string_view> names; // without "aten::", lower case as written by PyTorch
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
    for (const Track& t : p.tracks) {
        if (t.kind != TrackKind::Python)
            continue;
        HostThread h;
        TimeNs outerEnd = std::numeric_limits<TimeNs>::min();
        for (std::uint32_t i = t.sliceBegin; i < t.sliceEnd; ++i) {
            const std::string_view name = p.str(p.slices.name[i]);
            if (const auto it = out.named.find(name); it != out.named.end())
                it->second.push_back(i);
            if (name.rfind("aten::", 0) != 0 || p.slices.start[i] < outerEnd)
                continue;
            outerEnd = p.slices.end(i);
            h.slices.push_back(i);
            h.names.push_back(name.substr(6));
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
        for (std::size_t i = 0; i < fl.srcTs.size(); ++i) {
            const std::uint32_t dst = fl.dstSlice[i];
            if (dst == kNone || dst >= p.slices.size() || !fl.srcTrack[i].valid() || p.slices.track[dst].v >= p.tracks.size())
                continue;
            const TrackKind k = p.tracks[p.slices.track[dst].v].kind;
            if (k != TrackKind::Stream)
                continue;
            m_byTrack[fl.srcTrack[i]].push_back({fl.srcTs[i], p.slices.dur[dst]});
        }
        for (auto& [track, v] : m_byTrack) {
            std::sort(v.begin(), v.end());
            TimeNs sum = 0;
            for (auto& [ts, dur] : v)
                dur = sum += dur; // prefix sums
        }
    }
    bool any() const { return !m_byTrack.empty(); }
    TimeNs between(TrackId track, TimeNs begin, TimeNs end) const
    {
        const auto it = m_byTrack.find(track);
        if (it == m_byTrack.end())
            return 0;
        const auto& v = it->second;
        auto at = [&v](TimeNs ts) {
            return std::lower_bound(v.begin(), v.end(), std::pair<TimeNs, TimeNs>{ts, std::numeric_limits<TimeNs>::min()}) - v.begin();
        };
        const auto a = at(begin), b = at(end);
        return (b > 0 ? v[static_cast<std::size_t>(b - 1)].second : 0) - (a > 0 ? v[static_cast<std::size_t>(a - 1)].second : 0);
    }

private:
    std::map<TrackId, std::vector<std::pair<TimeNs, TimeNs>>> m_byTrack; // (launch ts, Σ device dur so far)
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
    TopEvidence evidence;
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
        auto offer = [&](std::uint32_t first, std::uint32_t last, TrackId track, const std::string& seq) {
            const TimeNs b = p.slices.start[first], e = p.slices.end(last);
            const TimeNs dev = launched.between(track, b, e);
            ++m.count;
            m.device += dev;
            m.host += e - b;
            if (std::find(m.sequences.begin(), m.sequences.end(), seq) == m.sequences.end())
                m.sequences.push_back(seq);
            m.evidence.offer(dev > 0 ? dev : e - b, [&] {
                Evidence ev;
                ev.at.rank = f.rank;
                ev.at.ts = b;
                ev.at.dur = e - b;
                ev.at.op = seq;
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
            const std::vector<Element> pat = text.is_string() ? parsePattern(text.get<std::string>()) : std::vector<Element>{};
            if (pat.empty())
                continue;
            for (const HostThread& h : host.threads)
                for (std::size_t i = 0; i < h.names.size();) {
                    const long match = matchAt(pat, 0, h.names, i);
                    const std::size_t n = match > 0 ? static_cast<std::size_t>(match) : 0;
                    if (n < 2) {
                        ++i;
                        continue;
                    }
                    std::string seq;
                    for (std::size_t j = i; j < i + n; ++j)
                        seq += (j > i ? "→" : "") + std::string(h.names[j]);
                    offer(h.slices[i], h.slices[i + n - 1], p.slices.track[h.slices[i]], seq);
                    i += n;
                }
        }
        for (const auto& op : api.value("ops", nlohmann::json::array()))
            if (const auto it = op.is_string() ? host.named.find(op.get<std::string>()) : host.named.end(); it != host.named.end())
                for (std::uint32_t s : it->second)
                    offer(s, s, p.slices.track[s], std::string(it->first));
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
