#include "engine/diagnosis/diagnosiscomparison.h"

#include "engine/diagnosis/rundiagnosis.h"
#include "store/runstore.h"

#include <algorithm>

namespace kiln {

QStringList DiagnosisComparison::titles()
{
    QStringList list;
    for (const DiagnosisFinding &f : RunDiagnosis::diagnose(RunHistory()))
        list << f.title;
    return list;
}

QStringList DiagnosisComparison::analyzers()
{
    QStringList list;
    for (const DiagnosisFinding &f : RunDiagnosis::diagnose(RunHistory()))
        list << f.analyzer;
    return list;
}

QList<DiagnosisComparison::RunRow> DiagnosisComparison::runs(RunStore &store,
                                                             const QList<qint64> &runIds)
{
    QList<RunRow> rows;
    for (const RunRecord &run : store.runs()) {
        if (runIds.isEmpty() ? run.kind != QLatin1String("search") : !runIds.contains(run.id))
            continue;
        rows.append({run.id, run.strategy, run.seed, run.tasks.join(QLatin1Char(',')),
                     RunDiagnosis::diagnose(RunHistory::load(store, run.id))});
    }
    return rows;
}

QList<DiagnosisComparison::StrategyRow> DiagnosisComparison::byStrategy(const QString &databasePath,
                                                                        const QList<qint64> &runIds)
{
    const auto store = RunStore::open(databasePath, RunStore::Mode::ReadOnly);
    return store ? byStrategy(runs(*store, runIds)) : QList<StrategyRow>();
}

QList<DiagnosisComparison::StrategyRow> DiagnosisComparison::byStrategy(const QList<RunRow> &runs)
{
    QList<StrategyRow> rows;
    for (const RunRow &run : runs) {
        auto row = std::find_if(rows.begin(), rows.end(),
                                [&](const StrategyRow &r) { return r.strategy == run.strategy; });
        if (row == rows.end()) {
            rows.append({run.strategy, 0, QList<double>(run.findings.size(), 0.0)});
            row = rows.end() - 1;
        }
        ++row->runs;
        for (qsizetype i = 0; i < run.findings.size() && i < row->meanRatings.size(); ++i)
            row->meanRatings[i] += run.findings[i].rating;
    }
    for (StrategyRow &row : rows)
        for (double &rating : row.meanRatings)
            rating /= row.runs;
    return rows;
}

} // namespace kiln
