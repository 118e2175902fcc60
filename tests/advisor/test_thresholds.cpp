// Thresholds file: shipped defaults, key-by-key overrides, validation warnings, and their effect
// on the rules (fires, disabled, fixed severity) and on the report appendix.
#include "test_main.h"
#include "advisor_fixture.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <map>
#include <set>

namespace test_thresholds {

using namespace npuscope;
using namespace npuscope::advisor;
using fixture::Builder;
using nlohmann::json;

class TestThresholds : public QObject {
    Q_OBJECT

private slots:
    void shippedFileHasEveryRule()
    {
        ThresholdsOptions o;
        o.baseFile = NPUSCOPE_SOURCE_DIR "/resources/advisor/thresholds.json";
        o.useConfigDir = false;
        const Thresholds t = Thresholds::load(o);
        QVERIFY2(t.warnings().empty(), t.warnings().empty() ? "" : t.warnings().front().c_str());
        QCOMPARE(t.effective()["schema"].get<int>(), 1);
        for (const auto& r : ruleCatalog()) {
            QVERIFY2(t.effective()["rules"].contains(r.id), r.id.c_str());
            QVERIFY2(t.effective()["rules"][r.id].contains("params"), r.id.c_str());
        }
        // The file holds the catalogue's rules and no other; each id is unique and names its
        // category (CMP-, COM-, SCH-, MEM-, CLU-): a new rule changes no count here.
        QCOMPARE(t.effective()["rules"].size(), ruleCatalog().size());
        const std::map<std::string, std::string> prefixOf{{"computation", "CMP-"}, {"communication", "COM-"},
                                                          {"scheduling", "SCH-"}, {"memory", "MEM-"},
                                                          {"cluster", "CLU-"}};
        std::set<std::string> ids;
        for (const auto& r : ruleCatalog()) {
            QVERIFY2(ids.insert(r.id).second, r.id.c_str());
            QCOMPARE(r.id.substr(0, 4), prefixOf.at(categoryName(r.category)));
        }
        QCOMPARE(t.param("SCH-IDLE", "free_share"), 0.10);
        QCOMPARE(t.param("CMP-CUBE-MEMBOUND", "mac_max"), 0.6);
        QCOMPARE(t.param("CMP-AICPU", "min_dur_us"), 20.0);
        QCOMPARE(t.severity("CMP-FREQ"), std::string("high"));
        QCOMPARE(t.severity("SCH-SYNC"), std::string("high"));
        QCOMPARE(t.severity("CLU-RETRANS"), std::string("high"));
        QCOMPARE(t.hbmPeakGBps("Ascend910B3"), 1600.0);
        QCOMPARE(t.hbmPeakGBps("unknown chip"), 1200.0);
        QVERIFY(t.overrides().empty());
        // The compiled-in copy equals the file.
        QCOMPARE(Thresholds::defaults().effective(), t.effective());
    }

    void freeShareOverrideFires()
    {
        Builder b;
        b.step(94, 0, 6);
        const auto s = fixture::session({b.p});
        QCOMPARE(fixture::find(runAdvisor(s, fixture::defaults()), "SCH-IDLE")->status, Status::Passed);
        Thresholds t = fixture::defaults();
        t.merge(json::parse(R"({"rules":{"SCH-IDLE":{"params":{"free_share":0.05}}}})"), "override.json");
        QVERIFY(t.warnings().empty());
        const auto r = runAdvisor(s, t);
        FIXTURE_FINDING(schIdle, r, "SCH-IDLE");
        QCOMPARE(schIdle->status, Status::Fired);
        QCOMPARE(r.overrides.size(), std::size_t(1));
        QCOMPARE(r.overrides.front().key, std::string("rules.SCH-IDLE.params.free_share"));
        QCOMPARE(r.overrides.front().value, std::string("0.05"));
        QCOMPARE(r.overrides.front().defaultValue, std::string("0.1"));
        QCOMPARE(r.overrides.front().origin, std::string("override.json"));
        QVERIFY(writeText(r).find("override rules.SCH-IDLE.params.free_share = 0.05") != std::string::npos);
        QVERIFY(writeMarkdown(r).find("`rules.SCH-IDLE.params.free_share`") != std::string::npos);
    }

    void disabledRule()
    {
        Builder b;
        b.step(80, 0, 20);
        Thresholds t = fixture::defaults();
        t.merge(json::parse(R"({"rules":{"SCH-IDLE":{"enabled":false}}})"), "o.json");
        const auto r = runAdvisor(fixture::session({b.p}), t);
        FIXTURE_FINDING(schIdle, r, "SCH-IDLE");
        QCOMPARE(schIdle->status, Status::Disabled);
        QCOMPARE(r.summary.disabled, 1);
    }

