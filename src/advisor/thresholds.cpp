#include "advisor/thresholds.h"

#include "advisor/thresholds_embedded.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace npuscope::advisor {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool readJsonFile(const std::string& path, json& out, std::string& error)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = "cannot open " + path;
        return false;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    try {
        out = json::parse(ss.str());
    } catch (const std::exception& e) {
        error = path + ": not valid JSON (" + e.what() + ")";
        return false;
    }
    if (!out.is_object()) {
        error = path + ": the top level is not an object";
        return false;
    }
    return true;
}

std::string exeDir()
{
    std::error_code ec;
    const auto p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : p.parent_path().string();
}

std::string typeName(const json& v)
{
    if (v.is_boolean())
        return "a boolean";
    if (v.is_number())
        return "a number";
    if (v.is_string())
        return "a string";
    if (v.is_array())
        return "a list";
    if (v.is_object())
        return "an object";
    return "null";
}

void flatten(const json& j, const std::string& path, std::map<std::string, json>& out)
{
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it)
            flatten(it.value(), path.empty() ? it.key() : path + "." + it.key(), out);
    } else {
        out[path] = j;
    }
}

const json& nullJson()
{
    static const json n;
    return n;
}

} // namespace

Thresholds Thresholds::defaults()
{
    Thresholds t;
    t.m_defaults = json::parse(detail::kEmbeddedThresholds);
    t.m_effective = t.m_defaults;
    t.m_source = "built-in copy of resources/advisor/thresholds.json";
    return t;
}

Thresholds Thresholds::load(const ThresholdsOptions& o)
{
    Thresholds t = defaults();
    std::vector<std::string> candidates;
    if (!o.baseFile.empty()) {
        candidates.push_back(o.baseFile);
    } else {
        const std::string dir = exeDir();
        if (!dir.empty()) {
            candidates.push_back(dir + "/thresholds.json");
            candidates.push_back(dir + "/../share/npuscope/advisor/thresholds.json");
        }
        candidates.push_back(NPUSCOPE_THRESHOLDS_INSTALLED);
        candidates.push_back(NPUSCOPE_THRESHOLDS_SOURCE);
    }
    bool found = false;
    for (const auto& c : candidates) {
        std::error_code ec;
        if (!fs::is_regular_file(c, ec))
            continue;
        json j;
        std::string err;
        if (readJsonFile(c, j, err)) {
            t.m_defaults = j;
            t.m_effective = j;
            t.m_source = fs::weakly_canonical(c, ec).string();
            found = true;
            break;
        }
        t.m_warnings.push_back(err + "; using the built-in thresholds");
    }
    if (!found && !o.baseFile.empty())
        t.m_warnings.push_back("thresholds file " + o.baseFile + " not found; using the built-in thresholds");

    if (o.useConfigDir) {
        std::string dir = o.configDir;
        if (dir.empty()) {
            if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x)
                dir = std::string(x) + "/npuscope";
            else if (const char* h = std::getenv("HOME"); h && *h)
                dir = std::string(h) + "/.config/npuscope";
        }
        std::error_code ec;
        if (!dir.empty() && fs::is_regular_file(dir + "/advisor_thresholds.json", ec))
            t.mergeFile(dir + "/advisor_thresholds.json");
    }
    if (!o.overrideFile.empty())
        t.mergeFile(o.overrideFile);
    return t;
}

void Thresholds::mergeFile(const std::string& path)
{
    json j;
    std::string err;
    if (!readJsonFile(path, j, err)) {
        m_warnings.push_back(err + "; overrides ignored");
        return;
    }
    merge(j, path);
}

void Thresholds::merge(const json& overrides, const std::string& origin)
{
    m_merged.push_back(origin);
    if (!overrides.is_object()) {
        m_warnings.push_back(origin + ": the top level is not an object; ignored");
        return;
    }
    mergeNode(m_defaults, m_effective, overrides, "", origin, false);
}

