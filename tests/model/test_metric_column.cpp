// MetricColumn: the kernel table's metric columns, stored as 16-bit codes when they have few
// distinct values. Every value must read back bit for bit, whatever the storage.
#include "test_main.h"
#include "model/formats/loader.h"
#include "model/formats/readers.h"
#include "model/io/mapped_file.h"
#include "model/store/metric_column.h"

#include <QtTest>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <set>

namespace test_metric_column {

using namespace npuscope;

namespace {

const std::string kSamples = NPUSCOPE_SAMPLES;
const std::string kPytorch = kSamples + "/msinsight/test/data/pytorch/text";

std::uint64_t bits(double v)
{
    return std::bit_cast<std::uint64_t>(v);
}

// Row r of `col` has the bits of want[r].
bool sameBits(const MetricColumn& col, const std::vector<double>& want)
{
    if (col.size() != want.size())
        return false;
    for (std::size_t r = 0; r < want.size(); ++r)
        if (bits(col[r]) != bits(want[r]))
            return false;
    return true;
}

MetricColumn columnOf(const std::vector<double>& v)
{
    MetricColumn c;
    for (double x : v)
        c.push_back(x);
    return c;
}

} // namespace

class TestMetricColumn : public QObject {
    Q_OBJECT
private slots:
    void codedAsAppendedKeepsEveryBit()
    {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const double inf = std::numeric_limits<double>::infinity();
        const double tiny = std::numeric_limits<double>::denorm_min();
        // A NaN with a payload and the negative NaN are other bit patterns than quiet_NaN.
        const double payloadNan = std::bit_cast<double>(0x7ff8000000000123ull);
        const double negNan = -nan;
        std::vector<double> want;
        for (int i = 0; i < 3000; ++i) {
            const double pick[] = {0.0, -0.0, nan, payloadNan, negNan, inf, -inf, tiny, 0.1 * (i % 97), 1e300};
            want.push_back(pick[(i * 7 + i / 13) % 10]);
        }
        std::set<std::uint64_t> distinct;
        for (double v : want)
            distinct.insert(bits(v));
        QVERIFY(distinct.size() > 90);

        MetricColumn c = columnOf(want); // coded while appended
        QVERIFY(c.coded());
        QVERIFY(sameBits(c, want));
        QCOMPARE(c.distinct(), distinct.size());
        c.compact(); // frees the lookup index
        QVERIFY(c.coded());
        QVERIFY(sameBits(c, want));
        const std::size_t raw = want.size() * sizeof(double);
        // 2 bytes a row (spare capacity from growing included) and 8 a distinct value.
        QVERIFY2(c.bytes() * 2 < raw, (std::to_string(c.bytes()) + " vs " + std::to_string(raw)).c_str());
        c.compact(); // a no-op
        QVERIFY(sameBits(c, want));

        // A column of doubles (written row by row) is coded by compact().
        MetricColumn d(want.size(), 0.0);
        for (std::size_t r = 0; r < want.size(); ++r)
            d.set(r, want[r]);
        QVERIFY(!d.coded());
        const std::size_t before = d.bytes();
        d.compact();
        QVERIFY(d.coded());
        QCOMPARE(d.distinct(), distinct.size());
        QVERIFY(sameBits(d, want));
        QVERIFY(d.bytes() * 3 < before);
    }

    // Half of a kernel table's metric cells are 0: 0.0 keeps its code between other values,
    // after compact() and a later append, and -0.0 stays a value of its own.
    void zerosBetweenOtherValues()
    {
        std::vector<double> want;
        for (int i = 0; i < 5000; ++i)
            want.push_back(i % 2 ? 0.5 * i : (i % 7 == 0 ? -0.0 : 0.0));
        MetricColumn c;
        c.appendBlock(want.data(), 2500);
        c.compact();
        c.appendBlock(want.data() + 2500, want.size() - 2500);
        QVERIFY(c.coded());
        QCOMPARE(c.distinct(), std::size_t(2500 + 2));
        QVERIFY(sameBits(c, want));
        MetricColumn other = columnOf({0.0, 7.0, 0.0});
        c.append(std::move(other)); // another dictionary: coded again
        want.insert(want.end(), {0.0, 7.0, 0.0});
        QVERIFY(sameBits(c, want));
        c.expand();
        c.push_back(0.0);
        want.push_back(0.0);
        QVERIFY(sameBits(c, want));
    }

