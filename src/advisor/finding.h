#pragma once
// One advisor result: a rule's verdict on one scope (rank, ranks or cluster). A fired rule
// yields one Finding per instance ("CMP-AICPU/NonZero"); a rule that did not fire yields one
// Finding carrying its status (passed, disabled, not_checked, error) so every rule is accounted
// for in every export.
#include "model/analysis/whatif.h"
#include "model/store/ids.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace npuscope::advisor {

enum class Category : std::uint8_t { Computation, Communication, Scheduling, Memory, Cluster };
enum class Status : std::uint8_t { Fired, Passed, Disabled, NotChecked, Error };
enum class FindingSeverity : std::uint8_t { High, Medium, Low, None };

const char* categoryName(Category c);      // "computation", ...
const char* statusName(Status s);          // "fired", "passed", "disabled", "not_checked", "error"
const char* severityName(FindingSeverity s); // "high", "medium", "low", ""
// The report colour of a severity (ADVISOR.md §4), shared by HTML, PDF and the GUI: "#B5495B",
// "#fcaf17", "#65c294"; "#999999" for none.
const char* severityColour(FindingSeverity s);
// Parses "high"/"medium"/"low"; anything else gives None.
FindingSeverity severityFromName(const std::string& s);

// Where an evidence row points: a timeline event, an operator, a table row, a rank or a link.
struct Locator {
    int rank = -1;
    int device = -1;
    std::int64_t stream = -1;
    std::optional<TimeNs> ts;   // start of the event
    std::optional<TimeNs> dur;
    std::string op;             // operator name or type
    std::string shapes;         // input shapes (and dtypes) when an operator
    std::string row;            // table row text ("communication.json step2 hcom_allReduce__1")
    std::string link;           // "0-1 HCCS" for link rows

    // "rank 0 · stream 2 · ts 1736412474766.695 ms (120.0 µs) · MatMulV2 [..]"; with an origin
    // (the trace start the timeline's axis counts from), "... · at 52.301 ms (120.0 µs) · ...".
    std::string text(std::optional<TimeNs> origin = std::nullopt) const;
    // npuscope://timeline?rank=0&device=0&stream=2&ts=..&dur=.. ,
    // npuscope://ops?rank=0&op=.. , npuscope://cluster?rank=0 . Empty when nothing to point at.
    std::string url() const;
};

struct Metric {
    std::string name;   // "mte2 ratio", "bandwidth"
    double value = 0;
    std::string unit;   // "", "%", "GB/s", "µs", "MHz"
};

struct Evidence {
    Locator at;
    std::vector<Metric> metrics;
    std::string threshold;  // "mte2 0.86 ≥ 0.8"
    TimeNs cost = 0;        // what this row contributes (sorting key)
};

struct Gain {
    bool estimated = false;
    double nsPerStep = 0;     // estimated saving per step
    double shareOfT = 0;      // nsPerStep / T
    std::string formula;      // filled in: "Σdur 18.2 ms × m 0.86 × r 0.5 = 7.8 ms"
    std::string reason;       // when not estimated
    std::string text() const; // "7.83 ms/step (6.1 % of step): <formula>" or "not estimated (reason)"
};

struct Scope {
    std::vector<int> ranks;    // empty = single profile without rank id
    int device = -1;
    std::string worstStep;     // "step 3" when known
    std::string steps;         // "3 of 5 steps", "all 5 steps (aggregate)"
    bool cluster = false;      // cluster-wide rule
    std::string text() const;
};

struct Finding {
    std::string id;            // "RULE/instance-key" (fired) or "RULE" (other statuses)
    std::string rule;
    Category category = Category::Computation;
    Status status = Status::Passed;
    TimeNs costNs = 0;         // per step
    double costShare = 0;      // costNs / T
    FindingSeverity severity = FindingSeverity::None;
    std::string title;
    std::string description;
    std::vector<Evidence> evidence;       // by cost, descending
    std::vector<std::string> suggestions; // ordered
    Gain gain;
    std::vector<std::string> inputs;      // "kernel_details.csv: aic_mac_ratio, aic_mte2_ratio (812/1030 ops)"
    Scope scope;
    std::string needs;         // not_checked: what is missing and how to collect it
    std::string check;         // passed: the value against the threshold
    std::string error;         // error: what went wrong
    // Set by a rule that decides its own severity (SCH-ENV rows); the data file still wins
    // when it names a fixed severity.
    std::optional<FindingSeverity> ruleSeverity;
    // Findings of one rule with the same family (an op type, or an op-type sequence) are its
    // shape variants: the engine merges them into one finding titled "<familyTitle>: n shape
    // variants, …" with one evidence row per variant. Empty: the finding stands alone.
    std::string family;
    std::string familyTitle;
    // The rule's condition holds but the cost is below min_share of the step: the finding is
    // demoted, not dropped (low severity, in the reports' collapsed "minor" group).
    bool minor = false;
    // The device tasks the gain comes from, for the action plan (not exported): a rule puts
    // task indices of its rank's facts here, the engine makes them report-wide keys. Empty:
    // the finding claims its category's time of its rank as a whole.
    std::vector<std::uint64_t> claims;
    // Without claims: the category whose time the gain comes from, when not the finding's own.
    // A slow link's gain is communication time, the same time COM-EXPOSED's is: both in one
    // plan would take it twice.
    std::optional<Category> gainFrom;
    // The graph change acting on the finding would make (model/analysis/whatif.h), on its rank's
    // timeline rows: the plan replays it. Empty: the plan derives one from the claims or the rule.
    WhatIfChanges replay;
    int planItem = -1; // index of the plan action that stands for this finding, or -1
    // Why a fired finding with an estimated gain is not in the plan (empty when it is).
    std::string notInPlan;
};

} // namespace npuscope::advisor
