#pragma once

#include <QString>

namespace kiln {

// Rough hardware ceilings for the roofline floor, measured once per process.
class BandwidthProbe
{
public:
    // Best memcpy bandwidth (bytes read + written per second) over a 16 MiB buffer, single
    // thread.
    // The result is kept in cacheFile (when given) so later processes skip the measurement.
    static double memoryBytesPerSecond(const QString &cacheFile = {});
    // Peak fp32 rate assumed for the floor: cores x 5 GHz x 64 flops/cycle (two 16-wide FMA
    // units): generous on purpose, the floor must never reject honest code.
    static double peakFlopsPerSecond();
};

} // namespace kiln