    void tooManyDistinctStaysDoubles()
    {
        std::vector<double> want;
        std::mt19937_64 rng(11);
        std::uniform_real_distribution<double> d(0.0, 1.0);
        for (int i = 0; i < 70000; ++i)
            want.push_back(d(rng));
        MetricColumn c = columnOf(want); // turns into doubles at the 65,537th value
        QVERIFY(!c.coded());
        QVERIFY(sameBits(c, want));
        c.compact();
        QVERIFY(!c.coded());
        QVERIFY(sameBits(c, want));

        // Exactly 65,536 distinct values fit 16-bit codes; one more does not.
        std::vector<double> edge;
        for (int i = 0; i < 65536 * 2; ++i)
            edge.push_back((i / 2) * 0.5);
        MetricColumn e = columnOf(edge);
        e.compact();
        QVERIFY(e.coded());
        QCOMPARE(e.distinct(), std::size_t(65536));
        QVERIFY(sameBits(e, edge));
        edge.push_back(-1.0);
        e.push_back(-1.0);
        QVERIFY(!e.coded());
        QVERIFY(sameBits(e, edge));
        MetricColumn f = columnOf(edge);
        f.compact();
        QVERIFY(!f.coded());
        QVERIFY(sameBits(f, edge));
        // The same limits when doubles are compacted.
        MetricColumn g(edge.size() - 1, 0.0), h(edge.size(), 0.0);
        for (std::size_t r = 0; r < edge.size(); ++r) {
            if (r + 1 < edge.size())
                g.set(r, edge[r]);
            h.set(r, edge[r]);
        }
        g.compact();
        h.compact();
        QVERIFY(g.coded());
        QVERIFY(!h.coded());
        QVERIFY(sameBits(h, edge));
        edge.pop_back();
        QVERIFY(sameBits(g, edge));

        // More distinct values than 3/4 of the rows: codes would not be smaller.
        MetricColumn few = columnOf({1.0, 2.0, 3.0, 4.0});
        QVERIFY(few.coded());
        few.compact();
        QVERIFY(!few.coded());
        QVERIFY(sameBits(few, {1.0, 2.0, 3.0, 4.0}));
    }

    void writesIntoACodedColumn()
    {
        std::vector<double> want{1.0, 2.0, 2.0, 1.0, 3.0};
        MetricColumn c = columnOf(want);
        c.compact();
        QVERIFY(c.coded());
        c.push_back(4.0); // appends keep the codes
        want.push_back(4.0);
        QVERIFY(c.coded());
        QVERIFY(sameBits(c, want));
        c.resize(9, 2.0);
        want.resize(9, 2.0);
        QVERIFY(c.coded());
        QVERIFY(sameBits(c, want));
        c.set(1, 7.5); // a write turns it into doubles
        want[1] = 7.5;
        QVERIFY(!c.coded());
        QVERIFY(sameBits(c, want));
        c.compact();
        QVERIFY(c.coded());
        c.resize(11, -2.0);
        want.resize(11, -2.0);
        QVERIFY(sameBits(c, want));
        c.resize(4, 0.0);
        want.resize(4);
        QVERIFY(sameBits(c, want));
        c.compact();
        c.fill(0.25);
        QVERIFY(sameBits(c, std::vector<double>(4, 0.25)));
        c.resize(4, 1.0); // same size: nothing changes
        QVERIFY(sameBits(c, std::vector<double>(4, 0.25)));
    }

