#pragma once
// The advisor's thresholds: resources/advisor/thresholds.json (the shipped defaults) merged key
// by key with the user's overrides. Validation never fails an analysis: an unknown key or a
// value of the wrong type/range is reported as a warning and the default is kept.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace npuscope::advisor {

struct ThresholdsOptions {
    std::string baseFile;     // the defaults file; empty = search (source tree, beside the executable,
                              // install share dir), then the compiled-in copy
    std::string configDir;    // <config dir>/advisor_thresholds.json; empty = $XDG_CONFIG_HOME/npuscope
    bool useConfigDir = true; // false: skip the per-user file (tests, reproducible CLI runs)
    std::string overrideFile; // --advisor-config / Settings file, merged last
};

class Thresholds {
public:
    struct Override {
        std::string key;          // "rules.SCH-IDLE.params.free_share"
        std::string value;        // JSON text of the effective value
        std::string defaultValue; // JSON text of the shipped value ("" when the key is new, e.g. a SoC)
        std::string origin;       // file it came from
    };

    // The shipped defaults only (compiled-in copy); never fails.
    static Thresholds defaults();
    // Defaults from the first file found, then the overrides (see ThresholdsOptions).
    static Thresholds load(const ThresholdsOptions& options = {});

    // Merge an override document (validated against the defaults); origin names it in warnings.
    void merge(const nlohmann::json& overrides, const std::string& origin);
    // Reads and merges a file; a missing or malformed file is a warning.
    void mergeFile(const std::string& path);

    bool enabled(const std::string& rule) const;
    std::string severity(const std::string& rule) const; // "auto", "high", "medium", "low"
    double param(const std::string& rule, const std::string& key) const; // NaN when absent
    const nlohmann::json& paramJson(const std::string& rule, const std::string& key) const;
    double severityHigh() const;
    double severityMedium() const;
    double minShare() const;
    int minRanks() const;
    double rankPickGap() const;
    // Ranks the per-rank rules run on; a larger cluster runs them on picked ranks (ADVISOR.md §3).
    int rankBudget() const;
    int evidenceRowsPdf() const;
    int evidenceRowsMd() const;
    // The SoC table's entry for a chip: "default" overlaid by the longest key that prefixes the
    // chip name; *key (when given) is that key, or "default".
    nlohmann::json socEntry(const std::string& chip, std::string* key = nullptr) const;
    // hbm_peak_gbps of socEntry(chip).
    double hbmPeakGBps(const std::string& chip) const;

    const nlohmann::json& effective() const { return m_effective; }
    const nlohmann::json& shipped() const { return m_defaults; }
    const std::vector<std::string>& warnings() const { return m_warnings; }
    std::vector<Override> overrides() const;  // every non-default value, sorted by key
    const std::string& source() const { return m_source; }    // where the defaults came from
    const std::vector<std::string>& mergedFiles() const { return m_merged; }

private:
    void mergeNode(const nlohmann::json& def, nlohmann::json& eff, const nlohmann::json& in,
                   const std::string& path, const std::string& origin, bool open);
    nlohmann::json m_defaults;
    nlohmann::json m_effective;
    std::vector<std::string> m_warnings;
    std::vector<std::string> m_merged;
    std::vector<std::pair<std::string, std::string>> m_origin; // key -> file
    std::string m_source;
};

} // namespace npuscope::advisor
