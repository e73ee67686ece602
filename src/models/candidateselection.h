#pragma once

#include <QObject>

namespace kiln {

// The candidate every panel shows (current) and the one the diff compares it with (compare;
// 0 means "its parent"). Views set it and follow it, so a click anywhere selects everywhere.
class CandidateSelection : public QObject
{
    Q_OBJECT

public:
    explicit CandidateSelection(QObject *parent = nullptr);

    qint64 current() const { return m_current; }
    qint64 compare() const { return m_compare; }

public slots:
    void setCurrent(qint64 candidateId);
    void setCompare(qint64 candidateId);
    void clear();

signals:
    void currentChanged(qint64 candidateId);
    void compareChanged(qint64 candidateId);

private:
    qint64 m_current = 0;
    qint64 m_compare = 0;
};

} // namespace kiln
