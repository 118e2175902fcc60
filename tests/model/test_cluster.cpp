// Cluster analysis (model/analysis/cluster.h): a generated cluster with a planted slow rank and
// slow link, numbers checked against the files the generator wrote (parsed here on their own),
// and the real two-rank torch_npu run, its matrix checked against communication_matrix.json.
#include "test_main.h"
#include "model/analysis/cluster.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <array>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace test_cluster {

using namespace npuscope;

namespace {

const std::string kLevel1 = NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text/level1";

nlohmann::json readJson(const std::string& path)
{
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

bool near(double a, double b, double rel = 1e-9)
{
    return std::abs(a - b) <= rel * std::max({1.0, std::abs(a), std::abs(b)});
}

// "12.345" (µs, 3 decimals) -> ns, by digits.
double usToNs(const std::string& s) { return std::round(std::stod(s) * 1000.0); }

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

struct SttRow {
    double computing = 0, commNo = 0, overlapped = 0, comm = 0, free = 0;
    double step() const { return computing + commNo + free; }
};

struct SttMeans {
    double computing = 0, commNo = 0, overlapped = 0, comm = 0, free = 0;
    int n = 0;
    std::vector<SttRow> rows; // in file order
    // The row of the median step by duration (an odd count of complete steps): T's split.
    SttRow medianRow() const
    {
        std::vector<SttRow> v = rows;
        std::sort(v.begin(), v.end(), [](const SttRow& a, const SttRow& b) { return a.step() < b.step(); });
        return v[v.size() / 2];
    }
};

// cluster_step_trace_time.csv rows of Type "rank", summed per rank (µs text -> ns).
std::map<int, SttMeans> readClusterStt(const std::string& path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line); // header
    std::map<int, SttMeans> out;
    while (std::getline(in, line)) {
        std::vector<std::string> f;
        std::stringstream ss(line);
        std::string cell;
        while (std::getline(ss, cell, ','))
            f.push_back(cell);
        if (f.size() < 8 || f[1] != "rank")
            continue;
        SttMeans& m = out[std::stoi(f[2])];
        m.computing += usToNs(f[3]);
        m.commNo += usToNs(f[4]);
        m.overlapped += usToNs(f[5]);
        m.comm += usToNs(f[6]);
        m.free += usToNs(f[7]);
        ++m.n;
        m.rows.push_back({usToNs(f[3]), usToNs(f[4]), usToNs(f[5]), usToNs(f[6]), usToNs(f[7])});
    }
    return out;
}

struct Sums {
    double mb = 0, ms = 0;
    int n = 0;
};

// communication_matrix.json (rank or cluster layout): Σ size and time per (src, dst) and
// collective name, each (step, op, link) once.
void addMatrix(const nlohmann::json& j, std::map<std::string, std::map<std::pair<int, int>, Sums>>& out,
               std::set<std::string>& seen)
{
    // Walk to every object whose keys look like "src-dst".
    std::function<void(const nlohmann::json&, const std::string&, const std::string&)> walk =
        [&](const nlohmann::json& o, const std::string& step, const std::string& op) {
            for (auto it = o.begin(); it != o.end(); ++it) {
                const std::string& k = it.key();
                const auto dash = k.find('-');
                if (dash != std::string::npos && dash > 0 && std::isdigit(static_cast<unsigned char>(k[0]))
                    && it->is_object() && it->contains("Transit Size(MB)")) {
                    if (!seen.insert(step + "|" + op + "|" + k).second)
                        continue;
                    const int src = std::stoi(k.substr(0, dash)), dst = std::stoi(k.substr(dash + 1));
                    std::string coll = op.substr(0, op.find('@'));
                    // the numeric suffix: "hcom_allReduce__482_0_1" -> "hcom_allReduce"
                    while (!coll.empty() && (std::isdigit(static_cast<unsigned char>(coll.back())) || coll.back() == '_')) {
                        const auto us = coll.find_last_of('_');
                        if (us == std::string::npos || coll.find_first_not_of("0123456789_", us) != std::string::npos)
                            break;
                        coll.resize(us);
                        while (!coll.empty() && coll.back() == '_')
                            coll.pop_back();
                    }
                    // "All" counts each transfer once: not the "Total Op Info" of the ops beside
                    // it, nor torch_npu's samples of the step's "-total".
                    static const std::regex sampled(".*-(top[0-9]+|middle|bottom[0-9]+)");
                    const bool repeated = coll == "Total Op Info" || std::regex_match(coll, sampled);
                    for (const std::string& g : {std::string("All"), coll}) {
                        if (g == "All" && repeated)
                            continue;
                        Sums& s = out[g][{src, dst}];
                        s.mb += (*it)["Transit Size(MB)"].get<double>();
                        s.ms += (*it)["Transit Time(ms)"].get<double>();
                        ++s.n;
                    }
                } else if (it->is_object()) {
                    const bool isStep = k.rfind("step", 0) == 0;
                    walk(*it, isStep ? k : step, k.find('@') != std::string::npos ? k : op);
                }
            }
        };
    walk(j, "", "");
}

} // namespace

