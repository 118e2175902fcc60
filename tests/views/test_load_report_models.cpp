// The Files and Problems docks' models on a real two-rank torch_npu capture: one row per file of
// the folder, shown below it with its size on disk, sorting by the size itself; and the row of a
// failed load. The expectations come from the file system, not from the loader.
#include "test_main.h"
#include "model/formats/loader.h"
#include "views/load_report_models.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QMap>
#include <QSet>
#include <QSortFilterProxyModel>
#include <QtTest>

#include <algorithm>

namespace test_load_report_models {

using namespace npuscope;

namespace {

const QString kLevel1 = QStringLiteral(NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text/level1");

} // namespace

class TestLoadReportModels : public QObject {
    Q_OBJECT
private slots:
    void filesAreTheFilesOnDisk()
    {
        QMap<QString, qint64> onDisk; // path below the folder -> bytes
        const QDir root(kLevel1);
        QDirIterator it(kLevel1, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            onDisk.insert(root.relativeFilePath(path), QFileInfo(path).size());
        }
        QCOMPARE(onDisk.size(), 28);

        const LoadResult l = loadSession(kLevel1.toStdString());
        QVERIFY2(l.session, l.error.c_str());
        FilesModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setSession(l.session);
        QCOMPARE(m.rowCount(), onDisk.size());
        QSet<QString> seen;
        for (int r = 0; r < m.rowCount(); ++r) {
            const QString shown = m.index(r, FilesModel::File).data().toString();
            QVERIFY2(onDisk.contains(shown), qPrintable(shown));
            seen.insert(shown);
            QCOMPARE(root.relativeFilePath(m.index(r, FilesModel::File).data(Qt::ToolTipRole).toString()), shown);
            QCOMPARE(m.index(r, FilesModel::Bytes).data().toString(), QString::number(onDisk.value(shown)));
            QCOMPARE(m.index(r, FilesModel::Bytes).data(FilesModel::SortRole).toLongLong(), onDisk.value(shown));
            QCOMPARE(m.index(r, FilesModel::Status).data().toString(), QStringLiteral("loaded"));
        }
        QCOMPARE(seen.size(), onDisk.size());

        // Sorted by the number, not by the text: "608" below "3539940".
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&m);
        proxy.setSortRole(FilesModel::SortRole);
        proxy.sort(FilesModel::Bytes, Qt::DescendingOrder);
        QList<qint64> sizes = onDisk.values();
        std::sort(sizes.begin(), sizes.end(), std::greater<>());
        for (int r = 0; r < proxy.rowCount(); ++r)
            QCOMPARE(proxy.index(r, FilesModel::Bytes).data().toString(), QString::number(sizes[r]));
    }

    void aFailedLoadIsOneRow()
    {
        ProblemsModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setSession(nullptr, QStringLiteral("no profile found"), QStringLiteral("/nowhere/run"));
        QCOMPARE(m.rowCount(), 1);
        QCOMPARE(m.index(0, ProblemsModel::Severity).data().toString(), QStringLiteral("error"));
        QCOMPARE(m.index(0, ProblemsModel::File).data().toString(), QStringLiteral("/nowhere/run"));
        QCOMPARE(m.index(0, ProblemsModel::Where).data().toString(), QString());
        QCOMPARE(m.index(0, ProblemsModel::Reason).data(Qt::ToolTipRole).toString(), QStringLiteral("no profile found"));
        QCOMPARE(m.index(0, ProblemsModel::Count).data().toString(), QStringLiteral("1"));
        QCOMPARE(m.index(0, ProblemsModel::Count).data(ProblemsModel::SortRole).toULongLong(), 1ull);
        m.setSession(nullptr);
        QCOMPARE(m.rowCount(), 0);
    }
};

NPUSCOPE_TEST_MAIN(TestLoadReportModels)

} // namespace test_load_report_models

#include "test_load_report_models.moc"
