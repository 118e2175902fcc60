// LoadController against reads that never return (a hung network mount): a cancelled load is
// abandoned at once, and neither it nor a second stuck one can keep the next load, or work on
// Qt's shared thread pool (the advisor, exports), from running.
#include "test_main.h"
#include "views/load_controller.h"

#include <QSignalSpy>
#include <QTest>
#include <QtConcurrent>

#include <condition_variable>
#include <mutex>

namespace test_load_controller {

using namespace npuscope;

namespace {

const QString kRank0 =
    QStringLiteral(NPUSCOPE_SAMPLES) + "/msinsight/test/data/pytorch/text/level0/rank0_ascend_pt";

// Blocks every reader that reaches it until open() is called.
struct Gate {
    std::mutex mutex;
    std::condition_variable cv;
    bool open = false;
    int waiting = 0;

    void wait()
    {
        std::unique_lock lock(mutex);
        ++waiting;
        cv.wait(lock, [&] { return open; });
        --waiting;
    }
    int waiters()
    {
        std::lock_guard lock(mutex);
        return waiting;
    }
    void release()
    {
        std::lock_guard lock(mutex);
        open = true;
        cv.notify_all();
    }
};

} // namespace

class TestLoadController : public QObject {
    Q_OBJECT
private slots:
    void stuckLoadsDoNotBlockTheNext()
    {
        auto gate = std::make_shared<Gate>();
        LoadController c;
        QSignalSpy finished(&c, &LoadController::finished);
        QSignalSpy cancelled(&c, &LoadController::cancelled);

        // Two loads that hang in their read of the timeline, each cancelled by the user. (Only
        // the timeline blocks: a rank's side files are read on a thread of their own, and each
        // load must add exactly one waiter.)
        c.setBeforeRead([gate](const std::string& path) {
            if (path.ends_with("trace_view.json"))
                gate->wait();
        });
        for (int i = 1; i <= 2; ++i) {
            c.load({kRank0});
            QTRY_VERIFY_WITH_TIMEOUT(gate->waiters() == i, 60000); // the worker is stuck in a read
            QVERIFY(c.busy());
            c.cancel();
            QCOMPARE(cancelled.count(), i); // control is back immediately
            QVERIFY(!c.busy());
        }
        QCOMPARE(c.runningWorkers(), 2);

        // Both workers are still stuck; a third load and the shared pool still run.
        c.setBeforeRead({});
        c.load({kRank0});
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        const auto session = finished.at(0).at(0).value<SessionPtr>();
        QVERIFY(session && session->ranks.size() == 1);
        QVERIFY(session->ranks.at(0)->slices.size() > 1000);
        QCOMPARE(QtConcurrent::run([] { return 42; }).result(), 42);
        QCOMPARE(gate->waiters(), 2);

        // Released, the abandoned loads end on their own and report nothing.
        gate->release();
        QTRY_COMPARE_WITH_TIMEOUT(c.runningWorkers(), 0, 60000);
        QTest::qWait(50);
        QCOMPARE(finished.count(), 1);
        QCOMPARE(cancelled.count(), 2);
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestLoadController)

} // namespace test_load_controller

#include "test_load_controller.moc"
