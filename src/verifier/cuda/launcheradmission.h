#pragma once

#include "verifier/harness/verifieroptions.h"

#include <QByteArray>
#include <QJsonObject>
#include <QStringList>

namespace kiln {

// Whether a device-only candidate (an NVRTC cubin) may run in its GPU's persistent trusted
// launcher rather than a single-use process, read from the cubin's symbol table. The launcher
// scrubs what a module's kernels reach once the module is unloaded; what outlives a module in a
// context and cannot be scrubbed keeps the candidate in a single-use process: the device heap
// (device-side malloc) and any driver service not known here. Printing and assertions are
// allowed (an assertion's trap ends the launcher, charged to that candidate).
struct LauncherAdmission
{
    bool admitted = false;
    QString reason;         // why not (empty when admitted)
    QStringList imports;    // the cubin's undefined symbols
    QStringList zeroFilled; // module variables with no initial value: zeroed at load

    static LauncherAdmission judge(const QByteArray &cubin, const VerifierOptions &options);
    QJsonObject toJson() const;
};

} // namespace kiln
