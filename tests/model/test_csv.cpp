// The CSV tokenizer and the quirks of FORMATS.md §6, each on a small inline file.
#include "test_main.h"
#include "model/formats/block_masks.h"
#include "model/formats/csv.h"
#include "model/formats/readers.h"

#include <QtTest>

#include <random>

namespace test_csv {

using namespace npuscope;

namespace {

// Everything a reader sees of each record, as text: empty when both scans agree, else where and
// how they first differ.
std::string scansDiffer(std::string_view text)
{
    CsvReader blocks(text), bytes(text, CsvReader::Scan::BytesOnly);
    for (int record = 0;; ++record) {
        const bool a = blocks.next(), b = bytes.next();
        auto describe = [](const CsvReader& r, bool more) {
            std::string d = more ? "line " + std::to_string(r.line()) : std::string("end");
            if (!more)
                return d;
            d += " at " + std::to_string(r.byteOffset()) + (r.terminated() ? " (ended by a newline) " : " ")
                 + "to " + std::to_string(r.position()) + ":";
            for (auto c : r.cells())
                d += " [" + std::string(c) + "]";
            return d;
        };
        const std::string da = describe(blocks, a), db = describe(bytes, b);
        if (da != db)
            return "record " + std::to_string(record) + ": blocks " + da + "; bytes " + db;
        if (!a)
            return {};
    }
}

std::vector<std::vector<std::string>> tokenize(std::string_view text, std::vector<std::int64_t>* lines = nullptr)
{
    // Both scans must agree on the text as given (short: mostly byte by byte) and with filler
    // after it, so that the 64-byte blocks cover every record of the text.
    const std::string differ = scansDiffer(text);
    const std::string padded = scansDiffer(std::string(text) + "\n" + std::string(200, 'z') + "\n");
    if (!differ.empty() || !padded.empty())
        qWarning("%s%s", differ.c_str(), padded.c_str());
    [&] {
        QVERIFY(differ.empty());
        QVERIFY(padded.empty());
    }();
    std::vector<std::vector<std::string>> out;
    CsvReader r(text);
    while (r.next()) {
        std::vector<std::string> row;
        for (auto c : r.cells())
            row.emplace_back(c);
        out.push_back(std::move(row));
        if (lines)
            lines->push_back(r.line());
    }
    return out;
}

const char* kKernelHeader =
    "Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us),"
    "Task Wait Time(us),Block Dim,Input Shapes,aic_mac_ratio\n";

} // namespace

class TestCsv : public QObject {
    Q_OBJECT
private slots:
    void plainAndCrlf()
    {
        std::vector<std::int64_t> lines;
        const auto rows = tokenize("a,b,c\r\n1,2,3\r\n\r\n4,5,6", &lines);
        QCOMPARE(rows.size(), std::size_t(3)); // the blank line is skipped
        QCOMPARE(rows[0][2], std::string("c")); // no CR left in the header
        QCOMPARE(rows[2][0], std::string("4"));
        QCOMPARE(lines[2], std::int64_t(4));
    }

    void bom()
    {
        const auto rows = tokenize("\xEF\xBB\xBF" "Step,Computing\n1,2\n");
        QCOMPARE(rows[0][0], std::string("Step"));
    }

    void quotedNewlinesAndCommas()
    {
        std::vector<std::int64_t> lines;
        CsvReader r("h1,h2\n\";\n;\n\",\"a,b\"\nx,y\n");
        QVERIFY(r.next());
        QVERIFY(r.next());
        QCOMPARE(r.cells().size(), std::size_t(2));
        QCOMPARE(std::string(r.cells()[0]), std::string(";\n;\n")); // newlines inside quotes are content
        QCOMPARE(std::string(r.cells()[1]), std::string("a,b"));
        QCOMPARE(r.line(), std::int64_t(2));
        QVERIFY(r.next());
        QCOMPARE(r.line(), std::int64_t(5)); // the quoted newlines count as physical lines
        QCOMPARE(r.byteOffset(), std::uint64_t(19));
    }

