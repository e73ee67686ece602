#pragma once

#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace kiln {

// The plots of the Plots panel, named as `kiln --plot` names them.
enum class PlotKind
{
    Speedup,   // best verified speedup against compute spent
    Coverage,  // pass@k and fast_p@k
    Reasoning, // speedup and correctness against reasoning tokens
    Timing,    // the selected candidate's timing distribution and its baseline's
    Roofline,  // passing candidates under the measured roofs
    FastP      // fast_p against p per KernelBench level, over the whole database
};

inline const QList<PlotKind> &allPlotKinds()
{
    static const QList<PlotKind> kinds{PlotKind::Speedup, PlotKind::Coverage, PlotKind::Reasoning,
                                       PlotKind::Timing,  PlotKind::Roofline, PlotKind::FastP};
    return kinds;
}

inline QString plotKindName(PlotKind kind)
{
    static const char *const names[] = {"speedup", "coverage", "reasoning",
                                        "timing",  "roofline", "fastp"};
    return QString::fromLatin1(names[int(kind)]);
}

// "speedup|coverage|...": the names for a usage line.
inline QString plotKindNames()
{
    QStringList names;
    for (PlotKind kind : allPlotKinds())
        names << plotKindName(kind);
    return names.join(QLatin1Char('|'));
}

inline std::optional<PlotKind> plotKindFromName(const QString &name)
{
    for (PlotKind kind : allPlotKinds())
        if (plotKindName(kind) == name)
            return kind;
    return std::nullopt;
}

} // namespace kiln
