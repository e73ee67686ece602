#include "nsightmetrics.h"

#include <QJsonArray>
#include <QMap>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <optional>

namespace kiln {

namespace {

// Factor to the unit a summary uses: milliseconds for times, bytes for sizes; 1 otherwise.
double toSummaryUnit(const QString &unit)
{
    static const QHash<QString, double> factors{
        {QStringLiteral("nsecond"), 1e-6}, {QStringLiteral("ns"), 1e-6},
        {QStringLiteral("usecond"), 1e-3}, {QStringLiteral("us"), 1e-3},
        {QStringLiteral("msecond"), 1.0},  {QStringLiteral("ms"), 1.0},
        {QStringLiteral("second"), 1e3},   {QStringLiteral("s"), 1e3},
        {QStringLiteral("Kbyte"), 1e3},    {QStringLiteral("Mbyte"), 1e6},
        {QStringLiteral("Gbyte"), 1e9},    {QStringLiteral("KB"), 1e3},
        {QStringLiteral("MB"), 1e6},       {QStringLiteral("GB"), 1e9}};
    return factors.value(unit.trimmed(), 1.0);
}

std::optional<double> number(QString text)
{
    text.remove(QLatin1Char(',')).remove(QLatin1Char('"'));
    bool ok = false;
    const double value = text.trimmed().toDouble(&ok);
    return ok && std::isfinite(value) ? std::optional<double>(value) : std::nullopt;
}

// The function's name without its trailing parameter list ("(anonymous namespace)::k(int)"
// is "(anonymous namespace)::k").
QString kernelName(QString name)
{
    name = name.trimmed();
    if (!name.endsWith(QLatin1Char(')')))
        return name;
    int depth = 0;
    for (qsizetype i = name.size() - 1; i >= 0; --i) {
        depth += name[i] == QLatin1Char(')') ? 1 : name[i] == QLatin1Char('(') ? -1 : 0;
        if (depth == 0)
            return i > 0 ? name.left(i).trimmed() : name;
    }
    return name;
}

int column(const QStringList &header, std::initializer_list<const char *> names)
{
    for (const char *name : names)
        if (const int at = int(header.indexOf(QString::fromLatin1(name))); at >= 0)
            return at;
    return -1;
}

// The raw page: the header, a row of units, a row per launch.
QList<NsightMetrics::Launch> parseWide(const QList<QStringList> &rows, int kernelColumn)
{
    const QStringList &header = rows.first();
    const int idColumn = column(header, {"ID"});
    // The row of units has no launch id (absent where units were not asked for).
    const bool unitsRow = rows.size() > 1 && !number(rows[1].value(std::max(idColumn, 0)));
    const QStringList units = unitsRow ? rows[1] : QStringList();
    QList<NsightMetrics::Launch> launches;
    for (qsizetype r = unitsRow ? 2 : 1; r < rows.size(); ++r) {
        const QStringList &row = rows[r];
        if (row.size() != header.size())
            continue;
        NsightMetrics::Launch launch{
            idColumn >= 0 ? row[idColumn] : QString::number(r), kernelName(row[kernelColumn]), {}};
        for (qsizetype c = 0; c < header.size(); ++c)
            if (const auto value = number(row[c]); value && c != idColumn && c != kernelColumn)
                launch.values.insert(header[c], *value * toSummaryUnit(units.value(c)));
        launches << launch;
    }
    return launches;
}

// The details page's long form: a row per metric of a launch.
QList<NsightMetrics::Launch> parseLong(const QList<QStringList> &rows, int kernelColumn)
{
    const QStringList &header = rows.first();
    const int idColumn = column(header, {"ID"});
    const int nameColumn = column(header, {"Metric Name"});
    const int unitColumn = column(header, {"Metric Unit"});
    const int valueColumn = column(header, {"Metric Value"});
    QMap<int, NsightMetrics::Launch> byId;
    for (qsizetype r = 1; r < rows.size(); ++r) {
        const QStringList &row = rows[r];
        if (row.size() != header.size())
            continue;
        const auto value = number(row[valueColumn]);
        if (!value)
            continue;
        const int id = idColumn >= 0 ? row[idColumn].toInt() : 0;
        NsightMetrics::Launch &launch = byId[id];
        launch.id = QString::number(id);
        launch.kernel = kernelName(row[kernelColumn]);
        launch.values.insert(row[nameColumn],
                             *value * toSummaryUnit(unitColumn >= 0 ? row[unitColumn] : QString()));
    }
    return byId.values();
}

double median(QList<double> values)
{
    if (values.isEmpty())
        return 0.0;
    std::sort(values.begin(), values.end());
    const qsizetype n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

double medianOf(const QList<NsightMetrics::Launch> &launches, const QString &metric)
{
    QList<double> values;
    for (const NsightMetrics::Launch &launch : launches)
        if (launch.values.contains(metric))
            values << launch.values.value(metric);
    return median(values);
}

// Warp-stall reasons by cycles per issued instruction (WarpStateStats), the largest three.
QJsonArray topStalls(const QList<NsightMetrics::Launch> &launches)
{
    static const QRegularExpression stall(
        QStringLiteral("^smsp__average_warps_issue_stalled_(\\w+)_per_issue_active\\.ratio$"));
    QList<std::pair<double, QString>> reasons;
    for (auto it = launches.first().values.cbegin(); it != launches.first().values.cend(); ++it)
        if (const auto match = stall.match(it.key());
            match.hasMatch() && match.captured(1) != QLatin1String("not_issued"))
            reasons.append({medianOf(launches, it.key()), match.captured(1)});
    std::sort(reasons.begin(), reasons.end(), [](const auto &a, const auto &b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    QJsonArray top;
    for (const auto &[cycles, reason] : reasons)
        if (top.size() < 3 && cycles > 0.0)
            top.append(QJsonObject{{QStringLiteral("reason"), reason},
                                   {QStringLiteral("cycles_per_issue"), cycles}});
    return top;
}

QJsonObject kernelSummary(const QString &kernel, const QList<NsightMetrics::Launch> &all)
{
    const QString grid = QStringLiteral("launch__grid_size");
    double largest = -1.0;
    for (const NsightMetrics::Launch &launch : all)
        largest = std::max(largest, launch.values.value(grid, -1.0));
    QList<NsightMetrics::Launch> timed;
    for (const NsightMetrics::Launch &launch : all)
        if (launch.values.value(grid, -1.0) == largest)
            timed << launch;
    const auto m = [&timed](const char *metric) {
        return medianOf(timed, QString::fromLatin1(metric));
    };
    return {{QStringLiteral("kernel"), kernel},
            {QStringLiteral("launches"), timed.size()},
            {QStringLiteral("launches_profiled"), all.size()},
            {QStringLiteral("grid_size"), m("launch__grid_size")},
            {QStringLiteral("block_size"), m("launch__block_size")},
            {QStringLiteral("duration_ms"), m("gpu__time_duration.sum")},
            {QStringLiteral("sm_throughput_pct"),
             m("sm__throughput.avg.pct_of_peak_sustained_elapsed")},
            {QStringLiteral("memory_throughput_pct"),
             m("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed")},
            {QStringLiteral("achieved_occupancy_pct"),
             m("sm__warps_active.avg.pct_of_peak_sustained_active")},
            {QStringLiteral("dram_read_bytes"), m("dram__bytes_read.sum")},
            {QStringLiteral("dram_write_bytes"), m("dram__bytes_write.sum")},
            {QStringLiteral("registers_per_thread"), m("launch__registers_per_thread")},
            {QStringLiteral("shared_memory_per_block_bytes"),
             m("launch__shared_mem_per_block_static") + m("launch__shared_mem_per_block_dynamic")},
            {QStringLiteral("top_stalls"), topStalls(timed)}};
}

} // namespace

QStringList NsightMetrics::fields(const QString &line)
{
    QStringList out;
    QString current;
    bool quoted = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (quoted && c == QLatin1Char('"') && i + 1 < line.size() && line[i + 1] == c) {
            current += c;
            ++i;
        } else if (c == QLatin1Char('"')) {
            quoted = !quoted;
        } else if (c == QLatin1Char(',') && !quoted) {
            out << current;
            current.clear();
        } else {
            current += c;
        }
    }
    out << current;
    return out;
}

QList<NsightMetrics::Launch> NsightMetrics::parse(const QString &csv, QString *error)
{
    QList<QStringList> rows;
    for (const QString &line : csv.split(QLatin1Char('\n'))) {
        const QString trimmed = line.trimmed();
        // ncu's own messages (==PROF==, ==WARNING==) come before the table.
        if (rows.isEmpty() && !trimmed.startsWith(QLatin1String("\"ID\"")))
            continue;
        if (!trimmed.isEmpty())
            rows << fields(trimmed);
    }
    const int kernelColumn =
        rows.isEmpty() ? -1 : column(rows.first(), {"Kernel Name", "Function Name", "Name"});
    if (kernelColumn < 0) {
        *error = QStringLiteral("no table of profiled launches in ncu's output");
        return {};
    }
    const bool longForm =
        column(rows.first(), {"Metric Name"}) >= 0 && column(rows.first(), {"Metric Value"}) >= 0;
    QList<Launch> launches =
        longForm ? parseLong(rows, kernelColumn) : parseWide(rows, kernelColumn);
    if (launches.isEmpty())
        *error = QStringLiteral("ncu's report holds no profiled launch");
    return launches;
}

QJsonObject NsightMetrics::summarise(const QList<Launch> &launches)
{
    QMap<QString, QList<Launch>> byKernel;
    for (const Launch &launch : launches)
        byKernel[launch.kernel] << launch;
    QJsonArray kernels;
    double total = 0.0;
    for (auto it = byKernel.cbegin(); it != byKernel.cend(); ++it) {
        const QJsonObject summary = kernelSummary(it.key(), it.value());
        total += summary.value(QStringLiteral("duration_ms")).toDouble();
        kernels.append(summary);
    }
    return {{QStringLiteral("kernels"), kernels},
            {QStringLiteral("duration_ms"), total},
            {QStringLiteral("launches_profiled"), launches.size()}};
}

} // namespace kiln
