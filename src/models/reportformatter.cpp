#include "reportformatter.h"

#include "speedupnotes.h"
#include "verdictstyle.h"

#include "engine/duplicatejudgement.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QStringList>

namespace kiln {

namespace {

QString esc(const QString &text)
{
    return text.toHtmlEscaped();
}

QString number(double value)
{
    return QString::number(value, 'g', 5);
}

QString number4(double value)
{
    return QString::number(value, 'g', 4);
}

QString humanKey(const QString &key)
{
    QString text = key;
    text.replace(QLatin1Char('_'), QLatin1Char(' '));
    if (!text.isEmpty())
        text[0] = text[0].toUpper();
    return text;
}

QString jsonText(const QJsonValue &value)
{
    if (value.isDouble())
        return number(value.toDouble());
    if (value.isBool())
        return value.toBool() ? QStringLiteral("yes") : QStringLiteral("no");
    if (value.isString())
        return value.toString();
    if (value.isArray()) {
        const QJsonArray array = value.toArray();
        if (array.isEmpty())
            return QStringLiteral("none");
        bool numeric = !array.isEmpty();
        QStringList parts;
        for (const QJsonValue &item : array) {
            numeric = numeric && item.isDouble();
            if (parts.size() < 12)
                parts << jsonText(item);
        }
        QString text = parts.join(numeric ? QStringLiteral(" × ") : QStringLiteral(", "));
        if (array.size() > parts.size())
            text += QStringLiteral(", … (%1 in all)").arg(array.size());
        return numeric ? QLatin1Char('[') + text + QLatin1Char(']') : text;
    }
    if (value.isNull())
        return QStringLiteral("—");
    return QStringLiteral("{…}");
}

// Nested objects flattened into "Parent · child" rows, a few levels deep.
void flatten(const QJsonObject &object, const QString &prefix, int depth,
             QList<QPair<QString, QString>> &rows)
{
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QString key = prefix.isEmpty() ? humanKey(it.key())
                                             : prefix + QStringLiteral(" · ") + humanKey(it.key());
        if (it.value().isObject() && depth < 3)
            flatten(it.value().toObject(), key, depth + 1, rows);
        else
            rows.append({key, jsonText(it.value())});
    }
}

// The first object below value that carries mismatch statistics, with the context (shape, seed,
// distribution, output) found on the way down.
bool findMismatch(const QJsonValue &value, QJsonObject context, QJsonObject *found)
{
    if (value.isObject()) {
        const QJsonObject o = value.toObject();
        for (const char *key : {"shape", "seed", "distribution", "output", "case"}) {
            const QString k = QString::fromLatin1(key);
            if (o.contains(k) && !o.value(k).isObject())
                context.insert(k, o.value(k));
        }
        if (o.contains(QStringLiteral("max_abs_error")) &&
            !(o.value(QStringLiteral("ok")).isBool() && o.value(QStringLiteral("ok")).toBool())) {
            QJsonObject merged = context;
            for (auto it = o.begin(); it != o.end(); ++it)
                merged.insert(it.key(), it.value());
            *found = merged;
            return true;
        }
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (findMismatch(it.value(), context, found))
                return true;
        }
    } else if (value.isArray()) {
        for (const QJsonValue &item : value.toArray()) {
            if (findMismatch(item, context, found))
                return true;
        }
    }
    return false;
}

QString mismatchTable(const QJsonObject &m)
{
    struct Item
    {
        const char *label;
        QStringList keys;
    };
    const QList<Item> items{
        {"Output", {QStringLiteral("output")}},
        {"Shape", {QStringLiteral("shape")}},
        {"Seed", {QStringLiteral("seed")}},
        {"Distribution", {QStringLiteral("distribution")}},
        {"First bad index", {QStringLiteral("first_mismatch"), QStringLiteral("first_bad_index")}},
        {"Got / expected there", {}},
        {"Max abs error", {QStringLiteral("max_abs_error")}},
        {"Max rel error", {QStringLiteral("max_rel_error")}},
        {"Mismatching elements", {QStringLiteral("mismatches")}},
        {"Unwritten elements", {QStringLiteral("unwritten")}},
        {"Non-finite elements", {QStringLiteral("non_finite")}}};
    QString rows;
    for (const Item &item : items) {
        QString value;
        if (item.keys.isEmpty()) {
            if (m.contains(QStringLiteral("got")) && m.contains(QStringLiteral("expected")))
                value = jsonText(m.value(QStringLiteral("got"))) + QStringLiteral(" / ") +
                        jsonText(m.value(QStringLiteral("expected")));
        } else {
            for (const QString &k : item.keys) {
                if (m.contains(k)) {
                    value = jsonText(m.value(k));
                    if (m.contains(QStringLiteral("elements")) && k == QStringLiteral("mismatches"))
                        value +=
                            QStringLiteral(" of ") + jsonText(m.value(QStringLiteral("elements")));
                    break;
                }
            }
        }
        if (!value.isEmpty())
            rows += QStringLiteral("<tr><td style=\"color:#555;\">%1</td><td><b>%2</b></td></tr>")
                        .arg(QString::fromLatin1(item.label), esc(value));
    }
    return QStringLiteral(
               "<table cellspacing=\"0\" cellpadding=\"2\" bgcolor=\"#fdf3ec\">%1</table>")
        .arg(rows);
}