    void appendMixesStorages()
    {
        const std::vector<double> a{1.0, 1.0, 2.0}, b{2.0, 3.0, 3.0, 3.0}, raw{9.0, 8.0};
        MetricColumn x = columnOf(a), y = columnOf(b), z = columnOf(raw);
        x.compact();
        y.compact();
        QVERIFY(x.coded() && y.coded());
        z.expand();
        x.append(std::move(y)); // different dictionaries: coded again
        QVERIFY(x.coded());
        x.append(std::move(z)); // doubles after codes
        QVERIFY(x.coded());
        QVERIFY(sameBits(x, {1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 3.0, 9.0, 8.0}));
        MetricColumn w(2, 5.0);
        w.append(columnOf(a)); // codes after doubles
        QVERIFY(!w.coded());
        QVERIFY(sameBits(w, {5.0, 5.0, 1.0, 1.0, 2.0}));

        MetricColumn empty, coded = columnOf(a);
        coded.compact();
        empty.append(std::move(coded)); // moved whole: stays coded
        QVERIFY(empty.coded());
        QVERIFY(sameBits(empty, a));

        MetricColumn s1 = columnOf(a), s2 = columnOf(a); // same dictionary: codes appended
        s1.compact();
        s2.compact();
        s1.append(std::move(s2));
        QVERIFY(s1.coded());
        QVERIFY(sameBits(s1, {1.0, 1.0, 2.0, 1.0, 1.0, 2.0}));

        // Dictionaries equal as doubles but not as bits: 0.0 and -0.0 stay apart.
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const std::vector<double> pos{0.0, 0.0, 0.0, 1.0}, neg{-0.0, -0.0, -0.0, 1.0}, nans{nan, nan, nan, 1.0};
        MetricColumn zp = columnOf(pos), zn = columnOf(neg), zq = columnOf(nans), zr = columnOf(nans);
        for (MetricColumn* z : {&zp, &zn, &zq, &zr})
            z->compact();
        zp.append(std::move(zn));
        QVERIFY(sameBits(zp, {0.0, 0.0, 0.0, 1.0, -0.0, -0.0, -0.0, 1.0}));
        zq.append(std::move(zr)); // NaN dictionaries are the same bits
        QVERIFY(zq.coded());
        QVERIFY(sameBits(zq, {nan, nan, nan, 1.0, nan, nan, nan, 1.0}));
    }

    // Blocks appended a column at a time read back as the values pushed one by one, across the
    // 65,537th distinct value and onto a column of doubles.
    void appendBlockMatchesPushBack()
    {
        std::vector<double> want;
        for (int i = 0; i < 70000; ++i)
            want.push_back(i < 4000 ? (i % 2000) * 0.25 : i * 1.5);
        MetricColumn blocks, wide(3, -0.0);
        std::vector<double> wideWant(3, -0.0);
        for (std::size_t at = 0; at < want.size(); at += 2048) {
            const std::size_t n = std::min<std::size_t>(2048, want.size() - at);
            blocks.appendBlock(want.data() + at, n);
            wide.appendBlock(want.data() + at, n);
            if (at == 0)
                QVERIFY(blocks.coded());
        }
        wideWant.insert(wideWant.end(), want.begin(), want.end());
        QVERIFY(!blocks.coded()); // 2,000 + 66,000 distinct values
        QVERIFY(sameBits(blocks, want));
        QVERIFY(sameBits(wide, wideWant));
        MetricColumn few;
        few.appendBlock(want.data(), 3000);
        few.appendBlock(want.data(), 0);
        few.compact();
        QVERIFY(few.coded());
        QCOMPARE(few.distinct(), std::size_t(2000));
        QVERIFY(sameBits(few, std::vector<double>(want.begin(), want.begin() + 3000)));
    }

