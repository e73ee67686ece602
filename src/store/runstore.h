#pragma once

#include "cachedresponse.h"
#include "storedevent.h"

#include "core/budgetusage.h"
#include "core/candidateplotfacts.h"
#include "core/candidaterecord.h"
#include "core/candidatesummary.h"
#include "core/evaluationresult.h"
#include "core/memoryentry.h"
#include "core/profilerecord.h"
#include "core/runrecord.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QRecursiveMutex>
#include <QString>
#include <functional>
#include <memory>
#include <optional>

struct sqlite3;

namespace kiln {

struct SchemaMigration;

// The workspace database: one SQLite file holding runs, candidates, evaluations, the event log,
// the LLM response cache and the optimisation memory.
//
// One writer per process: the engine owns the single ReadWrite RunStore of a workspace; readers
// (the GUI's models, `kiln-cli report`) open their own ReadOnly RunStore, which sees committed data
// only (WAL mode).
//
// Threads: the SQLite connection is used by one thread at a time: every public method locks an
// internal recursive mutex, so the engine's worker threads may share one RunStore; calls are
// serialized and a transaction() holds the lock until it ends. lastError() belongs to the store,
// not to a thread: a thread that needs the error of its own call makes the call and reads
// lastError() inside one transaction().
//
// Errors: mutators return false (or id 0), readers return std::nullopt or an empty list, and
// lastError() says why (it is empty when a reader simply found nothing). A malformed value in a
// row reads as the type's default; it never crashes.
//
// Crash safety: each logical change (a candidate and its "candidate_added" event, an evaluation
// with its stages, flags and "candidate_evaluated" event, ...) is one transaction, so killing the
// process at any instant loses at most the change in flight.
class RunStore
{
public:
    enum class Mode
    {
        ReadWrite,
        ReadOnly
    };

    // How closely open() looks at an existing file before using it.
    enum class Check
    {
        Integrity, // the header, then every page's structure (PRAGMA quick_check)
        Header     // the header only: for reopening a database this process checked already
    };

    // Opens (ReadWrite: creates when absent, then migrates) the database at path. A file that is
    // not a SQLite database, a damaged one, a SQLite database of another application, or a Kiln
    // database of a newer schema is refused with a clear *error before anything is written to
    // it (no -wal or -shm file is made beside it).
    static std::unique_ptr<RunStore> open(const QString &path, Mode mode, QString *error = nullptr,
                                          Check check = Check::Integrity);
    static int schemaVersion(); // the schema version this build writes
    // Brings a Kiln database of an older schema up to this build's (a read-write open runs the
    // migrations); leaves any other file untouched. False with *error when the upgrade failed.
    static bool upgrade(const QString &path, QString *error = nullptr);
    // The llm_cache key of one request: sha256 over endpoint, model, body and sample index.
    static QString cacheKey(const QString &endpoint, const QString &model, const QByteArray &body,
                            int sampleIndex);

    ~RunStore();
    RunStore(const RunStore &) = delete;
    RunStore &operator=(const RunStore &) = delete;

    QString path() const { return m_path; }
    Mode mode() const { return m_mode; }
    QString lastError() const;

    // Runs work in one transaction: committed when it returns true, rolled back when it returns
    // false or throws. Nests (savepoints). On a ReadOnly store it gives work one consistent
    // snapshot for several reads.
    bool transaction(const std::function<bool()> &work);

    // Runs. createRun fills run.id (and the timestamps when unset) and logs "run_created";
    // taskJson optionally stores a snapshot of each task's definition, by task name.
    qint64 createRun(RunRecord &run, const QMap<QString, QJsonObject> &taskJson = {});
    bool updateRunStatus(qint64 runId, RunRecord::Status status); // logs "run_status"
    bool updateRunBudget(qint64 runId, const BudgetUsage &used);  // logs "budget_updated"
    std::optional<RunRecord> run(qint64 runId);
    QList<RunRecord> runs();
    QJsonObject runTaskJson(qint64 runId, const QString &task);

    // Candidates. addCandidate fills candidate.id (and createdAt when unset) and logs
    // "candidate_added"; parents must exist; crossover needs both parents.
    qint64 addCandidate(CandidateRecord &candidate);
    std::optional<CandidateRecord> candidate(qint64 candidateId);
    QList<CandidateRecord> candidates(qint64 runId); // in insertion order
    qint64 candidateCount(qint64 runId);
    // The lineage columns of a run's candidates (or of the listed ones) with their latest
    // verdict, speedup and flag ids, in insertion order, read in one snapshot: what the tree and
    // the table need, without sources, prompts, transcripts or stage data.
    QList<CandidateSummary> lineage(qint64 runId, const QList<qint64> &ids = {});
    // Cost, time of the latest verdict and recorded roofs of each of a run's candidates, by id.
    QHash<qint64, CandidatePlotFacts> plotFacts(qint64 runId);