    void tripleQuotes()
    {
        // AP/kernel_details.csv writes shapes as """2,8193""": the cell keeps one pair of quotes.
        const auto rows = tokenize("Input Shapes,x\n\"\"\"2,8193\"\"\",1\n\"\"\"\"\"\",2\n");
        QCOMPARE(rows[1][0], std::string("\"2,8193\""));
        QCOMPARE(rows[1][1], std::string("1"));
        QCOMPARE(rows[2][0], std::string("\"\""));
    }

    void tabsTrimmed()
    {
        const auto rows = tokenize("a,b,c\n1780748105187895.870\t,\"1736408883704643.212\t\", x \n");
        QCOMPARE(rows[1][0], std::string("1780748105187895.870"));
        QCOMPARE(rows[1][1], std::string("1736408883704643.212"));
        QCOMPARE(rows[1][2], std::string("x"));
    }

    void bomAndCrlfThroughAReader()
    {
        Profile p;
        ReadContext ctx;
        ctx.file = "step_trace_time.csv";
        const FileRecord rec = readers::readStepTraceCsv(
            "\xEF\xBB\xBF" "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
            "Communication(Not Overlapped and Exclude Receive),Preparing\r\n"
            "50,8873.756000000001,101963.203,4028.6750000000175,105991.87800000001,25744.050000000003,136581.0,0,"
            "101963.203,17902.5\r\n",
            p, ctx);
        QCOMPARE(rec.status, FileStatus::Loaded);
        QCOMPARE(p.steps.size(), std::size_t(1));
        QCOMPARE(*p.steps[0].computing, TimeNs(8873756));
        QCOMPARE(*p.steps[0].preparing, TimeNs(17902500)); // last column: no CR left
        QCOMPARE(*p.steps[0].bubble, TimeNs(0));
    }

    void emptyFile()
    {
        Profile p;
        ReadContext ctx;
        ctx.file = "empty.csv";
        const FileRecord rec = readers::readKernelCsv("", p, ctx);
        QCOMPARE(rec.status, FileStatus::Failed);
        QCOMPARE(rec.note, std::string("empty file"));
        QCOMPARE(p.diagnostics.size(), std::size_t(1));
        QCOMPARE(p.diagnostics[0].severity, Severity::Error);
    }

    void missingRequiredColumn()
    {
        Profile p;
        ReadContext ctx;
        ctx.file = "/tmp/op_summary_1.csv";
        const FileRecord rec = readers::readKernelCsv("Op Name,Task Start Time(us)\nadd,1.0\n", p, ctx);
        QCOMPARE(rec.status, FileStatus::Failed);
        QCOMPARE(p.diagnostics.size(), std::size_t(1));
        const auto& d = p.diagnostics[0];
        QCOMPARE(d.severity, Severity::Error);
        QVERIFY(d.reason.find("Task Duration(us)") != std::string::npos);
        QVERIFY(d.reason.find("/tmp/op_summary_1.csv") != std::string::npos);
        QCOMPARE(d.file, ctx.file);
        QCOMPARE(p.kernels.size(), std::size_t(0));
    }

    void shortLastRow()
    {
        Profile p;
        ReadContext ctx;
        ctx.file = "op_summary_trunc.csv";
        std::string text = kKernelHeader;
        text += "0,1,5,2,add,Add,AI_CORE,100.5,2.0,0,8,\"1,2\",0.5\n";
        text += "0,1,6,2,mul,Mul,AI_CORE,103.5,1.0,1.0,8,\"3\",N/A\n";
        text += "0,1,7,2,sub,Sub,AI_CO"; // truncated mid-row
        const FileRecord rec = readers::readKernelCsv(text, p, ctx);
        QCOMPARE(rec.records, std::uint64_t(2));
        QCOMPARE(rec.skipped, std::uint64_t(1));
        QCOMPARE(rec.status, FileStatus::Partial);
        QCOMPARE(p.diagnostics.size(), std::size_t(1));
        QCOMPARE(p.diagnostics[0].line, std::int64_t(4));
        QCOMPARE(p.diagnostics[0].severity, Severity::Warning);
        QVERIFY(p.diagnostics[0].reason.find("truncated last row") != std::string::npos);
        QCOMPARE(p.diagnostics[0].byteOffset, std::int64_t(text.rfind('\n') + 1));
    }