QString lineLink(int line)
{
    return QStringLiteral("<a href=\"%1:%2\">line %2</a>")
        .arg(ReportFormatter::lineLinkScheme())
        .arg(line);
}

QString section(const QString &title)
{
    return QStringLiteral("<h3 style=\"margin-top:14px; margin-bottom:4px;\">%1</h3>").arg(title);
}

const QStringList &logKeys()
{
    static const QStringList keys{QStringLiteral("diagnostics"), QStringLiteral("log"),
                                  QStringLiteral("stderr"), QStringLiteral("output")};
    return keys;
}

// The stage data minus what is rendered elsewhere: scalars as a two-column table, arrays of
// objects (per shape / per seed results) as a table with one column per key.
QString dataTables(const QJsonObject &data)
{
    QString scalars;
    QString tables;
    QString texts;
    for (auto it = data.begin(); it != data.end(); ++it) {
        if (logKeys().contains(it.key()))
            continue;
        const QJsonValue v = it.value();
        if (v.isArray() && !v.toArray().isEmpty() && v.toArray().first().isObject()) {
            QStringList columns;
            const QJsonArray rows = v.toArray();
            for (const QJsonValue &row : rows) {
                for (const QString &k : row.toObject().keys()) {
                    if (!columns.contains(k))
                        columns << k;
                }
            }
            tables += QStringLiteral("<p style=\"margin-bottom:2px;\"><b>%1</b></p>")
                          .arg(esc(humanKey(it.key())));
            tables += QStringLiteral("<table cellspacing=\"0\" cellpadding=\"3\" border=\"1\" "
                                     "style=\"border-color:#d0d4da; border-style:solid;\"><tr>");
            for (const QString &c : std::as_const(columns))
                tables += QStringLiteral("<th bgcolor=\"#eef1f5\">%1</th>").arg(esc(humanKey(c)));
            tables += QStringLiteral("</tr>");
            int shown = 0;
            for (const QJsonValue &row : rows) {
                if (++shown > 50)
                    break;
                const QJsonObject o = row.toObject();
                const bool bad = o.value(QStringLiteral("ok")).isBool() &&
                                 !o.value(QStringLiteral("ok")).toBool();
                tables += bad ? QStringLiteral("<tr bgcolor=\"#fdecea\">") : QStringLiteral("<tr>");
                for (const QString &c : std::as_const(columns))
                    tables += QStringLiteral("<td>%1</td>").arg(esc(jsonText(o.value(c))));
                tables += QStringLiteral("</tr>");
            }
            tables += QStringLiteral("</table>");
            if (rows.size() > 50)
                tables +=
                    QStringLiteral("<p><i>%1 more rows not shown</i></p>").arg(rows.size() - 50);
        } else if (v.isString() && v.toString().contains(QLatin1Char('\n'))) {
            texts += QStringLiteral("<p style=\"margin-bottom:2px;\"><b>%1</b></p><pre>%2</pre>")
                         .arg(esc(humanKey(it.key())), esc(v.toString().left(4000)));
        } else {
            QList<QPair<QString, QString>> rows;
            if (v.isObject())
                flatten(v.toObject(), humanKey(it.key()), 1, rows);
            else
                rows.append({humanKey(it.key()), jsonText(v)});
            for (const auto &row : std::as_const(rows))
                scalars += QStringLiteral("<tr><td style=\"color:#555;\">%1</td><td>%2</td></tr>")
                               .arg(esc(row.first), esc(row.second));
        }
    }
    QString html;
    if (!scalars.isEmpty())
        html +=
            QStringLiteral("<table cellspacing=\"0\" cellpadding=\"2\">%1</table>").arg(scalars);
    return html + tables + texts;
}

