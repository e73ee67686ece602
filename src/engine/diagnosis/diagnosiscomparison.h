#pragma once

#include "engine/diagnosis/diagnosisfinding.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace kiln {

class RunStore;

// Diagnoses of several runs side by side: each run's ratings, and per strategy (the seeds of an
// equal-budget comparison) the mean rating of each analyzer over its runs. What
// `kiln-cli diagnose` prints without --run and the window shows beside the comparison table.
// Reads the store: call it off the GUI thread.
class DiagnosisComparison
{
public:
    struct RunRow
    {
        qint64 runId = 0;
        QString strategy;
        quint64 seed = 0;
        QString tasks;
        QList<DiagnosisFinding> findings; // in RunDiagnosis' order
    };
    struct StrategyRow
    {
        QString strategy;
        int runs = 0;
        QList<double> meanRatings; // in RunDiagnosis' order
    };

    // The analyzers' titles and ids, in the order of the ratings.
    static QStringList titles();
    static QStringList analyzers();
    // The listed runs (every search run when empty), diagnosed one by one.
    static QList<RunRow> runs(RunStore &store, const QList<qint64> &runIds = {});
    // Per strategy, in the order the strategies first appear.
    static QList<StrategyRow> byStrategy(const QList<RunRow> &runs);
    // The same from a database file, opened read-only here (for a worker thread); empty when it
    // cannot be opened.
    static QList<StrategyRow> byStrategy(const QString &databasePath, const QList<qint64> &runIds);
};

} // namespace kiln