    void mismatchedMiddleRow()
    {
        Profile p;
        ReadContext ctx;
        ctx.file = "k.csv";
        std::string text = kKernelHeader;
        text += "0,1,5,2,add,Add,AI_CORE,100.5,2.0,0,8,1,0.5,extra\n";
        text += "0,1,6,2,mul,Mul,AI_CORE,103.5,1.0,1.0,8,3,0.25\n";
        const FileRecord rec = readers::readKernelCsv(text, p, ctx);
        QCOMPARE(rec.records, std::uint64_t(1));
        QCOMPARE(rec.skipped, std::uint64_t(1));
        QCOMPARE(p.diagnostics[0].line, std::int64_t(2));
        QCOMPARE(p.diagnostics[0].reason, std::string("row has 14 cells, header has 13"));
    }

    void missingVersusZero()
    {
        Profile p;
        ReadContext ctx;
        ctx.file = "k.csv";
        std::string text = kKernelHeader;
        text += "0,4294967295,N/A,N/A,hcom_x,hcom_,HCCL,100,2,,N/A,N/A,N/A\n";
        text += "0,18446744073709551615,3,2,76,76,AI_CORE,4e-06,0,0,0,; ; ;,0\n";
        const FileRecord rec = readers::readKernelCsv(text, p, ctx);
        QCOMPARE(rec.records, std::uint64_t(2));
        const auto& K = p.kernels;
        QCOMPARE(K.modelId[0], std::int64_t(-1));
        QCOMPARE(K.modelId[1], std::int64_t(-1));
        QCOMPARE(K.taskId[0], std::int64_t(-1));
        QCOMPARE(K.streamId[0], std::int64_t(-1));
        QCOMPARE(K.taskId[1], std::int64_t(3));
        QCOMPARE(K.wait[0], std::numeric_limits<TimeNs>::min()); // empty = missing
        QCOMPARE(K.wait[1], TimeNs(0));                          // 0 stays 0
        QCOMPARE(K.blockDim[0], std::int64_t(-1));
        QCOMPARE(K.blockDim[1], std::int64_t(0));
        const int m = K.metricIndex("aic_mac_ratio");
        QVERIFY(m >= 0);
        QVERIFY(std::isnan(K.metrics[m][0]));
        QCOMPARE(K.metrics[m][1], 0.0);
        // Numeric text in name columns stays a name.
        QCOMPARE(p.str(K.name[1]), std::string_view("76"));
        QCOMPARE(p.str(K.type[1]), std::string_view("76"));
        QCOMPARE(p.str(K.inputShapes[1]), std::string_view("; ; ;"));
        // 4e-06 µs = 0.004 ns, rounds to 0.
        QCOMPARE(K.start[1], TimeNs(0));
        QCOMPARE(K.device[0], 0);
    }

    void deviceFromContext()
    {
        Profile p;
        ReadContext ctx;
        ctx.file = "kernel_details.csv";
        ctx.device = 3;
        readers::readKernelCsv("Name,Start Time(us),Duration(us)\na,1,2\n", p, ctx);
        QCOMPARE(p.kernels.device[0], 3);
        QCOMPARE(p.kernels.taskId[0], std::int64_t(-1));
        QCOMPARE(p.kernels.slice[0], kNone);
    }

