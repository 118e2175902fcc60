#pragma once
// Runs npuscope::loadSessions on a worker thread. The worker produces an immutable SessionPtr;
// the GUI thread only receives it. A newer load cancels an older one (its result is dropped),
// progress is throttled and reported per stage, and a failed load leaves the caller's session
// untouched (STYLE.md practices 4 and 5).
#include "model/formats/loader.h"
#include "model/store/session.h"

#include <QElapsedTimer>
#include <QObject>
#include <QStringList>

#include <atomic>
#include <functional>
#include <memory>

namespace npuscope {

class LoadController : public QObject {
    Q_OBJECT
public:
    explicit LoadController(QObject* parent = nullptr);
    ~LoadController() override;

    bool busy() const { return m_active != 0; }
    // Worker threads still running, including cancelled ones that have not returned yet.
    int runningWorkers() const { return *m_running; }
    QStringList currentPaths() const { return m_paths; }
    // Text or SQLite for folders holding both; starts from the Preferences (AppSettings) and
    // applies to the next load.
    Prefer prefer() const { return m_prefer; }
    void setPrefer(Prefer p) { m_prefer = p; }
    // Whether loads go through the session cache; starts from the Preferences (AppSettings) and
    // applies to the next load.
    bool useCache() const { return m_useCache; }
    void setUseCache(bool on) { m_useCache = on; }
    // Called on the worker thread before each file is read (LoadOptions::beforeRead); applies to
    // the next load. Tests use it to stall a load the way a hung network mount would.
    void setBeforeRead(std::function<void(const std::string&)> hook) { m_beforeRead = std::move(hook); }

public slots:
    // `run`: which of several unrelated runs below a folder to open (LoadOptions::run).
    void load(const QStringList& paths, std::size_t run = 0);
    void cancel();

signals:
    void started(const QStringList& paths);
    void progress(const QString& stage, double fraction); // fraction 0..1
    void finished(npuscope::SessionPtr session, const QStringList& paths, qint64 elapsedMs);
    void failed(const QString& error, const QStringList& paths);
    // The folder holds several unrelated runs and none was chosen: one line each
    // (layout, ranks, size, date, folder); load(paths, i + 1) opens line i.
    void runsFound(const QStringList& runs, const QStringList& paths);
    void cancelled(const QStringList& paths);

private:
    struct Job {
        quint64 id = 0;
        std::atomic<bool> cancel{false};
        std::atomic<qint64> lastProgressMs{-1000};
        QElapsedTimer clock;
    };
    void onProgress(quint64 id, const QString& stage, double fraction);

    std::shared_ptr<Job> m_job; // the newest job; older ones only hold their own pointer
    quint64 m_nextId = 1;
    quint64 m_active = 0;       // id of the job whose result will be used, 0 = none
    QStringList m_paths;
    Prefer m_prefer = Prefer::Auto;
    bool m_useCache = true;
    std::function<void(const std::string&)> m_beforeRead;
    std::shared_ptr<std::atomic<int>> m_running = std::make_shared<std::atomic<int>>(0); // live workers
};

} // namespace npuscope