QString timingRow(const QString &label, const TimingStats &t)
{
    return QStringLiteral("<tr><td><b>%1</b></td><td align=\"right\">%2</td>"
                          "<td align=\"right\">%3</td><td align=\"right\">%4</td>"
                          "<td align=\"right\">%5</td><td align=\"right\">%6</td>"
                          "<td align=\"right\">%7</td><td align=\"right\">%8</td></tr>")
        .arg(label)
        .arg(t.n)
        .arg(number4(t.mean), number4(t.median), number4(t.stddev), number4(t.sem), number4(t.min),
             number4(t.max));
}

// "<b>2.31× ± 0.04</b> speedup, confirmed".
QString speedupHeadline(const EvaluationResult &result)
{
    if (!result.speedup)
        return QString();
    return QStringLiteral("<b>%1</b> speedup%2")
        .arg(esc(SpeedupNotes::speedupText(result.speedup, result.speedupInterval)),
             result.confirmed ? QStringLiteral(", confirmed") : QString());
}

// How far the timing can be trusted: the interval, the confirmation, whose judgement a duplicate
// carries, and what disturbed the timed calls.
QString measurementNotes(const EvaluationResult &result)
{
    QStringList lines;
    if (result.speedupInterval)
        lines << esc(SpeedupNotes::intervalText(*result.speedupInterval));
    if (result.confirmed)
        lines << esc(SpeedupNotes::confirmedText());
    if (result.duplicateOf)
        lines << QStringLiteral("<i>duplicate of #%1</i>: %2")
                     .arg(*result.duplicateOf)
                     .arg(esc(SpeedupNotes::duplicateExplanation(
                         *result.duplicateOf, DuplicateJudgement::isReused(result))));
    if (!result.disturbance.isEmpty())
        lines << QStringLiteral("<span style=\"color:#b26a00;\"><b>disturbed:</b> %1</span>")
                     .arg(esc(result.disturbance));
    if (lines.isEmpty())
        return QString();
    return QStringLiteral("<p style=\"color:#444;\">%1</p>")
        .arg(lines.join(QStringLiteral("<br/>")));
}

// The verdict badge with the speedup, the summary, how far the timing can be trusted, and the
// backend and times.
QString headline(const EvaluationResult &result)
{
    QString h;
    const QColor color = VerdictStyle::color(result.verdict);
    h += QStringLiteral(
             "<p style=\"font-size:large; margin-top:2px;\"><span style=\"background-color:%1; "
             "color:white; font-weight:bold;\">&nbsp;%2&nbsp;</span>&nbsp;&nbsp;%3</p>")
             .arg(color.name(), esc(VerdictStyle::label(result.verdict).toUpper()),
                  speedupHeadline(result));
    if (!result.summary.isEmpty())
        h += QStringLiteral("<p>%1</p>").arg(esc(result.summary));
    h += measurementNotes(result);
    QStringList facts;
    facts << QStringLiteral("backend <b>%1</b>").arg(backendName(result.backend));
    if (result.candidateMs)
        facts << QStringLiteral("candidate <b>%1 ms</b>").arg(number(*result.candidateMs));
    if (result.baselineMs)
        facts << QStringLiteral("baseline <b>%1 ms</b>").arg(number(*result.baselineMs));
    h += QStringLiteral("<p style=\"color:#444;\">%1</p>").arg(facts.join(QStringLiteral(" · ")));
    return h;
}

// Every cheat flag with its tier (hard, suspicious, telemetry), its evidence and links to its
// lines; empty without flags.
QString flagsSection(const QList<CheatFlag> &flags)
{
    if (flags.isEmpty())
        return QString();
    QString h = section(QStringLiteral("Flags (%1)").arg(flags.size()));
    h += QStringLiteral("<table cellspacing=\"0\" cellpadding=\"4\" width=\"100%\">");
    for (const CheatFlag &flag : flags) {
        QStringList notes;
        if (flag.isSuspicious())
            notes << QStringLiteral("a game or an honest bug can explain this: it does not block, "
                                    "the verdict follows correctness");
        QStringList lines;
        for (int line : flag.lines)
            lines << lineLink(line);
        if (!lines.isEmpty())
            notes << lines.join(QStringLiteral(", "));
        const QString tier = flag.effectiveTier();
        h += QStringLiteral("<tr><td valign=\"top\" bgcolor=\"%1\" style=\"color:white;\">"
                            "&nbsp;%2&nbsp;</td><td><b>%3</b> — %4%5</td></tr>")
                 .arg(VerdictStyle::flagTierColor(tier).name(), esc(tier), esc(flag.id),
                      esc(flag.message),
                      notes.isEmpty() ? QString()
                                      : QStringLiteral("<br/><small>%1</small>")
                                            .arg(notes.join(QStringLiteral("<br/>"))));
    }
    h += QStringLiteral("</table>");
    return h;
}

