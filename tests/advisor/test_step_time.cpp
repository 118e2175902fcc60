// T, the step time every share is measured against, is the median of the complete steps: a first
// or last step cut by the capture is left out and counted, the same in the summary strip's
// numbers (computeSummary), `info`, the advisor and its reports. The findings headline adds up,
// the action plan names each action once and says why a top gain is not in it, and a cluster
// summary tells the story of its folders: the same T, steps, plan and merged findings.
#include "test_main.h"
#include "../model/cli_run.h"
#include "advisor/cluster_summary_advice.h"
#include "model/analysis/summary.h"
#include "model/cluster_summary/open_session.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace test_step_time {

using namespace npuscope;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kLevel1Rank0 = std::string(NPUSCOPE_SAMPLES) + "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt";

std::vector<std::string> splitCsv(const std::string& line)
{
    std::vector<std::string> out;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ','))
        out.push_back(cell);
    return out;
}

// Each row's Computing + Communication(Not Overlapped) + Free of a step_trace_time.csv, in ns.
std::vector<double> csvStepTimes(const std::string& path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    const std::vector<std::string> head = splitCsv(line);
    auto col = [&](const char* name) { return std::find(head.begin(), head.end(), name) - head.begin(); };
    const auto c = col("Computing"), n = col("Communication(Not Overlapped)"), f = col("Free");
    std::vector<double> out;
    while (std::getline(in, line)) {
        const auto cells = splitCsv(line);
        if (cells.size() > static_cast<std::size_t>(std::max({c, n, f})))
            out.push_back((std::stod(cells[c]) + std::stod(cells[n]) + std::stod(cells[f])) * 1e3);
    }
    return out;
}

// Scales the numbers of the last row of a step_trace_time.csv: a step the capture stopped in.
void cutLastRow(const std::string& path, double factor)
{
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        if (!line.empty())
            lines.push_back(line);
    in.close();
    auto cells = splitCsv(lines.back());
    for (std::size_t i = 1; i < cells.size(); ++i)
        if (!cells[i].empty())
            cells[i] = std::to_string(std::stod(cells[i]) * factor);
    std::string row = cells[0];
    for (std::size_t i = 1; i < cells.size(); ++i)
        row += "," + cells[i];
    lines.back() = row;
    std::ofstream out(path, std::ios::trunc);
    for (const auto& l : lines)
        out << l << "\n";
}

// The same for rank `rank`'s last row of a cluster_step_trace_time.csv (Step, Type, Index, ...).
void cutClusterRow(const std::string& path, const std::string& rank, double factor)
{
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        if (!line.empty())
            lines.push_back(line);
    in.close();
    std::size_t last = 0;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        const auto cells = splitCsv(lines[i]);
        if (cells.size() > 3 && cells[1] == "rank" && cells[2] == rank)
            last = i;
    }
    auto cells = splitCsv(lines[last]);
    std::string row = cells[0] + "," + cells[1] + "," + cells[2];
    for (std::size_t i = 3; i < cells.size(); ++i)
        row += "," + (cells[i].empty() ? cells[i] : std::to_string(std::stod(cells[i]) * factor));
    lines[last] = row;
    std::ofstream out(path, std::ios::trunc);
    for (const auto& l : lines)
        out << l << "\n";
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

std::string findFile(const std::string& root, const std::string& name)
{
    for (const auto& e : fs::recursive_directory_iterator(root))
        if (e.path().filename() == name)
            return e.path().string();
    return {};
}

std::vector<std::string> findFiles(const std::string& root, const std::string& name)
{
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(root))
        if (e.path().filename() == name)
            out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

advisor::AdvisorReport advise(const std::string& path)
{
    const LoadResult l = openSession(path); // a folder or a cluster summary file
    if (!l.session)
        return {};
    return advisor::adviseSession(*l.session, advisor::Thresholds::load({}));
}

} // namespace