void Thresholds::mergeNode(const json& def, json& eff, const json& in, const std::string& path,
                           const std::string& origin, bool open)
{
    for (auto it = in.begin(); it != in.end(); ++it) {
        const std::string& k = it.key();
        const json& v = it.value();
        const std::string p = path.empty() ? k : path + "." + k;
        if (!def.contains(k)) {
            // SoC entries are open: a new chip may be added with its peak bandwidth.
            if (open && v.is_object() && v.contains("hbm_peak_gbps") && v["hbm_peak_gbps"].is_number()
                && v["hbm_peak_gbps"].get<double>() > 0 && v.size() == 1) {
                eff[k] = v;
                m_origin.emplace_back(p, origin);
            } else if (open) {
                m_warnings.push_back(origin + ": " + p + " must be {\"hbm_peak_gbps\": <number > 0>}; ignored");
            } else {
                m_warnings.push_back(origin + ": unknown key '" + p + "' ignored");
            }
            continue;
        }
        const json& d = def[k];
        if (d.is_object()) {
            if (!v.is_object()) {
                m_warnings.push_back(origin + ": " + p + " should be an object, got " + typeName(v) + "; default kept");
                continue;
            }
            mergeNode(d, eff[k], v, p, origin, p == "soc");
            continue;
        }
        std::string problem;
        if (d.is_boolean() && !v.is_boolean()) {
            problem = "should be a boolean";
        } else if (d.is_string() && !v.is_string()) {
            problem = "should be a string";
        } else if (d.is_array() && !v.is_array()) {
            problem = "should be a list";
        } else if (d.is_number()) {
            if (!v.is_number()) {
                problem = "should be a number";
            } else {
                const double x = v.get<double>();
                const double dd = d.get<double>();
                if (!std::isfinite(x) || x < 0)
                    problem = "must be a number ≥ 0";
                else if (d.is_number_integer() && std::floor(x) != x)
                    problem = "must be a whole number";
                else if (d.is_number_float() && dd <= 1.0 && x > 1.0)
                    problem = "is a ratio and must be between 0 and 1";
                else if (k == "schema" && x != dd)
                    problem = "is " + v.dump() + ", this build reads schema " + d.dump();
            }
        }
        if (problem.empty() && k == "severity" && v.is_string()) {
            const auto s = v.get<std::string>();
            if (s != "auto" && s != "high" && s != "medium" && s != "low")
                problem = "must be auto, high, medium or low";
        }
        if (!problem.empty()) {
            m_warnings.push_back(origin + ": " + p + " " + problem + " (got " + v.dump() + "); default " + d.dump()
                                 + " kept");
            continue;
        }
        eff[k] = v;
        m_origin.emplace_back(p, origin);
    }
}

std::vector<Thresholds::Override> Thresholds::overrides() const
{
    std::map<std::string, json> a, b;
    flatten(m_defaults, "", a);
    flatten(m_effective, "", b);
    std::vector<Override> out;
    for (const auto& [k, v] : b) {
        auto it = a.find(k);
        if (it != a.end() && it->second == v)
            continue;
        Override o;
        o.key = k;
        o.value = v.dump();
        o.defaultValue = it == a.end() ? std::string() : it->second.dump();
        for (const auto& [key, file] : m_origin)
            if (key == k || k.rfind(key + ".", 0) == 0)
                o.origin = file; // the last file that set it wins, as in the merge
        out.push_back(std::move(o));
    }
    return out;
}

bool Thresholds::enabled(const std::string& rule) const
{
    const auto& r = m_effective["rules"];
    if (!r.contains(rule))
        return true;
    return r[rule].value("enabled", true);
}

std::string Thresholds::severity(const std::string& rule) const
{
    const auto& r = m_effective["rules"];
    if (!r.contains(rule))
        return "auto";
    return r[rule].value("severity", std::string("auto"));
}

const json& Thresholds::paramJson(const std::string& rule, const std::string& key) const
{
    const auto& r = m_effective["rules"];
    if (!r.contains(rule) || !r[rule].contains("params") || !r[rule]["params"].contains(key))
        return nullJson();
    return r[rule]["params"][key];
}

double Thresholds::param(const std::string& rule, const std::string& key) const
{
    const json& v = paramJson(rule, key);
    return v.is_number() ? v.get<double>() : std::nan("");
}

double Thresholds::severityHigh() const { return m_effective["severity"].value("high", 0.05); }
double Thresholds::severityMedium() const { return m_effective["severity"].value("medium", 0.03); }
double Thresholds::minShare() const { return m_effective.value("min_share", 0.01); }
int Thresholds::minRanks() const { return m_effective["cluster"].value("min_ranks", 2); }
double Thresholds::rankPickGap() const { return m_effective["cluster"].value("rank_pick_gap", 0.05); }
int Thresholds::rankBudget() const { return m_effective["cluster"].value("rank_budget", 16); }
int Thresholds::evidenceRowsPdf() const { return m_effective["report"].value("evidence_rows_pdf", 10); }
int Thresholds::evidenceRowsMd() const { return m_effective["report"].value("evidence_rows_md", 5); }

nlohmann::json Thresholds::socEntry(const std::string& chip, std::string* key) const
{
    const auto& soc = m_effective["soc"];
    nlohmann::json e = soc.contains("default") ? soc["default"] : nlohmann::json::object();
    std::string best = "default";
    for (auto it = soc.begin(); it != soc.end(); ++it)
        if (it.key() != "default" && !chip.empty() && chip.rfind(it.key(), 0) == 0
            && (best == "default" || it.key().size() > best.size()))
            best = it.key();
    if (best != "default")
        for (auto it = soc[best].begin(); it != soc[best].end(); ++it)
            e[it.key()] = it.value();
    if (key)
        *key = best;
    return e;
}

double Thresholds::hbmPeakGBps(const std::string& chip) const { return socEntry(chip).value("hbm_peak_gbps", 1200.0); }

} // namespace npuscope::advisor
