#include "verifier/cuda/launcheradmission.h"

#include "verifier/screen/native/elfsymbols.h"

#include <QJsonArray>

namespace kiln {

namespace {

// Driver services a module may import that leave nothing behind once it is unloaded.
bool harmlessImport(const QString &name)
{
    return name == QLatin1String("vprintf") || name == QLatin1String("__assertfail") ||
           name.startsWith(QLatin1String(".nv.")); // reserved shared-memory offsets
}

} // namespace

LauncherAdmission LauncherAdmission::judge(const QByteArray &cubin, const VerifierOptions &options)
{
    LauncherAdmission admission;
    if (!options.cudaLauncher) {
        admission.reason = QStringLiteral("the launcher is off (KILN_CUDA_LAUNCHER=0)");
        return admission;
    }
    // What a module leaves in memory the scrub does not reach (local memory, freed module
    // memory) answers nothing only because each evaluation's timed inputs are its own.
    if (!options.runTiming) {
        admission.reason = QStringLiteral("no timing: a later candidate's untimed calls would "
                                          "see the inputs this one saw");
        return admission;
    }
    if (options.profilesCandidates()) {
        admission.reason = QStringLiteral("profiling: one sandbox process at a time");
        return admission;
    }
    const ElfSymbols symbols = ElfSymbols::read(cubin);
    if (!symbols.valid) {
        admission.reason = QStringLiteral("the cubin's symbol table could not be read");
        return admission;
    }
    admission.imports = symbols.undefined;
    admission.zeroFilled = symbols.zeroFilled;
    for (const QString &name : symbols.undefined) {
        if (!harmlessImport(name)) {
            admission.reason = QStringLiteral("imports %1, which can leave state in the context "
                                              "after its module is unloaded (the device heap)")
                                   .arg(name);
            return admission;
        }
    }
    admission.admitted = true;
    return admission;
}

QJsonObject LauncherAdmission::toJson() const
{
    QJsonObject json{{QStringLiteral("process"),
                      admitted ? QStringLiteral("launcher") : QStringLiteral("single-use")}};
    if (!reason.isEmpty())
        json.insert(QStringLiteral("launcher_refused"), reason);
    if (!zeroFilled.isEmpty())
        json.insert(QStringLiteral("zeroed_globals"), QJsonArray::fromStringList(zeroFilled));
    return json;
}

} // namespace kiln