class TestCluster : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    SessionPtr m_session;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        synth::SynthOptions o;
        o.scenario = "cluster-slowrank";
        o.ranks = 4;
        o.steps = 3; // an odd count: the median step is one of them, not the mean of two
        o.seed = 7;
        const synth::SynthResult r = synth::synthesize(m_dir.path().toStdString(), o);
        QVERIFY2(r.ok, r.error.c_str());
        const LoadResult lr = loadSession(m_dir.path().toStdString());
        QVERIFY2(lr.session, lr.error.c_str());
        m_session = lr.session;
        QCOMPARE(m_session->ranks.size(), std::size_t(4));
        QVERIFY(m_session->cluster.present());
    }

    void breakdownFromClusterStepTrace()
    {
        const ClusterAnalysis a = analyzeCluster(*m_session);
        const auto stt = readClusterStt(m_dir.path().toStdString() + "/cluster_analysis_output/cluster_step_trace_time.csv");
        QCOMPARE(stt.size(), std::size_t(4));
        QCOMPARE(a.ranks.size(), std::size_t(4));
        QCOMPARE(a.breakdownSource, std::string("cluster_step_trace_time"));
        for (const RankBreakdown& b : a.ranks) {
            // T as everywhere else: the median of the complete steps and that step's split (the
            // generated steps are whole: none is below 0.6 of the others').
            const SttMeans& m = stt.at(b.rank);
            QCOMPARE(b.split.steps, 3);
            QCOMPARE(b.split.partial, 0);
            QCOMPARE(m.n, 3);
            for (const SttRow& row : m.rows)
                QVERIFY(row.step() >= 0.6 * m.medianRow().step());
            QCOMPARE(b.source, std::string("cluster_step_trace_time"));
            QVERIFY(b.rankIndex >= 0);
            QCOMPARE(m_session->ranks[static_cast<std::size_t>(b.rankIndex)]->rank, b.rank);
            const SttRow med = m.medianRow();
            const double computing = static_cast<double>(b.split.computing);
            QVERIFY2(near(computing, med.computing), qPrintable(QString::number(computing) + " vs " + QString::number(med.computing)));
            QVERIFY(near(static_cast<double>(b.split.commNotOverlapped), med.commNo));
            QVERIFY(near(b.overlapped, med.overlapped));
            QVERIFY(near(b.communication, med.comm));
            QVERIFY(near(static_cast<double>(b.split.free), med.free));
            QVERIFY(near(b.stepTime(), med.step()));
        }
    }

    void slowRankIsThePlantedOne()
    {
        const ClusterAnalysis a = analyzeCluster(*m_session);
        const auto stt = readClusterStt(m_dir.path().toStdString() + "/cluster_analysis_output/cluster_step_trace_time.csv");
        // The test of ADVISOR.md on the file's numbers: (max − min) / mean step per part, each
        // rank's part that of its median step (T's split).
        std::vector<double> comp, commNo, free;
        double meanStep = 0;
        for (const auto& [r, m] : stt) {
            const SttRow med = m.medianRow();
            comp.push_back(med.computing);
            commNo.push_back(med.commNo);
            free.push_back(med.free);
            meanStep += med.step();
        }
        meanStep /= static_cast<double>(stt.size());
        QVERIFY(a.slowRank.checked);
        QCOMPARE(a.slowRank.dimensions.size(), std::size_t(3));
        QVERIFY(near(a.slowRank.meanStep, meanStep));
        const SlowRankDimension& c = a.slowRank.dimensions[0];
        QCOMPARE(c.name, std::string("Computing"));
        const double spread = (*std::max_element(comp.begin(), comp.end()) - *std::min_element(comp.begin(), comp.end())) / meanStep;
        QVERIFY(near(c.spread, spread));
        // The generator slows rank 3's compute by 25 %: more than the default 5 % gap ratio of
        // the step, so the planted rank is found; the verdict follows the file's numbers.
        QVERIFY(spread > 0.05);
        QVERIFY(c.fired);
        QCOMPARE(c.slowRank, 3);
        QVERIFY(near(c.excess, *std::max_element(comp.begin(), comp.end()) - median(comp)));
        QVERIFY(near(c.value, comp[3]));
        const SlowRankDimension& f = a.slowRank.dimensions[2];
        QVERIFY(near(f.spread, (*std::max_element(free.begin(), free.end()) - *std::min_element(free.begin(), free.end())) / meanStep));
        QCOMPARE(f.fired, f.spread > 0.05);
        const SlowRankDimension& n = a.slowRank.dimensions[1];
        QVERIFY(near(n.spread, (*std::max_element(commNo.begin(), commNo.end()) - *std::min_element(commNo.begin(), commNo.end())) / meanStep));
        QCOMPARE(n.slowRank, 3); // it waits least: the others wait for it
        QVERIFY(near(n.value, commNo[3]));
        // At a 4 % gap ratio the planted rank is named in Computing and Communication.
        const ClusterAnalysis b = analyzeCluster(*m_session, {0.04, 0.8});
        QVERIFY(b.slowRank.fired());
        QCOMPARE(b.slowRank.dimensions[0].fired, spread > 0.04);
        QCOMPARE(b.slowRank.dimensions[0].slowRank, 3);
        QCOMPARE(b.slowRank.dimensions[1].fired, n.spread > 0.04);
        QCOMPARE(b.slowRank.dimensions[1].slowRank, 3);
    }

    void slowLinkIsThePlantedOne()
    {
        const ClusterAnalysis a = analyzeCluster(*m_session);
        QCOMPARE(a.slowLinkSource, std::string("cluster_communication.json"));
        // Σ HCCS Transit Size / Time per rank from the cluster file.
        const auto j = readJson(m_dir.path().toStdString() + "/cluster_analysis_output/cluster_communication.json");
        std::map<int, Sums> hccs;
        for (const auto& [group, steps] : j.items())
            for (const auto& [step, ops] : steps.items())
                for (const auto& [op, ranks] : ops.items()) {
                    if (op == "Total Op Info")
                        continue;
                    for (const auto& [rank, info] : ranks.items()) {
                        const auto& b = info["Communication Bandwidth Info"]["HCCS"];
                        if (b["Transit Size(MB)"].get<double>() > 0 && b["Transit Time(ms)"].get<double>() > 0) {
                            Sums& s = hccs[std::stoi(rank)];
                            s.mb += b["Transit Size(MB)"].get<double>();
                            s.ms += b["Transit Time(ms)"].get<double>();
                        }
                    }
                }
        QCOMPARE(hccs.size(), std::size_t(4));
        std::vector<double> bws;
        for (const auto& [r, s] : hccs)
            bws.push_back(s.mb / s.ms);
        const double med = median(bws);
        QVERIFY(a.slowLink.checked);
        int hccsRows = 0;
        std::vector<int> slow;
        for (const RankTransportBandwidth& r : a.slowLink.rows) {
            if (r.transport != "HCCS")
                continue;
            ++hccsRows;
            QVERIFY(near(r.sizeMB, hccs[r.rank].mb));
            QVERIFY(near(r.timeMs, hccs[r.rank].ms));
            QVERIFY(near(r.median, med));
            QCOMPARE(r.slow, hccs[r.rank].mb / hccs[r.rank].ms < 0.8 * med);
            if (r.slow)
                slow.push_back(r.rank);
        }
        QCOMPARE(hccsRows, 4);
        QCOMPARE(slow, std::vector<int>{1}); // planted: link 1 -> 2 at 40 % bandwidth
    }

    void matrixMatchesTheClusterFile()
    {
        const ClusterAnalysis a = analyzeCluster(*m_session);
        QCOMPARE(a.matrixSource, std::string("cluster_communication_matrix.json"));
        std::map<std::string, std::map<std::pair<int, int>, Sums>> want;
        std::set<std::string> seen;
        addMatrix(readJson(m_dir.path().toStdString() + "/cluster_analysis_output/cluster_communication_matrix.json"), want, seen);
        QCOMPARE(a.matrixRanks, (std::vector<int>{0, 1, 2, 3}));
        QCOMPARE(a.matrices.size(), want.size());
        QCOMPARE(a.matrices.front().collective, std::string("All"));
        for (const CommMatrix& m : a.matrices) {
            QVERIFY2(want.count(m.collective), m.collective.c_str());
            const auto& cells = want[m.collective];
            QCOMPARE(m.cells.size(), cells.size());
            QCOMPARE(m.cells.size(), std::size_t(16));
            for (const MatrixCell& c : m.cells) {
                const Sums& s = cells.at({c.src, c.dst});
                QVERIFY(near(c.sizeMB, s.mb));
                QVERIFY(near(c.timeMs, s.ms));
                QCOMPARE(c.links, s.n);
                QVERIFY(near(c.bandwidthGBps(), s.mb / s.ms));
                QCOMPARE(c.transport, std::string(c.src == c.dst ? "LOCAL" : "HCCS"));
                QCOMPARE(matrixValue(c, MatrixMetric::Transport), c.src == c.dst ? 0.0 : 1.0);
            }
            // The slow cell: the planted link only, below 0.8 × the median of the HCCS links.
            std::vector<double> bw;
            for (const auto& [k, s] : cells)
                if (k.first != k.second)
                    bw.push_back(s.mb / s.ms);
            const double med = median(bw);
            for (const MatrixCell& c : m.cells) {
                const Sums& s = cells.at({c.src, c.dst});
                QCOMPARE(c.slow, c.src != c.dst && s.mb / s.ms < 0.8 * med);
                QCOMPARE(c.slow, c.src == 1 && c.dst == 2);
            }
        }
    }

    void overlapMatchesTheStepTrace()
    {
        // Each rank's collectives covered by its computing = Overlapped of the step trace; their
        // durations = Communication (one collective at a time, steps cover them all).
        const ClusterAnalysis a = analyzeCluster(*m_session);
        const auto stt = readClusterStt(m_dir.path().toStdString() + "/cluster_analysis_output/cluster_step_trace_time.csv");
        QCOMPARE(a.rankOverlap.size(), std::size_t(4));
        TimeNs comm = 0, covered = 0;
        int count = 0;
        for (const RankOverlap& r : a.rankOverlap) {
            const SttMeans& m = stt.at(r.rank);
            QVERIFY(r.collectives > 0);
            QVERIFY2(near(static_cast<double>(r.communication), m.comm, 1e-6),
                     qPrintable(QString("%1 vs %2").arg(r.communication).arg(m.comm)));
            QVERIFY2(near(static_cast<double>(r.covered), m.overlapped, 1e-6),
                     qPrintable(QString("%1 vs %2").arg(r.covered).arg(m.overlapped)));
            comm += r.communication;
            covered += r.covered;
            count += r.collectives;
        }
        QCOMPARE(a.collectiveOverlap.size(), std::size_t(1));
        const CollectiveOverlapStats& c = a.collectiveOverlap.front();
        QCOMPARE(c.collective, std::string("hcom_allReduce"));
        QCOMPARE(c.count, count);
        QCOMPARE(c.communication, comm);
        QCOMPARE(c.covered, covered);
    }

    void findSlowRankEdges()
    {
        // Two ranks, one with +10 % computing: named; equal ranks: nothing.
        const auto times = [](std::vector<std::array<TimeNs, 4>> v) {
            std::vector<RankTimes> out;
            for (const auto& [rank, comp, comm, free] : v) {
                RankTimes t;
                t.rank = static_cast<int>(rank);
                t.split.computing = comp;
                t.split.commNotOverlapped = comm;
                t.split.free = free;
                t.split.stepTime = comp + comm + free;
                out.push_back(t);
            }
            return out;
        };
        SlowRankResult r = findSlowRank(times({{0, 100000000, 10000000, 5000000}, {1, 110000000, 10000000, 5000000}}));
        QVERIFY(r.fired());
        QCOMPARE(r.dimensions[0].slowRank, 1);
        QVERIFY(near(r.dimensions[0].spread, 10e6 / 120e6));
        QVERIFY(near(r.dimensions[0].excess, 110e6 - 105e6));
        QVERIFY(!findSlowRank(times({{0, 100000000, 10000000, 5000000}, {1, 100000000, 10000000, 5000000}})).fired());
        QVERIFY(!findSlowRank(times({{0, 100000000, 10000000, 5000000}})).checked);
        // Spread exactly at the threshold does not fire.
        QVERIFY(!findSlowRank(times({{0, 95, 0, 0}, {1, 105, 0, 0}}), 0.1).fired());
        // Communication: the least (arrived last), or the given last arriver.
        r = findSlowRank(times({{0, 100, 30, 0}, {1, 100, 10, 0}, {2, 100, 20, 0}}));
        QCOMPARE(r.dimensions[1].slowRank, 1);
        r = findSlowRank(times({{0, 100, 30, 0}, {1, 100, 10, 0}, {2, 100, 20, 0}}), 0.05, 2);
        QCOMPARE(r.dimensions[1].slowRank, 2);
        // Slow link: below 0.8 × median; exactly 0.8 passes.
        SlowLinkResult l = findSlowLinks({{0, "HCCS", 100, 10}, {1, "HCCS", 100, 10}, {2, "HCCS", 79, 10}, {3, "RDMA", 5, 1}});
        QCOMPARE(l.rows.size(), std::size_t(3)); // RDMA on one rank only: not compared
        QCOMPARE(l.slow().size(), std::size_t(1));
        QCOMPARE(l.slow().front()->rank, 2);
        QVERIFY(near(l.slow().front()->lostMs(), 10 - 79 / 10.0));
        l = findSlowLinks({{0, "HCCS", 100, 10}, {1, "HCCS", 80, 10}, {2, "HCCS", 100, 10}});
        QVERIFY(l.slow().empty());
    }

    void realTwoRankMatrix()
    {
        const LoadResult lr = loadSession(kLevel1);
        QVERIFY2(lr.session, lr.error.c_str());
        const Session& s = *lr.session;
        QCOMPARE(s.ranks.size(), std::size_t(2));
        const ClusterAnalysis a = analyzeCluster(s);
        QCOMPARE(a.matrixSource, std::string("ranks' communication_matrix.json"));
        std::map<std::string, std::map<std::pair<int, int>, Sums>> want;
        std::set<std::string> seen;
        for (int r : {0, 1})
            addMatrix(readJson(kLevel1 + "/rank" + std::to_string(r) + "_ascend_pt/ASCEND_PROFILER_OUTPUT/communication_matrix.json"),
                      want, seen);
        // Ranks 0 and 1 of an 8-way group: rows 0 and 1, columns 0..7.
        QCOMPARE(a.matrixRanks, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
        QCOMPARE(a.matrices.size(), want.size());
        QCOMPARE(a.matrices.size(), std::size_t(7)); // All + 6 collectives
        for (const CommMatrix& m : a.matrices) {
            QVERIFY2(want.count(m.collective), m.collective.c_str());
            const auto& cells = want[m.collective];
            QCOMPARE(m.cells.size(), cells.size());
            for (const MatrixCell& c : m.cells) {
                const Sums& e = cells.at({c.src, c.dst});
                QVERIFY(near(c.sizeMB, e.mb));
                QVERIFY(near(c.timeMs, e.ms));
                QCOMPARE(c.links, e.n);
                QCOMPARE(c.transport, std::string(c.src == c.dst ? "LOCAL" : "HCCS"));
            }
        }
        // One link as written: rank 0 -> 1 of allreduce-top1 (37.781504 MB in 2.153383 ms, the
        // file's 17.5452 GB/s).
        const CommMatrix* top = nullptr;
        for (const CommMatrix& m : a.matrices)
            if (m.collective == "allreduce-top1")
                top = &m;
        QVERIFY(top);
        const MatrixCell* c01 = top->cell(0, 1);
        QVERIFY(c01);
        QCOMPARE(c01->sizeMB, 37.781504);
        QCOMPARE(c01->timeMs, 2.153383);
        QVERIFY(std::abs(c01->bandwidthGBps() - 17.5452) < 1e-3);
        QVERIFY(!top->cell(2, 3)); // rank 2 was not profiled
        // Two ranks with their own step_trace_time.csv.
        QCOMPARE(a.ranks.size(), std::size_t(2));
        QCOMPARE(a.breakdownSource, std::string("step_trace_time"));
        QCOMPARE(a.ranks[0].split.computing, TimeNs(8873756)); // step_trace_time.csv: 8873.756000000001 µs
        QVERIFY(a.slowRank.checked);
        QVERIFY(a.slowLink.checked); // HCCS on both ranks
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestCluster)

} // namespace test_cluster

#include "test_cluster.moc"
