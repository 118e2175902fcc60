// operator_details.csv: every row of the real torch_npu samples read into Profile::opDetails,
// checked against the file parsed here on its own (a quote-aware CSV split, µs to ns by digits),
// and the loader reads it instead of listing it as unused.
#include "test_main.h"
#include "csv_records.h"
#include "file_bytes.h"
#include "model/formats/loader.h"
#include "model/formats/readers.h"

#include <QtTest>

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace test_operator_details {

using namespace npuscope;

namespace {

const std::string kText = std::string(NPUSCOPE_SAMPLES) + "/msinsight/test/data/pytorch/text/";

// "1960.1" -> 1960100 ns, by the digits; digits past the third rounded half up (device sums
// are float text: "0.60003125", "401.24800000000005"); empty -> none.
std::optional<TimeNs> microsToNs(const std::string& s)
{
    if (s.empty())
        return std::nullopt;
    const auto dot = s.find('.');
    std::string whole = s.substr(0, dot), frac = dot == std::string::npos ? "" : s.substr(dot + 1);
    const bool up = frac.size() > 3 && frac[3] >= '5';
    frac.resize(3, '0');
    return std::stoll(whole) * 1000 + std::stoll(frac) + (up ? 1 : 0);
}

} // namespace

class TestOperatorDetails : public QObject {
    Q_OBJECT
private slots:
    void realSamples_data()
    {
        QTest::addColumn<QString>("folder");
        for (const char* level : {"level0", "level1", "level2"})
            for (const char* rank : {"rank0", "rank1"})
                QTest::newRow((std::string(level) + "/" + rank).c_str())
                    << QString::fromStdString(kText + level + "/" + rank + "_ascend_pt/ASCEND_PROFILER_OUTPUT/");
    }

    void realSamples()
    {
        QFETCH(QString, folder);
        ReadContext ctx;
        ctx.file = folder.toStdString() + "operator_details.csv";
        const std::string bytes = fileBytes(ctx.file);
        Profile p;
        const FileRecord rec = readers::readOperatorDetailsCsv(bytes, p, ctx);
        QCOMPARE(rec.status, FileStatus::Loaded);
        QCOMPARE(rec.skipped, std::uint64_t(0));

        const auto rows = parseCsv(bytes);
        QVERIFY(rows.size() > 1);
        const std::vector<std::string> header = rows[0];
        QCOMPARE(header.size(), std::size_t(9));
        QCOMPARE(header[0], std::string("Name"));
        QCOMPARE(header[2], std::string("Call Stack"));
        QCOMPARE(p.opDetails.size(), rows.size() - 1);
        QCOMPARE(rec.records, std::uint64_t(rows.size() - 1));
        TimeNs hostSelf = 0, deviceTotal = 0;
        std::size_t withStack = 0;
        for (std::size_t i = 1; i < rows.size(); ++i) {
            const auto& r = rows[i];
            QCOMPARE(r.size(), std::size_t(9));
            const OpDetailRow& d = p.opDetails[i - 1];
            QCOMPARE(std::string(p.str(d.name)), r[0]);
            QCOMPARE(std::string(p.str(d.inputShapes)), r[1]);
            QCOMPARE(std::string(p.str(d.callStack)), r[2]);
            const OpDetailRow::MaybeNs* cols[] = {&d.hostSelf, &d.hostTotal, &d.deviceSelf,
                                                  &d.deviceTotal, &d.deviceSelfAiCore, &d.deviceTotalAiCore};
            for (int c = 0; c < 6; ++c)
                QCOMPARE(cols[c]->optional(), microsToNs(r[3 + static_cast<std::size_t>(c)]));
            hostSelf += d.hostSelf.value_or(0);
            deviceTotal += d.deviceTotal.value_or(0);
            withStack += !r[2].empty();
        }
        if (folder.contains(QStringLiteral("level1/rank0"))) {
            // python3 csv over the file (cells to ns with Decimal, half up): 859 rows, 133 names,
            // Σ Host Self 148925.220 µs, Σ Device Total 461150.189 µs, 315 rows with a call stack.
            QCOMPARE(p.opDetails.size(), std::size_t(859));
            std::set<std::string> names;
            for (const auto& d : p.opDetails)
                names.insert(std::string(p.str(d.name)));
            QCOMPARE(names.size(), std::size_t(133));
            QCOMPARE(qint64(hostSelf), qint64(148925220));
            QCOMPARE(qint64(deviceTotal), qint64(461150189));
            QCOMPARE(withStack, std::size_t(315));
            QCOMPARE(std::string(p.str(p.opDetails[0].name)),
                     std::string("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"));
            QCOMPARE(qint64(*p.opDetails[0].hostSelf), qint64(1960100));
            QCOMPARE(qint64(*p.opDetails[0].hostTotal), qint64(3332400));
        }
    }

    void loaderReadsIt()
    {
        // The whole rank folder: operator_details.csv is read (no longer "not used yet"), and
        // with --prefer db too, as the SQLite export has no table for it.
        const std::string rank = kText + "level1/rank0_ascend_pt";
        const LoadResult r = loadSession(rank);
        QVERIFY2(r.session, r.error.c_str());
        const Profile& p = *r.session->ranks.at(0);
        QCOMPARE(p.opDetails.size(), std::size_t(859));
        bool loaded = false;
        for (const auto& f : p.files)
            if (f.path.ends_with("operator_details.csv"))
                loaded = f.status == FileStatus::Loaded && f.kind == "operator_details" && f.records == 859;
        QVERIFY(loaded);
        QVERIFY(p.str(p.opDetails[0].callStack).find("main.py(345): train") != std::string_view::npos);
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestOperatorDetails)

} // namespace test_operator_details

#include "test_operator_details.moc"