    void fixedSeverityHonoured()
    {
        Builder b;
        b.step(80, 0, 20); // 20 % free would be high
        Thresholds t = fixture::defaults();
        t.merge(json::parse(R"({"rules":{"SCH-IDLE":{"severity":"low"}}})"), "o.json");
        const auto r = runAdvisor(fixture::session({b.p}), t);
        FIXTURE_FINDING(schIdleIdle, r, "SCH-IDLE/idle");
        QCOMPARE(schIdleIdle->severity, FindingSeverity::Low);
    }

    void globalSeverityEdgesMove()
    {
        Builder b;
        b.step(90, 0, 10);
        b.kernel("NonZero", "NonZero", "AI_CPU", 0, 4000); // 4 % of T: medium by default
        Thresholds t = fixture::defaults();
        t.merge(json::parse(R"({"severity":{"high":0.04}})"), "o.json");
        QCOMPARE(fixture::find(runAdvisor(fixture::session({b.p}), t), "CMP-AICPU/NonZero")->severity, FindingSeverity::High);
    }

    void badValuesKeepDefaults()
    {
        Thresholds t = fixture::defaults();
        t.merge(json::parse(R"({"rules":{"SCH-IDLE":{"params":{"free_share":"lots","gap_us":-3},"severity":"urgent"},
                                          "NO-SUCH-RULE":{"enabled":true}},
                                "min_share":1.5, "bogus":1, "report":{"evidence_rows_pdf":2.5},
                                "soc":{"Ascend999":{"hbm_peak_gbps":3000}}})"),
                "bad.json");
        QCOMPARE(t.param("SCH-IDLE", "free_share"), 0.10);
        QCOMPARE(t.param("SCH-IDLE", "gap_us"), 20.0);
        QCOMPARE(t.severity("SCH-IDLE"), std::string("auto"));
        QCOMPARE(t.minShare(), 0.01);
        QCOMPARE(t.evidenceRowsPdf(), 10);
        QCOMPARE(t.hbmPeakGBps("Ascend999"), 3000.0); // a new SoC entry is accepted
        const auto& w = t.warnings();
        auto has = [&w](const char* s) {
            for (const auto& x : w)
                if (x.find(s) != std::string::npos)
                    return true;
            return false;
        };
        QCOMPARE(w.size(), std::size_t(7));
        QVERIFY(has("rules.SCH-IDLE.params.free_share should be a number"));
        QVERIFY(has("rules.SCH-IDLE.params.gap_us must be a number ≥ 0"));
        QVERIFY(has("rules.SCH-IDLE.severity must be auto, high, medium or low"));
        QVERIFY(has("unknown key 'rules.NO-SUCH-RULE'"));
        QVERIFY(has("min_share is a ratio"));
        QVERIFY(has("unknown key 'bogus'"));
        QVERIFY(has("report.evidence_rows_pdf must be a whole number"));
        // Only the accepted SoC shows as an override.
        QCOMPARE(t.overrides().size(), std::size_t(1));
        QCOMPARE(t.overrides().front().key, std::string("soc.Ascend999.hbm_peak_gbps"));
    }

    void filesMergeInOrder()
    {
        QTemporaryDir dir;
        const std::string cfg = dir.path().toStdString();
        std::ofstream(cfg + "/advisor_thresholds.json") << R"({"rules":{"SCH-IDLE":{"params":{"free_share":0.2,"gap_us":50}}}})";
        std::ofstream(cfg + "/cli.json") << R"({"rules":{"SCH-IDLE":{"params":{"free_share":0.3}}}})";
        std::ofstream(cfg + "/broken.json") << "{not json";
        ThresholdsOptions o;
        o.configDir = cfg;
        o.overrideFile = cfg + "/cli.json";
        const Thresholds t = Thresholds::load(o);
        QCOMPARE(t.param("SCH-IDLE", "free_share"), 0.3); // the later file wins
        QCOMPARE(t.param("SCH-IDLE", "gap_us"), 50.0);    // key by key
        QVERIFY(t.warnings().empty());
        o.overrideFile = cfg + "/broken.json";
        const Thresholds t2 = Thresholds::load(o);
        QCOMPARE(t2.warnings().size(), std::size_t(1));
        QVERIFY(t2.warnings().front().find("not valid JSON") != std::string::npos);
        QCOMPARE(t2.param("SCH-IDLE", "free_share"), 0.2);
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestThresholds)

} // namespace test_thresholds

#include "test_thresholds.moc"
