#pragma once

#include <QList>
#include <QObject>
#include <QSet>
#include <QString>

namespace kiln {

// Candidates a panel points at together (a diagnosis finding's evidence): the tree rings them,
// the table tints their rows and the speedup plot marks them, until cleared. Unlike the
// selection it holds many, and says what they are evidence of.
class CandidateHighlight : public QObject
{
    Q_OBJECT

public:
    explicit CandidateHighlight(QObject *parent = nullptr);

    const QSet<qint64> &ids() const { return m_ids; }
    bool contains(qint64 candidateId) const { return m_ids.contains(candidateId); }
    bool isEmpty() const { return m_ids.isEmpty(); }
    QString label() const { return m_label; }

public slots:
    void set(const QList<qint64> &candidateIds, const QString &label);
    void clear();

signals:
    void changed();

private:
    QSet<qint64> m_ids;
    QString m_label;
};

} // namespace kiln
