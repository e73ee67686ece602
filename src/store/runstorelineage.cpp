// RunStore's lineage views: the light columns of a run's candidates joined with their latest
// evaluation and flags, for the tree, the table and the plots.
#include "runstore.h"
#include "runstorequeries.h"

#include <vector>

namespace kiln {

namespace {

// The lineage columns of a candidate, and the light columns of its evaluations: what the tree
// and the table show. Sources, prompts, transcripts and stage data stay on disk: every column
// read here is in the covering indices candidates_lineage and evaluations_lineage, and the
// three reads below cost a scan of those indices each, never a lookup per row.
const char *const lineageCandidates =
    "SELECT c.id, c.task, c.parent_id, c.second_parent_id, c.operation, c.generation, c.island, "
    "c.sample_index, c.round, c.policy, c.prompt_tokens, c.completion_tokens, "
    "c.reasoning_tokens, c.reasoning_length, c.created_at FROM candidates c ";
// Evaluations and their flags, in the candidates' order, each candidate's in id order and each
// evaluation's flags in their order: the indices give this order, so nothing is sorted, and a
// candidate's last evaluation is its latest.
const char *const lineageEvaluations =
    "SELECT c.id, e.id, e.verdict, e.correct, e.speedup, e.candidate_ms, e.total_ms, e.summary, "
    "f.flag_id, f.message, e.speedup_low, e.speedup_high, e.confirmed, e.duplicate_of "
    "FROM candidates c JOIN evaluations e ON e.candidate_id = c.id "
    "LEFT JOIN flags f ON f.evaluation_id = e.id ";

// A whole run, or a list of ids (a live document catching up), looked up by primary key.
QByteArray lineageFilter(bool all)
{
    return all ? QByteArray("WHERE c.run_id = ?1 ")
               : QByteArray("WHERE c.id IN (SELECT value FROM json_each(?2)) AND c.run_id = ?1 ");
}

// Texts that repeat down a run's rows (task, policy, operation, verdict), decoded once: a run of
// 100,000 candidates has a handful of distinct values in each of these columns.
class RepeatedTexts
{
public:
    QString get(const SqliteStatement &s, int column)
    {
        const QByteArrayView raw = s.bytes(column);
        for (const auto &[bytes, text] : m_seen)
            if (bytes == raw)
                return text;
        if (m_seen.size() >= 64)
            return s.text(column); // not a repeating column after all
        m_seen.emplace_back(raw.toByteArray(), CandidateSummary::shared(s.text(column)));
        return m_seen.back().second;
    }

private:
    std::vector<std::pair<QByteArray, QString>> m_seen;
};

CandidateSummary summaryFromRow(const SqliteStatement &s, RepeatedTexts &texts)
{
    CandidateSummary c;
    c.id = s.int64(0);
    c.task = texts.get(s, 1);
    s.columns(2, c.parent, c.secondParent);
    c.operation = operationFromName(texts.get(s, 4)).value_or(Operation::Sample);
    s.columns(5, c.generation, c.island, c.sampleIndex, c.round);
    c.policy = texts.get(s, 9);
    s.columns(10, c.promptTokens, c.completionTokens, c.reasoningTokens, c.reasoningLength,
              c.createdAt);
    return c;
}

// One row of lineageEvaluations into its candidate: a new evaluation replaces the one before;
// a further row of the same evaluation adds a flag.
void applyEvaluationRow(const SqliteStatement &s, RepeatedTexts &texts, qint64 &evaluationId,
                        CandidateSummary &c)
{
    if (s.int64(1) != evaluationId) {
        evaluationId = s.int64(1);
        c.evaluated = true;
        c.verdict = verdictFromName(texts.get(s, 2)).value_or(Verdict::Crash);
        s.columns(3, c.correct, c.speedup, c.candidateMs, c.evaluationMs, c.summary);
        s.columns(10, c.speedupLow, c.speedupHigh, c.confirmed, c.duplicateOf);
        c.flagIds.clear();
        c.firstFlag.clear();
    }
    if (s.isNull(8))
        return;
    if (c.flagIds.isEmpty())
        c.firstFlag = s.text(8) + QStringLiteral(": ") + s.text(9);
    c.flagIds << texts.get(s, 8);
}

} // namespace

QList<CandidateSummary> RunStore::lineage(qint64 runId, const QList<qint64> &ids)
{
    QMutexLocker lock(&m_mutex);
    clearErrorOutsideTransaction();
    QList<CandidateSummary> result;
    QString idList;
    if (!ids.isEmpty()) {
        QStringList words;
        for (qint64 id : ids)
            words << QString::number(id);
        idList = QLatin1Char('[') + words.join(QLatin1Char(',')) + QLatin1Char(']');
    }
    const bool all = idList.isEmpty();
    auto statement = [&](const char *columns, const char *order) {
        auto s = std::make_unique<SqliteStatement>(m_db, columns + lineageFilter(all) + order);
        s->bind(1, runId);
        if (!all)
            s->bind(2, idList);
        return s;
    };
    const bool ok = readSnapshot([&] {
        if (all) { // a large run would grow the list a dozen times
            SqliteStatement count(m_db, "SELECT count(*) FROM candidates WHERE run_id = ?1");
            count.bind(1, runId);
            result.reserve(count.next() ? qsizetype(count.int64(0)) : 0);
        }
        RepeatedTexts texts;
        const char *order = "ORDER BY c.run_id, c.seq_in_run";
        auto rows = statement(lineageCandidates, order);
        while (rows->next())
            result.append(summaryFromRow(*rows, texts));
        // Both reads walk the candidates in the same order: a cursor pairs them up.
        auto evaluations =
            statement(lineageEvaluations, "ORDER BY c.run_id, c.seq_in_run, e.id, f.idx");
        qsizetype row = 0;
        qint64 evaluationId = 0;
        while (evaluations->next()) {
            const qint64 candidate = evaluations->int64(0);
            while (row < result.size() && result[row].id != candidate) {
                ++row;
                evaluationId = 0;
            }
            if (row == result.size())
                break; // cannot happen inside one snapshot
            applyEvaluationRow(*evaluations, texts, evaluationId, result[row]);
        }
        for (const auto *s : {rows.get(), evaluations.get()})
            if (!s->ok())
                return setError(QStringLiteral("lineage"), s->error());
        return true;
    });
    if (!ok)
        result.clear();
    return result;
}

QHash<qint64, CandidatePlotFacts> RunStore::plotFacts(qint64 runId)
{
    QMutexLocker lock(&m_mutex);
    clearErrorOutsideTransaction();
    QHash<qint64, CandidatePlotFacts> facts;
    SqliteStatement s(m_db,
                      "SELECT c.id, json_extract(c.policy_meta_json, '$.cost'), e.created_at, "
                      "json_extract(x.data_json, '$.bytes'), json_extract(x.data_json, '$.flops'), "
                      "json_extract(x.data_json, '$.bandwidth_gbps'), "
                      "json_extract(x.data_json, '$.peak_tflops') FROM candidates c "
                      "LEFT JOIN evaluations e ON e.id = "
                      "(SELECT max(id) FROM evaluations WHERE candidate_id = c.id) "
                      "LEFT JOIN stages x ON x.evaluation_id = e.id AND x.name = 'timing' "
                      "WHERE c.run_id = ?1");
    s.bind(1, runId);
    while (s.next()) {
        CandidatePlotFacts f;
        f.cost = s.optionalReal(1).value_or(0.0);
        if (!s.isNull(2))
            f.evaluatedAt = s.dateTime(2);
        f.bytes = s.optionalReal(3).value_or(0.0);
        f.flops = s.optionalReal(4).value_or(0.0);
        f.bandwidthGbps = s.optionalReal(5).value_or(0.0);
        f.peakTflops = s.optionalReal(6).value_or(0.0);
        facts.insert(s.int64(0), f);
    }
    if (!s.ok())
        setError(QStringLiteral("plotFacts"), s.error());
    return facts;
}

} // namespace kiln
