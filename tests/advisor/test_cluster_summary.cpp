// `npuscope cluster-summary` on a generated 16-rank cluster: the file is the same whatever the
// number of threads (and, in a build with MPI, of mpirun processes); its numbers match the rank
// folders loaded here; its cluster findings are those `advise` finds on the full folder; a
// folder that fails, a read that hangs and a process that dies are handled (the last two by
// the fault injection of docs/CLUSTER-SUMMARY.md).
#include "test_main.h"
#include "../model/cli_run.h"

#include "model/analysis/cluster.h"
#include "model/analysis/collectives.h"
#include "model/analysis/step_diff.h"
#include "model/cluster_summary/cluster_summary.h"
#include "model/cluster_summary/summary_late.h"
#include "model/cluster_summary/open_session.h"
#include "model/formats/loader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

namespace test_cluster_summary {

using namespace npuscope;
using nlohmann::json;

namespace {

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

json readJson(const QString& path)
{
    return json::parse(readAll(path).toStdString(), nullptr, false);
}

// (id, status, severity, title) of the cluster category, in report order.
std::vector<std::string> clusterFindings(const json& findings)
{
    std::vector<std::string> out;
    for (const auto& f : findings)
        if (f.value("category", std::string()) == "cluster")
            out.push_back(f.value("id", std::string()) + " | " + f.value("status", std::string()) + " | "
                          + (f.value("status", std::string()) == "fired" ? f.value("severity", std::string()) : "") + " | "
                          + (f.value("status", std::string()) == "fired" ? f.value("title", std::string()) : ""));
    std::sort(out.begin(), out.end());
    return out;
}

// Σ length of the union of top-level slices on a track.
TimeNs busyOf(const Profile& p, const Track& t)
{
    std::vector<std::pair<TimeNs, TimeNs>> v;
    for (std::uint32_t i = t.sliceBegin; i < t.sliceEnd; ++i)
        if (p.slices.depth[i] == 0)
            v.emplace_back(p.slices.start[i], p.slices.end(i));
    std::sort(v.begin(), v.end());
    TimeNs total = 0, curB = 0, curE = -1;
    for (auto [b, e] : v) {
        if (e <= curE)
            continue;
        if (b > curE) {
            if (curE > curB)
                total += curE - curB;
            curB = b;
        }
        curE = e;
    }
    if (curE > curB)
        total += curE - curB;
    return total;
}

} // namespace

class TestClusterSummary : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_root, m_threads1, m_threads2;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_root = m_dir.filePath("cluster");
        const CliRun s = runCli({"synth", m_root, "--scenario", "cluster-slowrank", "--ranks", "16", "--steps", "2",
                                 "--slow-rank", "5", "--quiet"});
        QCOMPARE(s.code, 0);
        // A job of this size has no msprof-analyze output: the ranks' own files are the input.
        QVERIFY(QDir(m_root + "/cluster_analysis_output").removeRecursively());
        m_threads1 = m_dir.filePath("t1.json");
        m_threads2 = m_dir.filePath("t2.json");
        const CliRun a = runCli({"cluster-summary", m_root, "-o", m_threads1, "--threads", "1", "--quiet"});
        QVERIFY2(a.code == 0, qPrintable(a.err));
        const CliRun b = runCli({"cluster-summary", m_root, "-o", m_threads2, "--threads", "2", "--quiet"});
        QVERIFY2(b.code == 0, qPrintable(b.err));
    }

    void sameBytesWhateverTheThreads() { QCOMPARE(readAll(m_threads2), readAll(m_threads1)); }

    void ranksMatchTheFolders()
    {
        const json doc = readJson(m_threads1);
        QVERIFY(!doc.is_discarded());
        QCOMPARE(doc["format"].get<std::string>(), std::string(cluster_summary::kFormatName));
        QCOMPARE(doc["version"].get<int>(), cluster_summary::kFormatVersion);
        QCOMPARE(doc["ranks"].size(), std::size_t(16));
        QCOMPARE(doc["failed"].size(), std::size_t(0));
        for (int i = 0; i < 16; ++i)
            QCOMPARE(doc["ranks"][static_cast<std::size_t>(i)]["rank"].get<int>(), i);

        // Rank 5 (the slow one), loaded here on its own.
        const json& r5 = doc["ranks"][5];
        const LoadResult lr = loadSession(r5["path"].get<std::string>());
        QVERIFY(lr.session && lr.session->ranks.size() == 1);
        const Profile& p = *lr.session->ranks[0];
        QCOMPARE(p.rank, 5);
        QCOMPARE(r5["steps"].size(), std::size_t(2));
        // Each step's range is the timeline's span of that step, whatever gave its split.
        const std::vector<StepSpan> spans = stepSpans(p);
        QCOMPARE(spans.size(), std::size_t(2));
        for (std::size_t i = 0; i < 2; ++i) {
            QCOMPARE(r5["steps"][i]["begin_ns"].get<TimeNs>(), spans[i].begin);
            QCOMPARE(r5["steps"][i]["end_ns"].get<TimeNs>(), spans[i].end);
        }
        QCOMPARE(r5["advisor_split"]["steps"].get<int>(), 2);

        // Communication: the totals per transport of its ops' bandwidth rows (what the slow-link
        // test sums), and its links per collective, src, dst and transport. A generated rank, like
        // a real one, lists the links that start at it, so none is another file's.
        std::map<std::string, std::pair<double, double>> perTransport;
        for (const auto& o : p.commOps)
            if (!o.totalInfo)
                for (const auto& b : o.bandwidth)
                    if (b.sizeMB > 0 && b.timeMs > 0) {
                        perTransport[std::string(p.str(b.transport))].first += b.sizeMB;
                        perTransport[std::string(p.str(b.transport))].second += b.timeMs;
                    }
        QVERIFY(perTransport.size() >= 2);
        QCOMPARE(r5["comm_transport"].size(), perTransport.size());
        for (const auto& t : r5["comm_transport"]) {
            const auto& [mb, ms] = perTransport.at(t["transport"].get<std::string>());
            QVERIFY(std::abs(t["size_mb"].get<double>() - mb) <= 1e-9 * mb);
            QVERIFY(std::abs(t["time_ms"].get<double>() - ms) <= 1e-9 * ms);
        }
        QVERIFY(!r5.contains("comm_ops") && !r5.contains("links"));
        std::set<std::tuple<std::string, std::string, int, int>> distinct;
        double linkMb = 0;
        for (const auto& l : p.commLinks) {
            QCOMPARE(l.src, 5);
            if (distinct.insert({std::string(p.str(l.step)), std::string(p.str(l.fullName)), l.src, l.dst}).second)
                linkMb += l.sizeMB;
        }
        std::uint64_t totalLinks = 0;
        double totalMb = 0;
        for (const auto& t : r5["link_totals"]) {
            QCOMPARE(t["src"].get<int>(), 5);
            totalLinks += t["links"].get<std::uint64_t>();
            totalMb += t["size_mb"].get<double>();
        }
        QCOMPARE(totalLinks, static_cast<std::uint64_t>(distinct.size()));
        QVERIFY(std::abs(totalMb - linkMb) <= 1e-9 * linkMb);
        QVERIFY(r5["link_totals"].size() < distinct.size() / 2); // totals, not every link again

        // Op types: the counts add up to the kernel rows that are not communication.
        std::uint64_t counted = 0, kernelsNotComm = 0;
        for (const auto& g : r5["op_types"])
            counted += g["count"].get<std::uint64_t>();
        for (std::size_t k = 0; k < p.kernels.size(); ++k) {
            const std::string tt(p.str(p.kernels.taskType[k]));
            const std::string ty(p.str(p.kernels.type[k]));
            if (tt != "HCCL" && tt != "COMMUNICATION" && ty.rfind("hcom", 0) != 0)
                ++kernelsNotComm;
        }
        QCOMPARE(counted, kernelsNotComm);
        for (const auto& g : r5["op_types"]) {
            QVERIFY(g["min_ns"].get<TimeNs>() <= g["p50_ns"].get<TimeNs>());
            QVERIFY(g["p50_ns"].get<TimeNs>() <= g["p90_ns"].get<TimeNs>());
            QVERIFY(g["p99_ns"].get<TimeNs>() <= g["max_ns"].get<TimeNs>());
        }

        // Overview: per stream, the busy buckets add up to the union of its tasks.
        const json& ov = r5["overview"];
        QCOMPARE(ov["buckets"].get<int>(), cluster_summary::kDefaultBuckets);
        const double span = static_cast<double>(p.end - p.begin);
        const double width = span / cluster_summary::kDefaultBuckets;
        std::size_t streams = 0;
        for (const Track& t : p.tracks)
            if (t.kind == TrackKind::Stream || t.kind == TrackKind::CommGroup)
                ++streams;
        QCOMPARE(ov["streams"].size(), streams);
        std::size_t si = 0;
        for (const Track& t : p.tracks) {
            if (t.kind != TrackKind::Stream && t.kind != TrackKind::CommGroup)
                continue;
            const json& s = ov["streams"][si++];
            // One letter a bucket: 'A' idle … 'y' saturated in steps of 2 %, then the run's length.
            const std::string levels = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxy";
            const std::string text = s["busy"].get<std::string>();
            double busy = 0;
            int buckets = 0;
            for (std::size_t i = 0; i < text.size();) {
                const auto level = levels.find(text[i++]);
                QVERIFY(level != std::string::npos);
                int run = 0;
                while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
                    run = run * 10 + (text[i++] - '0');
                run = std::max(run, 1);
                busy += static_cast<double>(level) * 0.02 * width * run;
                buckets += run;
            }
            QCOMPARE(buckets, cluster_summary::kDefaultBuckets);
            const double truth = static_cast<double>(busyOf(p, t));
            // Each bucket is rounded to 1 % of its width.
            QVERIFY2(std::abs(busy - truth) <= 0.01 * span + 1, qPrintable(QString::number(busy) + " vs " + QString::number(truth)));
        }
    }

    // The file stays small as ranks grow: per rank it keeps totals, not every op and link; with a
    // name ending in .gz it is the same text gzip-compressed, which every reader takes.
    void sizePerRankAndGzip()
    {
        const QString gz = m_dir.filePath("t1.json.gz");
        const CliRun w = runCli({"cluster-summary", m_root, "-o", gz, "--threads", "2", "--quiet"});
        QVERIFY2(w.code == 0, qPrintable(w.err));
        const QByteArray packed = readAll(gz);
        QVERIFY(packed.startsWith("\x1f\x8b"));
        QVERIFY(cluster_summary::isSummaryFile(gz.toStdString()));
        json fromGz;
        std::string err;
        QVERIFY2(cluster_summary::readSummary(gz.toStdString(), fromGz, &err), err.c_str());
        QCOMPARE(QByteArray::fromStdString(cluster_summary::dumpSummary(fromGz)), readAll(m_threads1));
        const CliRun a = runCli({"advise", gz, "--format", "json"}), b = runCli({"advise", m_threads1, "--format", "json"});
        QVERIFY2(a.code == 0 && b.code == 0, qPrintable(a.err + b.err));
        QCOMPARE(clusterFindings(json::parse(a.out.toStdString())["findings"]),
                 clusterFindings(json::parse(b.out.toStdString())["findings"]));

        const qint64 plain = QFileInfo(m_threads1).size(), compressed = packed.size();
        const json doc = readJson(m_threads1);
        qint64 biggest = 0;
        for (const auto& r : doc["ranks"])
            biggest = std::max<qint64>(biggest, static_cast<qint64>(r.dump().size()));
        qInfo("summary of 16 ranks: %lld bytes, %lld gzip-compressed; largest rank %lld bytes", static_cast<long long>(plain),
              static_cast<long long>(compressed), static_cast<long long>(biggest));
        QVERIFY2(biggest < 20 * 1024, qPrintable(QString::number(biggest)));
        QVERIFY2(compressed < plain / 4, qPrintable(QString::number(compressed)));
    }

    void clusterFindingsEqualAdviseOnTheFullFolder()
    {
        const CliRun full = runCli({"advise", m_root, "--format", "json"});
        QVERIFY2(full.code == 0, qPrintable(full.err));
        const json fullReport = json::parse(full.out.toStdString());
        const auto expected = clusterFindings(fullReport["findings"]);
        // The generated slow rank is found.
        const auto has = [&](const std::string& prefix) {
            return std::any_of(expected.begin(), expected.end(), [&](const std::string& s) { return s.rfind(prefix, 0) == 0; });
        };
        QVERIFY(has("CLU-SLOWRANK/computing | fired"));
        QVERIFY(has("CLU-SLOWLINK | passed") || has("CLU-SLOWLINK/"));

        const json doc = readJson(m_threads1);
        QCOMPARE(clusterFindings(doc["cluster"]["findings"]), expected);

        // advise on the summary itself: the same cluster findings, and the ranks' findings.
        const CliRun onSummary = runCli({"advise", m_threads1, "--format", "json"});
        QVERIFY2(onSummary.code == 0, qPrintable(onSummary.err));
        const json sumReport = json::parse(onSummary.out.toStdString());
        QCOMPARE(clusterFindings(sumReport["findings"]), expected);
        std::set<std::string> fullRankIds, sumRankIds;
        for (const auto& f : fullReport["findings"])
            if (f["status"] == "fired" && f["category"] != "cluster")
                fullRankIds.insert(f["id"].get<std::string>());
        for (const auto& f : sumReport["findings"])
            if (f["status"] == "fired" && f["category"] != "cluster")
                sumRankIds.insert(f["id"].get<std::string>());
        QVERIFY(!fullRankIds.empty());
        QCOMPARE(sumRankIds, fullRankIds);
        // A fired cluster finding keeps its description, suggestions and first evidence rows.
        for (const auto& f : fullReport["findings"]) {
            if (f["status"] != "fired" || f["category"] != "cluster")
                continue;
            const auto same = std::find_if(sumReport["findings"].begin(), sumReport["findings"].end(),
                                           [&](const json& g) { return g["id"] == f["id"]; });
            QVERIFY(same != sumReport["findings"].end());
            QCOMPARE((*same)["description"], f["description"]);
            QCOMPARE((*same)["suggestions"], f["suggestions"]);
            QCOMPARE((*same)["gain"]["text"], f["gain"]["text"]);
            QCOMPARE((*same)["evidence"].size(), std::min<std::size_t>(20, f["evidence"].size()));
            // The rows: the same place and numbers (the row text names the summary's per-rank
            // breakdown as the input where the folders name each rank's own).
            for (std::size_t i = 0; i < (*same)["evidence"].size(); ++i) {
                QCOMPARE((*same)["evidence"][i]["at"].value("rank", -1), f["evidence"][i]["at"].value("rank", -1));
                QCOMPARE((*same)["evidence"][i]["metrics"].size(), f["evidence"][i]["metrics"].size());
                for (std::size_t m = 0; m < f["evidence"][i]["metrics"].size(); ++m) {
                    const json &a = (*same)["evidence"][i]["metrics"][m]["value"], &b = f["evidence"][i]["metrics"][m]["value"];
                    QVERIFY(a.is_number() == b.is_number());
                    if (b.is_number())
                        QVERIFY(std::abs(a.get<double>() - b.get<double>()) <= 1e-6 * std::max(1.0, std::abs(b.get<double>())));
                }
            }
        }
    }

    // What the window's Cluster tab computes from the file (slow rank, slow link, the matrix)
    // equals what it computes from the folders, though the file keeps only totals.
    void clusterAnalysisFromTheFile()
    {
        json doc;
        std::string err;
        QVERIFY2(cluster_summary::readSummary(m_threads1.toStdString(), doc, &err), err.c_str());
        const SessionPtr fromFile = cluster_summary::sessionFromSummary(doc, m_threads1.toStdString());
        const LoadResult folders = loadSession(m_root.toStdString());
        QVERIFY(folders.session);
        const ClusterAnalysis a = analyzeCluster(*fromFile), b = analyzeCluster(*folders.session);
        QCOMPARE(a.slowRank.dimensions.size(), b.slowRank.dimensions.size());
        QCOMPARE(a.slowRank.dimensions[0].slowRank, b.slowRank.dimensions[0].slowRank);
        QCOMPARE(a.slowLink.rows.size(), b.slowLink.rows.size());
        for (std::size_t i = 0; i < a.slowLink.rows.size(); ++i) {
            QCOMPARE(a.slowLink.rows[i].rank, b.slowLink.rows[i].rank);
            QCOMPARE(a.slowLink.rows[i].transport, b.slowLink.rows[i].transport);
            QVERIFY(std::abs(a.slowLink.rows[i].bandwidthGBps() - b.slowLink.rows[i].bandwidthGBps()) <= 1e-9 * b.slowLink.rows[i].bandwidthGBps());
            QCOMPARE(a.slowLink.rows[i].slow, b.slowLink.rows[i].slow);
        }
        QCOMPARE(a.matrixRanks, b.matrixRanks);
        QCOMPARE(a.matrices.size(), b.matrices.size());
        QVERIFY(a.matrices.size() >= 2);
        for (std::size_t m = 0; m < a.matrices.size(); ++m) {
            QCOMPARE(a.matrices[m].collective, b.matrices[m].collective);
            QCOMPARE(a.matrices[m].cells.size(), b.matrices[m].cells.size());
            for (std::size_t i = 0; i < a.matrices[m].cells.size(); ++i) {
                const auto &x = a.matrices[m].cells[i], &y = b.matrices[m].cells[i];
                QCOMPARE(std::make_tuple(x.src, x.dst, x.transport, x.links, x.slow), std::make_tuple(y.src, y.dst, y.transport, y.links, y.slow));
                QVERIFY(std::abs(x.sizeMB - y.sizeMB) <= 1e-9 * y.sizeMB);
                QVERIFY(std::abs(x.timeMs - y.timeMs) <= 1e-9 * std::max(1e-9, y.timeMs));
            }
        }
    }

    // compare takes a summary on either side: the step time is the slowest rank's mean step
    // (the largest advisor_split T in the file), the operators the op types summed over ranks,
    // and the folder against its own summary changes nothing.
    void compareReadsASummary()
    {
        const json doc = readJson(m_threads1);
        double slowestT = -1;
        std::map<std::string, std::pair<std::uint64_t, std::int64_t>> ops;
        for (const auto& r : doc["ranks"]) {
            slowestT = std::max(slowestT, r["advisor_split"]["T_ns"].get<double>());
            for (const auto& o : r["op_types"]) {
                auto& [count, total] = ops[o["type"].get<std::string>()];
                count += o["count"].get<std::uint64_t>();
                total += o["total_ns"].get<std::int64_t>();
            }
        }
        const CliRun both = runCli({"compare", m_threads1, m_threads2, "--format", "json", "--top", "0"});
        QVERIFY2(both.code == 0, qPrintable(both.err));
        const json c = json::parse(both.out.toStdString());
        QCOMPARE(c["speedup"].get<double>(), 1.0);
        const auto& step = c["headline"][0];
        QCOMPARE(step["metric"].get<std::string>(), std::string("Step time"));
        QVERIFY(std::abs(step["baseline"].get<double>() - slowestT / 1e6) < 1e-6);
        QCOMPARE(c["operators"].size(), ops.size());
        for (const auto& o : c["operators"]) {
            const auto& [count, total] = ops.at(o["operator_name"].get<std::string>());
            QCOMPARE(o["baseline_count"].get<std::uint64_t>(), count);
            QVERIFY(std::abs(o["baseline_ms"].get<double>() - static_cast<double>(total) / 1e6) < 1e-6);
        }
        // The advisor diff reads the summary's cluster and rank findings: all remain.
        QVERIFY(c["advisor_compared"].get<bool>());
        QVERIFY(!c["advisor"].empty());
        for (const auto& a : c["advisor"])
            QCOMPARE(a["change"].get<std::string>(), std::string("remaining"));

        // The folder against its summary: the same step time and operators.
        const CliRun mixed = runCli({"compare", m_root, m_threads1, "--format", "json", "--top", "0", "--no-advisor"});
        QVERIFY2(mixed.code == 0, qPrintable(mixed.err));
        const json m = json::parse(mixed.out.toStdString());
        QVERIFY(std::abs(m["speedup"].get<double>() - 1.0) < 1e-6);
        for (const auto& o : m["operators"])
            QCOMPARE(o["baseline_ms"], o["optimized_ms"]);
        // By name: a summary keeps types, and says so.
        const CliRun byName = runCli({"compare", m_threads1, m_threads2, "--group-by", "name", "--no-advisor"});
        QCOMPARE(byName.code, 0);
        QVERIFY(byName.err.contains(QStringLiteral("compared by type")));
    }

    void analyzeCommunicationFromTheSummary()
    {
        const QStringList tail{"--metric", "communication_duration", "--format", "csv"};
        const CliRun full = runCli(QStringList{"analyze", "--import", m_root} + tail);
        const CliRun sum = runCli(QStringList{"analyze", "--import", m_threads1} + tail);
        QVERIFY2(full.code == 0 && sum.code == 0, qPrintable(full.err + sum.err));
        QVERIFY(sum.out.count(QLatin1Char('\n')) >= 1 + 16); // a header, then at least a collective per rank
        QCOMPARE(sum.out, full.out);
    }

    // The late-rank numbers the file keeps are those of the folders' timelines: the generated slow
    // rank arrives last, its count, wait and held time are the instances it arrived last at, and
    // it keeps its largest spreads. A file without them (version 2) still reads, CLU-LATE then
    // not checked.
    void lateRanksFromTheFolders()
    {
        const json doc = readJson(m_threads1);
        QVERIFY(doc["collectives"].value("checked", false));
        const LoadResult all = loadSession(m_root.toStdString());
        QVERIFY(all.session && all.session->ranks.size() == 16);
        const CollectivesResult r = analyzeCollectives(*all.session);
        QVERIFY(!r.instances.empty());
        QCOMPARE(doc["collectives"]["steps"].get<int>(), r.steps);
        QCOMPARE(doc["collectives"]["instances"].get<std::size_t>(), r.instances.size());
        std::map<int, std::vector<const CollectiveInstance*>> lastAt;
        for (const CollectiveInstance& i : r.instances)
            if (i.lastRank >= 0)
                lastAt[i.lastRank].push_back(&i);
        QVERIFY(lastAt.count(5) == 1); // the generated slow rank
        int ranksWithLate = 0;
        for (const auto& rank : doc["ranks"]) {
            const int id = rank["rank"].get<int>();
            if (!rank.contains("late")) {
                QVERIFY2(lastAt.count(id) == 0, qPrintable(QString::number(id)));
                continue;
            }
            ++ranksWithLate;
            const json& late = rank["late"];
            const auto& mine = lastAt[id];
            std::int64_t wait = 0, held = 0, largest = 0;
            for (const CollectiveInstance* i : mine) {
                wait += i->waitCaused;
                held += i->spread;
                largest = std::max<std::int64_t>(largest, i->spread);
            }
            QCOMPARE(late["last_count"].get<std::size_t>(), mine.size());
            QCOMPARE(late["wait_caused_ns"].get<std::int64_t>(), wait);
            QCOMPARE(late["held_ns"].get<std::int64_t>(), held);
            QCOMPARE(late["top"].size(), std::min(mine.size(), cluster_summary::kLateKeptInstances));
            QCOMPARE(late["top"][0][4].get<std::int64_t>(), largest);
            QVERIFY(late["top"][0][8].get<std::string>().rfind("rank " + std::to_string(id) + " arrived ", 0) == 0);
        }
        QCOMPARE(ranksWithLate, static_cast<int>(lastAt.size()));

        // Version 2, without the late-rank numbers.
        json old = doc;
        old.erase("collectives");
        for (auto& rank : old["ranks"])
            rank.erase("late");
        std::string text = cluster_summary::dumpSummary(old); // "format" and "version" first
        const std::string current = "\"version\":" + std::to_string(cluster_summary::kFormatVersion) + ",";
        QVERIFY(text.find(current) != std::string::npos);
        text.replace(text.find(current), current.size(), "\"version\":2,");
        const QString path = m_dir.filePath("v2.json");
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(QByteArray::fromStdString(text));
        }
        const CliRun a = runCli({"advise", path, "--format", "json"});
        QVERIFY2(a.code == 0, qPrintable(a.err));
        int lateFindings = 0;
        const json report = json::parse(a.out.toStdString());
        for (const auto& f : report["findings"])
            if (f.value("rule", std::string()) == "CLU-LATE") {
                ++lateFindings;
                QCOMPARE(f["status"].get<std::string>(), std::string("not_checked"));
                QVERIFY2(f.value("needs", std::string()).find("predates") != std::string::npos, f.dump().c_str());
            }
        QCOMPARE(lateFindings, 1);
    }

    void clusterSectionNumbers()
    {
        const json doc = readJson(m_threads1);
        const json& c = doc["cluster"];
        QCOMPARE(c["breakdown"].size(), std::size_t(16));
        // Slow rank: rank 5 computes longest.
        int slowest = -1;
        double most = 0;
        for (const auto& r : doc["ranks"])
            if (r["advisor_split"]["computing_ns"].get<double>() > most) {
                most = r["advisor_split"]["computing_ns"].get<double>();
                slowest = r["rank"].get<int>();
            }
        QCOMPARE(slowest, 5);
        QCOMPARE(c["slow_rank"]["dimensions"][0]["slow_rank"].get<int>(), 5);
        QVERIFY(c["slow_rank"]["dimensions"][0]["fired"].get<bool>());
        // COM-WAIT: every rank's wait; the total equals Σ wait of flagged ops over the ranks' folders.
        const LoadResult all = loadSession(m_root.toStdString());
        QVERIFY(all.session && all.session->ranks.size() == 16);
        double expectWait = 0;
        const double ratio = c["com_wait"]["wait_ratio"].get<double>();
        for (const auto& p : all.session->ranks)
            for (const auto& o : p->commOps)
                if (!o.totalInfo && o.waitRatio >= ratio && o.waitMs == o.waitMs)
                    expectWait += o.waitMs;
        QVERIFY(expectWait > 0);
        double gotWait = 0;
        for (const auto& w : c["com_wait"]["ranks"])
            gotWait += w["wait_ms"].get<double>();
        QCOMPARE(c["com_wait"]["ranks"].size(), std::size_t(16));
        QVERIFY(std::abs(gotWait - expectWait) <= 1e-6 * std::max(1.0, expectWait));
    }

    void ranksFromFileAndBalance()
    {
        // Four folders named in a list: only those are read.
        const QString list = m_dir.filePath("ranks.txt");
        QFile f(list);
        QVERIFY(f.open(QIODevice::WriteOnly));
        const json doc = readJson(m_threads1);
        f.write("# the first node's ranks\n");
        for (int i : {0, 1, 2, 5})
            f.write(QByteArray::fromStdString(doc["ranks"][static_cast<std::size_t>(i)]["folder"].get<std::string>() + "\n"));
        f.close();
        const QString out = m_dir.filePath("four.json");
        const CliRun r = runCli({"cluster-summary", m_root, "--ranks-from", list, "-o", out, "--quiet"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const json four = readJson(out);
        QCOMPARE(four["ranks"].size(), std::size_t(4));
        QCOMPARE(four["ranks"][3]["rank"].get<int>(), 5);
        // The reduction of a rank does not depend on which other ranks were read.
        QCOMPARE(four["ranks"][3]["op_types"].dump(), doc["ranks"][5]["op_types"].dump());

        // Balance by bytes: 4 processes over 16 ranks of one size get 4 each.
        std::string error;
        const auto folders = cluster_summary::listRankFolders(m_root.toStdString(), "", &error);
        QCOMPARE(folders.size(), std::size_t(16));
        const auto shares = cluster_summary::assignByBytes(folders, 4);
        std::uint64_t minB = UINT64_MAX, maxB = 0, largest = 0;
        for (const auto& s : shares) {
            std::uint64_t b = 0;
            for (std::size_t i : s)
                b += folders[i].bytes;
            minB = std::min(minB, b);
            maxB = std::max(maxB, b);
        }
        for (const auto& fo : folders)
            largest = std::max(largest, fo.bytes);
        QVERIFY(maxB - minB <= largest); // greedy bound
    }

    // A version 1 file (every op and link, the overview as [‰, count] pairs) still opens: its
    // ops, links and lanes as written. A version above this build's is refused by name.
    void readsVersion1()
    {
        QTemporaryDir d;
        const QString path = d.filePath("v1.json");
        const json bw = json::array({{{"transport", "HCCS"}, {"size_mb", 8.0}, {"time_ms", 0.5}, {"bandwidth_gbps", 16.0}}});
        json ranks = json::array();
        for (int r = 0; r < 2; ++r)
            ranks.push_back({{"rank", r},
                             {"folder", "rank_" + std::to_string(r)},
                             {"path", "/nowhere/rank_" + std::to_string(r)},
                             {"advisor_split", {{"T_ns", 1e6}, {"computing_ns", 8e5}, {"comm_not_overlapped_ns", 1e5}, {"free_ns", 1e5}, {"steps", 2}}},
                             {"comm_ops", json::array({{{"step", "step1"}, {"kind", "collective"}, {"full_name", "hcom_allReduce__1_0@g"},
                                                        {"start_ns", 100}, {"elapse_ms", 1.0}, {"transit_ms", 0.5}, {"wait_ms", 0.4},
                                                        {"wait_ratio", 0.44}, {"bandwidth", bw}}})},
                             {"links", json::array({{{"step", "step1"}, {"kind", "collective"}, {"full_name", "hcom_allReduce__1_0@g"},
                                                     {"src", r}, {"dst", 1 - r}, {"transport", "HCCS"}, {"size_mb", 8.0}, {"time_ms", 0.5}}})},
                             {"overview", {{"begin_ns", 0}, {"end_ns", 4000}, {"buckets", 4},
                                           {"streams", json::array({{{"process", "NPU"}, {"thread", "Stream 2"}, {"kind", "Stream"}, {"tasks", 3},
                                                                     {"busy_permille", json::array({json::array({500, 2}), json::array({1000, 9})})}}})}}}});
        json doc = {{"format", cluster_summary::kFormatName}, {"version", 1}, {"ranks", ranks}, {"failed", json::array()}};
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(doc.dump())); // "failed", "format" first: the format in the first bytes
        }
        const LoadResult lr = openSession(path.toStdString());
        QVERIFY2(lr.session, lr.error.c_str());
        const ClusterData& c = lr.session->cluster;
        QCOMPARE(c.comm.size(), std::size_t(2));
        QCOMPARE(c.comm[1].rank, 1);
        QCOMPARE(c.comm[1].waitMs, 0.4);
        QCOMPARE(c.links.size(), std::size_t(2));
        QCOMPARE(c.overview.size(), std::size_t(2));
        // The pairs as written, a longer run cut at the lane's 4 buckets.
        QCOMPARE(c.overview[0].busyPermille, (std::vector<std::uint16_t>{500, 500, 1000, 1000}));
        const ClusterAnalysis a = analyzeCluster(*lr.session);
        QCOMPARE(a.matrices.size(), std::size_t(2)); // All, allReduce
        QCOMPARE(a.matrices[0].cells.size(), std::size_t(2));

        // A version above this reader's: refused, naming the file and both versions.
        const int newerVersion = cluster_summary::kFormatVersion + 1;
        doc["version"] = newerVersion;
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(QByteArray::fromStdString(doc.dump()));
        }
        const LoadResult newer = openSession(path.toStdString());
        QVERIFY(!newer.session);
        QVERIFY2(newer.error.find("version " + std::to_string(newerVersion)) != std::string::npos
                     && newer.error.find(path.toStdString()) != std::string::npos,
                 newer.error.c_str());
    }

    void failedFolderIsListed()
    {
        QTemporaryDir d;
        const QString root = d.filePath("c");
        QCOMPARE(runCli({"synth", root, "--scenario", "cluster-slowrank", "--ranks", "4", "--steps", "2", "--quiet"}).code, 0);
        QVERIFY(QDir(root + "/cluster_analysis_output").removeRecursively());
        std::string error;
        const auto folders = cluster_summary::listRankFolders(root.toStdString(), "", &error);
        QCOMPARE(folders.size(), std::size_t(4));
        // Rank 2's files all become garbage.
        std::size_t broken = 0;
        for (const auto& e : std::filesystem::recursive_directory_iterator(folders[2].path))
            if (e.is_regular_file()) {
                QFile f(QString::fromStdString(e.path().string()));
                QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
                f.write("\x01\x02 not a profile {");
                ++broken;
            }
        QVERIFY(broken > 0);
        const QString out = d.filePath("s.json");
        const CliRun r = runCli({"cluster-summary", root, "-o", out, "--quiet"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const json doc = readJson(out);
        QCOMPARE(doc["ranks"].size(), std::size_t(3));
        QCOMPARE(doc["failed"].size(), std::size_t(1));
        QCOMPARE(doc["failed"][0]["folder"].get<std::string>(), folders[2].folder);
        QVERIFY(!doc["failed"][0]["reason"].get<std::string>().empty());
        QVERIFY(r.err.contains(QString::fromStdString(folders[2].folder)));
    }

    void timeoutBoundsAStuckRead()
    {
        QTemporaryDir d;
        const QString root = d.filePath("c");
        QCOMPARE(runCli({"synth", root, "--scenario", "cluster-slowrank", "--ranks", "3", "--steps", "2", "--quiet"}).code, 0);
        QVERIFY(QDir(root + "/cluster_analysis_output").removeRecursively());
        std::string error;
        const auto folders = cluster_summary::listRankFolders(root.toStdString(), "", &error);
        QCOMPARE(folders.size(), std::size_t(3));
        // Rank 1's first read never returns (as on a dead mount), and ignores cancellation.
        const QString out = d.filePath("s.json");
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("NPUSCOPE_CLUSTER_SUMMARY_STALL", QString::fromStdString(folders[1].path));
        p.setProcessEnvironment(env);
        // The bound leaves the healthy folders room to load under a sanitizer on a busy machine
        // (a second was not enough there: they timed out too).
        p.start(QStringLiteral(NPUSCOPE_BINARY), {"cluster-summary", root, "-o", out, "--timeout", "15", "--quiet"});
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, p.readAllStandardError().constData());
        const json doc = readJson(out);
        QCOMPARE(doc["ranks"].size(), std::size_t(2));
        QCOMPARE(doc["failed"].size(), std::size_t(1));
        QCOMPARE(doc["failed"][0]["folder"].get<std::string>(), folders[1].folder);
        QVERIFY2(doc["failed"][0]["reason"].get<std::string>().find("timed out after 15 s") != std::string::npos,
                 doc["failed"][0]["reason"].get<std::string>().c_str());
    }

    void badInput()
    {
        QTemporaryDir d;
        CliRun r = runCli({"cluster-summary", d.path(), "-o", d.filePath("s.json")});
        QCOMPARE(r.code, 1);
        QVERIFY(!QFile::exists(d.filePath("s.json")));
        r = runCli({"cluster-summary", m_root});
        QCOMPARE(r.code, 2);
        r = runCli({"cluster-summary", m_root, "-o", d.filePath("s.json"), "--timeout", "-1"});
        QCOMPARE(r.code, 2);
        r = runCli({"cluster-summary", m_root, "-o", d.filePath("s.json"), "--ranks-from", d.filePath("none.txt")});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains(d.filePath("none.txt")));
        // A summary of another version is refused by name.
        QFile f(d.filePath("v9.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"format":"npuscope-cluster-summary","version":9,"ranks":[]})");
        f.close();
        r = runCli({"advise", d.filePath("v9.json")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("version 9"), qPrintable(r.err));
    }

#ifdef NPUSCOPE_MPIEXEC
    void mpiSameBytesWhateverTheProcesses_data()
    {
        QTest::addColumn<int>("processes");
        QTest::newRow("1") << 1;
        QTest::newRow("2") << 2;
        QTest::newRow("4") << 4;
    }

    void mpiSameBytesWhateverTheProcesses()
    {
        QFETCH(int, processes);
        const QString out = m_dir.filePath(QStringLiteral("mpi%1.json").arg(processes));
        QProcess p;
        p.start(QStringLiteral(NPUSCOPE_MPIEXEC),
                {"--oversubscribe", "--allow-run-as-root", "-np", QString::number(processes), QStringLiteral(NPUSCOPE_BINARY),
                 "cluster-summary", m_root, "-o", out});
        QVERIFY(p.waitForFinished(240000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, qPrintable(err));
        // Each process says which ranks it read; together they read all 16 once.
        QCOMPARE(err.count(QStringLiteral("reads ranks")), processes);
        QCOMPARE(readAll(out), readAll(m_threads1));
    }

    void mpiDyingProcessFailsTheJob()
    {
        QTemporaryDir d;
        const QString out = d.filePath("s.json");
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("NPUSCOPE_CLUSTER_SUMMARY_KILL_PROCESS", "1");
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(NPUSCOPE_MPIEXEC), {"--oversubscribe", "--allow-run-as-root", "-np", "2",
                                                   QStringLiteral(NPUSCOPE_BINARY), "cluster-summary", m_root, "-o", out});
        QVERIFY(p.waitForFinished(240000));
        const QString all = QString::fromUtf8(p.readAllStandardError()) + QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY(p.exitCode() != 0 || p.exitStatus() != QProcess::NormalExit);
        // The dead process's ranks are named, and no summary (nor a temporary) is left.
        QVERIFY2(all.contains(QStringLiteral("process 1 of 2 reads ranks")), qPrintable(all));
        QVERIFY(QDir(d.path()).entryList(QDir::Files | QDir::Hidden).isEmpty());
    }
#endif
};

NPUSCOPE_TEST_GUILESS_MAIN(TestClusterSummary)

} // namespace test_cluster_summary

#include "test_cluster_summary.moc"
