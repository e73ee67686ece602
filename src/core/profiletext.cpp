#include "profiletext.h"

#include <QJsonArray>
#include <QStringList>
#include <cmath>

namespace kiln {

namespace {

// One kernel of NsightMetrics::summarise, a fact a line.
QStringList kernelLines(const QJsonObject &kernel)
{
    const auto value = [&kernel](const char *key) {
        return ProfileText::number(kernel.value(QString::fromLatin1(key)).toDouble());
    };
    QStringList lines{
        QStringLiteral("- kernel `%1` (grid %2, block %3; median of %4 launches):")
            .arg(kernel.value(QStringLiteral("kernel")).toString(), value("grid_size"),
                 value("block_size"), value("launches")),
        QStringLiteral("  - duration: %1 ms").arg(value("duration_ms")),
        QStringLiteral("  - SM throughput: %1 % of peak").arg(value("sm_throughput_pct")),
        QStringLiteral("  - memory throughput: %1 % of peak").arg(value("memory_throughput_pct")),
        QStringLiteral("  - achieved occupancy: %1 %").arg(value("achieved_occupancy_pct")),
        QStringLiteral("  - DRAM bytes read / written: %1 / %2")
            .arg(value("dram_read_bytes"), value("dram_write_bytes")),
        QStringLiteral("  - registers per thread: %1; shared memory per block: %2 bytes")
            .arg(value("registers_per_thread"), value("shared_memory_per_block_bytes"))};
    QStringList stalls;
    for (const QJsonValue &stall : kernel.value(QStringLiteral("top_stalls")).toArray())
        stalls
            << QStringLiteral("%1 (%2 cycles per issued instruction)")
                   .arg(stall.toObject().value(QStringLiteral("reason")).toString(),
                        ProfileText::number(
                            stall.toObject().value(QStringLiteral("cycles_per_issue")).toDouble()));
    if (!stalls.isEmpty())
        lines << QStringLiteral("  - top warp stalls: ") + stalls.join(QStringLiteral(", "));
    return lines;
}

} // namespace

QString ProfileText::number(double value)
{
    // Counts and sizes (grids, bytes, registers) whole, the rest to four significant digits.
    if (value == std::floor(value) && std::abs(value) < 1e15)
        return QString::number(qint64(value));
    return QString::number(value, 'g', 4);
}

QString ProfileText::metricLines(const QJsonObject &data)
{
    QStringList lines;
    for (const QJsonValue &kernel : data.value(QStringLiteral("kernels")).toArray())
        lines << kernelLines(kernel.toObject());
    return lines.join(QLatin1Char('\n'));
}

} // namespace kiln
