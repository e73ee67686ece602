#include "engine/doctor/doctorfinding.h"

namespace kiln {

QString DoctorFinding::levelName(Level level)
{
    switch (level) {
    case Level::Ok:
        return QStringLiteral("ok");
    case Level::Warning:
        return QStringLiteral("warning");
    case Level::Problem:
        return QStringLiteral("problem");
    }
    return {};
}

QJsonObject DoctorFinding::toJson() const
{
    QJsonObject object{{QStringLiteral("check"), check},
                       {QStringLiteral("status"), levelName(level)},
                       {QStringLiteral("found"), found}};
    if (!fix.isEmpty())
        object.insert(QStringLiteral("fix"), fix);
    return object;
}

QString DoctorFinding::toText() const
{
    QString text = levelName(level).leftJustified(8) + QLatin1Char(' ') + check.leftJustified(13) +
                   QLatin1Char(' ') + found + QLatin1Char('\n');
    if (!fix.isEmpty())
        text += QString(23, QLatin1Char(' ')) + QStringLiteral("fix: ") + fix + QLatin1Char('\n');
    return text;
}

} // namespace kiln
