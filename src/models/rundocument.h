#pragma once

#include "core/candidatesummary.h"
#include "engine/reports/fastpreport.h"
#include "growthtimeline.h"
#include "plotrun.h"
#include "rundelta.h"

#include "core/candidaterecord.h"
#include "core/evaluationresult.h"
#include "core/profilerecord.h"
#include "core/runrecord.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QTimer>
#include <memory>
#include <optional>

namespace kiln {

class RunFollower;
class RunStore;

// One run of a workspace database, opened read-only: the light summaries of all its candidates
// (in insertion order, placeholders for foreign parents last), the full record of any one on
// demand, and incremental growth while the run is going, from either of two sources: a live run
// controller of this process pushes what its engine reports (add*, markEvicted, updateRunState),
// or, for a run another process makes, the document follows the store's event log on a worker
// thread. Both arrive as RunDelta and are applied row by row; a delta for another run than the
// one shown is dropped. The item models and the lineage view are views of this document.
class RunDocument : public QObject
{
    Q_OBJECT

public:
    explicit RunDocument(QObject *parent = nullptr);
    ~RunDocument() override;

    bool openDatabase(const QString &path, QString *error = nullptr);
    void close();
    bool isOpen() const { return m_store != nullptr; }
    QString databasePath() const { return m_path; }
    QList<RunRecord> runs() const;

    bool loadRun(qint64 runId, QString *error = nullptr);
    // Reads the run on a worker thread (a large run takes seconds) and applies it here;
    // loadFinished follows. A later load or close() supersedes it.
    void loadRunAsync(qint64 runId);
    bool isLoading() const { return m_loading; }
    bool hasRun() const { return m_run.id != 0; }
    const RunRecord &run() const { return m_run; }
    // A run that may still grow: poll() while this is true.
    bool isLive() const;

    int count() const { return int(m_rows.size()); }
    const CandidateSummary &at(int row) const { return m_rows.at(row); }
    const QList<CandidateSummary> &candidates() const { return m_rows; }
    int rowOf(qint64 candidateId) const { return m_rowOf.value(candidateId, -1); }
    // The fastest passing candidate (ties: the earliest), among the confirmed ones once any is;
    // -1 when none passed.
    int bestRow() const { return m_bestRow; }

    // A run as the plots see it: for the shown run, this document's rows (live as they are);
    // for another run of the database, the store's. Empty when there is no such run.
    PlotRun plotRun(qint64 runId, bool withFacts = true);
    // The KernelBench problems of every run of the database, for the fastp plot (levels from
    // the runs' task snapshots or the task names; lenient runs left out).
    FastPReport::Collected fastP();

    // Growth replay: the run as it stood after `step` of its timeline's steps (GrowthTimeline).
    // Stepping forward updates the views as a live run does; a step back reloads them. While
    // replaying, live news is not applied; endReplay() reloads the run as it is now, so a live
    // run is caught up with. replaySteps() reads the timeline (again, while the run is live).
    int replaySteps();
    int growthSteps(); // the same count, from the log's index, without reading the timeline
    bool setReplayStep(int step);
    void endReplay();
    bool isReplaying() const { return m_replayStep >= 0; }
    int replayStep() const { return m_replayStep; }
    QDateTime replayTime() const;

    // Full record and evaluation, read from the store (the last few are cached).
    std::optional<CandidateRecord> candidate(qint64 candidateId);
    std::optional<EvaluationResult> evaluation(qint64 candidateId);
    // Its hardware profiles, newest first (read each time: a profile may have just been added).
    QList<ProfileRecord> profiles(qint64 candidateId);

    // Reads the events logged since the last load or poll, here and now (tests, screenshots),
    // and applies them; returns how many changed the document.
    int poll();
    // Follows the event log on a worker thread while the run is live (twice a second); off for a
    // run whose changes a controller pushes.
    void setFollowing(bool follow);
    bool isFollowing() const { return m_following; }
    qint64 lastEventId() const { return m_lastEventId; }

    // Applies a change of the shown run (dropped when delta.runId is another run); returns how
    // many rows or run fields changed. During an asynchronous load it is kept and applied after.
    int applyDelta(const RunDelta &delta);
    // What a live engine reported, for the run it belongs to. Gathered and applied together
    // within 50 ms (flushPushed() applies them now); a run's state change applies at once.
    void addCandidate(qint64 runId, const CandidateRecord &record);
    void addEvaluation(qint64 runId, qint64 candidateId, const EvaluationResult &result);
    void markEvicted(qint64 runId, const QList<qint64> &candidateIds);
    void updateRunState(qint64 runId, RunRecord::Status status, const BudgetUsage &used);
    void flushPushed();

signals:
    // Bracket a load or close: the whole document changes in between.
    void runAboutToLoad();
    void runLoaded();
    void candidatesAboutToBeAppended(int first, int last);
    void candidatesAppended(int first, int last);
    void candidateChanged(int row);
    void runChanged();
    void bestChanged(int row);
    void loadStarted(qint64 runId);
    void loadFinished(bool ok, const QString &error);

private:
    struct LoadedRun
    {
        std::optional<RunRecord> run;
        QList<CandidateSummary> rows;
        qint64 lastEvent = 0;
        QList<qint64> evicted;
    };
    static LoadedRun readRun(RunStore &store, qint64 runId);
    bool apply(LoadedRun loaded, qint64 runId, QString *error);
    void appendPlaceholders(int fromRow);
    void appendRows(const QList<CandidateSummary> &rows);
    int updateRow(int row, const CandidateSummary &summary);
    int markGhosts(const QList<qint64> &candidateIds, bool notify);
    void updateBest(int row);
    void forgetEvaluation(qint64 candidateId);
    void followTick();
    RunDelta &pushed(qint64 runId);
    bool accepts(qint64 runId) const; // the shown run, or the one being loaded

    std::unique_ptr<RunStore> m_store;
    QString m_path;
    RunRecord m_run;
    QList<CandidateSummary> m_rows;
    QHash<qint64, int> m_rowOf;
    int m_bestRow = -1;
    qint64 m_lastEventId = 0;
    int m_loadGeneration = 0;
    bool m_loading = false;
    qint64 m_loadingRunId = 0;
    QList<RunDelta> m_deltasDuringLoad;
    bool m_following = false;
    QTimer m_followTimer;
    RunFollower *m_follower = nullptr;     // created when first needed
    RunDelta m_pushed;                     // pushes not applied yet
    QHash<qint64, qsizetype> m_pushedRows; // candidate id -> its entry in m_pushed
    QTimer m_pushTimer;
    std::unique_ptr<GrowthTimeline> m_timeline;
    int m_replayStep = -1;
    bool m_applyingReplay = false;
    QList<CandidateRecord> m_recordCache;
    QList<QPair<qint64, EvaluationResult>> m_evaluationCache;
};

} // namespace kiln