class TestStepTime : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private slots:
    // Which steps are partial: only a first or last one, only when much shorter than the others.
    void partialStepsDefinition()
    {
        // The run: five steps near 24.7 ms and a last one cut at 11.53 ms.
        const std::vector<double> cut = {24.72e6, 25.01e6, 24.50e6, 24.90e6, 24.61e6, 11.53e6};
        StepStats st = stepStats(cut);
        QCOMPARE(st.steps, 6);
        QCOMPARE(st.partial, 1);
        QVERIFY(st.isPartial.back() && !st.isPartial.front());
        QCOMPARE(st.median, 24.72e6); // the middle of 24.50, 24.61, 24.72, 24.90, 25.01
        QCOMPARE(st.min, 24.50e6);
        QCOMPARE(st.max, 25.01e6);
        QCOMPARE(QString::fromStdString(stepCountText(st)), QStringLiteral("5 complete steps; 1 partial excluded"));
        // A slow first step (warm-up) is complete; so is a short step in the middle.
        st = stepStats({40e6, 24e6, 10e6, 25e6, 24.5e6});
        QCOMPARE(st.partial, 0);
        QCOMPARE(st.median, 24.5e6);
        // A first step the capture started in; of two steps, the much shorter one.
        st = stepStats({5e6, 24e6, 25e6, 24.5e6});
        QCOMPARE(st.partial, 1);
        QVERIFY(st.isPartial.front());
        QCOMPARE(st.median, 24.5e6);
        st = stepStats({20e6, 8e6});
        QCOMPARE(st.partial, 1);
        QCOMPARE(st.median, 20e6);
        // The input ends inside the last step: partial whatever its length; one step stays.
        st = stepStats({20e6, 21e6, 22e6}, true);
        QCOMPARE(st.partial, 1);
        QCOMPARE(st.median, 20.5e6);
        st = stepStats({20e6}, true);
        QCOMPARE(st.partial, 0);
        QCOMPARE(st.median, 20e6);
    }

    // A real sample: one step, T its Computing + Communication(Not Overlapped) + Free.
    void realSampleStep()
    {
        const std::vector<double> rows = csvStepTimes(kLevel1Rank0 + "/ASCEND_PROFILER_OUTPUT/step_trace_time.csv");
        QCOMPARE(rows.size(), std::size_t(1));
        const LoadResult l = loadSession(kLevel1Rank0);
        QVERIFY(l.session && l.session->ranks.size() == 1);
        const ProfileSummary s = computeSummary(*l.session->ranks[0]);
        QCOMPARE(s.step.steps, 1);
        QCOMPARE(s.step.partial, 0);
        QVERIFY2(std::abs(static_cast<double>(s.step.stepTime) - rows[0]) <= 3, qPrintable(QString::number(s.step.stepTime)));
        QCOMPARE(static_cast<double>(s.step.computing + s.step.commNotOverlapped + s.step.free), static_cast<double>(s.step.stepTime));
        const advisor::AdvisorReport rep = advisor::adviseSession(*l.session, advisor::Thresholds::load({}));
        QVERIFY(std::abs(rep.T - rows[0]) <= 3);
        QCOMPARE(rep.summary.partial, 0);
    }

    // A generated run whose last step the capture cut: T is the median of the five complete
    // steps, the same in the strip's summary, the advisor, its text and `info --format json`.
    void generatedCutLastStep()
    {
        const std::string dir = m_dir.path().toStdString() + "/cut";
        synth::SynthOptions o;
        o.steps = 6;
        QVERIFY(synth::synthesize(dir, o).ok);
        const std::string csv = findFile(dir, "step_trace_time.csv");
        QVERIFY(!csv.empty());
        cutLastRow(csv, 0.45);
        const std::vector<double> rows = csvStepTimes(csv);
        QCOMPARE(rows.size(), std::size_t(6));
        const double expected = median({rows.begin(), rows.end() - 1});
        double mean = 0;
        for (double r : rows)
            mean += r / 6;
        QVERIFY(std::abs(mean - expected) > 1e6); // the mean would be off by over a millisecond

        const LoadResult l = loadSession(dir);
        QVERIFY(l.session && l.session->ranks.size() == 1);
        const ProfileSummary s = computeSummary(*l.session->ranks[0]);
        QCOMPARE(s.step.steps, 6);
        QCOMPARE(s.step.partial, 1);
        QVERIFY2(std::abs(static_cast<double>(s.step.stepTime) - expected) <= 3,
                 qPrintable(QStringLiteral("%1 vs %2").arg(s.step.stepTime).arg(expected, 0, 'f', 0)));
        QCOMPARE(s.step.computing + s.step.commNotOverlapped + s.step.free, s.step.stepTime);

        const advisor::AdvisorReport rep = advisor::adviseSession(*l.session, advisor::Thresholds::load({}));
        QVERIFY(std::abs(rep.T - expected) <= 3);
        QCOMPARE(rep.summary.steps, 6);
        QCOMPARE(rep.summary.partial, 1);
        QVERIFY(std::abs(rep.summary.stepMax - *std::max_element(rows.begin(), rows.end() - 1)) <= 3);
        const std::string text = advisor::writeText(rep);
        QVERIFY2(text.find("median of 5 complete steps; 1 partial excluded") != std::string::npos, text.substr(0, 2000).c_str());

        const CliRun info = runCli({"info", "--format", "json", "--no-cache", QString::fromStdString(dir)});
        QCOMPARE(info.code, 0);
        const json split = json::parse(info.out.toStdString())["ranks"][0]["step_split"];
        QCOMPARE(split["partial_steps"].get<int>(), 1);
        QVERIFY(std::abs(split["step_ns"].get<double>() - expected) <= 3);
    }

    // The headline's parts add up to its total, in the summary and in every text report.
    void headlineCountsAddUp()
    {
        const std::string dir = m_dir.path().toStdString() + "/base";
        synth::SynthOptions o;
        o.steps = 2;
        QVERIFY(synth::synthesize(dir, o).ok);
        const advisor::AdvisorReport rep = advise(dir);
        int high = 0, medium = 0, low = 0, minor = 0, fired = 0;
        for (const advisor::Finding& f : rep.findings) {
            if (f.status != advisor::Status::Fired)
                continue;
            ++fired;
            if (f.minor)
                ++minor;
            else if (f.severity == advisor::FindingSeverity::High)
                ++high;
            else if (f.severity == advisor::FindingSeverity::Medium)
                ++medium;
            else
                ++low;
        }
        QVERIFY(fired > 5);
        const advisor::Summary& sm = rep.summary;
        QCOMPARE(sm.fired, fired);
        QCOMPARE(sm.high + sm.medium + sm.low + sm.minor, sm.fired);
        QCOMPARE(sm.minor, minor);
        const std::string headline = advisor::findingsHeadline(sm);
        const std::string want = std::to_string(fired) + " findings: " + std::to_string(high) + " high, " + std::to_string(medium)
                                 + " medium, " + std::to_string(low) + " low, " + std::to_string(minor) + " minor";
        QCOMPARE(QString::fromStdString(headline), QString::fromStdString(want));
        for (const std::string& report : {advisor::writeText(rep), advisor::writeMarkdown(rep), advisor::writeHtml(rep)})
            QVERIFY(report.find(want) != std::string::npos);
        const json j = json::parse(advisor::writeJson(rep));
        const json& c = j["summary"]["counts"];
        QCOMPARE(c["high"].get<int>() + c["medium"].get<int>() + c["low"].get<int>() + c["minor"].get<int>(), c["fired"].get<int>());
    }

    // A cluster summary and its folders: the same T and step counts, the same plan, the same
    // merged findings (one per id, not one per rank), on a generated 4-rank run with one
    // rank's last step cut.
    void clusterSummaryTellsTheFoldersStory()
    {
        const QString root = m_dir.path() + QStringLiteral("/c4"), sum = m_dir.path() + QStringLiteral("/c4.summary");
        QCOMPARE(runCli({"synth", root, "--scenario", "cluster-slowrank", "--ranks", "4", "--quiet"}).code, 0);
        const std::vector<std::string> csvs = findFiles(root.toStdString(), "step_trace_time.csv");
        QCOMPARE(csvs.size(), std::size_t(4));
        cutLastRow(csvs[2], 0.3); // the folders by name are ranks 0..3
        cutClusterRow(findFile(root.toStdString(), "cluster_step_trace_time.csv"), "2", 0.3);
        // T over the ranks: the median of every rank's complete steps together.
        std::vector<double> complete;
        for (std::size_t i = 0; i < csvs.size(); ++i) {
            const std::vector<double> rows = csvStepTimes(csvs[i]);
            complete.insert(complete.end(), rows.begin(), rows.end() - (i == 2 ? 1 : 0));
        }
        const CliRun made = runCli({"cluster-summary", root, "-o", sum, "--quiet"});
        QVERIFY2(made.code == 0, qPrintable(made.err));

        const advisor::AdvisorReport folders = advise(root.toStdString()), summary = advise(sum.toStdString());
        QVERIFY(std::abs(folders.T - median(complete)) <= 3);
        QCOMPARE(summary.T, folders.T);
        QCOMPARE(folders.summary.partial, 1);
        QCOMPARE(summary.summary.partial, folders.summary.partial);
        QCOMPARE(summary.summary.steps, folders.summary.steps);
        QCOMPARE(summary.summary.stepMin, folders.summary.stepMin);
        QCOMPARE(summary.summary.stepMax, folders.summary.stepMax);

        auto firedIds = [](const advisor::AdvisorReport& r) {
            std::multiset<std::string> ids;
            for (const advisor::Finding* f : r.fired())
                ids.insert(f->id);
            return ids;
        };
        const auto fi = firedIds(folders), si = firedIds(summary);
        QCOMPARE(std::set<std::string>(si.begin(), si.end()).size(), si.size()); // merged: no id twice
        QCOMPARE(si, fi);
        QCOMPARE(summary.summary.high, folders.summary.high);
        QCOMPARE(summary.summary.medium, folders.summary.medium);
        QCOMPARE(summary.summary.low, folders.summary.low);
        QCOMPARE(summary.summary.minor, folders.summary.minor);
        QCOMPARE(summary.summary.passed, folders.summary.passed);

        // The folders' plan replays each rank's step graph; a summary holds no graphs, so its plan
        // is weighed by the claims it stored. Both act on the same fired findings, both lead with
        // the same action, and each plan's gains add up to T minus its step.
        QVERIFY(folders.plan.size() >= 3);
        QVERIFY(summary.plan.size() >= 3);
        QCOMPARE(summary.plan.front().findingId, folders.plan.front().findingId);
        for (const advisor::AdvisorReport* rep : {&folders, &summary}) {
            double sum = 0;
            for (const advisor::PlanItem& p : rep->plan) {
                QVERIFY2(fi.count(p.findingId) == 1, p.findingId.c_str());
                sum += p.gain.nsPerStep;
            }
            QVERIFY(std::abs(rep->planStepNs - (rep->T - sum)) <= 1e-6 * rep->T);
        }
        const std::string text = advisor::writeText(summary);
        QVERIFY(text.find("Action plan\n  1. ") != std::string::npos);
        QVERIFY(text.find(", 0 steps;") == std::string::npos);
    }

    // No two plan actions are the same, and each top gain is in the plan or says why not.
    void planActionsAreDistinct()
    {
        for (const char* scenario : {"llama2-baseline", "llama2-optimized"}) {
            const std::string dir = m_dir.path().toStdString() + "/plan-" + scenario;
            synth::SynthOptions o;
            o.scenario = scenario;
            o.steps = 2;
            QVERIFY(synth::synthesize(dir, o).ok);
            const advisor::AdvisorReport rep = advise(dir);
            QVERIFY(!rep.plan.empty());
            std::set<std::string> actions;
            for (const advisor::PlanItem& p : rep.plan)
                QVERIFY2(actions.insert(p.action).second, p.action.c_str());
            QVERIFY(!rep.summary.topGains.empty());
            const std::string text = advisor::writeText(rep);
            for (const std::string& id : rep.summary.topGains) {
                const auto f = std::find_if(rep.findings.begin(), rep.findings.end(), [&](const auto& x) { return x.id == id; });
                QVERIFY(f != rep.findings.end());
                QVERIFY2(f->planItem >= 0 || !f->notInPlan.empty(), id.c_str());
                if (f->planItem < 0)
                    QVERIFY(text.find("not in the plan: " + f->notInPlan) != std::string::npos);
            }
        }
    }
};

NPUSCOPE_TEST_MAIN(TestStepTime)

} // namespace test_step_time

#include "test_step_time.moc"
