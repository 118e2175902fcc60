// `compare` on real captures: the two-rank torch_npu runs of one training script at profiler
// levels 1 and 2 (shared/samples/real/msinsight/test/data/pytorch/text/), compared as whole
// cluster folders. Every expectation is read here from the ranks' kernel_details.csv and
// step_trace_time.csv with a CSV parser of the test's own, never from the code under test.
#include "test_main.h"
#include "csv_records.h"
#include "model/analysis/compare.h"
#include "model/formats/loader.h"

#include <QtTest>

#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace test_compare_real {

using namespace npuscope;

namespace {

const std::string kText = std::string(NPUSCOPE_SAMPLES) + "/msinsight/test/data/pytorch/text/";

std::vector<std::vector<std::string>> csvOf(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return parseCsv(std::string(std::istreambuf_iterator<char>(in), {}));
}

int column(const std::vector<std::string>& header, const std::string& name)
{
    for (std::size_t i = 0; i < header.size(); ++i)
        if (header[i] == name)
            return static_cast<int>(i);
    return -1;
}

// µs as written ("1869.057") to ns, exactly: the digits, not a double times 1000.
TimeNs usToNs(const std::string& text)
{
    return static_cast<TimeNs>(std::llround(std::stold(text) * 1000.0L));
}

struct OpTotal {
    std::uint64_t count = 0;
    TimeNs total = 0;
};

// What one capture holds, summed over its ranks.
struct Capture {
    std::map<std::string, OpTotal> ops; // by Type, device compute only (communication apart)
    std::uint64_t hcclRows = 0;
    // The slowest rank's step (the one `compare` reports) and its split, in ns.
    TimeNs step = 0, computing = 0, notOverlapped = 0, free = 0;
    int ranks = 0;
};

Capture readCapture(const std::string& level)
{
    Capture c;
    for (int rank = 0; rank < 2; ++rank) {
        const std::string out = kText + level + "/rank" + std::to_string(rank) + "_ascend_pt/ASCEND_PROFILER_OUTPUT/";
        const auto kernels = csvOf(out + "kernel_details.csv");
        if (kernels.empty())
            return {};
        const int type = column(kernels[0], "Type"), core = column(kernels[0], "Accelerator Core"),
                  dur = column(kernels[0], "Duration(us)");
        if (type < 0 || core < 0 || dur < 0)
            return {};
        for (std::size_t i = 1; i < kernels.size(); ++i) {
            const auto& row = kernels[i];
            if (row.size() <= std::size_t(std::max({type, core, dur})))
                continue;
            if (row[std::size_t(core)] == "HCCL") {
                ++c.hcclRows;
                continue;
            }
            OpTotal& t = c.ops[row[std::size_t(type)]];
            ++t.count;
            t.total += usToNs(row[std::size_t(dur)]);
        }
        const auto steps = csvOf(out + "step_trace_time.csv");
        if (steps.size() != 2)
            return {};
        const auto& h = steps[0];
        const auto& s = steps[1];
        const TimeNs comp = usToNs(s[std::size_t(column(h, "Computing"))]);
        const TimeNs no = usToNs(s[std::size_t(column(h, "Communication(Not Overlapped)"))]);
        const TimeNs free = usToNs(s[std::size_t(column(h, "Free"))]);
        if (comp + no + free > c.step) {
            c.step = comp + no + free;
            c.computing = comp, c.notOverlapped = no, c.free = free;
        }
        ++c.ranks;
    }
    return c;
}

const HeadlineRow* headline(const CompareResult& r, const std::string& metric)
{
    for (const HeadlineRow& h : r.headline)
        if (h.metric == metric)
            return &h;
    return nullptr;
}

} // namespace