// One row per stage: outcome, duration and detail.
QString stagesSection(const QList<StageResult> &stages)
{
    QString h = section(QStringLiteral("Stages"));
    h += QStringLiteral("<table cellspacing=\"0\" cellpadding=\"3\" width=\"100%\">"
                        "<tr bgcolor=\"#eef1f5\"><th align=\"left\">Stage</th>"
                        "<th align=\"left\">Outcome</th><th align=\"right\">Time</th>"
                        "<th align=\"left\">Detail</th></tr>");
    for (const StageResult &stage : stages) {
        h += QStringLiteral("<tr><td><b>%1</b></td><td style=\"color:%2;\">%3</td>"
                            "<td align=\"right\">%4 ms</td><td>%5</td></tr>")
                 .arg(esc(stage.name),
                      stage.ok ? QStringLiteral("#2e7d32") : QStringLiteral("#c62828"),
                      stage.ok ? QStringLiteral("✔ ok") : QStringLiteral("✘ failed"),
                      QString::number(stage.ms, 'f', stage.ms < 10 ? 1 : 0), esc(stage.detail));
    }
    h += QStringLiteral("</table>");
    return h;
}

// The mismatch statistics of every failed correctness stage.
QString mismatchSections(const QList<StageResult> &stages)
{
    QString h;
    for (const StageResult &stage : stages) {
        QJsonObject mismatch;
        if (stage.name == QStringLiteral("correctness") && !stage.ok &&
            findMismatch(stage.data, {}, &mismatch))
            h += section(QStringLiteral("Mismatch statistics")) + mismatchTable(mismatch);
    }
    return h;
}

QString diagnosticsSection(const QList<ReportFormatter::Diagnostic> &diagnostics)
{
    QString h = section(QStringLiteral("Compiler diagnostics"));
    h += QStringLiteral("<table cellspacing=\"0\" cellpadding=\"2\">");
    for (const ReportFormatter::Diagnostic &d : diagnostics) {
        const QString color = d.severity == QStringLiteral("error")     ? QStringLiteral("#c62828")
                              : d.severity == QStringLiteral("warning") ? QStringLiteral("#b26a00")
                                                                        : QStringLiteral("#555");
        h += QStringLiteral("<tr><td valign=\"top\">%1</td><td valign=\"top\" "
                            "style=\"color:%2;\">%3</td><td><tt>%4</tt></td></tr>")
                 .arg(d.line > 0 ? lineLink(d.line) : QString(), color, esc(d.severity),
                      esc(d.message));
    }
    h += QStringLiteral("</table>");
    return h;
}

// The first log of a failed compile stage, raw, when no diagnostics could be read from it.
QString compilerOutputSection(const StageResult &compile)
{
    for (const QString &key : logKeys()) {
        const QString log = compile.data.value(key).toString();
        if (!log.isEmpty())
            return section(QStringLiteral("Compiler output")) +
                   QStringLiteral("<pre>%1</pre>").arg(esc(log.left(6000)));
    }
    return QString();
}

// Each stage's data as tables; the compile stage's is left out when its diagnostics were shown.
QString stageDetailSections(const QList<StageResult> &stages, bool diagnosticsShown)
{
    QString h;
    for (const StageResult &stage : stages) {
        if (stage.name == QStringLiteral("compile") && diagnosticsShown)
            continue;
        const QString tables = dataTables(stage.data);
        if (tables.isEmpty())
            continue;
        const QString title = stage.name == QStringLiteral("correctness")
                                  ? QStringLiteral("Correctness")
                                  : humanKey(stage.name) + QStringLiteral(" details");
        h += section(esc(title)) + tables;
    }
    return h;
}

