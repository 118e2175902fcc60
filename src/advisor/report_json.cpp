// JSON report: the test reference. Deterministic order (nlohmann::ordered_json), every rule
// status, every finding with all its evidence.
#include "advisor/report_common.h"

#include "model/store/safe_text.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace npuscope::advisor {

namespace {

using oj = nlohmann::ordered_json;

oj num(double v) { return !isMissing(v) ? oj(v) : oj(nullptr); }

oj locatorJson(const Locator& l)
{
    oj j = oj::object();
    if (l.rank >= 0)
        j["rank"] = l.rank;
    if (l.device >= 0)
        j["device"] = l.device;
    if (l.stream >= 0)
        j["stream"] = l.stream;
    if (l.ts)
        j["ts_ns"] = *l.ts;
    if (l.dur)
        j["dur_ns"] = *l.dur;
    if (!l.op.empty())
        j["op"] = l.op;
    if (!l.shapes.empty())
        j["shapes"] = l.shapes;
    if (!l.row.empty())
        j["row"] = l.row;
    if (!l.link.empty())
        j["link"] = l.link;
    const std::string u = l.url();
    if (!u.empty())
        j["url"] = u;
    return j;
}

oj gainJson(const Gain& gain)
{
    oj g;
    g["estimated"] = gain.estimated;
    if (gain.estimated) {
        g["ns_per_step"] = gain.nsPerStep;
        g["us_per_step"] = gain.nsPerStep / 1e3;
        g["share_of_step"] = gain.shareOfT;
        g["formula"] = gain.formula;
    } else {
        g["reason"] = gain.reason;
    }
    g["text"] = gain.text();
    return g;
}

// The action plan: its actions in order, and the estimated step after them.
// The roofs per rank, then one entry per op type and shape (roofline.h). Per-call FLOPs and bytes,
// rates over all its calls; null where not derived.
oj roofsJson(const AdvisorReport& r)
{
    oj out = oj::array();
    for (const auto& f : r.roofs)
        out.push_back(oj{{"rank", f.rank}, {"soc", f.soc}, {"soc_entry", f.socEntry}, {"known", f.known},
                         {"ai_cores", f.aiCores}, {"vector_cores", f.vectorCores}, {"mhz", num(f.mhz)},
                         {"cube_fp16_flops", num(f.cubeFp16)}, {"cube_int8_ops", num(f.cubeInt8)},
                         {"vector_fp16_flops", num(f.vectorFp16)}, {"vector_fp32_flops", num(f.vectorFp32)},
                         {"hbm_bytes_per_s", num(f.hbmBytesPerS)}, {"sources", f.sources}});
    return out;
}

oj rooflineJson(const AdvisorReport& r)
{
    oj out = oj::array();
    for (const auto& p : r.roofline)
        out.push_back(oj{{"rank", p.rank},           {"op_type", p.opType},       {"shapes", p.shapes},
                         {"dtypes", p.dtypes},       {"unit", p.unit},            {"count", p.count},
                         {"time_ns", num(p.timeNs)}, {"flops", num(p.flops)},     {"flops_from", p.flopsFrom},
                         {"bytes", num(p.bytes)},    {"bytes_from", p.bytesFrom}, {"intensity", num(p.intensity)},
                         {"achieved_flops_per_s", num(p.achievedFlops)},          {"achieved_bytes_per_s", num(p.achievedBytes)},
                         {"peak_flops_per_s", num(p.peak)}, {"attainable_flops_per_s", num(p.attainable)},
                         {"bound", p.bound}});
    return out;
}

oj planJson(const AdvisorReport& r)
{
    oj items = oj::array();
    for (std::size_t i = 0; i < r.plan.size(); ++i) {
        const PlanItem& p = r.plan[i];
        items.push_back(oj{{"index", i}, {"finding", p.findingId}, {"title", p.title}, {"action", p.action},
                           {"tasks_claimed", p.tasks}, {"gain", gainJson(p.gain)}, {"also_findings", p.alsoFindings}});
    }
    return items;
}

oj findingJson(const Finding& f)
{
    oj j;
    j["id"] = f.id;
    j["rule"] = f.rule;
    j["category"] = categoryName(f.category);
    j["status"] = statusName(f.status);
    if (f.status == Status::Fired) {
        j["severity"] = severityName(f.severity);
        if (f.minor)
            j["minor"] = true;
        j["cost_ns_per_step"] = f.costNs;
        j["cost_share"] = f.costShare;
        j["title"] = f.title;
        j["description"] = f.description;
        j["suggestions"] = f.suggestions;
        j["gain"] = gainJson(f.gain);
        if (f.planItem >= 0)
            j["plan_item"] = f.planItem;
        else if (!f.notInPlan.empty())
            j["not_in_plan"] = f.notInPlan;
        oj ev = oj::array();
        for (const auto& e : f.evidence) {
            oj x;
            x["at"] = locatorJson(e.at);
            x["text"] = e.at.text();
            oj ms = oj::array();
            for (const auto& m : e.metrics)
                ms.push_back(oj{{"name", m.name}, {"value", num(m.value)}, {"unit", m.unit}});
            x["metrics"] = ms;
            x["threshold"] = e.threshold;
            x["cost_ns"] = e.cost;
            ev.push_back(x);
        }
        j["evidence"] = ev;
    } else {
        j["summary"] = f.title;
    }
    if (!f.needs.empty())
        j["needs"] = f.needs;
    if (!f.check.empty())
        j["check"] = f.check;
    if (!f.error.empty())
        j["error"] = f.error;
    j["inputs"] = f.inputs;
    oj sc;
    sc["ranks"] = f.scope.ranks;
    sc["cluster"] = f.scope.cluster;
    if (f.scope.device >= 0)
        sc["device"] = f.scope.device;
    if (!f.scope.steps.empty())
        sc["steps"] = f.scope.steps;
    if (!f.scope.worstStep.empty())
        sc["worst_step"] = f.scope.worstStep;
    sc["text"] = f.scope.text();
    j["scope"] = sc;
    return j;
}

} // namespace

