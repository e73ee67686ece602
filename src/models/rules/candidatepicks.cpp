#include "models/rules/candidatepicks.h"

#include "models/rundocument.h"

#include <QObject>

namespace kiln {

bool CandidatePicks::isSelectable(const RunDocument &document, qint64 candidateId)
{
    const int row = document.rowOf(candidateId);
    return row >= 0 && !document.at(row).placeholder;
}

QString CandidatePicks::selectRefusal(const RunDocument &document, qint64 candidateId, qint64 runId)
{
    if (isSelectable(document, candidateId))
        return {};
    return QObject::tr("no candidate %1 in run %2").arg(candidateId).arg(runId);
}

qint64 CandidatePicks::afterLoad(const RunDocument &document, qint64 wanted)
{
    if (wanted && isSelectable(document, wanted))
        return wanted;
    // Keep the whole tree in view: the gold path already shows where the best one is.
    if (document.bestRow() >= 0)
        return document.at(document.bestRow()).id;
    if (document.count() > 0)
        return document.at(document.count() - 1).id;
    return 0;
}

qint64 CandidatePicks::diffBase(const RunDocument &document, qint64 current, qint64 compare)
{
    if (compare)
        return compare;
    const int row = document.rowOf(current);
    if (row >= 0 && document.at(row).parent &&
        !document.at(document.rowOf(*document.at(row).parent)).placeholder)
        return *document.at(row).parent;
    return 0;
}

std::optional<qint64> CandidatePicks::parentOf(const RunDocument &document, qint64 candidateId)
{
    const int row = document.rowOf(candidateId);
    if (row >= 0 && document.at(row).parent)
        return document.at(row).parent;
    return std::nullopt;
}

} // namespace kiln
