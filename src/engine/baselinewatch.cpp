#include "baselinewatch.h"

#include "core/timingstats.h"
#include "verifier/screen/flagcatalog.h"

namespace kiln {

std::optional<CheatFlag> BaselineWatch::check(const EvaluationResult &result,
                                              const QList<double> &earlier)
{
    if (!result.baselineMs || *result.baselineMs <= 0.0 || earlier.size() < kMinimumEarlier)
        return std::nullopt;
    const double usual = TimingStats::medianOf(earlier);
    if (usual <= 0.0)
        return std::nullopt;
    const double ratio = *result.baselineMs / usual;
    if (ratio <= 1.0 + kTolerance && ratio >= 1.0 / (1.0 + kTolerance))
        return std::nullopt;
    return FlagCatalog::make(QStringLiteral("baseline_outlier"), {},
                             QStringLiteral("the reference took %1 ms here, %2x the run's usual "
                                            "%3 ms (median of %4 judgements)")
                                 .arg(*result.baselineMs, 0, 'g', 3)
                                 .arg(ratio, 0, 'f', 2)
                                 .arg(usual, 0, 'g', 3)
                                 .arg(earlier.size()));
}

} // namespace kiln