std::string writeJson(const AdvisorReport& r)
{
    oj j;
    j["schema_version"] = r.schemaVersion;
    const auto& id = r.identity;
    j["identity"] = oj{{"name", id.name},
                       {"path", id.path},
                       {"layout", id.layout},
                       {"ranks", id.ranks},
                       {"soc", id.soc},
                       {"cann_version", id.cannVersion},
                       {"torch_npu_version", id.torchNpuVersion},
                       {"capture_time", id.captureTime},
                       {"profiler_level", id.profilerLevel},
                       {"npuscope_version", id.npuscopeVersion}};
    oj th;
    th["source"] = r.thresholdsSource;
    oj ov = oj::array();
    for (const auto& o : r.overrides)
        ov.push_back(oj{{"key", o.key},
                        {"value", oj::parse(o.value)},
                        {"default", o.defaultValue.empty() ? oj(nullptr) : oj::parse(o.defaultValue)},
                        {"origin", o.origin}});
    th["overrides"] = ov;
    th["warnings"] = r.warnings;
    j["thresholds"] = th;
    const auto& sm = r.summary;
    oj s;
    s["step_ns"] = sm.T;
    s["step_source"] = sm.tSource;
    s["steps"] = sm.steps;
    s["partial_steps"] = sm.partial;
    s["step_min_ns"] = sm.stepMin;
    s["step_median_ns"] = sm.stepMedian;
    s["step_max_ns"] = sm.stepMax;
    oj ranks = oj::array();
    for (const auto& rs : sm.ranks) {
        oj x;
        x["rank"] = rs.rank;
        x["step_ns"] = rs.T();
        x["computing_ns"] = static_cast<double>(rs.split.computing);
        x["comm_not_overlapped_ns"] = static_cast<double>(rs.split.commNotOverlapped);
        x["free_ns"] = static_cast<double>(rs.split.free);
        oj cp = oj::object(), mp = oj::object();
        for (const auto& p : rs.computingParts)
            cp[p.name] = p.ns;
        for (const auto& p : rs.commParts)
            mp[p.name] = p.ns;
        x["computing_parts_ns"] = cp;
        x["comm_parts_ns"] = mp;
        x["source"] = rs.split.source;
        x["steps"] = rs.split.steps;
        x["partial_steps"] = rs.split.partial;
        ranks.push_back(x);
    }
    s["ranks"] = ranks;
    s["counts"] = oj{{"high", sm.high},     {"medium", sm.medium},         {"low", sm.low},
                     {"fired", sm.fired},   {"passed", sm.passed},         {"not_checked", sm.notChecked},
                     {"minor", sm.minor},   {"disabled", sm.disabled}, {"error", sm.errors}};
    s["top_gains"] = sm.topGains;
    j["summary"] = s;
    j["plan"] = planJson(r);
    j["plan_step_ns"] = r.planStepNs;
    j["plan_formula"] = planFormula(r);
    j["roofs"] = roofsJson(r);
    j["roofline"] = rooflineJson(r);
    // Every rule once, with the statuses it reached (per scope).
    oj rules = oj::object();
    for (const auto& info : ruleCatalog()) {
        oj statuses = oj::array();
        for (const auto& f : r.findings)
            if (f.rule == info.id) {
                const std::string st = statusName(f.status);
                if (std::find(statuses.begin(), statuses.end(), oj(st)) == statuses.end())
                    statuses.push_back(st);
            }
        rules[info.id] = oj{{"category", categoryName(info.category)}, {"statuses", statuses}};
    }
    j["rules"] = rules;
    oj fs = oj::array();
    for (const auto& f : r.findings)
        fs.push_back(findingJson(f));
    j["findings"] = fs;
    j["inputs"] = r.inputs;
    j["input_problems"] = toJson(r.inputProblems);
    j["cancelled"] = r.cancelled;
    j["repaired_strings"] = text::invalidStrings(j);
    return text::dumpJson(j, 2) + "\n";
}

} // namespace npuscope::advisor
