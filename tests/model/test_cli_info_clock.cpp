// `npuscope info --clock raw|aligned` and `--clock-offset RANK=NS` run as a process on a
// generated four-rank cluster whose rank 1 clock runs 3 ms ahead (the generator's ground truth),
// and the usage errors of both flags.
#include "test_main.h"
#include "cli_run.h"
#include "model/synth/synth.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <cstdlib>

namespace test_cli_info_clock {

using namespace npuscope;

namespace {

constexpr std::int64_t kPlanted = 3'000'000; // rank 1's clock: file time = true time + 3 ms

CliRun runInfo(const QStringList& args)
{
    return runCli(QStringList{"info", "--no-cache"} + args, 120000);
}

nlohmann::json clockOf(const CliRun& r)
{
    const auto j = nlohmann::json::parse(r.out.toStdString(), nullptr, false);
    return j.is_discarded() ? nlohmann::json() : j;
}

} // namespace

class TestCliInfoClock : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_root;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        synth::SynthOptions o;
        o.scenario = "cluster-slowrank";
        o.ranks = 4;
        o.steps = 2;
        o.clockOffsets = {{1, kPlanted}};
        const synth::SynthResult r = synth::synthesize(m_dir.path().toStdString(), o);
        QVERIFY2(r.ok, r.error.c_str());
        m_root = m_dir.path();
    }

    // Aligned (the default): rank 1's offset is the planted one, within the exports' rounding
    // (the spread floor, 5 µs); the others stay near 0.
    void alignedByDefault()
    {
        const CliRun r = runInfo({m_root, "--format", "json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const nlohmann::json j = clockOf(r);
        QVERIFY(j.is_object());
        QCOMPARE(j["clock_offsets_ns"].size(), std::size_t(4));
        QVERIFY(std::llabs(j["clock_offsets_ns"]["1"].get<std::int64_t>() - kPlanted) <= 5'000);
        for (const char* rank : {"0", "2", "3"})
            QVERIFY(std::llabs(j["clock_offsets_ns"][rank].get<std::int64_t>()) <= 5'000);
        const CliRun same = runInfo({m_root, "--format", "json", "--clock", "aligned"});
        QVERIFY2(same.code == 0, qPrintable(same.err));
        QCOMPARE(clockOf(same)["clock_offsets_ns"], j["clock_offsets_ns"]);
    }

    void raw()
    {
        const CliRun r = runInfo({m_root, "--format", "json", "--clock", "raw"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const nlohmann::json j = clockOf(r);
        for (const auto& [rank, ns] : j["clock_offsets_ns"].items())
            QCOMPARE(ns.get<std::int64_t>(), std::int64_t(0));
        QVERIFY(j["clock"]["status"].get<std::string>().find("raw") != std::string::npos);
        const CliRun text = runInfo({m_root, "--clock=raw"});
        QVERIFY2(text.code == 0, qPrintable(text.err));
        QVERIFY(text.out.contains(QStringLiteral("rank 1: offset 0 ns, raw clock")));
    }

    // A manual offset replaces the estimate of its rank alone, in ns or with a unit.
    void manualOffset()
    {
        const CliRun ns = runInfo({m_root, "--format", "json", "--clock-offset", "1=2500000"});
        QVERIFY2(ns.code == 0, qPrintable(ns.err));
        const nlohmann::json j = clockOf(ns);
        QCOMPARE(j["clock_offsets_ns"]["1"].get<std::int64_t>(), std::int64_t(2'500'000));
        for (const auto& c : j["clock"]["ranks"])
            QCOMPARE(c["manual"].get<bool>(), c["rank"].get<int>() == 1);
        const CliRun unit = runInfo({m_root, "--format", "json", "--clock-offset=2=-20us", "--clock", "raw"});
        QVERIFY2(unit.code == 0, qPrintable(unit.err));
        const nlohmann::json u = clockOf(unit);
        QCOMPARE(u["clock_offsets_ns"]["2"].get<std::int64_t>(), std::int64_t(-20'000));
        QCOMPARE(u["clock_offsets_ns"]["1"].get<std::int64_t>(), std::int64_t(0));
        const CliRun text = runInfo({m_root, "--clock-offset", "1=2500000"});
        QVERIFY2(text.code == 0, qPrintable(text.err));
        QVERIFY(text.out.contains(QStringLiteral("rank 1: offset 2500000 ns, manual offset")));
    }

    void usageErrors()
    {
        for (const QStringList& args : {QStringList{"--clock", "wall"}, QStringList{"--clock-offset", "x=1"},
                                        QStringList{"--clock-offset", "1=fast"}, QStringList{"--clock"}}) {
            const CliRun r = runInfo(QStringList{m_root} + args);
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.contains(QStringLiteral("--clock")) || r.err.contains(QStringLiteral("clock")), qPrintable(r.err));
        }
        const CliRun help = runCli({"info", "--help"});
        QVERIFY(help.out.contains(QStringLiteral("--clock-offset RANK=NS")));
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestCliInfoClock)

} // namespace test_cli_info_clock

#include "test_cli_info_clock.moc"
