// The generator's two exports of one profile (`synth --format both`) read to the same numbers:
// every number of `info`, `analyze` (each metric) and `advise` in JSON, read once from the text
// export (--prefer text) and once from the SQLite export (--prefer db), agrees within 1 ns or
// 1e-9 relative, at profiler levels 0, 1 and 2 and for a 4-rank cluster. The fields that may
// differ are named below, each with why: they are what one export carries and the other does
// not, or name the files read (the reports say which export they used: info's "source", the
// files and inputs lists).
#include "test_main.h"
#include "cli_run.h"
#include "model/synth/synth.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace test_export_parity {

namespace {

using Json = nlohmann::json;

struct Skips {
    std::set<std::string> paths;    // normalised paths (array indices as "[]") not compared
    std::set<std::string> prefixes; // and everything below these
    std::set<std::string> keys;     // a key of this name anywhere
    bool skipped(const std::string& path, const std::string& key) const
    {
        if (paths.count(path) || keys.count(key))
            return true;
        for (const auto& p : prefixes)
            if (path.compare(0, p.size(), p) == 0)
                return true;
        return false;
    }
};

bool isFindingList(const Json& v)
{
    if (!v.is_array() || v.empty())
        return false;
    for (const auto& x : v)
        if (!x.is_object() || !x.contains("id") || !x.contains("rule"))
            return false;
    return true;
}

// Findings come in cost order, which ties may shuffle: compared by id.
Json byId(const Json& findings)
{
    Json out = Json::object();
    for (const auto& f : findings)
        out[f["id"].get<std::string>()] = f;
    return out;
}

void compare(const Json& a, const Json& b, const std::string& path, const std::string& norm, const Skips& skips,
             std::vector<std::string>& diffs)
{
    auto differ = [&](const std::string& what) { diffs.push_back(path + ": " + what); };
    if (isFindingList(a) || isFindingList(b)) {
        if (a.is_array() && b.is_array())
            return compare(byId(a), byId(b), path, norm, skips, diffs);
    }
    if (a.is_number() && b.is_number()) {
        const double x = a.get<double>(), y = b.get<double>();
        if (a.is_number_integer() && b.is_number_integer()) {
            const auto d = a.get<std::int64_t>() - b.get<std::int64_t>();
            if (d > 1 || d < -1)
                differ(a.dump() + " (text) vs " + b.dump() + " (db)");
        } else if (std::fabs(x - y) > 1e-9 * std::max(std::fabs(x), std::fabs(y)) && std::fabs(x - y) > 1e-9) {
            differ(a.dump() + " (text) vs " + b.dump() + " (db)");
        }
        return;
    }
    if (a.type() != b.type())
        return differ(a.dump().substr(0, 80) + " (text) vs " + b.dump().substr(0, 80) + " (db)");
    if (a.is_object()) {
        std::set<std::string> keys;
        for (auto it = a.begin(); it != a.end(); ++it)
            keys.insert(it.key());
        for (auto it = b.begin(); it != b.end(); ++it)
            keys.insert(it.key());
        for (const auto& k : keys) {
            const std::string p = path + "/" + k, n = norm + "/" + k;
            if (skips.skipped(n, k))
                continue;
            if (!a.contains(k) || !b.contains(k)) {
                diffs.push_back(p + std::string(": only in the ") + (a.contains(k) ? "text" : "db") + " report");
                continue;
            }
            compare(a[k], b[k], p, n, skips, diffs);
        }
    } else if (a.is_array()) {
        if (a.size() != b.size())
            return differ(std::to_string(a.size()) + " entries (text) vs " + std::to_string(b.size()) + " (db)");
        for (std::size_t i = 0; i < a.size(); ++i)
            compare(a[i], b[i], path + "[" + std::to_string(i) + "]", norm + "[]", skips, diffs);
    } else if (a != b) {
        differ(a.dump().substr(0, 120) + " (text) vs " + b.dump().substr(0, 120) + " (db)");
    }
}

Json runJson(const QStringList& args, QString& error)
{
    const CliRun r = runCli(args);
    if (r.code != 0) {
        error = args.join(' ') + ": exit " + QString::number(r.code) + ": " + r.err.left(400);
        return {};
    }
    Json j = Json::parse(r.out.toStdString(), nullptr, false);
    if (j.is_discarded())
        error = args.join(' ') + ": not JSON";
    return j;
}

} // namespace

class TestExportParity : public QObject {
    Q_OBJECT
private slots:
    void textAndDbAgree_data()
    {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<int>("level");
        QTest::addColumn<int>("ranks");
        QTest::newRow("level0") << "llama2-baseline" << 0 << 1;
        QTest::newRow("level1") << "llama2-baseline" << 1 << 1;
        QTest::newRow("level2") << "llama2-baseline" << 2 << 1;
        QTest::newRow("cluster-slowrank, 4 ranks") << "cluster-slowrank" << 1 << 4;
    }

