#pragma once

#include <QJsonObject>
#include <QString>

namespace kiln {

// A hardware profile's key metrics (NsightMetrics::summarise's object) as prompt text: per
// kernel its grid and block, duration, SM and memory throughput, occupancy, DRAM bytes,
// registers, shared memory and top warp stalls, one fact a line. The agents' profiler prompt
// and a refinement's feedback carry the same words.
class ProfileText
{
public:
    static QString metricLines(const QJsonObject &metrics);
    // A metric's value as these lines, the CLI and the window show it: counts and sizes whole
    // (16384, not 1.638e+04), other values to four significant digits.
    static QString number(double value);
};

} // namespace kiln
