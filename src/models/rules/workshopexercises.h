#pragma once

#include "models/launchsettings.h"
#include "models/plotkind.h"

#include <QList>
#include <QString>

namespace kiln {

// The seven exercises of docs/workshop.md as the window runs them: each one's runs as launcher
// settings (the same runs as the doc's commands), what to do once they end (judge the lenient
// run strictly, for the leaky-verifier exercise), which view shows the lesson, and what to look
// at and expect, shown beside the window while it runs. A budget scale shrinks every run for a
// quick try (the tests run each exercise at a small one).
struct WorkshopExercise
{
    enum class View
    {
        Tree,   // the lineage view
        Plot,   // the Plots panel, `plot` chosen
        Code,   // the best candidate's code (to edit a copy)
        Compare // the runs ticked together on the speedup plot
    };

    int number = 0;
    QString title;
    QString database; // file name, in the workshop folder
    QList<LaunchSettings> runs;
    bool rejudgeStrictly = false; // then judge the (lenient) run again strictly
    View view = View::Tree;
    PlotKind plot = PlotKind::Speedup;
    QString lookAt;
    QString expect;

    // `folder`: where the databases go; `scale` multiplies every budget (at least 2 remain).
    static QList<WorkshopExercise> all(const QString &folder, double scale = 1.0);
    // The commands of docs/workshop.md that these runs equal (kiln-cli run lines).
    QStringList commands() const;
};

} // namespace kiln
