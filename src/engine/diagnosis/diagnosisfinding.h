#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

namespace kiln {

// What one analyzer says about a run: how strongly the condition it looks for shows (1: not at
// all, 5: plainly), one line that says it with the figures, and the evidence as candidate ids
// and rounds, for the window to highlight and a reader to check.
struct DiagnosisFinding
{
    QString analyzer; // "stagnation", "exploration_collapse", ...
    QString title;    // "Stagnation"
    int rating = 1;
    QString finding;
    QList<qint64> candidates;
    QList<int> rounds;
    QJsonObject figures; // the numbers the rating came from, by name

    QJsonObject toJson() const;
    static DiagnosisFinding fromJson(const QJsonObject &object);
    // 1..5 from a value and the four thresholds that start ratings 2, 3, 4 and 5 (ascending).
    static int rate(double value, const double (&thresholds)[4]);
};

} // namespace kiln
