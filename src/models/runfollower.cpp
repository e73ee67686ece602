#include "runfollower.h"

#include "store/runstore.h"

#include <memory>

namespace kiln {

// Lives on the follower's thread and keeps its connection open between reads.
class RunFollower::Reader : public QObject
{
    Q_OBJECT

public:
    void read(const QString &path, qint64 runId, qint64 afterEvent)
    {
        if (!m_store || m_store->path() != path) {
            m_store = RunStore::open(path, RunStore::Mode::ReadOnly, nullptr,
                                     RunStore::Check::Header); // checked when it was opened
        }
        RunDelta delta;
        delta.runId = runId;
        delta.lastEvent = afterEvent;
        if (m_store)
            delta = RunDelta::read(*m_store, runId, afterEvent);
        emit done(delta);
    }

signals:
    void done(const kiln::RunDelta &delta);

private:
    std::unique_ptr<RunStore> m_store;
};

RunFollower::RunFollower(QObject *parent) : QObject(parent), m_reader(new Reader)
{
    qRegisterMetaType<RunDelta>();
    m_thread.setObjectName(QStringLiteral("kiln-run-follower"));
    m_reader->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_reader, &QObject::deleteLater);
    connect(m_reader, &Reader::done, this, [this](const RunDelta &delta) {
        m_busy = false;
        emit deltaRead(delta);
    });
    m_thread.start();
}

RunFollower::~RunFollower()
{
    m_thread.quit();
    m_thread.wait();
}

bool RunFollower::request(const QString &databasePath, qint64 runId, qint64 afterEvent)
{
    if (m_busy)
        return false;
    m_busy = true;
    QMetaObject::invokeMethod(m_reader, [reader = m_reader, databasePath, runId, afterEvent] {
        reader->read(databasePath, runId, afterEvent);
    });
    return true;
}

} // namespace kiln

#include "runfollower.moc"
