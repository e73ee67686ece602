#include "candidaterecord.h"

namespace kiln {

namespace {

QJsonValue idToJson(const std::optional<qint64> &id)
{
    return id ? QJsonValue(double(*id)) : QJsonValue(QJsonValue::Null);
}

std::optional<qint64> idFromJson(const QJsonValue &value)
{
    if (value.isDouble())
        return qint64(value.toDouble());
    return std::nullopt;
}

} // namespace

QJsonObject CandidateRecord::toJson() const
{
    return {{QStringLiteral("id"), double(id)},
            {QStringLiteral("run_id"), double(runId)},
            {QStringLiteral("task"), task},
            {QStringLiteral("parent"), idToJson(parent)},
            {QStringLiteral("second_parent"), idToJson(secondParent)},
            {QStringLiteral("operation"), operationName(operation)},
            {QStringLiteral("generation"), generation},
            {QStringLiteral("island"), island},
            {QStringLiteral("source"), source},
            {QStringLiteral("policy"), policy},
            {QStringLiteral("policy_meta"), policyMeta},
            {QStringLiteral("prompt"), prompt},
            {QStringLiteral("reasoning"), reasoning},
            {QStringLiteral("response"), response},
            {QStringLiteral("prompt_tokens"), double(promptTokens)},
            {QStringLiteral("completion_tokens"), double(completionTokens)},
            {QStringLiteral("reasoning_tokens"), double(reasoningTokens)},
            {QStringLiteral("reasoning_length"), double(reasoningLength)},
            {QStringLiteral("sample_index"), double(sampleIndex)},
            {QStringLiteral("round"), round},
            {QStringLiteral("created_at"), createdAt.toString(Qt::ISODateWithMs)}};
}

CandidateRecord CandidateRecord::fromJson(const QJsonObject &o)
{
    CandidateRecord c;
    c.id = qint64(o.value(QStringLiteral("id")).toDouble());
    c.runId = qint64(o.value(QStringLiteral("run_id")).toDouble());
    c.task = o.value(QStringLiteral("task")).toString();
    c.parent = idFromJson(o.value(QStringLiteral("parent")));
    c.secondParent = idFromJson(o.value(QStringLiteral("second_parent")));
    c.operation = operationFromName(o.value(QStringLiteral("operation")).toString())
                      .value_or(Operation::Sample);
    c.generation = o.value(QStringLiteral("generation")).toInt();
    c.island = o.value(QStringLiteral("island")).toInt();
    c.source = o.value(QStringLiteral("source")).toString();
    c.policy = o.value(QStringLiteral("policy")).toString();
    c.policyMeta = o.value(QStringLiteral("policy_meta")).toObject();
    c.prompt = o.value(QStringLiteral("prompt")).toString();
    c.reasoning = o.value(QStringLiteral("reasoning")).toString();
    c.response = o.value(QStringLiteral("response")).toString();
    c.promptTokens = qint64(o.value(QStringLiteral("prompt_tokens")).toDouble());
    c.completionTokens = qint64(o.value(QStringLiteral("completion_tokens")).toDouble());
    c.reasoningTokens = qint64(o.value(QStringLiteral("reasoning_tokens")).toDouble());
    c.reasoningLength = qint64(o.value(QStringLiteral("reasoning_length")).toDouble());
    c.sampleIndex = qint64(o.value(QStringLiteral("sample_index")).toDouble(-1));
    c.round = o.value(QStringLiteral("round")).toInt(-1);
    c.createdAt =
        QDateTime::fromString(o.value(QStringLiteral("created_at")).toString(), Qt::ISODateWithMs);
    return c;
}

} // namespace kiln
