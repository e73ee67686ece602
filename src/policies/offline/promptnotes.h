#pragma once

#include <QList>
#include <QString>

namespace kiln {

// What the simulated model takes from the text of its own prompt, as a model would read it: the
// knob moves that a memory lesson or the agents' plan proposes, the limiter a profile shows, the
// sizes a tester may use. It reads nothing but the prompt.
class PromptNotes
{
public:
    struct KnobMove
    {
        QString knob;
        QString value;
        QString why; // the line it came from
    };
    // The text under "## <heading...>" up to the next "## " heading (empty when absent).
    static QString section(const QString &prompt, const QString &headingStart);
    // "knob: before -> after" moves of the "What worked before" section, most relevant first.
    static QList<KnobMove> memoryMoves(const QString &prompt);
    // "set knob = value" lines of a plan.
    static QList<KnobMove> planMoves(const QString &plan);
    // "memory_bound", "compute_bound", "launch_bound" or "latency" as a profile text shows it;
    // empty when it names none.
    static QString limiter(const QString &profile);
    // The limiter named on a diagnosis's first line ("memory-bound" ...), in the same words.
    static QString diagnosedLimiter(const QString &diagnosis);
};

} // namespace kiln
