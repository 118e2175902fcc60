// Hostile text through every writer: names, args and paths with invalid UTF-8, NUL, control
// characters, right-to-left marks, quotes, "</script>" and a 1 MB name go in; every verb and
// every format must exit 0 or 1 with a message (never abort), JSON must parse with a strict
// parser, HTML must be valid UTF-8 with the markup escaped. Input read in part is never silent:
// a warning per file on stderr, input_problems[] in JSON, an "Incomplete input" box in reports.
#include "test_main.h"
#include "cli_run.h"
#include "file_bytes.h"

#include "model/store/safe_text.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using npuscope::text::csvCell;
using npuscope::text::forTerminal;
using npuscope::text::htmlEscape;
using npuscope::text::isValidUtf8;
using npuscope::text::markdownCell;
using npuscope::text::validUtf8;

namespace {

const std::string kSamples = NPUSCOPE_SAMPLES;
const std::string kLevel1 = kSamples + "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt";

void writeFile(const fs::path& p, const std::string& text)
{
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

// The hostile names: each is a JSON string body (escapes allowed) and its CSV form.
const std::string kBadUtf8 = "Mat\xC3Mul\xFF\xFE";          // a cut two-byte sequence, then bytes no UTF-8 has
const std::string kOverlong = "Cast\xC0\xAF\xED\xA0\x80";   // overlong '/' and a UTF-16 surrogate
const std::string kRtl = "Add\xE2\x80\xAEgnp.exe";          // U+202E: right-to-left override
const std::string kScript = "</script><script>alert(1)</script>";

// A torch_npu-shaped folder. trace_view.json: events whose names and args carry JSON escapes
// of control characters and NUL, right-to-left marks, quotes, "</script>" and a 1 MB name (raw
// invalid bytes would cost the event: simdjson rejects them, which neverSilentlyPartial covers).
// kernel_details.csv: the raw invalid UTF-8 names, kept byte-exact by the reader.
fs::path makeHostileProfile(const fs::path& dir, bool cutTrace)
{
    const fs::path root = dir / "hostile_ascend_pt";
    const fs::path out = root / "ASCEND_PROFILER_OUTPUT";
    const std::vector<std::string> names = {kRtl, kScript, "Tab\\tNewline\\nNul\\u0000Bell\\u0007",
                                            "Quote\\\"Back\\\\slash", "=HYPERLINK(\\\"x\\\")",
                                            std::string(1 << 20, 'Z')};
    std::string trace = "[\n";
    trace += R"({"ph": "M", "name": "process_name", "pid": 7, "tid": 0, "args": {"name": "Ascend Hardware"}},)" "\n";
    trace += R"({"ph": "M", "name": "thread_name", "pid": 7, "tid": 3, "args": {"name": "Stream 3"}},)" "\n";
    trace += R"({"ph": "M", "name": "process_name", "pid": 9, "tid": 0, "args": {"name": "Python"}},)" "\n";
    std::uint64_t us = 1700000000000;
    for (int rep = 0; rep < 3; ++rep)
        for (std::size_t i = 0; i < names.size(); ++i) {
            const std::string t = std::to_string(us) + ".500";
            trace += R"({"ph": "X", "name": ")" + names[i] + R"(", "pid": 7, "tid": 3, "ts": ")" + t
                     + R"(", "dur": 12.5, "args": {"Task Type": "AI_CORE", "Task Id": )" + std::to_string(rep * 100 + i)
                     + R"(, "Input Shapes": ")" + names[(i + 1) % names.size()] + R"(", "key \u0001\u202e": "v\u0000"}},)"
                     + "\n";
            trace += R"({"ph": "X", "name": "aten::)" + names[i] + R"(", "pid": 9, "tid": 1, "ts": ")" + t
                     + R"(", "dur": 20, "args": {"Call stack": ")" + kRtl + R"( at model.py:12\n)" + kScript + R"("}},)"
                     + "\n";
            us += 40;
        }
    trace += R"({"ph": "M", "name": "process_sort_index", "pid": 7, "tid": 0, "args": {"sort_index": 1}})" "\n]\n";
    if (cutTrace)
        trace.resize(trace.size() / 2);
    writeFile(out / "trace_view.json", trace);
    std::string csv = "Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,Task Type,Task Start Time(us),"
                      "Task Duration(us),Task Wait Time(us),Block Dim,Input Shapes\n";
    const std::vector<std::string> bad = {kBadUtf8, kOverlong, kRtl, "\"" + kScript + "\"", "\"=cmd|' /C calc'!A0\"",
                                          "\"quote \"\"x\"\", comma\""};
    for (int k = 0; k < 12; ++k)
        csv += "0,1," + std::to_string(k) + ",3," + bad[k % bad.size()] + "," + bad[(k + 1) % bad.size()]
               + ",AI_CORE," + std::to_string(1700000001000 + 10 * k) + ".000,5.000,0,8," + kBadUtf8 + "\n";
    writeFile(out / "kernel_details.csv", csv);
    return root;
}

