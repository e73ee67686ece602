#include "offlineroles.h"

#include "policies/offline/promptnotes.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QRegularExpression>

namespace kiln {

namespace {

QString limiterWords(const QString &kind)
{
    if (kind == QLatin1String("latency"))
        return QStringLiteral("latency-bound");
    return QString(kind).replace(QStringLiteral("_bound"), QStringLiteral("-bound"));
}

} // namespace

QString OfflineRoles::diagnosis(const QString &profile, const QString &fallbackBound)
{
    // A kernel that failed has no speed to explain: the verifier's data says so first.
    static const QRegularExpression verdict(QStringLiteral(R"(- verdict: ([a-z_]+))"));
    const QString outcome = verdict.match(profile).captured(1);
    if (!outcome.isEmpty() && outcome != QLatin1String("pass"))
        return QStringLiteral("not measured\nThe kernel did not pass (%1): there is nothing to "
                              "profile until the failure the verifier reported is fixed.")
            .arg(outcome);
    QString kind = PromptNotes::limiter(profile);
    QString evidence;
    if (kind.isEmpty()) {
        kind = fallbackBound;
        evidence = QStringLiteral("Neither the profile nor the verifier names a limiter; a kernel "
                                  "of this kind usually is %1.")
                       .arg(limiterWords(kind));
    } else if (profile.startsWith(QLatin1String("Hardware profile"))) {
        evidence = QStringLiteral("The hardware counters put it there.");
    } else {
        evidence = QStringLiteral("There is no hardware profile; the verifier's own data points "
                                  "there.");
    }
    return limiterWords(kind) + QLatin1Char('\n') + evidence;
}

QString OfflineRoles::testerAnswer(const QString &prompt, CounterRng &rng)
{
    static const QRegularExpression namesLine(
        QStringLiteral(R"(The task's sizes are: ([^.\n]*)\.)"));
    static const QRegularExpression limitsLine(
        QStringLiteral(R"(No size may exceed the largest already checked: ([^\n]*)\.)"));
    const QStringList names =
        namesLine.match(prompt).captured(1).split(QStringLiteral(", "), Qt::SkipEmptyParts);
    QMap<QString, qint64> largest;
    for (const QString &pair : limitsLine.match(prompt).captured(1).split(QStringLiteral(", ")))
        largest.insert(pair.section(QLatin1Char('='), 0, 0),
                       pair.section(QLatin1Char('='), 1).toLongLong());
    static const QList<qint64> edges{1, 3, 17, 31, 127, 255, 257, 1023, 1025};
    QJsonArray shapes;
    for (int s = 0; s < 3 && !names.isEmpty(); ++s) {
        QJsonObject shape;
        for (const QString &name : names) {
            const qint64 top = std::max<qint64>(1, largest.value(name, 1));
            qint64 value = 1;
            if (s == 1) {
                QList<qint64> fitting;
                for (qint64 e : edges)
                    if (e <= top)
                        fitting.append(e);
                value = fitting.at(rng.below(int(fitting.size())));
            } else if (s == 2) {
                value = top > 2 ? top - 1 : top; // the remainder of any power-of-two tiling
            }
            shape.insert(name, double(value));
        }
        shapes.append(shape);
    }
    return QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("shapes"), shapes}})
                                 .toJson(QJsonDocument::Compact));
}

} // namespace kiln
