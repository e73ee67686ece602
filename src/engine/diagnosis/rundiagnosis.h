#pragma once

#include "engine/diagnosis/diagnosisfinding.h"
#include "engine/diagnosis/runhistory.h"

#include <QJsonObject>
#include <QList>

namespace kiln {

// Why a run stopped improving: every analyzer over one history, in a fixed order. What
// `kiln-cli diagnose` prints and the window's Diagnosis panel shows, computed the same way.
class RunDiagnosis
{
public:
    static QList<DiagnosisFinding> diagnose(const RunHistory &history);
    // {"run", "evaluated", "findings": [...]}: the CLI's --json and the panel's input.
    static QJsonObject toJson(qint64 runId, const RunHistory &history,
                              const QList<DiagnosisFinding> &findings);
    // One block per finding: "stagnation  4/5  ...", then its evidence.
    static QString toText(const QList<DiagnosisFinding> &findings);
};

} // namespace kiln
