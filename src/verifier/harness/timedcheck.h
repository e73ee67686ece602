#pragma once

#include "tasks/task.h"
#include "verifier/harness/outputchecker.h"

#include <QList>
#include <QPair>
#include <QString>

namespace kiln {

// One output of one timed call, as the engine read it back.
struct TimedOutput
{
    int parameter = 0;
    const char *atReturn = nullptr;       // the output as it was when the call returned
    const char *now = nullptr;            // the output later on (null: not kept)
    const char *expected = nullptr;       // the reference's, on the same fresh inputs
    const char *scale = nullptr;          // the reference on |inputs| (null: no scaled term)
    const char *previous = nullptr;       // the reference's answer of the call before (or null)
    QList<QPair<qint64, qint64>> windows; // (byte offset, bytes) compared; empty: all `bytes`
    qint64 bytes = 0;
};

// The rules every timed call is judged by, the same on both backends: each output within
// tolerance of the reference's answer on the same fresh inputs; if not, whether it is the
// previous call's answer (a cache) or untouched (nothing computed); and whether it changed
// after the call had returned (work left running, hidden from the timer).
// What was found for one output of a timed call, wherever it was compared (the engine's memory
// on the CPU backend, the GPU checker's device on the CUDA backend).
struct TimedFinding
{
    int parameter = 0;
    CheckResult check;            // against the reference's answer on the same inputs
    bool matchesPrevious = false; // within tolerance of the call before's answer
    bool changedAfterReturn = false;
};

class TimedCheck
{
public:
    struct Outcome
    {
        bool ok = true;
        QList<QPair<QString, QString>> flags; // (flag id, detail)
        QString detail;                       // why it is wrong, for the report
    };
    static Outcome judge(const Task &task, const QList<TimedOutput> &outputs, int call,
                         const QString &distribution);
    // The verdict from the findings, the same rules on both backends.
    static Outcome conclude(const Task &task, const QList<TimedFinding> &findings, int call,
                            const QString &distribution);
    // Where a call's outputs are compared: everything (`full`, or a small buffer), or eight
    // 16 KiB windows placed by the secret and the call, which the candidate cannot know in
    // advance (a stale, cached or partial answer differs everywhere).
    static QList<QPair<qint64, qint64>> windows(quint64 secret, qint64 bytes, bool full, int call);
    static constexpr int kFullCalls = 2; // the first calls are compared in full
};

} // namespace kiln
