#include "plotrun.h"

#include "engine/runconfig.h"
#include "languages/kernellanguages.h"
#include "store/runstore.h"

#include <QJsonDocument>

namespace kiln {

PlotRun PlotRun::load(RunStore &store, qint64 runId, bool withFacts)
{
    PlotRun plotted;
    const std::optional<RunRecord> run = store.run(runId);
    if (!run)
        return plotted;
    plotted.run = *run;
    plotted.candidates = store.lineage(runId);
    if (withFacts)
        plotted.facts = store.plotFacts(runId);
    return plotted;
}

QString PlotRun::settingsKey() const
{
    QJsonObject config = run.config;
    // What differs between seeds of one experiment, or does not change what it computes.
    for (const char *key : {"seed", "verifier_seed", "generation_threads"})
        config.remove(QLatin1String(key));
    return QStringList{run.tasks.join(QLatin1Char(',')), run.strategy, run.policy, run.backend,
                       QString::fromUtf8(QJsonDocument(config).toJson(QJsonDocument::Compact))}
        .join(QLatin1Char('|'));
}

QString PlotRun::label() const
{
    // A lenient run's speedups are the naive harness's, not the true ones: say so on the curve.
    const bool lenient = RunConfig::lenientOf(run.config);
    // A KernelBench run names its kernel language unless it is the default (inline CUDA).
    const QString language = RunConfig::languageOf(run.config);
    const bool otherLanguage = run.backend == QLatin1String("pytorch") &&
                               language != KernelLanguages::defaultLanguage().id();
    return QStringLiteral("%1 on %2%6, seed %3 (run %4)%5")
        .arg(run.strategy, run.tasks.join(QLatin1Char(',')))
        .arg(run.seed)
        .arg(run.id)
        .arg(lenient ? QStringLiteral(", LENIENT verifier") : QString())
        .arg(otherLanguage
                 ? QStringLiteral(" in %1").arg(KernelLanguages::find(language)
                                                    ? KernelLanguages::find(language)->displayName()
                                                    : language)
                 : QString());
}

} // namespace kiln
