#include "models/rules/runsummarytext.h"

#include "models/rundocument.h"
#include "models/speedupnotes.h"
#include "models/verdictstyle.h"

#include "engine/runconfig.h"

#include <QFileInfo>
#include <QLocale>
#include <QMap>
#include <QObject>

namespace kiln {

QString RunSummaryText::pickerLabel(const RunRecord &r)
{
    const QLocale locale;
    // Runs of a comparison differ only in their strategy and seed: both are named.
    QString strategy = r.strategy.isEmpty() ? r.kind : r.strategy;
    if (r.kind == QLatin1String("search"))
        strategy += QObject::tr(" · seed %1").arg(r.seed);
    QString label =
        QObject::tr("#%1  %2 · %3 · %4 · %5")
            .arg(r.id)
            .arg(r.tasks.join(QStringLiteral(", ")), strategy,
                 r.policy == QStringLiteral("offline") ? QObject::tr("offline (simulated)")
                                                       : r.policy,
                 RunRecord::statusName(r.status));
    if (RunConfig::lenientOf(r.config))
        label += QObject::tr(" · LENIENT verifier");
    // A live run's count would be stale at once: the status bar shows it as it grows.
    const bool live = r.status == RunRecord::Status::Running ||
                      r.status == RunRecord::Status::Paused ||
                      r.status == RunRecord::Status::Created;
    if (!live)
        label += QObject::tr(" · %1 samples").arg(locale.toString(r.budgetUsed.samples));
    return label;
}

QString RunSummaryText::statusLine(const RunDocument &document)
{
    if (!document.hasRun())
        return document.isOpen() ? QObject::tr("This database has no runs yet.")
                                 : QObject::tr("No database open.");
    QMap<int, int> counts;
    int total = 0;
    for (const CandidateSummary &c : document.candidates()) {
        if (c.placeholder)
            continue;
        ++total;
        counts[c.evaluated ? int(c.verdict) : -1]++;
    }
    const QLocale locale;
    QStringList parts;
    parts << QObject::tr("<b>%1</b> candidates").arg(locale.toString(total));
    for (Verdict v : allVerdicts()) {
        if (counts.value(int(v)))
            parts << QStringLiteral("<span style=\"color:%1;\">●</span> %2 %3")
                         .arg(VerdictStyle::color(v).name())
                         .arg(counts.value(int(v)))
                         .arg(VerdictStyle::label(v));
    }
    if (counts.value(-1))
        parts << QObject::tr("%1 pending").arg(counts.value(-1));
    const int best = document.bestRow();
    if (best >= 0)
        parts << QObject::tr("best <b>%1</b> (#%2)")
                     .arg(SpeedupNotes::cellText(document.at(best)).toHtmlEscaped())
                     .arg(document.at(best).id);
    // Counted from the candidates, so a live run's figure moves with every one that arrives.
    qint64 tokens = 0;
    for (const CandidateSummary &c : document.candidates())
        tokens += c.totalTokens();
    parts << QObject::tr("%1 tokens").arg(locale.toString(tokens));
    parts << RunRecord::statusName(document.run().status);
    return parts.join(QStringLiteral(" &nbsp;·&nbsp; "));
}

QString RunSummaryText::windowTitle(const RunDocument &document)
{
    QString title = QStringLiteral("Kiln");
    if (document.isOpen())
        title += QStringLiteral(" — ") + QFileInfo(document.databasePath()).fileName();
    if (document.hasRun()) {
        const RunRecord &r = document.run();
        title += QObject::tr(" — run #%1 %2 (%3)")
                     .arg(r.id)
                     .arg(r.tasks.join(QStringLiteral(", ")), r.strategy);
        // Its speedups are the naive harness's, not true ones.
        if (RunConfig::lenientOf(r.config))
            title += QObject::tr(" — LENIENT verifier");
    }
    return title;
}

} // namespace kiln
