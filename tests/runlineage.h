#pragma once

// A run's lineage in a form two databases can be compared in: one line per candidate in sample
// order, "index operation parent-index second-parent-index sha1(source)". Candidate ids differ
// between databases; lineage and code of the same seed must not.
#include "store/runstore.h"

#include <QCryptographicHash>
#include <QMap>
#include <QStringList>
#include <algorithm>

inline QStringList runLineage(const QString &db, qint64 runId)
{
    using namespace kiln;
    auto store = RunStore::open(db, RunStore::Mode::ReadOnly);
    if (!store)
        return {};
    QMap<qint64, qint64> indexOf;
    QList<CandidateRecord> candidates = store->candidates(runId);
    for (const CandidateRecord &c : candidates)
        indexOf.insert(c.id, c.sampleIndex);
    std::sort(candidates.begin(), candidates.end(),
              [](const CandidateRecord &a, const CandidateRecord &b) {
                  return a.sampleIndex < b.sampleIndex;
              });
    QStringList rows;
    for (const CandidateRecord &c : candidates) {
        rows.append(QStringLiteral("%1 %2 %3 %4 %5")
                        .arg(c.sampleIndex)
                        .arg(operationName(c.operation))
                        .arg(c.parent ? indexOf.value(*c.parent) : -1)
                        .arg(c.secondParent ? indexOf.value(*c.secondParent) : -1)
                        .arg(QString::fromLatin1(
                            QCryptographicHash::hash(c.source.toUtf8(), QCryptographicHash::Sha1)
                                .toHex())));
    }
    return rows;
}

// The two lineages agree: same indices, operations and parents, and the same code for every
// sample (a refinement also reads its parent's measured timing, which differs between any two
// runs, so its code may differ).
inline bool sameLineage(const QStringList &a, const QStringList &b, QString *why)
{
    if (a.size() != b.size()) {
        *why = QStringLiteral("%1 candidates against %2").arg(a.size()).arg(b.size());
        return false;
    }
    for (qsizetype i = 0; i < a.size(); ++i) {
        const QStringList x = a[i].split(QLatin1Char(' '));
        const QStringList y = b[i].split(QLatin1Char(' '));
        if (x.mid(0, 4) != y.mid(0, 4) ||
            (x[1] == QLatin1String("sample") && x.value(4) != y.value(4))) {
            *why = QStringLiteral("row %1: '%2' against '%3'").arg(i).arg(a[i], b[i]);
            return false;
        }
    }
    return true;
}
