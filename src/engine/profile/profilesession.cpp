#include "profilesession.h"

#include "engine/evaluator.h"
#include "engine/profile/candidateprofiler.h"
#include "engine/searchengine.h"
#include "engine/shapeproposal.h"
#include "store/runstore.h"
#include "tasks/tasklibrary.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>

namespace kiln {

QString ProfileSession::reportBase(const QString &databasePath, qint64 runId, qint64 candidateId,
                                   const QString &subject)
{
    const QDir folder(QFileInfo(databasePath).absoluteDir().filePath(QStringLiteral("profiles")));
    folder.mkpath(QStringLiteral("."));
    return folder.filePath(QStringLiteral("run%1-candidate%2-%3-%4")
                               .arg(runId)
                               .arg(candidateId)
                               .arg(subject)
                               .arg(QDateTime::currentMSecsSinceEpoch()));
}

EvaluationResult ProfileSession::withStoredProfile(RunStore &store, qint64 candidateId,
                                                   EvaluationResult evaluation)
{
    for (const ProfileRecord &profile : store.profiles(candidateId)) {
        if (profile.subject != QLatin1String("candidate") || !profile.ok)
            continue;
        evaluation.stages.append(profile.asStage(QStringLiteral("hardware_profile")));
        break;
    }
    return evaluation;
}

QList<ProfileRecord> ProfileSession::profileStored(RunStore &store, Evaluator &evaluator,
                                                   const RunRecord &run, const Task &task,
                                                   const CandidateRecord &candidate, quint64 secret,
                                                   bool withReference,
                                                   const std::atomic<bool> &cancel)
{
    const Backend backend = backendFromName(run.backend).value_or(Backend::Cpu);
    const std::optional<EvaluationResult> judged = store.evaluation(candidate.id);
    QList<std::pair<QString, QString>> subjects{{QStringLiteral("candidate"), candidate.source}};
    if (withReference)
        subjects.append({QStringLiteral("reference"), task.referenceSource.value(backend)});
    QList<ProfileRecord> records;
    for (const auto &[subject, source] : subjects) {
        if (cancel)
            break;
        ProfileRecord record = evaluator.profileRecord(
            task, backend, source, secret, subject,
            reportBase(store.path(), run.id, candidate.id, subject), cancel);
        record.candidateId = candidate.id;
        if (subject == QLatin1String("candidate") && judged && judged->candidateMs)
            CandidateProfiler::compareWithVerifier(record, *judged->candidateMs);
        store.addProfile(record);
        records << record;
    }
    return records;
}

std::optional<QList<ProfileRecord>> ProfileSession::run(RunStore &store, const TaskLibrary &library,
                                                        Evaluator &evaluator, qint64 candidateId,
                                                        bool withReference,
                                                        const std::atomic<bool> &cancel,
                                                        QString *error)
{
    const std::optional<CandidateRecord> candidate = store.candidate(candidateId);
    const std::optional<RunRecord> run = candidate ? store.run(candidate->runId) : std::nullopt;
    if (!candidate || !run) {
        *error = QStringLiteral("no candidate %1 in %2").arg(candidateId).arg(store.path());
        return std::nullopt;
    }
    if (!library.task(candidate->task)) {
        *error = QStringLiteral("candidate %1 is of task '%2', which the task library does not "
                                "have")
                     .arg(candidateId)
                     .arg(candidate->task);
        return std::nullopt;
    }
    const Task task = ShapeProposal::forCandidate(*library.task(candidate->task), *candidate);
    // The run's own secret, so the profiled inputs are drawn as its judgements were.
    return profileStored(store, evaluator, *run, task, *candidate, SearchEngine::secretOf(*run),
                         withReference, cancel);
}

} // namespace kiln
