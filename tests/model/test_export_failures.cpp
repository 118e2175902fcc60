// Exports never leave a partial file or spoil a good one: every writer (CSV/JSON tables, Chrome
// trace, advisor text/HTML/JSON/PDF) goes through a temporary file renamed over the target.
// Failures are provoked three ways: the destination is a folder, its folder does not exist,
// and the disk "fills up" mid-write (RLIMIT_FSIZE, which works even as root).
#include "test_main.h"
#include "model/analysis/atomic_file.h"
#include "model/analysis/chrome_export.h"
#include "model/formats/loader.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace test_export_failures {

using namespace npuscope;
namespace fs = std::filesystem;

namespace {

const std::string kLevel1 = NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text/level1";
const std::string kGood = "a good file from an earlier export\n";

std::string readFile(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void writeGood(const fs::path& p) { std::ofstream(p, std::ios::binary) << kGood; }

// Files in `dir` other than `keep` (a temporary left behind would show here).
QStringList strays(const QString& dir, const QStringList& keep)
{
    QStringList out;
    for (const QString& f : QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot))
        if (!keep.contains(f))
            out << f;
    return out;
}

// Runs npuscope with the file size limited to 1 KiB: any export larger than that fails mid-write
// (EFBIG; SIGXFSZ is ignored so the write returns an error instead of killing the process).
int runLimited(const QStringList& args, QString* err)
{
    QProcess p;
    QStringList shell{QStringLiteral("-c"), QStringLiteral("trap '' XFSZ; ulimit -f 2; exec \"$0\" \"$@\""),
                      QStringLiteral(NPUSCOPE_BINARY)};
    p.setProcessEnvironment(QProcessEnvironment::systemEnvironment());
    p.start(QStringLiteral("bash"), shell + args);
    if (!p.waitForFinished(180000)) {
        p.kill();
        p.waitForFinished();
        return -2;
    }
    *err = QString::fromUtf8(p.readAllStandardError());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

} // namespace

class TestExportFailures : public QObject {
    Q_OBJECT
private slots:
    void atomicWriteFailures()
    {
        QTemporaryDir tmp;
        const fs::path dir(tmp.path().toStdString());
        const fs::path good = dir / "table.csv";
        writeGood(good);
        std::string err;
        // The writer fails half-way: the old file stays, no temporary is left.
        QVERIFY(!writeFileAtomically(good.string(), [](std::FILE* f) {
            std::fputs("half a ta", f);
            return false;
        }, &err));
        QCOMPARE(readFile(good), kGood);
        QVERIFY2(err.find(good.string()) != std::string::npos, err.c_str());
        // The destination is a folder.
        fs::create_directory(dir / "folder.csv");
        QVERIFY(!writeFileAtomically((dir / "folder.csv").string(), std::string("x"), &err));
        QVERIFY2(err.find("folder.csv") != std::string::npos, err.c_str());
        QVERIFY(fs::is_directory(dir / "folder.csv"));
        // Its folder does not exist, or is a file.
        QVERIFY(!writeFileAtomically((dir / "missing" / "t.csv").string(), std::string("x"), &err));
        QVERIFY(!writeFileAtomically((good / "t.csv").string(), std::string("x"), &err));
        QCOMPARE(readFile(good), kGood);
        QCOMPARE(strays(tmp.path(), {"table.csv"}), QStringList());
        // And a success replaces it whole.
        QVERIFY(writeFileAtomically(good.string(), std::string("new\n"), &err));
        QCOMPARE(readFile(good), std::string("new\n"));
    }

    void chromeExportFailures()
    {
        const LoadResult r = loadSession(kLevel1);
        QVERIFY2(r.session, r.error.c_str());
        QTemporaryDir tmp;
        const fs::path dir(tmp.path().toStdString());
        fs::create_directory(dir / "trace.json");
        std::string err;
        QVERIFY(!exportChromeTrace(*r.session, (dir / "trace.json").string(), &err));
        QVERIFY2(err.find("trace.json") != std::string::npos, err.c_str());
        QVERIFY(fs::is_directory(dir / "trace.json"));
        QCOMPARE(strays(tmp.path(), {}), QStringList());
    }

    // The CLI's exports, cut by a full disk: each exits non-zero, names the file, and leaves
    // the earlier good file as it was, with no temporary beside it.
    void cliExportsInterrupted_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("name");
        const QString p = QString::fromStdString(kLevel1);
        QTest::newRow("analyze csv") << QStringList{"analyze", "--import", p, "--format", "csv", "--export"} << "ops.csv";
        QTest::newRow("analyze json") << QStringList{"analyze", "--import", p, "--format", "json", "--export"} << "ops.json";
        QTest::newRow("analyze chrome") << QStringList{"analyze", "--import", p, "--format", "chrome_trace", "--export"} << "t.json";
        QTest::newRow("compare") << QStringList{"compare", p, p, "--format", "json", "-o"} << "cmp.json";
        QTest::newRow("advise html") << QStringList{"advise", p, "--format", "html", "-o"} << "report.html";
        QTest::newRow("advise json") << QStringList{"advise", p, "--format", "json", "-o"} << "report.json";
        QTest::newRow("advise pdf") << QStringList{"advise", p, "--format", "pdf", "-o"} << "report.pdf";
    }
    void cliExportsInterrupted()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, name);
        QTemporaryDir tmp;
        const QString target = tmp.path() + "/" + name;
        writeGood(target.toStdString());
        QString err;
        const int code = runLimited(args << target, &err);
        QVERIFY2(code == 1, qPrintable(QString::number(code) + ": " + err));
        QVERIFY2(err.contains(name), qPrintable(err));
        QCOMPARE(readFile(target.toStdString()), kGood);
        QCOMPARE(strays(tmp.path(), {name}), QStringList());
        // A folder in the way: the same, and the folder is left alone.
        const QString folder = tmp.path() + "/folder_" + name;
        QVERIFY(QDir().mkdir(folder));
        QStringList again = args;
        again.last() = folder;
        QProcess p;
        p.start(QStringLiteral(NPUSCOPE_BINARY), again);
        QVERIFY(p.waitForFinished(180000));
        QCOMPARE(p.exitCode(), 1);
        QVERIFY(QFileInfo(folder).isDir());
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestExportFailures)

} // namespace test_export_failures

#include "test_export_failures.moc"
