#pragma once

#include "tasks/task.h"
#include "verifier/harness/compilecache.h"
#include "verifier/harness/sandboxprocess.h"
#include "verifier/harness/verifieroptions.h"

#include <QByteArray>
#include <QList>
#include <QTemporaryDir>
#include <memory>

namespace kiln {

// The CPU reference of one of Kiln's own tasks in a kiln-sandbox of its own (ReferenceRunner),
// answering calls on whatever inputs problem lint chooses, for as long as the lint needs it.
class NativeReference
{
public:
    NativeReference(const VerifierOptions &options, CompileCache &cache, const Task &task);
    ~NativeReference();

    // Compiled and loaded; false with why.
    bool start(QString *error);
    // The outputs of one call (per parameter: empty for inputs and scalars).
    bool run(const ShapeConfig &shape, const QList<QByteArray> &inputs, QList<QByteArray> &outputs,
             QString *failure);

private:
    const VerifierOptions &m_options;
    CompileCache &m_cache;
    const Task &m_task;
    std::unique_ptr<QTemporaryDir> m_work;
    std::unique_ptr<SandboxProcess> m_sandbox;
};

} // namespace kiln