QString timingSection(const EvaluationResult &result)
{
    if (result.candidateTiming.n <= 0 && result.baselineTiming.n <= 0)
        return QString();
    QString h = section(QStringLiteral("Timing statistics (ms)"));
    h += QStringLiteral("<table cellspacing=\"0\" cellpadding=\"3\"><tr bgcolor=\"#eef1f5\">"
                        "<th></th><th>n</th><th>mean</th><th>median</th><th>std</th>"
                        "<th>SEM</th><th>min</th><th>max</th></tr>");
    if (result.candidateTiming.n > 0)
        h += timingRow(QStringLiteral("candidate"), result.candidateTiming);
    if (result.baselineTiming.n > 0)
        h += timingRow(QStringLiteral("baseline"), result.baselineTiming);
    h += QStringLiteral("</table>");
    if (result.candidateTiming.n > 0)
        h += QStringLiteral("<p style=\"color:#555;\">Relative standard error %1%</p>")
                 .arg(QString::number(100.0 * result.candidateTiming.relativeSem(), 'g', 3));
    return h;
}

// The fraction of the hardware limit reached, in words and as a bar.
QString rooflineSection(double fraction)
{
    const double f = std::clamp(fraction, 0.0, 1.0);
    const int pct = int(f * 100.0 + 0.5);
    QString h = section(QStringLiteral("Roofline"));
    h += QStringLiteral("<p>%1% of the hardware limit for this task (bandwidth or "
                        "compute bound, whichever binds).</p>")
             .arg(number(100.0 * fraction));
    h += QStringLiteral("<table cellspacing=\"0\" cellpadding=\"0\" width=\"100%\" "
                        "height=\"10\"><tr>");
    if (pct > 0)
        h += QStringLiteral("<td width=\"%1%\" bgcolor=\"#2e9d57\">&nbsp;</td>").arg(pct);
    if (pct < 100)
        h += QStringLiteral("<td width=\"%1%\" bgcolor=\"#e3e7ec\">&nbsp;</td>").arg(100 - pct);
    h += QStringLiteral("</tr></table>");
    return h;
}

} // namespace

QList<ReportFormatter::Diagnostic>
ReportFormatter::compileDiagnostics(const EvaluationResult &result)
{
    QList<Diagnostic> out;
    const StageResult *compile = result.stage(QStringLiteral("compile"));
    if (!compile)
        return out;
    static const QRegularExpression pattern(
        QStringLiteral("^(?:[^:\\s]*[:(])?(\\d+)(?:[:,](\\d+))?\\)?:?\\s*(?:(fatal error|error|"
                       "warning|note|remark)\\s*:?)\\s*(.*)$"));
    for (const QString &key : logKeys()) {
        const QJsonValue value = compile->data.value(key);
        if (value.isArray()) {
            for (const QJsonValue &item : value.toArray()) {
                if (!item.isObject())
                    continue;
                const QJsonObject o = item.toObject();
                Diagnostic d;
                d.line = o.value(QStringLiteral("line")).toInt();
                d.column = o.value(QStringLiteral("column")).toInt();
                d.severity = o.value(QStringLiteral("severity")).toString(QStringLiteral("error"));
                d.message = o.value(QStringLiteral("message")).toString();
                out.append(d);
            }
        } else if (value.isString()) {
            const QStringList lines = value.toString().split(QLatin1Char('\n'));
            for (const QString &line : lines) {
                const QRegularExpressionMatch m = pattern.match(line.trimmed());
                if (!m.hasMatch())
                    continue;
                Diagnostic d;
                d.line = m.captured(1).toInt();
                d.column = m.captured(2).toInt();
                d.severity = m.captured(3);
                if (d.severity == QStringLiteral("fatal error"))
                    d.severity = QStringLiteral("error");
                d.message = m.captured(4).trimmed();
                out.append(d);
            }
        }
        if (!out.isEmpty())
            break;
    }
    return out;
}

QString ReportFormatter::emptyHtml(const QString &why)
{
    return QStringLiteral("<p style=\"color:#777; margin:12px;\">%1</p>").arg(esc(why));
}

QString ReportFormatter::html(const EvaluationResult &result)
{
    QString h = headline(result);
    // Flags first: they are the reason a fast candidate is not trusted.
    h += flagsSection(result.flags);
    h += stagesSection(result.stages);
    // A wrong result's numbers come right after the stages: they are why it failed.
    h += mismatchSections(result.stages);

    const QList<Diagnostic> diagnostics = compileDiagnostics(result);
    const StageResult *compile = result.stage(QStringLiteral("compile"));
    if (!diagnostics.isEmpty())
        h += diagnosticsSection(diagnostics);
    else if (compile && !compile->ok)
        h += compilerOutputSection(*compile);

    h += stageDetailSections(result.stages, !diagnostics.isEmpty());
    h += timingSection(result);
    if (result.rooflineFraction)
        h += rooflineSection(*result.rooflineFraction);
    return h;
}

} // namespace kiln