    // The block scan against the byte-by-byte walk: every real CSV of the samples, and generated
    // texts built from the bytes and patterns the quirks are made of.
    void blockScanReadsAsBytes()
    {
        int files = 0;
        QDirIterator it(QStringLiteral(NPUSCOPE_SAMPLES), {QStringLiteral("*.csv")}, QDir::Files,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            QFile f(it.next());
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray bytes = f.readAll();
            const std::string differ = scansDiffer(std::string_view(bytes.constData(), bytes.size()));
            QVERIFY2(differ.empty(), qPrintable(f.fileName() + QStringLiteral(": ") + QString::fromStdString(differ)));
            ++files;
        }
        QVERIFY(files >= 50);

        const char* pieces[] = {",", "\"", "\n", "\r\n", "\t", " ", "abc", "12.5", "\"\"\"2,8193\"\"\"",
                                "\"a,b\"", "\"\"\"\"\"\"", "\"x\"\"y\"", " \"q\" ", "\"open", "\"\n\"", "\xEF\xBB\xBF"};
        std::uint64_t state = 0x9E3779B97F4A7C15ull;
        auto random = [&](std::uint64_t bound) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            return state % bound;
        };
        for (int i = 0; i < 3000; ++i) {
            std::string text;
            const std::uint64_t length = random(600);
            // Mostly well-formed rows, with a quirk now and then.
            while (text.size() < length) {
                const std::uint64_t pick = random(100);
                if (pick < 60)
                    text += pick % 2 ? "abc," : "7.25,";
                else if (pick < 70)
                    text += "\n";
                else
                    text += pieces[random(std::size(pieces))];
            }
            const std::string differ = scansDiffer(text);
            QVERIFY2(differ.empty(), qPrintable(QString::fromStdString(differ + " in text " + std::to_string(i))));
        }
    }

    void slicesAppend()
    {
        // The loader reads *_slice_N_* files one call each: metric columns line up by name.
        Profile p;
        ReadContext ctx;
        ctx.file = "op_summary_slice_0_1.csv";
        readers::readKernelCsv("Op Name,Task Start Time(us),Task Duration(us),m1,m2\na,1,1,0.5,7\nb,2,1,0.25,8\n", p, ctx);
        ctx.file = "op_summary_slice_1_1.csv";
        readers::readKernelCsv("Op Name,Task Start Time(us),Task Duration(us),m2,m3\nc,3,1,9,1.5\n", p, ctx);
        const auto& K = p.kernels;
        QCOMPARE(K.size(), std::size_t(3));
        QCOMPARE(K.metricNames.size(), std::size_t(3));
        for (const auto& m : K.metrics)
            QCOMPARE(m.size(), std::size_t(3));
        const int m1 = K.metricIndex("m1"), m2 = K.metricIndex("m2"), m3 = K.metricIndex("m3");
        QCOMPARE(K.metrics[m1][1], 0.25);
        QVERIFY(std::isnan(K.metrics[m1][2])); // missing in the later slice
        QCOMPARE(K.metrics[m2][2], 9.0);
        QVERIFY(std::isnan(K.metrics[m3][0])); // missing in the earlier slice
        QCOMPARE(K.metrics[m3][2], 1.5);
        QCOMPARE(p.str(K.name[2]), std::string_view("c"));
    }

    // The block scanners' masks (this build's vector width: AVX2, SSE2 or bytes) against a byte
    // by byte reference, on random blocks rich in the characters they look for.
    void blockMasksMatchBytes()
    {
        std::mt19937_64 rng(3);
        const std::string_view alphabet = "\"\\{}[],\n ax0";
        for (int trial = 0; trial < 20000; ++trial) {
            char block[64];
            for (char& c : block)
                c = rng() % 4 == 0 ? static_cast<char>(rng()) : alphabet[rng() % alphabet.size()];
            const Block64 b(block);
            for (const char c : {'"', '\\', ',', '\n', '{', '}'}) {
                std::uint64_t eq = 0, folded = 0;
                for (int i = 0; i < 64; ++i) {
                    eq |= std::uint64_t(block[i] == c) << i;
                    folded |= std::uint64_t(static_cast<char>(block[i] | 0x20) == c) << i;
                }
                QCOMPARE(b.eq(c), eq);
                QCOMPARE(b.eqFolded(c), folded);
            }
            const std::uint64_t x = rng();
            std::uint64_t odd = 0, parity = 0;
            for (int i = 0; i < 64; ++i) {
                parity ^= (x >> i) & 1;
                odd |= parity << i;
            }
            QCOMPARE(prefixXor(x), odd);
        }
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestCsv)

} // namespace test_csv

#include "test_csv.moc"
