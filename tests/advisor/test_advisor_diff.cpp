// The advisor diff of a compare (advisor/advisor_diff.h): findings of two runs matched by id as
// fixed, remaining (cost before and after) or new, on the generated llama2-baseline and
// llama2-optimized pair, checked against the two advisor reports themselves.
#include "test_main.h"
#include "advisor/advisor_diff.h"
#include "model/analysis/compare_report.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <set>

namespace test_advisor_diff {

using namespace npuscope;

namespace {

SessionPtr synthRun(const QString& dir, const char* scenario)
{
    synth::SynthOptions o;
    o.scenario = scenario;
    o.steps = 2;
    const synth::SynthResult r = synth::synthesize(dir.toStdString(), o);
    if (!r.ok || r.rankDirs.empty())
        return nullptr;
    return loadSession(r.rankDirs.front(), {}).session;
}

} // namespace

class TestAdvisorDiff : public QObject {
    Q_OBJECT
private slots:
    void llamaPair();
    void identicalRunsFixNothing();
};

void TestAdvisorDiff::llamaPair()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const SessionPtr base = synthRun(tmp.filePath("base"), "llama2-baseline");
    const SessionPtr opt = synthRun(tmp.filePath("opt"), "llama2-optimized");
    QVERIFY(base && opt);
    const advisor::Thresholds th = advisor::Thresholds::load();
    const advisor::AdvisorReport rb = advisor::runAdvisor(*base, th), ro = advisor::runAdvisor(*opt, th);
    std::map<std::string, const advisor::Finding*> fb, fo;
    for (const advisor::Finding* f : rb.fired())
        fb[f->id] = f;
    for (const advisor::Finding* f : ro.fired())
        fo[f->id] = f;
    QVERIFY(!fb.empty());

    const std::vector<AdvisorDiffRow> rows = advisor::diffFindings(rb, ro);
    std::set<std::string> ids;
    std::size_t fixed = 0, remaining = 0, added = 0;
    int lastGroup = -1;
    for (const AdvisorDiffRow& r : rows) {
        QVERIFY2(ids.insert(r.id).second, r.id.c_str()); // one row per id
        QVERIFY(static_cast<int>(r.change) >= lastGroup); // fixed, remaining, new
        lastGroup = static_cast<int>(r.change);
        const bool inB = fb.count(r.id) > 0, inO = fo.count(r.id) > 0;
        switch (r.change) {
        case FindingChange::Fixed:
            ++fixed;
            QVERIFY(inB && !inO);
            QCOMPARE(r.costBefore, fb.at(r.id)->costNs);
            QCOMPARE(r.severityAfter, std::string());
            break;
        case FindingChange::Remaining:
            ++remaining;
            QVERIFY(inB && inO);
            QCOMPARE(r.costBefore, fb.at(r.id)->costNs);
            QCOMPARE(r.costAfter, fo.at(r.id)->costNs);
            break;
        case FindingChange::New:
            ++added;
            QVERIFY(!inB && inO);
            QCOMPARE(r.costAfter, fo.at(r.id)->costNs);
            QCOMPARE(r.severityBefore, std::string());
            break;
        }
    }
    // Every fired finding of either run is in exactly one row.
    std::set<std::string> all;
    for (const auto& [id, f] : fb)
        all.insert(id);
    for (const auto& [id, f] : fo)
        all.insert(id);
    QCOMPARE(ids, all);
    std::size_t both = 0;
    for (const auto& [id, f] : fb)
        both += fo.count(id);
    QCOMPARE(remaining, both);
    QCOMPARE(fixed, fb.size() - both);
    QCOMPARE(added, fo.size() - both);
    // The optimization fused the unfused norm and attention chains: findings about them are fixed.
    QVERIFY(fixed > 0);

    // Every report format carries the diff.
    CompareResult cr = compareSessions(*base, *opt);
    cr.advisor = rows;
    cr.advisorCompared = true;
    const std::string csv = formatCompareReport(cr, "b", "o", "csv");
    const std::string md = formatCompareReport(cr, "b", "o", "markdown");
    const std::string table = formatCompareReport(cr, "b", "o", "table");
    const std::string json = formatCompareReport(cr, "b", "o", "json");
    for (const AdvisorDiffRow& r : rows) {
        std::string csvId; // RFC 4180: quotes doubled
        for (char c : r.id)
            csvId += c == '"' ? std::string("\"\"") : std::string(1, c);
        QVERIFY2(csv.find(csvId) != std::string::npos, r.id.c_str());
        std::string mdId; // GFM: a bar in a cell is escaped
        for (char c : r.id)
            mdId += c == '|' ? std::string("\\|") : std::string(1, c);
        QVERIFY2(md.find(mdId) != std::string::npos, r.id.c_str());
        QVERIFY2(table.find(r.id) != std::string::npos, r.id.c_str());
        QVERIFY2(json.find("\"finding\": " + text::jsonString(r.id)) != std::string::npos, r.id.c_str());
    }
    QVERIFY(json.find("\"advisor_compared\": true") != std::string::npos);
}

void TestAdvisorDiff::identicalRunsFixNothing()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const SessionPtr base = synthRun(tmp.filePath("base"), "llama2-baseline");
    QVERIFY(base);
    const advisor::AdvisorReport r = advisor::runAdvisor(*base, advisor::Thresholds::load());
    const std::vector<AdvisorDiffRow> rows = advisor::diffFindings(r, r);
    QCOMPARE(rows.size(), r.fired().size());
    for (const AdvisorDiffRow& d : rows) {
        QCOMPARE(d.change, FindingChange::Remaining);
        QCOMPARE(d.costBefore, d.costAfter);
    }
}

NPUSCOPE_TEST_GUILESS_MAIN(TestAdvisorDiff)

} // namespace test_advisor_diff

#include "test_advisor_diff.moc"
