// One finding per op type or op-type sequence: a rule that fires once per shape variant
// (CMP-CUBE-MEMBOUND per MatMulV2 shape, CMP-FUSE per window of the same types) reports the
// variants as evidence rows of one finding, whose cost and gain are the variants' sums.
#include "advisor/rule_context.h"

#include <algorithm>
#include <map>

namespace npuscope::advisor {

namespace {

// The row that stands for one variant in the merged finding: where its costliest evidence
// row points, its title, its cost and gain per step.
Evidence variantRow(const Finding& v)
{
    Evidence e;
    if (!v.evidence.empty()) {
        e.at = v.evidence.front().at;
        e.threshold = v.evidence.front().threshold;
    }
    e.at.row = "variant: " + v.title;
    e.metrics.push_back({"cost", static_cast<double>(v.costNs) / 1e6, "ms/step"});
    e.metrics.push_back({"gain", v.gain.estimated ? v.gain.nsPerStep / 1e6 : kNaN, "ms/step"});
    e.cost = v.costNs;
    return e;
}

// `variants` (costliest first) as one finding: cost, cost share and gain are their sums (each
// variant's tasks are its own, so the sums count no task twice); the evidence is one row per
// variant, then the variants' own rows.
Finding mergeGroup(std::vector<Finding>& variants, const std::string& key, const Thresholds& th)
{
    Finding m = variants.front();
    const std::size_t n = variants.size();
    m.id = m.rule + "/" + key;
    m.costNs = 0;
    m.costShare = 0;
    m.claims.clear();
    m.replay = WhatIfChanges{};
    double gain = 0, gainShare = 0;
    std::size_t estimated = 0;
    std::string terms;
    std::vector<Evidence> rows, detail;
    for (const Finding& v : variants) {
        m.costNs += v.costNs;
        m.costShare += v.costShare;
        if (v.gain.estimated) {
            gain += v.gain.nsPerStep;
            gainShare += v.gain.shareOfT;
            terms += (estimated++ ? " + " : "") + fmtMs(v.gain.nsPerStep);
        }
        rows.push_back(variantRow(v));
        m.claims.insert(m.claims.end(), v.claims.begin(), v.claims.end());
        m.replay.add(v.replay);
        detail.insert(detail.end(), v.evidence.begin(), v.evidence.end());
        for (int r : v.scope.ranks)
            if (std::find(m.scope.ranks.begin(), m.scope.ranks.end(), r) == m.scope.ranks.end())
                m.scope.ranks.push_back(r);
        for (const auto& s : v.suggestions)
            if (std::find(m.suggestions.begin(), m.suggestions.end(), s) == m.suggestions.end())
                m.suggestions.push_back(s);
    }
    std::sort(m.scope.ranks.begin(), m.scope.ranks.end());
    const std::string label = m.familyTitle.empty() ? m.title : m.familyTitle;
    m.title = label + ": " + std::to_string(n) + " shape variants, " + fmtMs(static_cast<double>(m.costNs)) + "/step";
    m.description = std::to_string(n) + " shape variants of " + label + " meet the rule's condition, together "
                    + fmtMs(static_cast<double>(m.costNs)) + " per step; each has a row in the evidence. The costliest: "
                    + variants.front().description;
    if (estimated) {
        m.gain.estimated = true;
        m.gain.nsPerStep = gain;
        m.gain.shareOfT = gainShare;
        m.gain.formula = "Σ over " + std::to_string(estimated) + " variants (" + terms + ") = " + fmtMs(gain);
        m.gain.reason.clear();
    }
    m.evidence = std::move(rows);
    m.evidence.insert(m.evidence.end(), std::make_move_iterator(detail.begin()), std::make_move_iterator(detail.end()));
    m.minor = std::all_of(variants.begin(), variants.end(), [](const Finding& v) { return v.minor; });
    resolveSeverity(m, th);
    if (m.minor)
        m.severity = FindingSeverity::Low;
    return m;
}

// Merges the findings in [first, end) whose key(f) is not empty and shared, in place: the
// merged finding takes the place of the first of its group.
template <typename Key>
void mergeBy(std::vector<Finding>& fired, std::size_t first, const Thresholds& th, Key&& key)
{
    std::map<std::string, std::vector<std::size_t>> groups;
    for (std::size_t i = first; i < fired.size(); ++i) {
        const std::string k = key(fired[i]);
        if (!k.empty())
            groups[k].push_back(i);
    }
    std::vector<char> drop(fired.size(), 0);
    for (auto& [k, idx] : groups) {
        if (idx.size() < 2)
            continue;
        std::vector<Finding> variants;
        for (std::size_t i : idx) {
            variants.push_back(std::move(fired[i]));
            drop[i] = 1;
        }
        std::stable_sort(variants.begin(), variants.end(), [](const Finding& a, const Finding& b) { return a.costNs > b.costNs; });
        const Finding& lead = variants.front();
        const std::string family = !lead.family.empty() ? lead.family : lead.id.substr(lead.id.find('/') + 1);
        fired[idx.front()] = mergeGroup(variants, family, th);
        drop[idx.front()] = 0;
    }
    std::size_t w = first;
    for (std::size_t i = first; i < fired.size(); ++i)
        if (!drop[i]) {
            if (w != i)
                fired[w] = std::move(fired[i]);
            ++w;
        }
    fired.resize(w);
}

} // namespace

void mergeVariants(std::vector<Finding>& fired, std::size_t first, const Thresholds& th)
{
    mergeBy(fired, first, th, [](const Finding& f) { return f.family.empty() ? std::string() : f.rule + "\n" + f.family; });
    mergeBy(fired, first, th, [](const Finding& f) { return f.rule + "\n" + f.title; });
}

} // namespace npuscope::advisor
