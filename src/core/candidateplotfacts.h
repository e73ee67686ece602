#pragma once

#include <QDateTime>
#include <optional>

namespace kiln {

// What the plots need of a candidate beyond its summary, read from columns the lineage query
// leaves out: its list-price cost, when its latest verdict was stored, and the work and the
// machine's roofs its timing stage recorded (zero for evaluations made before they were).
struct CandidatePlotFacts
{
    double cost = 0.0;
    std::optional<QDateTime> evaluatedAt;
    double bytes = 0.0;
    double flops = 0.0;
    double bandwidthGbps = 0.0;
    double peakTflops = 0.0;
};

} // namespace kiln
