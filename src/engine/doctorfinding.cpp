#include "doctorfinding.h"

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

} // namespace kiln
