#include "profileformatter.h"

#include "core/profiletext.h"

#include <QJsonArray>

namespace kiln {

namespace {

struct MetricRow
{
    const char *label;
    const char *key;
    const char *unit;
};

const MetricRow kRows[] = {
    {"duration", "duration_ms", "ms"},
    {"SM throughput", "sm_throughput_pct", "% of peak"},
    {"memory throughput", "memory_throughput_pct", "% of peak"},
    {"achieved occupancy", "achieved_occupancy_pct", "%"},
    {"DRAM read", "dram_read_bytes", "bytes"},
    {"DRAM written", "dram_write_bytes", "bytes"},
    {"registers per thread", "registers_per_thread", ""},
    {"shared memory per block", "shared_memory_per_block_bytes", "bytes"},
    {"grid × block", nullptr, ""},
    {"launches (timing shape / profiled)", nullptr, ""},
    {"top warp stalls", nullptr, ""},
};

QString number(double value)
{
    return ProfileText::number(value);
}

QString cell(const QJsonObject &kernel, const MetricRow &row)
{
    const auto value = [&kernel](const char *key) {
        return number(kernel.value(QString::fromLatin1(key)).toDouble());
    };
    if (row.key)
        return value(row.key);
    if (QLatin1String(row.label).startsWith(QLatin1String("grid")))
        return value("grid_size") + QStringLiteral(" × ") + value("block_size");
    if (QLatin1String(row.label).startsWith(QLatin1String("launches")))
        return value("launches") + QStringLiteral(" / ") + value("launches_profiled");
    QStringList stalls;
    for (const QJsonValue &stall : kernel.value(QStringLiteral("top_stalls")).toArray())
        stalls << QStringLiteral("%1 (%2)").arg(
            stall.toObject().value(QStringLiteral("reason")).toString().toHtmlEscaped(),
            number(stall.toObject().value(QStringLiteral("cycles_per_issue")).toDouble()));
    return stalls.isEmpty() ? QStringLiteral("—") : stalls.join(QStringLiteral("<br>"));
}

// One column per kernel of each profile that has metrics.
QString table(const QList<ProfileRecord> &shown)
{
    QList<std::pair<QString, QJsonObject>> columns;
    for (const ProfileRecord &profile : shown)
        for (const QJsonValue &kernel : profile.metrics.value(QStringLiteral("kernels")).toArray())
            columns.append({profile.subject, kernel.toObject()});
    if (columns.isEmpty())
        return {};
    QString h = QStringLiteral("<table cellspacing=\"0\" cellpadding=\"4\" border=\"1\" "
                               "style=\"border-collapse:collapse;\"><tr><th></th>");
    for (const auto &[subject, kernel] : columns)
        h += QStringLiteral("<th>%1<br><code>%2</code></th>")
                 .arg(subject, kernel.value(QStringLiteral("kernel")).toString().toHtmlEscaped());
    h += QStringLiteral("</tr>");
    for (const MetricRow &row : kRows) {
        h += QStringLiteral("<tr><td>%1%2</td>")
                 .arg(QString::fromUtf8(row.label),
                      *row.unit ? QStringLiteral(" (%1)").arg(QString::fromUtf8(row.unit))
                                : QString());
        for (const auto &[subject, kernel] : columns)
            h += QStringLiteral("<td align=\"right\">%1</td>").arg(cell(kernel, row));
        h += QStringLiteral("</tr>");
    }
    return h + QStringLiteral("</table>");
}

QString summary(const ProfileRecord &profile)
{
    if (!profile.ok)
        return QStringLiteral("<p><b>%1:</b> no profile: %2</p>")
            .arg(profile.subject, profile.reason.toHtmlEscaped());
    const QJsonObject &f = profile.fingerprint;
    QString line =
        QStringLiteral("<p><b>%1:</b> %2 ms a call by Nsight Compute")
            .arg(profile.subject,
                 number(profile.metrics.value(QStringLiteral("duration_ms")).toDouble()));
    if (profile.metrics.contains(QStringLiteral("verifier_ms")))
        line += QStringLiteral("; the verifier's median %1 ms (%2 % from ncu's)")
                    .arg(number(profile.metrics.value(QStringLiteral("verifier_ms")).toDouble()),
                         QString::asprintf(
                             "%+.1f",
                             profile.metrics.value(QStringLiteral("difference_pct")).toDouble()));
    line += QStringLiteral("<br><span style=\"color:#777;\">%1 · %2 · ncu %3 · %4 · report %5"
                           "</span></p>")
                .arg(f.value(QStringLiteral("gpu")).toString().toHtmlEscaped(),
                     f.value(QStringLiteral("driver")).toString().toHtmlEscaped(),
                     f.value(QStringLiteral("ncu_version")).toString().toHtmlEscaped(),
                     profile.createdAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")),
                     profile.reportPath.toHtmlEscaped());
    return line;
}

} // namespace

std::optional<ProfileRecord> ProfileFormatter::newest(const QList<ProfileRecord> &profiles,
                                                      const QString &subject)
{
    for (const ProfileRecord &profile : profiles)
        if (profile.subject == subject)
            return profile;
    return std::nullopt;
}

QString ProfileFormatter::html(const QList<ProfileRecord> &profiles, const QString &unavailable)
{
    QList<ProfileRecord> shown;
    for (const QString &subject : {QStringLiteral("candidate"), QStringLiteral("reference")})
        if (const auto profile = newest(profiles, subject))
            shown << *profile;
    if (shown.isEmpty())
        return QStringLiteral("<p style=\"color:#777; margin:12px;\">%1</p>")
            .arg(unavailable.isEmpty()
                     ? QStringLiteral("No hardware profile of this candidate yet: Profile runs it "
                                      "once more under Nsight Compute, beside its reference.")
                     : QStringLiteral("No hardware profile on this machine: %1.")
                           .arg(unavailable.toHtmlEscaped()));
    QString h;
    for (const ProfileRecord &profile : shown)
        h += summary(profile);
    return h + table(shown);
}

} // namespace kiln