    // Evaluations. A candidate may be evaluated again (another backend); readers return the
    // latest evaluation. addEvaluation logs "candidate_evaluated".
    qint64 addEvaluation(qint64 candidateId, const EvaluationResult &result);
    std::optional<EvaluationResult> evaluation(qint64 candidateId);
    QMap<qint64, EvaluationResult> evaluationsForRun(qint64 runId); // candidate id -> result
    double evaluationMilliseconds(qint64 runId); // sum of the stage times of a run's evaluations

    // The append-only event log; events(runId, afterId) returns the events after afterId, oldest
    // first, so a reader can poll for growth.
    qint64 appendEvent(qint64 runId, const QString &kind,
                       std::optional<qint64> candidateId = std::nullopt,
                       const QJsonObject &payload = {});
    QList<StoredEvent> events(qint64 runId, qint64 afterId = 0);
    // Only the events of one kind (indexed: a run's evictions without its whole log).
    QList<StoredEvent> events(qint64 runId, qint64 afterId, const QString &kind);
    // How many events of these kinds a run has logged (an index count, no rows read).
    qint64 eventCount(qint64 runId, const QStringList &kinds);
    qint64 lastEventId(qint64 runId); // 0 when the run has none

    // The LLM response cache (shared by all runs of the workspace).
    std::optional<CachedResponse> cachedResponse(const QString &key);
    bool putCachedResponse(const CachedResponse &entry); // replaces an entry with the same key

    // The optimisation memory (runstorememory.cpp). addMemoryEntry stores one lesson per child:
    // a second entry for the same child is ignored (returns 0 with lastError() empty).
    qint64 addMemoryEntry(MemoryEntry &entry);
    std::optional<MemoryEntry> memoryEntry(qint64 id);
    QList<MemoryEntry> memoryEntries(const QString &task = {}); // newest first; "" = every task
    bool updateMemoryIdea(qint64 id, const QString &idea);      // marks the entry edited
    bool deleteMemoryEntry(qint64 id);
    qint64 clearMemory(const QString &task = {}); // entries removed, -1 on error

    // Hardware profiles (runstoreprofiles.cpp): each kiln-cli profile adds rows (the
    // candidate's and the reference's); profiles() lists a candidate's, newest first.
    qint64 addProfile(ProfileRecord &profile);
    QList<ProfileRecord> profiles(qint64 candidateId);

private:
    RunStore(sqlite3 *db, const QString &path, Mode mode);

    static QDateTime nowUtc(); // at the store's resolution (milliseconds)
    bool exec(const char *sql);
    bool setError(const QString &context, const QString &message);
    // A call starts with an empty lastError(), unless it runs inside a transaction: there the
    // error of an earlier call must survive until the transaction ends.
    void clearErrorOutsideTransaction();
    bool requireWritable(const char *context);
    bool begin(bool write);
    bool commit();
    void rollback();
    bool readSnapshot(const std::function<bool()> &work);
    bool migrate();
    // One step in a write transaction of its own; nothing when the file is already past it.
    bool migrateStep(const SchemaMigration &step);

    // Readers of one statement (runstorequeries.h): sql with values bound to ?1, ?2, ..., the
    // first row or every row mapped by fromRow. On failure lastError() says "context: why" and
    // the result is empty.
    template <typename Row, typename FromRow, typename... Values>
    std::optional<Row> selectOne(const char *context, const QByteArray &sql, const FromRow &fromRow,
                                 const Values &...values);
    template <typename Row, typename FromRow, typename... Values>
    QList<Row> selectAll(const char *context, const QByteArray &sql, const FromRow &fromRow,
                         const Values &...values);
    // The first column of the first row (a count, a sum, one value), as Value; Value's default
    // (0, empty) when there is none.
    template <typename Value, typename... Values>
    Value selectValue(const char *context, const QByteArray &sql, const Values &...values);

    qint64 insertEvent(qint64 runId, const QString &kind, std::optional<qint64> candidateId,
                       const QJsonObject &payload); // runstoreevents.cpp
    // runstoreruns.cpp
    bool loadRunTasks(RunRecord &run);
    template <typename Value>
    bool updateRun(const char *context, qint64 runId, const char *column, const Value &value,
                   const QString &eventKind, const QJsonObject &payload);
    // runstoreevaluations.cpp
    qint64 insertEvaluation(qint64 candidateId, const EvaluationResult &result);
    bool insertStages(qint64 evaluationId, const QList<StageResult> &stages);
    bool insertFlags(qint64 evaluationId, const QList<CheatFlag> &flags);
    bool readEvaluations(const char *context, const char *filter, qint64 key,
                         QMap<qint64, EvaluationResult> &found);

    sqlite3 *m_db = nullptr;
    QString m_path;
    Mode m_mode;
    QString m_lastError;
    int m_depth = 0; // open transaction levels
    mutable QRecursiveMutex m_mutex;
};

} // namespace kiln
