// `npuscope cluster-summary` and the cluster's communication matrix on the real two-rank
// torch_npu capture at profiler level 1 (shared/samples/real/msinsight/test/data/pytorch/text/
// level1): what they say of each rank against sums computed here from the rank folders' own
// files (step_trace_time.csv, kernel_details.csv, communication.json,
// communication_matrix.json), read with parsers of the test's own.
#include "test_main.h"
#include "cli_run.h"
#include "csv_records.h"
#include "model/analysis/cluster.h"
#include "model/cluster_summary/cluster_summary.h"
#include "model/formats/loader.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace test_cluster_summary_real {

using nlohmann::json;

namespace {

const std::string kLevel1 = std::string(NPUSCOPE_SAMPLES) + "/msinsight/test/data/pytorch/text/level1";

std::string readAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string outputOf(int rank) { return kLevel1 + "/rank" + std::to_string(rank) + "_ascend_pt/ASCEND_PROFILER_OUTPUT/"; }

std::int64_t usToNs(const std::string& us) { return std::llround(std::stold(us) * 1000.0L); }

// A CSV as rows of named cells.
std::vector<std::map<std::string, std::string>> records(const std::string& path)
{
    const auto rows = parseCsv(readAll(path));
    std::vector<std::map<std::string, std::string>> out;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        std::map<std::string, std::string> r;
        for (std::size_t c = 0; c < rows[0].size() && c < rows[i].size(); ++c)
            r[rows[0][c]] = rows[i][c];
        out.push_back(std::move(r));
    }
    return out;
}

struct OpType {
    std::uint64_t count = 0;
    std::int64_t total = 0, min = INT64_MAX, max = 0;
};

bool near(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

} // namespace

