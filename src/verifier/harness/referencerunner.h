#pragma once

#include "tasks/task.h"
#include "verifier/harness/compilecache.h"
#include "verifier/harness/sandboxprocess.h"
#include "verifier/harness/verifieroptions.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace kiln {

// A task's CPU reference in a kiln-sandbox (never in Kiln's process: it is task code): compiled
// and loaded, then called on whatever inputs the caller gives. ReferenceBank uses it for the
// verdict's instances, problem lint (NativeReference) for the inputs it chooses.
class ReferenceRunner
{
public:
    // Compiles and loads the reference; its object in the compile cache, or empty with *error.
    static QString load(SandboxProcess &sandbox, CompileCache &cache,
                        const VerifierOptions &options, const Task &task, QString *error);
    // One call on `inputs` (per parameter); the outputs per parameter (empty for inputs and
    // scalars), or false with *failure.
    static bool run(SandboxProcess &sandbox, const VerifierOptions &options, const Task &task,
                    const ShapeConfig &shape, const QList<QByteArray> &inputs,
                    QList<QByteArray> &outputs, QString *failure);
};

} // namespace kiln
