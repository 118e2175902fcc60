#pragma once
// The npuscope binary run as a process by the command-line tests.
#include <QProcess>
#include <QString>
#include <QStringList>

struct CliRun {
    int code = -1; // -1 when it crashed or did not finish in time
    QString out, err;
};

// Runs `program args...`; one that has not finished after `timeoutMs` is killed.
inline CliRun runProgram(const QString& program, const QStringList& args, int timeoutMs = 120000)
{
    QProcess p;
    p.start(program, args);
    CliRun r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

// Runs `npuscope args...`.
inline CliRun runCli(const QStringList& args, int timeoutMs = 120000)
{
    return runProgram(QStringLiteral(NPUSCOPE_BINARY), args, timeoutMs);
}

// npuscope-bench, built beside npuscope in the build tree (never installed).
inline QString benchBinary()
{
    const QString cli = QStringLiteral(NPUSCOPE_BINARY);
    return cli.left(cli.lastIndexOf(QLatin1Char('/')) + 1) + QStringLiteral("npuscope-bench");
}