    void textAndDbAgree()
    {
        QFETCH(QString, scenario);
        QFETCH(int, level);
        QFETCH(int, ranks);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        npuscope::synth::SynthOptions o;
        o.scenario = scenario.toStdString();
        o.format = "both";
        o.level = level;
        o.ranks = ranks;
        o.steps = 2;
        const auto r = npuscope::synth::synthesize(tmp.path().toStdString(), o);
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(int(r.rankDirs.size()), ranks);
        // One rank's folder, or the cluster's folder holding every rank.
        const QString path = ranks == 1 ? QString::fromStdString(r.rankDirs[0]) : tmp.path();

        Skips skips;
        // Which export was read, and the files read, ignored or reported: each report names its own.
        skips.paths = {"/source", "/inputs", "/ranks[]/files", "/ranks[]/ignored", "/ranks[]/diagnostics"};
        skips.keys = {"inputs", "needs"}; // a rule's input files and, when not checked, the files it needs
        // op_statistic.csv, api_statistic.csv and l2_cache.csv have no table in the SQLite export
        // (FORMATS-DB.md §3): their rows are text-only. (The L2 hit rate itself agrees: both
        // exports carry the L2 counters of every task.)
        skips.paths.insert({"/ranks[]/stat_rows", "/ranks[]/l2_rows"});
        // communication.json has a "Total Op Info" entry per step that analysis.db does not store,
        // so the text export counts one comm op more per step (the ops themselves agree).
        skips.paths.insert("/ranks[]/comm_ops");
        // The collectives' plane tasks (Notify_Wait, Reduce_Inline) are in the text timeline only:
        // in the SQLite export they would be COMMUNICATION_TASK_INFO rows over TASK rows of their
        // own, i.e. device tasks on a stream, which the text timeline does not have. So the slice
        // count, the plane track and the SDMA-task count in COM-ALIGN's check text differ.
        skips.paths.insert({"/ranks[]/slices", "/ranks[]/slices_by_track_kind/plane", "/findings/COM-ALIGN/check"});
        // The chip name: NPU_INFO in the db; no text file names it.
        skips.paths.insert("/identity/soc");
        // Likewise the roofs' SoC and the source line that names it (both fall back to the
        // table's defaults: the db's "Ascend910B" is no entry of it).
        skips.paths.insert({"/roofs[]/soc", "/roofs[]/sources"});
        if (level == 0) {
            // Level 0's kernel_details has no Task ID or Stream ID, so its rows cannot join the
            // timeline's tasks; the db's kernel rows are its tasks (TASK ⋈ COMPUTE_TASK_INFO).
            skips.prefixes.insert("/ranks[]/join/");
            // The text timeline writes HostToDevice flow events at level 0 without CANN slices;
            // the db rebuilds HostToDevice from CANN_API, which level 0 does not write here.
            skips.paths.insert("/ranks[]/flows");
            // Both exports' kernel rows are compute tasks (op_stats.h), but the text rows carry no
            // stream: SCH-IDLE cannot find a text gap's stream or launch flow (its causes and
            // evidence differ), and CMP-FUSE cuts its windows per stream. The plan and the top
            // gains weigh those two findings, so they differ with them; the roofline's shape and
            // dtype texts are "N/A" in the db's COMPUTE_TASK_INFO and absent from the text rows.
            skips.prefixes.insert({"/findings/SCH-IDLE", "/findings/CMP-FUSE", "/plan", "/summary/top_gains"});
            skips.paths.insert({"/roofline[]/dtypes", "/roofline[]/shapes"});
        }

        const QString dir = path;
        std::vector<QStringList> verbs = {{"info", dir, "--format", "json"}, {"advise", dir, "--format", "json"}};
        for (const char* metric : {"duration", "memory_bandwidth", "communication_duration", "memory"})
            verbs.push_back({"analyze", "--import", dir, "--metric", metric, "--top", "0", "--format", "json"});
        for (const QStringList& verb : verbs) {
            QString error;
            const Json text = runJson(verb + QStringList{"--prefer", "text"}, error);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            const Json db = runJson(verb + QStringList{"--prefer", "db"}, error);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            if (verb[0] == "info") {
                QCOMPARE(QString::fromStdString(text["source"].get<std::string>()), QStringLiteral("text"));
                QCOMPARE(QString::fromStdString(db["source"].get<std::string>()), QStringLiteral("db"));
            }
            if (verb[0] == "analyze" && verb[4] == "duration")
                QVERIFY2(!text["rows"].empty(), qPrintable(verb.join(' ')));
            std::vector<std::string> diffs;
            compare(text, db, "", "", skips, diffs);
            std::string message = verb.join(' ').toStdString() + ":";
            for (std::size_t i = 0; i < diffs.size() && i < 20; ++i)
                message += "\n  " + diffs[i];
            QVERIFY2(diffs.empty(), message.c_str());
        }
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestExportParity)

} // namespace test_export_parity

#include "test_export_parity.moc"
