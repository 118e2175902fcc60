// Report writers: JSON structure and values, Markdown and text contents, self-contained HTML.
#include "advisor_fixture.h"

#include <QtTest>

using namespace npuscope;
using namespace npuscope::advisor;
using fixture::Builder;
using nlohmann::json;

namespace {

// A profile where several rules fire: free 15 %, exposed comm 5 %, an AI CPU op, a memory-bound MatMul.
Session busySession()
{
    static Builder b;
    static bool built = false;
    if (!built) {
        built = true;
        b.step(80, 5, 15);
        b.kernel("NonZero", "NonZero", "AI_CPU", 0, 4000, 2, "8,8", "INT64");
        for (int i = 0; i < 10; ++i) {
            const auto r = b.kernel("MatMulV2", "MatMulV2", "AI_CORE", 5000 + 1000.0 * i, 1000, 2, "1024,1024", "FLOAT16");
            b.set(r, "aic_mac_ratio", 0.3);
            b.set(r, "aic_mte2_ratio", 0.9);
        }
    }
    return fixture::session({b.p});
}

} // namespace

class TestReports : public QObject {
    Q_OBJECT

private slots:
    void jsonStructure()
    {
        const auto r = runAdvisor(busySession(), fixture::defaults());
        const json j = json::parse(writeJson(r));
        QCOMPARE(j["schema_version"].get<int>(), 1);
        QCOMPARE(j["identity"]["name"].get<std::string>(), std::string("fixture"));
        QCOMPARE(j["rules"].size(), std::size_t(25)); // every rule of ADVISOR.md §3
        // Every rule reaches at least one status.
        for (auto it = j["rules"].begin(); it != j["rules"].end(); ++it)
            QVERIFY2(!it.value()["statuses"].empty(), it.key().c_str());
        QCOMPARE(j["rules"]["SCH-IDLE"]["statuses"][0].get<std::string>(), std::string("fired"));
        QCOMPARE(j["rules"]["CLU-SLOWRANK"]["statuses"][0].get<std::string>(), std::string("not_checked"));
        // The summary: T = 100 ms; counts add up with the findings array.
        QCOMPARE(j["summary"]["step_ns"].get<double>(), 1e8);
        int fired = 0;
        for (const auto& f : j["findings"])
            fired += f["status"] == "fired";
        QCOMPARE(j["summary"]["counts"]["fired"].get<int>(), fired);
        QVERIFY(fired >= 4);
        const json* cube = nullptr;
        for (const auto& f : j["findings"])
            if (f["rule"] == "CMP-CUBE-MEMBOUND")
                cube = &f;
        QVERIFY(cube);
        QCOMPARE((*cube)["severity"].get<std::string>(), std::string("high"));
        QCOMPARE((*cube)["evidence"].size(), std::size_t(10)); // all evidence, not the first rows only
        QCOMPARE((*cube)["evidence"][0]["at"]["dur_ns"].get<std::int64_t>(), std::int64_t(1000000));
        QVERIFY((*cube)["evidence"][0]["at"]["url"].get<std::string>().rfind("npuscope://timeline?", 0) == 0);
        // 10 ms × 0.9 × 0.3 = 2.7 ms
        QVERIFY(std::abs((*cube)["gain"]["us_per_step"].get<double>() - 2700) < 27);
        // Deterministic: the same input gives the same bytes.
        QCOMPARE(writeJson(runAdvisor(busySession(), fixture::defaults())), writeJson(r));
    }

    void markdownAndTextContainEveryTitle()
    {
        const auto r = runAdvisor(busySession(), fixture::defaults());
        const std::string md = writeMarkdown(r);
        const std::string txt = writeText(r);
        for (const Finding* f : r.fired()) {
            QVERIFY2(md.find(f->title) != std::string::npos, f->title.c_str());
            QVERIFY2(txt.find(f->title) != std::string::npos, f->title.c_str());
        }
        QVERIFY(md.find("## Not checked") != std::string::npos);
        QVERIFY(md.find("+5 more") != std::string::npos); // 10 evidence rows, 5 shown
        QVERIFY(md.find("![") == std::string::npos);     // no images
    }

    void htmlSelfContained()
    {
        const auto r = runAdvisor(busySession(), fixture::defaults());
        const std::string html = writeHtml(r);
        QVERIFY(html.find("http://") == std::string::npos);
        QVERIFY(html.find("https://") == std::string::npos);
        QVERIFY(html.find("<svg") != std::string::npos);
        QVERIFY(html.find("<details>") != std::string::npos);
        QVERIFY(html.find("#B5495B") != std::string::npos);
        QVERIFY(html.find("HIGH") != std::string::npos); // severity as text too
        QVERIFY(html.find("npuscope://timeline?") != std::string::npos);
        QVERIFY(html.find("<link") == std::string::npos && html.find("<script") == std::string::npos);
    }

    void cleanProfileHasNoFindings()
    {
        Builder b;
        b.step(95, 0, 5);
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        QCOMPARE(r.summary.fired, 0);
        QVERIFY(r.summary.passed > 0);
        QVERIFY(writeText(r).find("no findings: every checked rule passed") != std::string::npos);
        QVERIFY(writeMarkdown(r).find("**No findings**: every checked rule passed.") != std::string::npos);
        QVERIFY(writeHtml(r).find("<b>No findings</b>: every checked rule passed.") != std::string::npos);
        QCOMPARE(json::parse(writeJson(r))["summary"]["counts"]["fired"].get<int>(), 0);
    }

    // A profile with nothing the rules read: no finding, but not because every rule passed.
    void emptyProfileSaysNothingWasChecked()
    {
        Builder b;
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        QCOMPARE(r.summary.fired, 0);
        QCOMPARE(r.summary.passed, 0);
        QVERIFY(r.summary.notChecked > 0);
        const std::string reason = "no rule could be checked, the profile holds nothing the rules read (see Not checked)";
        QVERIFY(writeText(r).find("no findings: " + reason) != std::string::npos);
        QVERIFY(writeMarkdown(r).find("**No findings**: " + reason + ".") != std::string::npos);
        QVERIFY(writeHtml(r).find("every checked rule passed") == std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestReports)
#include "test_reports.moc"
