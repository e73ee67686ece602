#include "candidatehighlight.h"

namespace kiln {

CandidateHighlight::CandidateHighlight(QObject *parent) : QObject(parent) {}

void CandidateHighlight::set(const QList<qint64> &candidateIds, const QString &label)
{
    const QSet<qint64> ids(candidateIds.cbegin(), candidateIds.cend());
    if (ids == m_ids && label == m_label)
        return;
    m_ids = ids;
    m_label = label;
    emit changed();
}

void CandidateHighlight::clear()
{
    set({}, QString());
}

} // namespace kiln
