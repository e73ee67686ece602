#include "candidateselection.h"

namespace kiln {

CandidateSelection::CandidateSelection(QObject *parent) : QObject(parent) {}

void CandidateSelection::setCurrent(qint64 candidateId)
{
    if (candidateId == m_current)
        return;
    m_current = candidateId;
    emit currentChanged(candidateId);
}

void CandidateSelection::setCompare(qint64 candidateId)
{
    if (candidateId == m_compare)
        return;
    m_compare = candidateId;
    emit compareChanged(candidateId);
}

void CandidateSelection::clear()
{
    setCompare(0);
    setCurrent(0);
}

} // namespace kiln
