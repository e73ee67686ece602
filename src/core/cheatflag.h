#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

namespace kiln {

// One finding of the anti-cheat screen or checks, explained for a student.
struct CheatFlag
{
    QString id;       // stable identifier, e.g. "side_stream"
    QString message;  // one line a student understands
    QList<int> lines; // 1-based source lines, empty when unknown
    bool blocking = false;

    QJsonObject toJson() const;
    static CheatFlag fromJson(const QJsonObject &object);
    bool operator==(const CheatFlag &) const = default;
};

} // namespace kiln
