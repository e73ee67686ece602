#pragma once

#include "policies/policy.h"
#include "policies/promptbuilder.h"

#include <QString>
#include <QTemporaryDir>
#include <memory>

namespace kiln {

// The folder a coding agent works in, all it is meant to see of the run: the prompt
// (prompt.md, also its stdin), the task (task.md and the reference, reference.EXT), the parents'
// sources and the feedback on them (parent.EXT, feedback.md; parent2.EXT for a crossover), and
// where its answer goes: the candidate file (candidate.EXT), or answer.md for a role of the
// agents strategy that answers in prose. EXT is the backend's: cpp, cu or py.
class AgentWorkFolder
{
public:
    // A new folder under root; isValid() false when it could not be made or written.
    AgentWorkFolder(const QString &root, const GenerationRequest &request, const Prompt &prompt);

    bool isValid() const { return m_error.isEmpty(); }
    QString error() const { return m_error; }
    QString path() const { return m_dir ? m_dir->path() : QString(); }
    QString candidateFile() const { return QStringLiteral("candidate.") + m_extension; }
    static QString candidateFile(Backend backend)
    {
        return QStringLiteral("candidate.") + extension(backend);
    }
    // What the agent left in candidateFile() or answer.md (empty: nothing).
    QString candidate() const { return read(candidateFile()); }
    QString answer() const { return read(QStringLiteral("answer.md")); }
    // The instructions appended to the prompt: where the answer goes, what the folder holds.
    static QString instructions(const GenerationRequest &request);
    static QString extension(Backend backend);

private:
    bool write(const QString &name, const QString &text);
    QString read(const QString &name) const;
    void writeParents(const GenerationRequest &request);

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_extension;
    QString m_error;
};

} // namespace kiln
