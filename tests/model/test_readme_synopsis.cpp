// README.md's synopsis of `analyze` against what `npuscope analyze --help` says at the time the
// test runs: the --metric names in the same order, and each option of the synopsis offered by the
// help with the same values (and each option of the help named in the synopsis). A metric added
// to the table of metrics fails here until the README names it too.
#include "test_main.h"
#include "cli_run.h"

#include <QFile>
#include <QRegularExpression>
#include <QtTest>

namespace test_readme_synopsis {

namespace {

// The lines of README.md's `npuscope analyze` synopsis: its first line and the continuation lines
// indented below it, joined.
QString readmeAnalyzeSynopsis(const QString& readme)
{
    const QStringList lines = readme.split(QLatin1Char('\n'));
    QString synopsis;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        if (!lines[i].startsWith(QLatin1String("    npuscope analyze --import PATH...")))
            continue;
        synopsis = lines[i];
        for (qsizetype k = i + 1; k < lines.size() && lines[k].startsWith(QLatin1String("             [")); ++k)
            synopsis += QLatin1Char(' ') + lines[k].trimmed();
        break;
    }
    return synopsis;
}

// option → its values as a sorted list ("" for an option without a list of values), from the
// synopsis' "--name a|b|c" and "[--name X]".
QMap<QString, QStringList> synopsisOptions(const QString& synopsis)
{
    QMap<QString, QStringList> options;
    for (auto it = QRegularExpression(QStringLiteral("(--[a-z-]+)(?: ([^\\s\\[\\]]+))?")).globalMatch(synopsis);
         it.hasNext();) {
        const auto m = it.next();
        QStringList values;
        if (m.captured(2).contains(QLatin1Char('|')))
            values = m.captured(2).split(QLatin1Char('|'));
        values.sort();
        options.insert(m.captured(1), values);
    }
    return options;
}

// The same from the option lines of `analyze --help` ("  --sort ORDER   descending (default) |
// ascending"): the values are the words of a " | "-separated list in front of any remark.
QMap<QString, QStringList> helpOptions(const QString& help, QStringList* metricOrder)
{
    QMap<QString, QStringList> options;
    const QRegularExpression line(QStringLiteral("^  (--[a-z-]+)(?: ([^\\s]+))?\\s{2,}(.*)$"));
    for (const QString& l : help.split(QLatin1Char('\n'))) {
        const auto m = line.match(l);
        if (!m.hasMatch())
            continue;
        QStringList values;
        if (m.captured(2).contains(QLatin1Char('|'))) {
            values = m.captured(2).split(QLatin1Char('|')); // "--prefer text|db"
        } else if (m.captured(3).contains(QLatin1String(" | "))) {
            for (QString v : m.captured(3).split(QLatin1String(" | ")))
                values << v.remove(QRegularExpression(QStringLiteral("\\s*\\(.*$"))).trimmed();
        }
        if (m.captured(1) == QLatin1String("--metric") && metricOrder)
            *metricOrder = values;
        values.sort();
        options.insert(m.captured(1), values);
    }
    return options;
}

} // namespace

class TestReadmeSynopsis : public QObject {
    Q_OBJECT
private slots:
    void analyzeSynopsisMatchesHelp()
    {
        const CliRun help = runCli({QStringLiteral("analyze"), QStringLiteral("--help")});
        QCOMPARE(help.code, 0);
        QStringList metrics;
        QMap<QString, QStringList> fromHelp = helpOptions(help.out, &metrics);
        QVERIFY2(fromHelp.contains(QStringLiteral("--metric")) && !metrics.isEmpty(), qPrintable(help.out));
        fromHelp.remove(QStringLiteral("--help"));

        QFile f(QStringLiteral(NPUSCOPE_SOURCE_DIR "/README.md"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString synopsis = readmeAnalyzeSynopsis(QString::fromUtf8(f.readAll()));
        QVERIFY2(!synopsis.isEmpty(), "README.md has no `npuscope analyze --import PATH...` synopsis");

        // The metric names, in the order of the table of metrics.
        const QString metricList = "--metric " + metrics.join(QLatin1Char('|'));
        QVERIFY2(synopsis.contains(metricList + QLatin1Char(' ')) || synopsis.endsWith(metricList),
                 qPrintable("README.md: " + synopsis + "\n--help: " + metricList));

        const QMap<QString, QStringList> fromReadme = synopsisOptions(synopsis);
        for (auto it = fromReadme.begin(); it != fromReadme.end(); ++it) {
            QVERIFY2(fromHelp.contains(it.key()), qPrintable("README.md names " + it.key() + ", analyze --help does not"));
            QVERIFY2(fromHelp.value(it.key()) == it.value(),
                     qPrintable(it.key() + ": README.md " + it.value().join(QLatin1Char('|')) + ", analyze --help "
                                + fromHelp.value(it.key()).join(QLatin1Char('|'))));
        }
        for (auto it = fromHelp.begin(); it != fromHelp.end(); ++it)
            QVERIFY2(fromReadme.contains(it.key()),
                     qPrintable("analyze --help offers " + it.key() + ", README.md does not name it"));
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestReadmeSynopsis)

} // namespace test_readme_synopsis

#include "test_readme_synopsis.moc"