class TestClusterSummaryReal : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void ranksAgainstTheirFiles()
    {
        const QString out = m_dir.filePath("level1.json");
        const CliRun run = runCli({"cluster-summary", QString::fromStdString(kLevel1), "-o", out, "--quiet"});
        QVERIFY2(run.code == 0, qPrintable(run.err));
        const json doc = json::parse(readAll(out.toStdString()), nullptr, false);
        QVERIFY(doc.is_object());
        QCOMPARE(doc["rank_folders"].get<int>(), 2);
        QCOMPARE(doc["failed"].size(), std::size_t(0));
        QCOMPARE(doc["ranks"].size(), std::size_t(2));

        double meanT = 0;
        for (int rank = 0; rank < 2; ++rank) {
            const json& r = doc["ranks"][std::size_t(rank)];
            QCOMPARE(r["rank"].get<int>(), rank);

            // The step: step_trace_time.csv's one row, µs to ns.
            const auto steps = records(outputOf(rank) + "step_trace_time.csv");
            QCOMPARE(steps.size(), std::size_t(1));
            const auto& s = steps[0];
            QCOMPARE(r["steps"].size(), std::size_t(1));
            const json& st = r["steps"][0];
            QCOMPARE(st["step"].get<std::string>(), s.at("Step"));
            QCOMPARE(st["computing_ns"].get<std::int64_t>(), usToNs(s.at("Computing")));
            QCOMPARE(st["comm_not_overlapped_ns"].get<std::int64_t>(), usToNs(s.at("Communication(Not Overlapped)")));
            QCOMPARE(st["overlapped_ns"].get<std::int64_t>(), usToNs(s.at("Overlapped")));
            QCOMPARE(st["communication_ns"].get<std::int64_t>(), usToNs(s.at("Communication")));
            QCOMPARE(st["free_ns"].get<std::int64_t>(), usToNs(s.at("Free")));
            const std::int64_t T = usToNs(s.at("Computing")) + usToNs(s.at("Communication(Not Overlapped)")) + usToNs(s.at("Free"));
            QCOMPARE(r["advisor_split"]["T_ns"].get<double>(), double(T));
            const json& b = doc["cluster"]["breakdown"][std::size_t(rank)];
            QCOMPARE(b["rank"].get<int>(), rank);
            QCOMPARE(b["step_ns"].get<double>(), double(T));
            meanT += double(T) / 2;

            // Op types: kernel_details.csv's rows by Type, communication (HCCL) apart.
            std::map<std::string, OpType> types;
            for (const auto& k : records(outputOf(rank) + "kernel_details.csv")) {
                if (k.at("Accelerator Core") == "HCCL")
                    continue;
                OpType& t = types[k.at("Type")];
                const std::int64_t d = usToNs(k.at("Duration(us)"));
                ++t.count;
                t.total += d;
                t.min = std::min(t.min, d);
                t.max = std::max(t.max, d);
            }
            QCOMPARE(types.size(), std::size_t(33));
            QCOMPARE(r["op_types"].size(), types.size());
            for (const json& g : r["op_types"]) {
                const std::string type = g["type"].get<std::string>();
                QVERIFY2(types.count(type), type.c_str());
                const OpType& t = types.at(type);
                QCOMPARE(g["count"].get<std::uint64_t>(), t.count);
                // Each duration carries sub-ns digits: the total is within 1 ns a kernel of the
                // sum of the rounded ones, the extremes within 1 ns.
                QVERIFY2(std::llabs(g["total_ns"].get<std::int64_t>() - t.total) <= std::int64_t(t.count), type.c_str());
                QVERIFY2(std::llabs(g["min_ns"].get<std::int64_t>() - t.min) <= 1, type.c_str());
                QVERIFY2(std::llabs(g["max_ns"].get<std::int64_t>() - t.max) <= 1, type.c_str());
            }

            // Communication: communication.json's collectives, their times and sizes summed.
            const json comm = json::parse(readAll(outputOf(rank) + "communication.json"), nullptr, false);
            QVERIFY(comm.is_object());
            double waitMs = 0, transitMs = 0;
            int ops = 0;
            std::map<std::string, std::pair<double, double>> transport; // MB, ms
            for (const auto& [step, kinds] : comm.items()) {
                if (!kinds.contains("collective"))
                    continue;
                for (const auto& [name, op] : kinds.at("collective").items()) {
                    if (name == "Total Op Info")
                        continue;
                    ++ops;
                    waitMs += op["Communication Time Info"]["Wait Time(ms)"].get<double>();
                    transitMs += op["Communication Time Info"]["Transit Time(ms)"].get<double>();
                    for (const auto& [tt, bw] : op["Communication Bandwidth Info"].items())
                        if (bw["Transit Size(MB)"].get<double>() > 0 && bw["Transit Time(ms)"].get<double>() > 0) {
                            transport[tt].first += bw["Transit Size(MB)"].get<double>();
                            transport[tt].second += bw["Transit Time(ms)"].get<double>();
                        }
                }
            }
            QCOMPARE(ops, 4);
            QCOMPARE(r["comm_stats"].size(), std::size_t(1));
            const json& cs = r["comm_stats"][0];
            QCOMPARE(cs["count"].get<int>(), ops);
            QCOMPARE(cs["total_ns"].get<std::int64_t>(), usToNs(s.at("Communication")));
            QVERIFY2(near(cs["wait_ms"].get<double>(), waitMs), qPrintable(QString::number(waitMs, 'g', 12)));
            QVERIFY2(near(cs["transit_ms"].get<double>(), transitMs), qPrintable(QString::number(transitMs, 'g', 12)));
            QCOMPARE(transport.size(), std::size_t(2)); // HCCS and SDMA
            QCOMPARE(r["comm_transport"].size(), transport.size());
            for (const json& t : r["comm_transport"]) {
                const auto& [mb, ms] = transport.at(t["transport"].get<std::string>());
                QVERIFY(near(t["size_mb"].get<double>(), mb));
                QVERIFY(near(t["time_ms"].get<double>(), ms));
            }

            // Links: communication_matrix.json's links that start at this rank, one total per
            // group (the part of its name before '@'), destination and transport.
            const json matrix = json::parse(readAll(outputOf(rank) + "communication_matrix.json"), nullptr, false);
            QVERIFY(matrix.is_object());
            std::map<std::tuple<std::string, int, std::string>, std::pair<double, double>> links; // MB, ms
            for (const auto& [step, kinds] : matrix.items())
                for (const auto& [kind, groups] : kinds.items())
                    for (const auto& [group, pairs] : groups.items())
                        for (const auto& [pair, link] : pairs.items()) {
                            const auto dash = pair.find('-');
                            if (std::stoi(pair.substr(0, dash)) != rank)
                                continue;
                            auto& l = links[{group.substr(0, group.find('@')), std::stoi(pair.substr(dash + 1)),
                                             link["Transport Type"].get<std::string>()}];
                            l.first += link["Transit Size(MB)"].get<double>();
                            l.second += link["Transit Time(ms)"].get<double>();
                        }
            QCOMPARE(links.size(), std::size_t(48)); // 6 groups × 8 destinations
            QCOMPARE(r["link_totals"].size(), links.size());
            for (const json& t : r["link_totals"]) {
                QCOMPARE(t["src"].get<int>(), rank);
                const auto key = std::make_tuple(t["collective"].get<std::string>(), t["dst"].get<int>(), t["transport"].get<std::string>());
                QVERIFY2(links.count(key), t.dump().c_str());
                QCOMPARE(t["links"].get<int>(), 1);
                QVERIFY2(near(t["size_mb"].get<double>(), links.at(key).first), t.dump().c_str());
                QVERIFY2(near(t["time_ms"].get<double>(), links.at(key).second), t.dump().c_str());
            }
        }
        // The cluster's T: the mean of the ranks' steps, 134.2468125 ms.
        QCOMPARE(doc["cluster"]["T_ns"].get<double>(), meanT);
        QCOMPARE(meanT, 134246812.5);
    }

    // The cluster's communication matrix of every collective ("All"): each transfer counted
    // once. torch_npu's communication_matrix.json lists, per step, sampled ops (groups "-top1",
    // "-middle", "-bottom1".."-bottom3", which may name the same op twice) and their "-total";
    // the total of each src-dst link is the "-total" group's, read here.
    void allMatrixCountsEachTransferOnce()
    {
        std::map<std::pair<int, int>, double> totalMb;
        for (int rank = 0; rank < 2; ++rank) {
            const json matrix = json::parse(readAll(outputOf(rank) + "communication_matrix.json"), nullptr, false);
            QVERIFY(matrix.is_object());
            for (const auto& [step, kinds] : matrix.items())
                for (const auto& [kind, groups] : kinds.items())
                    for (const auto& [group, pairs] : groups.items()) {
                        if (group.substr(0, group.find('@')).find("-total") == std::string::npos)
                            continue;
                        for (const auto& [pair, link] : pairs.items()) {
                            const auto dash = pair.find('-');
                            totalMb[{std::stoi(pair.substr(0, dash)), std::stoi(pair.substr(dash + 1))}] +=
                                link["Transit Size(MB)"].get<double>();
                        }
                    }
        }
        QCOMPARE(totalMb.size(), std::size_t(16)); // 2 source ranks × 8 destinations
        QVERIFY(std::abs(totalMb.at({0, 1}) - 61.210624) < 1e-6);

        // From the rank folders, then from the cluster summary's per-rank link totals.
        const QString summary = m_dir.filePath("matrix.json");
        const CliRun run = runCli({"cluster-summary", QString::fromStdString(kLevel1), "-o", summary, "--quiet"});
        QVERIFY2(run.code == 0, qPrintable(run.err));
        const npuscope::LoadResult lr = npuscope::loadSession(kLevel1);
        QVERIFY2(lr.session, lr.error.c_str());
        json doc;
        std::string error;
        QVERIFY2(npuscope::cluster_summary::readSummary(summary.toStdString(), doc, &error), error.c_str());
        const npuscope::SessionPtr fromSummary = npuscope::cluster_summary::sessionFromSummary(doc, summary.toStdString());
        QVERIFY(fromSummary);
        for (const auto& [input, session] : {std::pair{kLevel1, lr.session}, std::pair{summary.toStdString(), fromSummary}}) {
            const npuscope::ClusterAnalysis a = npuscope::analyzeCluster(*session);
            QVERIFY(!a.matrices.empty());
            const npuscope::CommMatrix& all = a.matrices.front();
            QCOMPARE(all.collective, std::string("All"));
            QCOMPARE(all.cells.size(), totalMb.size());
            for (const auto& [link, mb] : totalMb) {
                const npuscope::MatrixCell* c = all.cell(link.first, link.second);
                QVERIFY2(c, qPrintable(QString("%1: no cell %2-%3").arg(QString::fromStdString(input)).arg(link.first).arg(link.second)));
                QVERIFY2(std::abs(c->sizeMB - mb) <= 1e-9 * mb,
                         qPrintable(QString("%1: %2-%3: %4 MB, -total %5 MB").arg(QString::fromStdString(input))
                                        .arg(link.first).arg(link.second).arg(c->sizeMB, 0, 'f', 6).arg(mb, 0, 'f', 6)));
            }
        }
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestClusterSummaryReal)

} // namespace test_cluster_summary_real

#include "test_cluster_summary_real.moc"