class TestCompareReal : public QObject {
    Q_OBJECT
private slots:
    void levelOneAgainstLevelTwo()
    {
        const Capture base = readCapture("level1");
        const Capture cur = readCapture("level2");
        QCOMPARE(base.ranks, 2);
        QCOMPARE(cur.ranks, 2);
        // The same script: the same 33 compute op types, 8 allReduce rows, in both captures.
        QCOMPARE(base.ops.size(), std::size_t(33));
        QCOMPARE(cur.ops.size(), base.ops.size());
        QCOMPARE(base.hcclRows, std::uint64_t(8));

        const LoadResult lb = loadSession(kText + "level1");
        const LoadResult lc = loadSession(kText + "level2");
        QVERIFY2(lb.session && lc.session, (lb.error + lc.error).c_str());
        QCOMPARE(lb.session->ranks.size(), std::size_t(2));
        QCOMPARE(lc.session->ranks.size(), std::size_t(2));
        CompareOptions o;
        o.opTimes = OpTimes::WholeRun;
        const CompareResult r = compareSessions(*lb.session, *lc.session, o);

        // Every compute op type: its count and whole-run time on both sides, summed over the two
        // ranks. A row's total may differ from the sum of its rounded durations by under 1 ns
        // per kernel (the durations carry sub-ns digits).
        std::map<std::string, const OpDiffRow*> rows;
        for (const OpDiffRow& d : r.ops)
            rows[d.key] = &d;
        int compared = 0;
        for (const auto& [type, b] : base.ops) {
            QVERIFY2(rows.count(type), type.c_str());
            const OpDiffRow& d = *rows[type];
            const OpTotal& c = cur.ops.at(type);
            QVERIFY2(d.inBaseline && d.inCurrent, type.c_str());
            QCOMPARE(d.baselineCount, b.count);
            QCOMPARE(d.currentCount, c.count);
            QVERIFY2(std::llabs(d.baselineTotal - b.total) <= TimeNs(b.count),
                     qPrintable(QString("%1: baseline %2 ns, CSV %3 ns").arg(type.c_str()).arg(d.baselineTotal).arg(b.total)));
            QVERIFY2(std::llabs(d.currentTotal - c.total) <= TimeNs(c.count),
                     qPrintable(QString("%1: current %2 ns, CSV %3 ns").arg(type.c_str()).arg(d.currentTotal).arg(c.total)));
            QVERIFY2(std::llabs(d.delta - (c.total - b.total)) <= TimeNs(b.count + c.count), type.c_str());
            ++compared;
        }
        QCOMPARE(compared, 33);
        // TransData, the most frequent: 114 kernels in each, 2.839203 ms against 2.811962 ms.
        QCOMPARE(base.ops.at("TransData").count, std::uint64_t(114));
        QCOMPARE(base.ops.at("TransData").total, TimeNs(2839203));
        QCOMPARE(cur.ops.at("TransData").total, TimeNs(2811962));

        // The headline: the slowest rank's step (rank 0 in both: 136.581009 ms against
        // 129.862875 ms) and its split, and the speed-up their ratio.
        QCOMPARE(base.step, TimeNs(136581009));
        QCOMPARE(cur.step, TimeNs(129862875));
        const HeadlineRow* step = headline(r, "Step time");
        QVERIFY(step);
        QVERIFY2(std::abs(step->baseline - double(base.step) / 1e6) < 1e-6, qPrintable(QString::number(step->baseline, 'f', 6)));
        QVERIFY2(std::abs(step->current - double(cur.step) / 1e6) < 1e-6, qPrintable(QString::number(step->current, 'f', 6)));
        QVERIFY(std::abs(r.speedup - double(base.step) / double(cur.step)) < 1e-9);
        struct Part {
            const char* metric;
            TimeNs baseline, current;
        };
        for (const Part& p : {Part{"Computing", base.computing, cur.computing},
                              Part{"Communication not overlapped", base.notOverlapped, cur.notOverlapped},
                              Part{"Free", base.free, cur.free}}) {
            const HeadlineRow* h = headline(r, p.metric);
            QVERIFY2(h, p.metric);
            QVERIFY2(std::abs(h->baseline - double(p.baseline) / 1e6) < 1e-6, p.metric);
            QVERIFY2(std::abs(h->current - double(p.current) / 1e6) < 1e-6, p.metric);
        }
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestCompareReal)

} // namespace test_compare_real

#include "test_compare_real.moc"
