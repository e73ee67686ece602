#include "apiflavour.h"

namespace kiln {

QString apiFlavourName(ApiFlavour flavour)
{
    return flavour == ApiFlavour::AnthropicMessages ? QStringLiteral("anthropic")
                                                    : QStringLiteral("openai");
}

std::optional<ApiFlavour> apiFlavourFromName(const QString &name)
{
    const QString n = name.trimmed().toLower();
    if (n == QStringLiteral("openai") || n == QStringLiteral("chat") ||
        n == QStringLiteral("openai-chat"))
        return ApiFlavour::OpenAiChat;
    if (n == QStringLiteral("anthropic") || n == QStringLiteral("messages"))
        return ApiFlavour::AnthropicMessages;
    return std::nullopt;
}

} // namespace kiln
