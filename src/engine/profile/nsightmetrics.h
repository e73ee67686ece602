#pragma once

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace kiln {

// The key metrics of an Nsight Compute report, read from `ncu --import R --csv --page raw
// --print-units base` (NsightCommand::import): one row per profiled launch under a header of
// metric names and a row of their units. The details page's long form (one row per metric,
// with "Metric Name", "Metric Unit" and "Metric Value") is read too. Times come out in
// milliseconds and sizes in bytes, whatever unit the report used.
class NsightMetrics
{
public:
    struct Launch
    {
        QString id;
        QString kernel; // the function's name, without its parameter list
        QHash<QString, double> values;
    };

    // The launches in `csv`; an empty list and `error` where no table of launches is found.
    static QList<Launch> parse(const QString &csv, QString *error);
    // Per kernel, its launches at the timing shape (its largest grid): the medians of duration,
    // SM and memory throughput (% of peak), achieved occupancy, DRAM bytes, registers and shared
    // memory, and the three warp-stall reasons with the most cycles per issued instruction;
    // duration_ms sums the kernels' medians (one call's kernels).
    static QJsonObject summarise(const QList<Launch> &launches);
    // One CSV line split into fields ("..." quoting, "" inside quotes).
    static QStringList fields(const QString &line);
};

} // namespace kiln
