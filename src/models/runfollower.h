#pragma once

#include "rundelta.h"

#include <QObject>
#include <QThread>

namespace kiln {

class RunStore;

// Reads a growing run's new events and candidates on a thread of its own, through its own
// read-only connection, so the GUI thread never waits on the database. One read is in flight at
// a time; its answer arrives as deltaRead, queued to the thread that owns the follower.
class RunFollower : public QObject
{
    Q_OBJECT

public:
    explicit RunFollower(QObject *parent = nullptr);
    ~RunFollower() override;

    // Asks for everything logged in run runId after afterEvent; false while a read is in flight.
    bool request(const QString &databasePath, qint64 runId, qint64 afterEvent);
    bool isBusy() const { return m_busy; }

signals:
    void deltaRead(const kiln::RunDelta &delta);

private:
    class Reader;
    QThread m_thread;
    Reader *m_reader;
    bool m_busy = false;
};

} // namespace kiln
