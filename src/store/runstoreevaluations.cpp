// RunStore's evaluations: the evaluations table with the stages and flags of each evaluation.
#include "runstore.h"
#include "runstorequeries.h"

#include <QHash>
#include <sqlite3.h>

namespace kiln {

namespace {

// The columns of an evaluation, over e = evaluations and c = candidates.
const char *const evaluationColumns =
    "SELECT e.id, e.candidate_id, e.backend, e.verdict, e.correct, e.speedup, e.candidate_ms, "
    "e.baseline_ms, e.roofline_fraction, e.candidate_timing_json, e.baseline_timing_json, "
    "e.summary, "
    // PyTorch backend: against torch.compile, kept in the result's JSON only (a malformed one
    // reads as none rather than failing the query).
    "CASE WHEN json_valid(e.result_json) THEN "
    "json_extract(e.result_json, '$.compiled_baseline_ms') END, "
    "CASE WHEN json_valid(e.result_json) THEN "
    "json_extract(e.result_json, '$.speedup_compiled') END, "
    "e.speedup_low, e.speedup_high, e.confirmed, e.duplicate_of, "
    "CASE WHEN json_valid(e.result_json) THEN json_extract(e.result_json, '$.disturbance') END "
    "FROM evaluations e JOIN candidates c ON c.id = e.candidate_id ";

// The stages and flags (x) of evaluations, read with the evaluations' filter.
const char *const stageColumns =
    "SELECT x.evaluation_id, x.name, x.ok, x.ms, x.detail, x.data_json FROM stages x";
// A flag's tier is kept in the result's JSON only (the flag at the same index), so databases
// written before tiers read without a migration: there, the tier follows from blocking.
const char *const flagColumns =
    "SELECT x.evaluation_id, x.flag_id, x.message, x.lines_json, x.blocking, "
    "CASE WHEN json_valid(e.result_json) THEN "
    "json_extract(e.result_json, '$.flags[' || x.idx || ']') END FROM flags x";

EvaluationResult evaluationFromRow(const SqliteStatement &s)
{
    EvaluationResult r;
    r.backend = backendFromName(s.text(2)).value_or(Backend::Cpu);
    r.verdict = verdictFromName(s.text(3)).value_or(Verdict::Crash);
    s.columns(4, r.correct, r.speedup, r.candidateMs, r.baselineMs, r.rooflineFraction);
    r.candidateTiming = TimingStats::fromJson(s.jsonObject(9));
    r.baselineTiming = TimingStats::fromJson(s.jsonObject(10));
    s.columns(11, r.summary, r.compiledBaselineMs, r.compiledSpeedup);
    if (r.speedup && !s.isNull(14) && !s.isNull(15))
        r.speedupInterval = SpeedupInterval{*r.speedup, s.real(14), s.real(15)};
    s.columns(16, r.confirmed, r.duplicateOf, r.disturbance);
    return r;
}

// A row of stages (x.evaluation_id first) into its evaluation.
void appendStage(const SqliteStatement &s, EvaluationResult &evaluation)
{
    StageResult stage;
    s.columns(1, stage.name, stage.ok, stage.ms, stage.detail, stage.data);
    evaluation.stages.append(stage);
}

// A row of flags (x.evaluation_id first) into its evaluation.
void appendFlag(const SqliteStatement &s, EvaluationResult &evaluation)
{
    CheatFlag flag;
    s.columns(1, flag.id, flag.message);
    for (const QJsonValue &line : s.jsonArray(3))
        flag.lines.append(line.toInt());
    s.columns(4, flag.blocking);
    const QJsonObject stored = s.jsonObject(5);
    if (stored.value(QStringLiteral("id")).toString() == flag.id)
        flag.tier = stored.value(QStringLiteral("tier")).toString();
    flag.tier = flag.effectiveTier();
    evaluation.flags.append(flag);
}

bool succeeded(const SqliteStatement &s, QString *error)
{
    if (!s.ok())
        *error = s.error();
    return s.ok();
}

// The evaluations filter selects, by id, and the latest evaluation of each candidate.
bool readEvaluationRows(sqlite3 *db, const char *filter, qint64 key,
                        QHash<qint64, EvaluationResult> &byEvaluation,
                        QHash<qint64, qint64> &latest, QString *error)
{
    SqliteStatement s(db, QByteArray(evaluationColumns) + filter + " ORDER BY e.id");
    s.bind(1, key);
    while (s.next()) {
        byEvaluation.insert(s.int64(0), evaluationFromRow(s));
        latest.insert(s.int64(1), s.int64(0));
    }
    return succeeded(s, error);
}

// The rows of a table owned by evaluations (stages, flags), each added to its evaluation.
bool readEvaluationParts(sqlite3 *db, const QByteArray &sql, qint64 key,
                         QHash<qint64, EvaluationResult> &byEvaluation,
                         void (*append)(const SqliteStatement &, EvaluationResult &),
                         QString *error)
{
    SqliteStatement s(db, sql);
    s.bind(1, key);
    while (s.next()) {
        auto it = byEvaluation.find(s.int64(0));
        if (it != byEvaluation.end())
            append(s, *it);
    }
    return succeeded(s, error);
}

// Reads the evaluations a filter selects (a WHERE clause over e = evaluations and c = candidates,
// with one parameter ?1), with their stages and flags; the latest evaluation of a candidate wins.
bool loadEvaluations(sqlite3 *db, const char *filter, qint64 key,
                     QMap<qint64, EvaluationResult> *byCandidate, QString *error)
{
    const QByteArray from = QByteArray(" JOIN evaluations e ON e.id = x.evaluation_id"
                                       " JOIN candidates c ON c.id = e.candidate_id ") +
                            filter + " ORDER BY x.evaluation_id, x.idx";
    QHash<qint64, EvaluationResult> byEvaluation;
    QHash<qint64, qint64> latest; // candidate -> evaluation
    if (!readEvaluationRows(db, filter, key, byEvaluation, latest, error) ||
        !readEvaluationParts(db, stageColumns + from, key, byEvaluation, appendStage, error) ||
        !readEvaluationParts(db, flagColumns + from, key, byEvaluation, appendFlag, error))
        return false;
    for (auto it = latest.cbegin(); it != latest.cend(); ++it)
        byCandidate->insert(it.key(), byEvaluation.value(it.value()));
    return true;
}

QJsonObject evaluatedPayload(qint64 evaluationId, const EvaluationResult &result)
{
    QJsonObject payload{{QStringLiteral("evaluation_id"), double(evaluationId)},
                        {QStringLiteral("verdict"), verdictName(result.verdict)},
                        {QStringLiteral("correct"), result.correct},
                        {QStringLiteral("backend"), backendName(result.backend)},
                        {QStringLiteral("speedup"), result.speedup ? QJsonValue(*result.speedup)
                                                                   : QJsonValue(QJsonValue::Null)}};
    if (result.confirmed)
        payload.insert(QStringLiteral("confirmed"), true);
    if (result.duplicateOf)
        payload.insert(QStringLiteral("duplicate_of"), double(*result.duplicateOf));
    return payload;
}

// The trials go into the timing columns only (the timing-distribution plot reads them).
QJsonObject timingWithTrials(const TimingStats &timing)
{
    return timing.n > 0 ? timing.toJsonWithTrials() : QJsonObject();
}

} // namespace

qint64 RunStore::addEvaluation(qint64 candidateId, const EvaluationResult &result)
{
    QMutexLocker lock(&m_mutex);
    if (!requireWritable("addEvaluation"))
        return 0;
    qint64 id = 0;
    const bool ok = transaction([&] {
        SqliteStatement owner(m_db, "SELECT run_id FROM candidates WHERE id = ?1");
        owner.bind(1, candidateId);
        if (!owner.next())
            return setError(QStringLiteral("addEvaluation"),
                            owner.ok() ? QStringLiteral("no candidate %1").arg(candidateId)
                                       : owner.error());
        const qint64 runId = owner.int64(0);
        id = insertEvaluation(candidateId, result);
        return id > 0 && insertStages(id, result.stages) && insertFlags(id, result.flags) &&
               insertEvent(runId, QStringLiteral("candidate_evaluated"), candidateId,
                           evaluatedPayload(id, result)) > 0;
    });
    return ok ? id : 0;
}

// The evaluations row of addEvaluation; its id, 0 on failure.
qint64 RunStore::insertEvaluation(qint64 candidateId, const EvaluationResult &result)
{
    double totalMs = 0.0;
    for (const StageResult &stage : result.stages)
        totalMs += stage.ms;
    const auto &interval = result.speedupInterval;
    SqliteStatement s(m_db, "INSERT INTO evaluations (candidate_id, backend, verdict, correct, "
                            "speedup, candidate_ms, baseline_ms, roofline_fraction, "
                            "candidate_timing_json, baseline_timing_json, summary, result_json, "
                            "created_at, total_ms, speedup_low, speedup_high, confirmed, "
                            "duplicate_of) "
                            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
                            "?15, ?16, ?17, ?18)");
    s.bindAll(candidateId, backendName(result.backend), verdictName(result.verdict), result.correct,
              result.speedup, result.candidateMs, result.baselineMs, result.rooflineFraction,
              timingWithTrials(result.candidateTiming), timingWithTrials(result.baselineTiming),
              result.summary, result.toJson(), QDateTime::currentMSecsSinceEpoch(), totalMs,
              interval ? std::optional(interval->low) : std::nullopt,
              interval ? std::optional(interval->high) : std::nullopt, result.confirmed,
              result.duplicateOf);
    if (!s.exec()) {
        setError(QStringLiteral("addEvaluation"), s.error());
        return 0;
    }
    return sqlite3_last_insert_rowid(m_db);
}

bool RunStore::insertStages(qint64 evaluationId, const QList<StageResult> &stages)
{
    for (int i = 0; i < stages.size(); ++i) {
        const StageResult &stage = stages.at(i);
        SqliteStatement s(m_db, "INSERT INTO stages (evaluation_id, idx, name, ok, ms, detail, "
                                "data_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
        s.bindAll(evaluationId, i, stage.name, stage.ok, stage.ms, stage.detail, stage.data);
        if (!s.exec())
            return setError(QStringLiteral("addEvaluation: stage %1").arg(stage.name), s.error());
    }
    return true;
}

bool RunStore::insertFlags(qint64 evaluationId, const QList<CheatFlag> &flags)
{
    for (int i = 0; i < flags.size(); ++i) {
        const CheatFlag &flag = flags.at(i);
        QJsonArray lines;
        for (int line : flag.lines)
            lines.append(line);
        SqliteStatement s(m_db, "INSERT INTO flags (evaluation_id, idx, flag_id, message, "
                                "lines_json, blocking) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
        s.bindAll(evaluationId, i, flag.id, flag.message, lines, flag.blocking);
        if (!s.exec())
            return setError(QStringLiteral("addEvaluation: flag %1").arg(flag.id), s.error());
    }
    return true;
}

// The latest evaluation of each candidate a filter selects, read in one snapshot; false, with
// lastError() "context: why", on failure.
bool RunStore::readEvaluations(const char *context, const char *filter, qint64 key,
                               QMap<qint64, EvaluationResult> &found)
{
    QMutexLocker lock(&m_mutex);
    return readSnapshot([&] {
        QString error;
        return loadEvaluations(m_db, filter, key, &found, &error) ||
               setError(QString::fromUtf8(context), error);
    });
}

std::optional<EvaluationResult> RunStore::evaluation(qint64 candidateId)
{
    QMap<qint64, EvaluationResult> found;
    readEvaluations("evaluation", "WHERE e.candidate_id = ?1", candidateId, found);
    if (!found.contains(candidateId))
        return std::nullopt;
    return found.value(candidateId);
}

QMap<qint64, EvaluationResult> RunStore::evaluationsForRun(qint64 runId)
{
    QMap<qint64, EvaluationResult> found;
    if (!readEvaluations("evaluationsForRun", "WHERE c.run_id = ?1", runId, found))
        found.clear();
    return found;
}

double RunStore::evaluationMilliseconds(qint64 runId)
{
    return selectValue<double>("evaluationMilliseconds",
                               "SELECT COALESCE(SUM(e.total_ms), 0) FROM evaluations e "
                               "JOIN candidates c ON c.id = e.candidate_id WHERE c.run_id = ?1",
                               runId);
}

} // namespace kiln
