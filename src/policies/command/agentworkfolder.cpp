#include "policies/command/agentworkfolder.h"

#include "policies/feedbacksummary.h"

#include <QFile>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln {

namespace {

constexpr qint64 kMaxAnswerBytes = 1 << 20;

} // namespace

AgentWorkFolder::AgentWorkFolder(const QString &root, const GenerationRequest &request,
                                 const Prompt &prompt)
    : m_dir(std::make_unique<QTemporaryDir>(root + QStringLiteral("/kiln-agent-XXXXXX"))),
      m_extension(extension(request.backend))
{
    if (!m_dir->isValid()) {
        m_error = QStringLiteral("cannot create a work folder under %1").arg(root);
        return;
    }
    const Task *task = request.task;
    const bool written =
        write(QStringLiteral("prompt.md"), prompt.transcript()) &&
        (!task || write(QStringLiteral("task.md"),
                        QStringLiteral("# %1\n\n%2\n").arg(task->title, task->description))) &&
        (!task || !task->referenceSource.contains(request.backend) ||
         write(QStringLiteral("reference.") + m_extension,
               task->referenceSource.value(request.backend)));
    if (!written)
        return;
    writeParents(request);
}

void AgentWorkFolder::writeParents(const GenerationRequest &request)
{
    QString feedback;
    for (qsizetype i = 0; i < request.parents.size(); ++i) {
        const QString name =
            i == 0 ? QStringLiteral("parent") : QStringLiteral("parent%1").arg(i + 1);
        if (!write(name + u'.' + m_extension, request.parents.at(i).source))
            return;
        if (i < request.parentEvaluations.size())
            feedback += QStringLiteral("## %1.%2\n\n%3\n\n")
                            .arg(name, m_extension,
                                 FeedbackSummary::describe(request.parentEvaluations.at(i)));
    }
    if (!feedback.isEmpty())
        write(QStringLiteral("feedback.md"), feedback);
}

bool AgentWorkFolder::write(const QString &name, const QString &text)
{
    QFile file(m_dir->filePath(name));
    if (!file.open(QIODevice::WriteOnly) || file.write(text.toUtf8()) < 0) {
        m_error = QStringLiteral("cannot write %1: %2").arg(file.fileName(), file.errorString());
        return false;
    }
    return true;
}

// Only a regular file of the folder itself: a link the agent planted (to a key, or to the
// workspace database) is not followed by Kiln, which reads unconfined, and a FIFO does not block.
QString AgentWorkFolder::read(const QString &name) const
{
    const QByteArray path = QFile::encodeName(m_dir->filePath(name));
    const int fd = ::open(path.constData(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return {};
    struct stat info
    {
    };
    QFile file;
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) ||
        !file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        return {};
    }
    return QString::fromUtf8(file.read(kMaxAnswerBytes));
}

QString AgentWorkFolder::extension(Backend backend)
{
    switch (backend) {
    case Backend::Cuda:
        return QStringLiteral("cu");
    case Backend::Torch:
        return QStringLiteral("py");
    default:
        return QStringLiteral("cpp");
    }
}

QString AgentWorkFolder::instructions(const GenerationRequest &request)
{
    const bool prose = request.answersInProse();
    QString text = QStringLiteral(
        "\n\n## Your work folder\n\nThe current folder holds this prompt (prompt.md), the task "
        "(task.md) and its reference implementation (reference.*)");
    if (!request.parents.isEmpty())
        text += QStringLiteral(", the kernel to improve (parent.*) and what the verifier said "
                               "about it (feedback.md)");
    text += QStringLiteral(". Nothing outside this folder is part of the task.\n\n");
    if (prose)
        text += QStringLiteral("Write your answer to answer.md, or print it.\n");
    else
        text += QStringLiteral("Write the complete kernel source to %1 in this folder, or print "
                               "it in one fenced code block.\n")
                    .arg(candidateFile(request.backend));
    return text;
}

} // namespace kiln
