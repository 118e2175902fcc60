#include "views/load_controller.h"

#include "model/cache/session_cache.h"
#include "model/cluster_summary/open_session.h"
#include "model/formats/loader.h"
#include "views/app_settings.h"

#include <QDateTime>
#include <QMetaObject>
#include <QPointer>
#include <chrono>
#include <thread>

namespace npuscope {

namespace {

// Progress messages are posted at most this often; the loader may call back per chunk.
constexpr qint64 kProgressIntervalMs = 50;

} // namespace

LoadController::LoadController(QObject* parent)
    : QObject(parent), m_prefer(AppSettings::preferSource()), m_useCache(AppSettings::useSessionCache())
{
}

LoadController::~LoadController()
{
    // Workers keep their job alive through their own shared_ptr; tell them to stop early and give
    // them a moment to notice (a load checks between chunks), but never wait on one that is stuck.
    if (!m_job)
        return;
    m_job->cancel = true;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (*m_running > 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

void LoadController::cancel()
{
    if (!m_job || m_active == 0)
        return;
    m_job->cancel = true;
    const QStringList paths = m_paths;
    m_active = 0;
    emit cancelled(paths);
}

namespace {

QStringList runLines(const std::vector<layout::RunInfo>& runs)
{
    QStringList out;
    for (const auto& r : runs) {
        const double mb = static_cast<double>(r.bytes) / (1024.0 * 1024.0);
        QString line = QString::fromStdString(r.layout) + QStringLiteral(", ")
                       + (r.ranks == 1 ? QStringLiteral("1 rank") : QStringLiteral("%1 ranks").arg(r.ranks))
                       + QStringLiteral(", %1 MB").arg(mb, 0, 'f', mb >= 10 ? 0 : 2);
        if (r.modified > 0)
            line += QStringLiteral(", ")
                    + QDateTime::fromSecsSinceEpoch(r.modified).toString(QStringLiteral("yyyy-MM-dd hh:mm"));
        line += QStringLiteral("  ") + QString::fromStdString(r.root);
        out << line;
    }
    return out;
}

} // namespace

void LoadController::load(const QStringList& paths, std::size_t run)
{
    if (m_job)
        m_job->cancel = true; // a newer load wins over an older one
    auto job = std::make_shared<Job>();
    job->id = m_nextId++;
    job->clock.start();
    m_job = job;
    m_active = job->id;
    m_paths = paths;
    emit started(paths);

    std::vector<std::string> files;
    for (const QString& p : paths)
        files.push_back(p.toStdString());
    QPointer<LoadController> self(this);
    const Prefer prefer = m_prefer;
    const bool useCache = m_useCache;
    // Each load has a thread of its own rather than one of the shared pool's (as many threads as
    // cores): a load stuck in a read that never returns is abandoned on cancel and can never keep
    // the next load, the advisor or an export from starting.
    ++*m_running;
    std::thread([self, job, files, paths, prefer, run, useCache, running = m_running, beforeRead = m_beforeRead] {
        struct Done {
            std::shared_ptr<std::atomic<int>> running;
            ~Done() { --*running; }
        } done{running};
        LoadOptions o;
        o.prefer = prefer;
        o.run = run;
        o.cancel = &job->cancel;
        o.beforeRead = beforeRead;
        o.progress = [self, job](const LoadProgress& lp) {
            const qint64 now = job->clock.elapsed();
            qint64 last = job->lastProgressMs.load();
            if (now - last < kProgressIntervalMs && lp.fraction < 1.0)
                return;
            if (!job->lastProgressMs.compare_exchange_strong(last, now))
                return; // another loader thread just reported
            const QString stage = QString::fromStdString(lp.stage);
            const double f = lp.fraction;
            const quint64 id = job->id;
            QMetaObject::invokeMethod(self.data(), [self, id, stage, f] {
                if (self)
                    self->onProgress(id, stage, f);
            }, Qt::QueuedConnection);
        };
        LoadResult result;
        try {
            // openSessions, through the session cache when it is on.
            result = useCache ? loadSessionsCached(files, o) : openSessions(files, o);
        } catch (const std::exception& e) {
            result.error = e.what();
        }
        const qint64 ms = job->clock.elapsed();
        const quint64 id = job->id;
        if (!self)
            return;
        QMetaObject::invokeMethod(self.data(), [self, id, result, paths, ms] {
            if (!self || self->m_active != id)
                return; // superseded or cancelled
            self->m_active = 0;
            if (result.cancelled)
                emit self->cancelled(paths);
            else if (result.session)
                emit self->finished(result.session, paths, ms);
            else if (!result.runs.empty())
                emit self->runsFound(runLines(result.runs), paths);
            else
                emit self->failed(QString::fromStdString(result.error.empty() ? std::string("nothing could be loaded") : result.error), paths);
        }, Qt::QueuedConnection);
    }).detach();
}

void LoadController::onProgress(quint64 id, const QString& stage, double fraction)
{
    if (id == m_active)
        emit progress(stage, fraction);
}

} // namespace npuscope