nlohmann::json strictJson(const QByteArray& bytes, const QString& what)
{
    const std::string s = bytes.toStdString();
    if (!isValidUtf8(s))
        qFatal("%s: output is not valid UTF-8", qPrintable(what));
    try {
        return nlohmann::json::parse(s); // throws on invalid UTF-8, NaN, trailing commas
    } catch (const std::exception& e) {
        qFatal("%s: not strict JSON: %s", qPrintable(what), e.what());
    }
    return {};
}

struct Run {
    int code = -1;
    QByteArray out, err;
};

Run runRaw(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(NPUSCOPE_BINARY), args);
    Run r;
    if (!p.waitForFinished(180000)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace

class TestHostileText : public QObject {
    Q_OBJECT

private slots:
    void utf8Repair()
    {
        QVERIFY(isValidUtf8("plain ascii"));
        QVERIFY(isValidUtf8("\xE7\xAE\x97\xE5\xAD\x90 \xF0\x9F\x98\x80")); // CJK and an emoji
        QVERIFY(!isValidUtf8(kBadUtf8));
        QVERIFY(!isValidUtf8(kOverlong));
        const std::string fffd = "\xEF\xBF\xBD";
        QCOMPARE(validUtf8("a\xFF" "b"), "a" + fffd + "b");
        QCOMPARE(validUtf8("\xC0\xAF"), fffd + fffd);                 // overlong: both bytes
        QCOMPARE(validUtf8("\xED\xA0\x80"), fffd + fffd + fffd);      // surrogate
        QCOMPARE(validUtf8("\xE4\xB8"), fffd + fffd);                 // cut at the end
        QCOMPARE(validUtf8("\xF4\x90\x80\x80"), fffd + fffd + fffd + fffd); // above U+10FFFF
        QCOMPARE(validUtf8("\xE7\xAE\x97"), std::string("\xE7\xAE\x97"));
        QVERIFY(isValidUtf8(validUtf8(std::string("\0\x80\xBF\xF8", 4))));
    }

    void terminalHtmlCsvMarkdown()
    {
        QCOMPARE(forTerminal("a\nb\tc\x1B[31m"), std::string("a\\nb\\tc\\x1b[31m"));
        QCOMPARE(forTerminal(kRtl), std::string("Add\\u202egnp.exe"));
        QCOMPARE(forTerminal(std::string("x\0y", 3)), std::string("x\\x00y"));
        QCOMPARE(htmlEscape(kScript), std::string("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
        QCOMPARE(htmlEscape("a'b\"c&d\x01"), std::string("a&#39;b&quot;c&amp;d\xEF\xBF\xBD"));
        QCOMPARE(csvCell("=1+2"), std::string("'=1+2"));
        QCOMPARE(csvCell("@SUM(A1)"), std::string("'@SUM(A1)"));
        QCOMPARE(csvCell("-3.5"), std::string("-3.5"));        // a number stays a number
        QCOMPARE(csvCell("+1e-3"), std::string("+1e-3"));
        QCOMPARE(csvCell("-cmd|' /C calc'!A0"), std::string("'-cmd|' /C calc'!A0"));
        QCOMPARE(csvCell("a,\"b\""), std::string("\"a,\"\"b\"\"\""));
        QCOMPARE(csvCell("x\xFF"), std::string("x\xEF\xBF\xBD"));
        QCOMPARE(markdownCell("a|b\nc\\d\x07"), std::string("a\\|b c\\\\d"));
        QCOMPARE(markdownCell("=cmd"), std::string("'=cmd"));
    }

    // Every verb and format on a profile full of hostile names: no abort, strict JSON.
    void everyWriter()
    {
        QTemporaryDir tmp;
        const fs::path root = makeHostileProfile(tmp.path().toStdString(), false);
        const QString p = QString::fromStdString(root.string());
        const QString dir = tmp.path();

        Run r; // the last run
        auto check = [&](const QStringList& args, bool json) {
            r = runRaw(args);
            const QString what = args.join(' ').left(120);
            QVERIFY2(r.code == 0 || r.code == 1, qPrintable(what + " exit " + QString::number(r.code) + ": " + r.err));
            QVERIFY2(!r.err.contains("terminate called"), qPrintable(what));
            if (r.code == 1)
                QVERIFY2(!r.err.isEmpty(), qPrintable(what + ": exit 1 without a message"));
            if (json && r.code == 0)
                strictJson(r.out, what);
        };

        check({"info", p, "--format", "json"}, true);
        const nlohmann::json j = strictJson(r.out, "info");
        QCOMPARE(j["ranks"].size(), 1u);
        QCOMPARE(j["ranks"][0]["slices"].get<int>(), 36); // 3 reps x 6 names x (device + host)
        QVERIFY(j["repaired_strings"].get<int>() > 0);
        QVERIFY(j["input_problems"].empty());
        // Byte-exact in the model: the two invalid names stay two op types after repair.
        int repairedTypes = 0;
        for (const auto& o : j["ranks"][0]["op_types"]["rows"])
            if (o["type"].get<std::string>().find("\xEF\xBF\xBD") != std::string::npos)
                ++repairedTypes;
        QCOMPARE(repairedTypes, 2);
        check({"info", p}, false);
        QVERIFY(!r.out.contains('\x1B'));
        QVERIFY(!r.out.contains(QByteArray("\xE2\x80\xAE")));

        for (const char* metric : {"duration", "memory_bandwidth", "communication_duration"})
            for (const char* format : {"csv", "json", "table"}) {
                check({"analyze", "--import", p, "--metric", metric, "--format", format, "--top", "0"},
                      QByteArray(format) == "json");
                if (QByteArray(format) == "csv" && QByteArray(metric) == "duration") {
                    QVERIFY(r.out.contains("'=cmd"));       // formula guarded
                    QVERIFY(!r.out.contains("\n=cmd"));
                    QVERIFY(isValidUtf8(r.out.toStdString()));
                }
                if (QByteArray(format) == "json" && QByteArray(metric) == "duration") {
                    const nlohmann::json a = strictJson(r.out, "analyze json");
                    QCOMPARE(a["metric"].get<std::string>(), std::string("duration"));
                    QVERIFY(a["input_problems"].empty());
                    QCOMPARE(a["rows"].size(), 6u);
                }
            }
        const QString trace = dir + "/trace.json";
        check({"analyze", "--import", p, "--format", "chrome_trace", "--export", trace}, false);
        {
            QFile f(trace);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const nlohmann::json t = strictJson(f.readAll(), "chrome trace");
            QVERIFY(t["traceEvents"].size() >= 36);
        }

        for (const char* format : {"text", "markdown", "json", "html"}) {
            check({"advise", p, "--format", format}, QByteArray(format) == "json");
            QVERIFY2(isValidUtf8(r.out.toStdString()), format);
            if (QByteArray(format) == "html") {
                QVERIFY(!r.out.contains("<script"));
                for (const char c : r.out)
                    QVERIFY(static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t');
            }
        }
        check({"advise", p, "--format", "pdf", "-o", dir + "/report.pdf"}, false);
        QVERIFY(QFileInfo(dir + "/report.pdf").size() > 1000);

        for (const char* format : {"table", "csv", "json", "markdown"})
            check({"compare", p, p, "--format", format}, QByteArray(format) == "json");
    }

    // A diagnostic that quotes the bad bytes of a real file: the JSON writers must not throw
    // (profiler_metadata.json and op_statistic.csv of the level-1 sample, one byte changed).
    void diagnosticsQuoteBadBytes_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("from");
        QTest::addColumn<QByteArray>("to");
        QTest::newRow("op_statistic count") << "ASCEND_PROFILER_OUTPUT/op_statistic.csv" << QByteArray("ForeachAddList,AI_VECTOR_CORE,3,")
                                            << QByteArray("ForeachAddList,AI_VECTOR_CORE,\xFF\xC3,");
        QTest::newRow("op_statistic time") << "ASCEND_PROFILER_OUTPUT/op_statistic.csv" << QByteArray(",1959.079,")
                                           << QByteArray(",19\xE9" "9.079,");
        QTest::newRow("metadata") << "profiler_metadata.json" << QByteArray("\"") << QByteArray("\xFF\"");
        QTest::newRow("step_trace") << "ASCEND_PROFILER_OUTPUT/step_trace_time.csv" << QByteArray("\n50,")
                                    << QByteArray("\n5\xC3,");
        QTest::newRow("kernel start") << "ASCEND_PROFILER_OUTPUT/kernel_details.csv" << QByteArray(",1")
                                      << QByteArray(",\xF0\x28");
    }

    void diagnosticsQuoteBadBytes()
    {
        QFETCH(QString, file);
        QFETCH(QByteArray, from);
        QFETCH(QByteArray, to);
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "rank0_ascend_pt";
        fs::copy(kLevel1, root, fs::copy_options::recursive);
        for (auto& e : fs::recursive_directory_iterator(root))
            fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
        const fs::path target = root / file.toStdString();
        std::string bytes = fileBytes(target.string());
        const auto at = bytes.find(from.toStdString(), file.contains("kernel") ? bytes.size() / 3 : 0);
        QVERIFY(at != std::string::npos);
        bytes.replace(at, static_cast<std::size_t>(from.size()), to.toStdString());
        writeFile(target, bytes);

        const QString p = QString::fromStdString(root.string());
        for (const QStringList& args : {QStringList{"info", p, "--format", "json"}, QStringList{"advise", p, "--format", "json"},
                                        QStringList{"analyze", "--import", p, "--format", "json"}}) {
            const Run r = runRaw(args);
            QVERIFY2(r.code == 0, qPrintable(args.join(' ') + ": " + r.err));
            strictJson(r.out, args.first());
        }
    }

    // A trace cut in half: every verb warns on stderr, names the file, exits 0; the JSON has the
    // problem in input_problems; the reports open with an "Incomplete input" box.
    void neverSilentlyPartial()
    {
        QTemporaryDir tmp;
        const fs::path root = makeHostileProfile(tmp.path().toStdString(), true);
        const QString p = QString::fromStdString(root.string());
        const QByteArray warning = "warning: " + QByteArray::fromStdString((root / "ASCEND_PROFILER_OUTPUT/trace_view.json").string())
                                   + ": partial";
        struct Case {
            QStringList args;
            const char* jsonPath; // where input_problems sits ("" = not JSON)
        };
        const std::vector<Case> cases = {{{"info", p, "--format", "json"}, "input_problems"},
                                         {{"analyze", "--import", p, "--format", "json"}, "input_problems"},
                                         {{"advise", p, "--format", "json"}, "input_problems"},
                                         {{"compare", p, p, "--format", "json"}, "input_problems"},
                                         {{"advise", p, "--format", "text"}, ""},
                                         {{"advise", p, "--format", "markdown"}, ""},
                                         {{"advise", p, "--format", "html"}, ""},
                                         {{"compare", p, p}, ""}};
        for (const auto& c : cases) {
            const Run r = runRaw(c.args);
            const QString what = c.args.join(' ');
            QVERIFY2(r.code == 0, qPrintable(what + ": " + r.err));
            QVERIFY2(r.err.contains(warning), qPrintable(what + " stderr: " + r.err));
            if (*c.jsonPath) {
                const nlohmann::json j = strictJson(r.out, what);
                const auto& problems = j[c.jsonPath];
                QVERIFY2(!problems.empty(), qPrintable(what));
                QCOMPARE(problems[0]["status"].get<std::string>(), std::string("partial"));
                QVERIFY(problems[0]["file"].get<std::string>().find("trace_view.json") != std::string::npos);
                QVERIFY(!problems[0]["reason"].get<std::string>().empty());
            } else {
                QVERIFY2(r.out.contains("Incomplete input"), qPrintable(what));
            }
        }
        // The advisor's incomplete-input box comes before the summary.
        const Run text = runRaw({"advise", p, "--format", "text"});
        QVERIFY(text.out.indexOf("Incomplete input") < text.out.indexOf("Summary"));
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestHostileText)
#include "test_hostile_text.moc"
