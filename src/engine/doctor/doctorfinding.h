#pragma once

#include <QJsonObject>
#include <QString>

namespace kiln {

// One line of `kiln-cli doctor`: what was checked, what was found and, when something is
// wrong, the command or setting that fixes it.
struct DoctorFinding
{
    enum class Level
    {
        Ok,
        Warning, // Kiln works without it, with less (no CUDA backend, weaker isolation)
        Problem  // Kiln cannot verify candidates until it is fixed
    };

    QString check; // stable id: "compiler", "cpu-backend", "nvcc", ...
    Level level = Level::Ok;
    QString found; // one line
    QString fix;   // empty when nothing needs doing

    static QString levelName(Level level);
    QJsonObject toJson() const;
    // "warning  nvcc          nvcc not found" and, when there is one, an indented "fix:" line:
    // the text report of `kiln-cli doctor` and of the window's copy button.
    QString toText() const;
};

} // namespace kiln
