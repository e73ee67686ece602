// RunStore's candidates: the candidates table, one row per generated kernel.
#include "runstore.h"
#include "runstorequeries.h"

#include <sqlite3.h>

namespace kiln {

namespace {

const char *const candidateColumns =
    "SELECT id, run_id, task, parent_id, second_parent_id, operation, generation, island, source, "
    "policy, policy_meta_json, prompt, reasoning, response, prompt_tokens, completion_tokens, "
    "reasoning_tokens, reasoning_length, created_at, sample_index, round FROM candidates ";

CandidateRecord candidateFromRow(const SqliteStatement &s)
{
    CandidateRecord c;
    s.columns(0, c.id, c.runId, c.task, c.parent, c.secondParent);
    c.operation = operationFromName(s.text(5)).value_or(Operation::Sample);
    s.columns(6, c.generation, c.island, c.source, c.policy, c.policyMeta, c.prompt, c.reasoning,
              c.response, c.promptTokens, c.completionTokens, c.reasoningTokens, c.reasoningLength,
              c.createdAt, c.sampleIndex, c.round);
    return c;
}

// Why the candidate's parents do not fit its operation; empty when they do.
QString parentsProblem(const CandidateRecord &candidate)
{
    const bool crossover = candidate.operation == Operation::Crossover;
    if (crossover && (!candidate.parent || !candidate.secondParent))
        return QStringLiteral("crossover needs two parents");
    if (!crossover && candidate.secondParent)
        return QStringLiteral("only a crossover has a second parent");
    return {};
}

QJsonObject candidateAddedPayload(const CandidateRecord &candidate, qint64 seq)
{
    auto idValue = [](const std::optional<qint64> &v) {
        return v ? QJsonValue(double(*v)) : QJsonValue(QJsonValue::Null);
    };
    return {{QStringLiteral("seq"), double(seq)},
            {QStringLiteral("task"), candidate.task},
            {QStringLiteral("operation"), operationName(candidate.operation)},
            {QStringLiteral("parent"), idValue(candidate.parent)},
            {QStringLiteral("second_parent"), idValue(candidate.secondParent)},
            {QStringLiteral("generation"), candidate.generation},
            {QStringLiteral("island"), candidate.island},
            {QStringLiteral("policy"), candidate.policy}};
}

} // namespace

qint64 RunStore::addCandidate(CandidateRecord &candidate)
{
    QMutexLocker lock(&m_mutex);
    if (!requireWritable("addCandidate"))
        return 0;
    if (const QString problem = parentsProblem(candidate); !problem.isEmpty()) {
        setError(QStringLiteral("addCandidate"), problem);
        return 0;
    }
    CandidateRecord stored = candidate;
    stored.createdAt = candidate.createdAt.isValid() ? candidate.createdAt : nowUtc();
    qint64 id = 0;
    const bool ok = transaction([&] {
        SqliteStatement next(m_db, "SELECT COALESCE(MAX(seq_in_run), 0) + 1 FROM candidates "
                                   "WHERE run_id = ?1");
        next.bind(1, stored.runId);
        if (!next.next())
            return setError(QStringLiteral("addCandidate"), next.error());
        const qint64 seq = next.int64(0);

        SqliteStatement s(m_db,
                          "INSERT INTO candidates (run_id, seq_in_run, task, parent_id, "
                          "second_parent_id, operation, generation, island, source, policy, "
                          "policy_meta_json, prompt, reasoning, response, prompt_tokens, "
                          "completion_tokens, reasoning_tokens, reasoning_length, created_at, "
                          "sample_index, round) "
                          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
                          "?15, ?16, ?17, ?18, ?19, ?20, ?21)");
        s.bindAll(stored.runId, seq, stored.task, stored.parent, stored.secondParent,
                  operationName(stored.operation), stored.generation, stored.island, stored.source,
                  stored.policy, stored.policyMeta, stored.prompt, stored.reasoning,
                  stored.response, stored.promptTokens, stored.completionTokens,
                  stored.reasoningTokens, stored.reasoningLength, stored.createdAt,
                  stored.sampleIndex, stored.round);
        if (!s.exec())
            return setError(QStringLiteral("addCandidate"),
                            s.error() + QStringLiteral(" (unknown run or parent?)"));
        id = sqlite3_last_insert_rowid(m_db);
        return insertEvent(stored.runId, QStringLiteral("candidate_added"), id,
                           candidateAddedPayload(stored, seq)) > 0;
    });
    if (!ok)
        return 0;
    candidate.id = id;
    candidate.createdAt = stored.createdAt;
    return id;
}

std::optional<CandidateRecord> RunStore::candidate(qint64 candidateId)
{
    return selectOne<CandidateRecord>("candidate", QByteArray(candidateColumns) + "WHERE id = ?1",
                                      candidateFromRow, candidateId);
}

QList<CandidateRecord> RunStore::candidates(qint64 runId)
{
    return selectAll<CandidateRecord>(
        "candidates", QByteArray(candidateColumns) + "WHERE run_id = ?1 ORDER BY seq_in_run",
        candidateFromRow, runId);
}

qint64 RunStore::candidateCount(qint64 runId)
{
    return selectValue<qint64>("candidateCount",
                               "SELECT count(*) FROM candidates WHERE run_id = ?1", runId);
}

} // namespace kiln
