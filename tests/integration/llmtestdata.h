#pragma once

// Canned provider responses (OpenAI Chat Completions, Anthropic Messages, DeepSeek) in their real
// wire formats, shared by the LLM integration tests.

#include "scriptedhttpserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace kiln::test {

inline QString answerText()
{
    return QStringLiteral("Here is the kernel:\n```cpp\nextern \"C\" void vector_add(const float* "
                          "a, const float* b, float* c, int n) {\n    for (int i = 0; i < n; ++i) "
                          "c[i] = a[i] + b[i];\n}\n```\nIt is memory bound.");
}

inline QString answerCode()
{
    return QStringLiteral("extern \"C\" void vector_add(const float* a, const float* b, float* c, "
                          "int n) {\n    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];\n}\n");
}

inline QByteArray compact(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

inline QByteArray sse(const QJsonObject &o, const QByteArray &event = QByteArray())
{
    QByteArray out;
    if (!event.isEmpty())
        out += "event: " + event + "\n";
    return out + "data: " + compact(o) + "\n\n";
}

inline QJsonObject openAiCompletion(const QString &content, qint64 prompt, qint64 completion,
                                    qint64 reasoning, const QString &reasoningContent = QString())
{
    QJsonObject message{{QStringLiteral("role"), QStringLiteral("assistant")},
                        {QStringLiteral("content"), content}};
    if (!reasoningContent.isEmpty())
        message.insert(QStringLiteral("reasoning_content"), reasoningContent);
    QJsonObject usage{{QStringLiteral("prompt_tokens"), prompt},
                      {QStringLiteral("completion_tokens"), completion},
                      {QStringLiteral("total_tokens"), prompt + completion}};
    if (reasoning >= 0)
        usage.insert(QStringLiteral("completion_tokens_details"),
                     QJsonObject{{QStringLiteral("reasoning_tokens"), reasoning}});
    return {{QStringLiteral("id"), QStringLiteral("chatcmpl-1")},
            {QStringLiteral("object"), QStringLiteral("chat.completion")},
            {QStringLiteral("model"), QStringLiteral("test-model")},
            {QStringLiteral("choices"),
             QJsonArray{QJsonObject{{QStringLiteral("index"), 0},
                                    {QStringLiteral("message"), message},
                                    {QStringLiteral("finish_reason"), QStringLiteral("stop")}}}},
            {QStringLiteral("usage"), usage}};
}

inline QJsonObject openAiDelta(const QString &field, const QString &text,
                               const QJsonValue &finish = QJsonValue::Null)
{
    QJsonObject delta;
    if (!field.isEmpty())
        delta.insert(field, text);
    return {{QStringLiteral("id"), QStringLiteral("chatcmpl-1")},
            {QStringLiteral("object"), QStringLiteral("chat.completion.chunk")},
            {QStringLiteral("model"), QStringLiteral("test-model")},
            {QStringLiteral("choices"),
             QJsonArray{QJsonObject{{QStringLiteral("index"), 0},
                                    {QStringLiteral("delta"), delta},
                                    {QStringLiteral("finish_reason"), finish}}}}};
}

inline QJsonObject openAiUsageChunk(qint64 prompt, qint64 completion, qint64 reasoning)
{
    QJsonObject usage{{QStringLiteral("prompt_tokens"), prompt},
                      {QStringLiteral("completion_tokens"), completion},
                      {QStringLiteral("total_tokens"), prompt + completion}};
    if (reasoning >= 0)
        usage.insert(QStringLiteral("completion_tokens_details"),
                     QJsonObject{{QStringLiteral("reasoning_tokens"), reasoning}});
    return {{QStringLiteral("id"), QStringLiteral("chatcmpl-1")},
            {QStringLiteral("object"), QStringLiteral("chat.completion.chunk")},
            {QStringLiteral("choices"), QJsonArray()},
            {QStringLiteral("usage"), usage}};
}

// The whole OpenAI stream of `content` (split in three deltas), optionally with reasoning
// deltas in `reasoningField` first, a usage chunk and [DONE].
inline QList<QByteArray> openAiStream(const QString &content, const QString &reasoningField = {},
                                      const QString &reasoning = {}, qint64 prompt = 100,
                                      qint64 completion = 60, qint64 reasoningTokens = -1)
{
    QList<QByteArray> chunks;
    chunks << sse(openAiDelta(QStringLiteral("role"), QStringLiteral("assistant")));
    if (!reasoningField.isEmpty()) {
        chunks << sse(openAiDelta(reasoningField, reasoning.left(reasoning.size() / 2)));
        chunks << sse(openAiDelta(reasoningField, reasoning.mid(reasoning.size() / 2)));
    }
    const qsizetype third = content.size() / 3;
    chunks << sse(openAiDelta(QStringLiteral("content"), content.left(third)));
    chunks << sse(openAiDelta(QStringLiteral("content"), content.mid(third, third)));
    chunks << sse(openAiDelta(QStringLiteral("content"), content.mid(2 * third)));
    chunks << sse(openAiDelta(QString(), QString(), QStringLiteral("stop")));
    chunks << sse(openAiUsageChunk(prompt, completion, reasoningTokens));
    chunks << "data: [DONE]\n\n";
    return chunks;
}

inline QJsonObject anthropicMessage(const QString &text, const QString &thinking, qint64 input,
                                    qint64 output)
{
    QJsonArray content;
    if (!thinking.isEmpty())
        content.append(QJsonObject{{QStringLiteral("type"), QStringLiteral("thinking")},
                                   {QStringLiteral("thinking"), thinking},
                                   {QStringLiteral("signature"), QStringLiteral("sig")}});
    content.append(QJsonObject{{QStringLiteral("type"), QStringLiteral("text")},
                               {QStringLiteral("text"), text}});
    return {{QStringLiteral("id"), QStringLiteral("msg_1")},
            {QStringLiteral("type"), QStringLiteral("message")},
            {QStringLiteral("role"), QStringLiteral("assistant")},
            {QStringLiteral("model"), QStringLiteral("claude-test")},
            {QStringLiteral("content"), content},
            {QStringLiteral("stop_reason"), QStringLiteral("end_turn")},
            {QStringLiteral("usage"), QJsonObject{{QStringLiteral("input_tokens"), input},
                                                  {QStringLiteral("output_tokens"), output}}}};
}

inline QList<QByteArray> anthropicStream(const QString &text, const QString &thinking, qint64 input,
                                         qint64 output)
{
    auto event = [](const char *type, const QJsonObject &o) {
        QJsonObject withType = o;
        withType.insert(QStringLiteral("type"), QString::fromLatin1(type));
        return sse(withType, type);
    };
    QList<QByteArray> chunks;
    chunks << event("message_start",
                    {{QStringLiteral("message"),
                      QJsonObject{{QStringLiteral("id"), QStringLiteral("msg_1")},
                                  {QStringLiteral("type"), QStringLiteral("message")},
                                  {QStringLiteral("role"), QStringLiteral("assistant")},
                                  {QStringLiteral("model"), QStringLiteral("claude-test")},
                                  {QStringLiteral("content"), QJsonArray()},
                                  {QStringLiteral("usage"),
                                   QJsonObject{{QStringLiteral("input_tokens"), input},
                                               {QStringLiteral("output_tokens"), 1}}}}}});
    chunks << event("ping", {});
    int index = 0;
    if (!thinking.isEmpty()) {
        chunks << event("content_block_start",
                        {{QStringLiteral("index"), index},
                         {QStringLiteral("content_block"),
                          QJsonObject{{QStringLiteral("type"), QStringLiteral("thinking")},
                                      {QStringLiteral("thinking"), QString()}}}});
        chunks << event("content_block_delta",
                        {{QStringLiteral("index"), index},
                         {QStringLiteral("delta"),
                          QJsonObject{{QStringLiteral("type"), QStringLiteral("thinking_delta")},
                                      {QStringLiteral("thinking"), thinking}}}});
        chunks << event("content_block_delta",
                        {{QStringLiteral("index"), index},
                         {QStringLiteral("delta"),
                          QJsonObject{{QStringLiteral("type"), QStringLiteral("signature_delta")},
                                      {QStringLiteral("signature"), QStringLiteral("EqQBCg")}}}});
        chunks << event("content_block_stop", {{QStringLiteral("index"), index}});
        ++index;
    }
    chunks << event("content_block_start",
                    {{QStringLiteral("index"), index},
                     {QStringLiteral("content_block"),
                      QJsonObject{{QStringLiteral("type"), QStringLiteral("text")},
                                  {QStringLiteral("text"), QString()}}}});
    const qsizetype half = text.size() / 2;
    for (const QString &part : {text.left(half), text.mid(half)})
        chunks << event("content_block_delta",
                        {{QStringLiteral("index"), index},
                         {QStringLiteral("delta"),
                          QJsonObject{{QStringLiteral("type"), QStringLiteral("text_delta")},
                                      {QStringLiteral("text"), part}}}});
    chunks << event("content_block_stop", {{QStringLiteral("index"), index}});
    chunks << event(
        "message_delta",
        {{QStringLiteral("delta"),
          QJsonObject{{QStringLiteral("stop_reason"), QStringLiteral("end_turn")},
                      {QStringLiteral("stop_sequence"), QJsonValue::Null}}},
         {QStringLiteral("usage"), QJsonObject{{QStringLiteral("output_tokens"), output}}}});
    chunks << event("message_stop", {});
    return chunks;
}

inline QByteArray anthropicError(const QString &type, const QString &message)
{
    return compact({{QStringLiteral("type"), QStringLiteral("error")},
                    {QStringLiteral("error"), QJsonObject{{QStringLiteral("type"), type},
                                                          {QStringLiteral("message"), message}}}});
}

inline QByteArray openAiError(const QString &type, const QString &message)
{
    return compact(
        {{QStringLiteral("error"), QJsonObject{{QStringLiteral("type"), type},
                                               {QStringLiteral("message"), message},
                                               {QStringLiteral("code"), QJsonValue::Null}}}});
}

} // namespace kiln::test