    // kernel_details.csv rows span several of the reader's blocks; every metric cell reads back
    // as written, missing and non-numeric cells as NaN, whatever row a block ends on.
    void kernelCsvAcrossBlocks()
    {
        std::string csv = "Step Id,Task ID,Stream ID,Name,Type,Start Time(us),Duration(us),"
                          "aic_mac_ratio,aic_total_cycles,aiv_vec_ratio\n";
        const int rows = 20000; // the reader codes 8192 rows at a time
        for (int i = 0; i < rows; ++i) {
            csv += "1," + std::to_string(i) + ",2,Op" + std::to_string(i % 7) + ",MatMul,"
                   + std::to_string(1000 + i) + ".5,1.25,0." + std::to_string(i % 1000) + ","
                   + std::to_string(i * 3) + "," + (i % 3 == 0 ? std::string("N/A") : std::to_string(i % 11)) + "\n";
            if (i == 8191)
                csv += "1,x,2,Bad,MatMul,not-a-time,1,0,0,0\n"; // skipped, named
        }
        Profile p;
        ReadContext ctx;
        ctx.file = "kernel_details.csv";
        const FileRecord rec = readers::readKernelCsv(csv, p, ctx);
        const KernelTable& K = p.kernels;
        QCOMPARE(K.size(), std::size_t(rows));
        QCOMPARE(rec.records, std::uint64_t(rows));
        QCOMPARE(rec.skipped, std::uint64_t(1));
        const int ratio = K.metricIndex(std::string("aic_mac_ratio"));
        const int cycles = K.metricIndex(std::string("aic_total_cycles"));
        const int vec = K.metricIndex(std::string("aiv_vec_ratio"));
        QVERIFY(ratio >= 0 && cycles >= 0 && vec >= 0);
        for (int i = 0; i < rows; ++i) {
            const auto r = static_cast<std::size_t>(i);
            QCOMPARE(K.metrics[static_cast<std::size_t>(ratio)][r], std::stod("0." + std::to_string(i % 1000)));
            QCOMPARE(K.metrics[static_cast<std::size_t>(cycles)][r], double(i * 3));
            const double v = K.metrics[static_cast<std::size_t>(vec)][r];
            if (i % 3 == 0)
                QVERIFY(std::isnan(v));
            else
                QCOMPARE(v, double(i % 11));
            QCOMPARE(K.taskId[r], std::int64_t(i));
        }
    }

    // The loader compacts the real kernel_details.csv of a torch_npu rank; each metric reads
    // as the reader wrote it, bit for bit.
    void loadedKernelTableIsCompactAndExact()
    {
        const std::string dir = kPytorch + "/level1/rank0_ascend_pt";
        const std::string csv = dir + "/ASCEND_PROFILER_OUTPUT/kernel_details.csv";
        Profile direct;
        ReadContext ctx;
        ctx.file = csv;
        std::string error;
        const auto file = MappedFile::open(csv, &error);
        QVERIFY2(file, error.c_str());
        readers::readKernelCsv(file->bytes(), direct, ctx);
        const KernelTable& D = direct.kernels;
        QCOMPARE(D.size(), std::size_t(191));
        QVERIFY(D.metricNames.size() >= 10);

        const LoadResult r = loadSession(dir);
        QVERIFY2(r.session, r.error.c_str());
        const KernelTable& K = r.session->ranks.at(0)->kernels;
        QCOMPARE(K.size(), D.size());
        std::size_t coded = 0;
        for (std::size_t m = 0; m < D.metricNames.size(); ++m) {
            const int k = K.metricIndex(D.metricNames[m]);
            QVERIFY2(k >= 0, D.metricNames[m].c_str());
            const MetricColumn& col = K.metrics[static_cast<std::size_t>(k)];
            std::vector<double> want;
            for (std::size_t row = 0; row < D.size(); ++row)
                want.push_back(D.metrics[m][row]);
            QVERIFY2(sameBits(col, want), D.metricNames[m].c_str());
            // Coded exactly when codes take fewer bytes: 2 a row and 8 a distinct value.
            std::set<std::uint64_t> distinct;
            for (double v : want)
                distinct.insert(bits(v));
            QCOMPARE(col.coded(), distinct.size() * 8 + want.size() * 2 < want.size() * 8);
            if (col.coded()) {
                QCOMPARE(col.distinct(), distinct.size());
                // Codes (with the reader's spare capacity) and the distinct values only.
                QVERIFY(col.bytes() <= want.size() * 2 * 5 / 4 + 64 + col.distinct() * sizeof(double));
                ++coded;
            }
        }
        QVERIFY(coded * 2 > D.metricNames.size()); // most columns repeat their values
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestMetricColumn)

} // namespace test_metric_column

#include "test_metric_column.moc"
