#pragma once

#include "core/cheatflag.h"

#include <QList>
#include <QString>

namespace kiln {

// Every flag the verifier can raise: a stable id, a one-line explanation for a student, whether
// it blocks the candidate from counting, and its tier (docs/verifier.md lists the same table).
struct FlagInfo
{
    QString id;
    QString message;
    bool blocking = true;
    QString stage; // "screen", "correctness" or "timing"
    QString tier;  // "hard" (exactly the blocking flags), "suspicious" or "telemetry"
};

class FlagCatalog
{
public:
    static const QList<FlagInfo> &all();
    static const FlagInfo *find(const QString &id);
    // A flag with the catalogue's message; detail (e.g. the symbol) is appended when given.
    static CheatFlag make(const QString &id, const QList<int> &lines = {},
                          const QString &detail = {});
};

} // namespace kiln
