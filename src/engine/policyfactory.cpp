#include "policyfactory.h"

#include "engine/memory/storeresponsecache.h"
#include "policies/command/commandpolicy.h"
#include "policies/llmconfig.h"
#include "policies/llmpolicy.h"
#include "policies/offline/offlinepolicy.h"
#include "policies/replaypolicy.h"
#include "store/runstore.h"
#include "verifier/harness/verifieroptions.h"

#include <QDir>
#include <QFileInfo>

namespace kiln {

QStringList PolicyFactory::offlineParameterNames()
{
    QStringList names{QStringLiteral("preset")};
    OfflinePolicyOptions options;
    for (const auto &[name, value] : options.numericSettings())
        names.append(name);
    return names;
}

// --command and --param command.timeout=S / command.read=DIR:DIR / command.write=DIR:DIR.
std::unique_ptr<Policy> PolicyFactory::createCommandPolicy(const QVariantMap &p, QString *error)
{
    CommandPolicyConfig config =
        CommandPolicyConfig::withDefaults(p.value(QStringLiteral("command")).toString());
    if (p.contains(QStringLiteral("command.timeout"))) {
        bool ok = false;
        config.timeoutSeconds = p.value(QStringLiteral("command.timeout")).toInt(&ok);
        if (!ok)
            config.timeoutSeconds = 0;
    }
    const auto paths = [&p](const char *key) {
        return p.value(QLatin1String(key)).toString().split(u':', Qt::SkipEmptyParts);
    };
    config.readable.append(paths("command.read"));
    config.writable.append(paths("command.write"));
    config.promptDir = p.value(QStringLiteral("command.prompts")).toString();
    if (config.sandbox.isEmpty()) // beside the verifier's sandboxes, built or installed
        config.sandbox = QFileInfo(VerifierOptions::defaults().sandbox.executable)
                             .dir()
                             .filePath(QStringLiteral("kiln-agent-sandbox"));
    const QString problem = config.validate();
    if (!problem.isEmpty()) {
        *error = problem;
        return nullptr;
    }
    return std::make_unique<CommandPolicy>(config);
}

std::unique_ptr<Policy> PolicyFactory::create(const RunConfig &config, RunStore &store,
                                              QString *error)
{
    const QVariantMap &p = config.policyParameters;
    if (config.policy == QLatin1String("offline")) {
        // A preset first, then any single setting given with --param.
        const QString presetName =
            p.value(QStringLiteral("preset"), QStringLiteral("frontier")).toString();
        std::optional<OfflinePolicyOptions> options = OfflinePolicyOptions::fromPreset(presetName);
        if (!options) {
            *error = QStringLiteral("unknown offline preset '%1' (known: %2)")
                         .arg(presetName,
                              OfflinePolicyOptions::presetNames().join(QStringLiteral(", ")));
            return nullptr;
        }
        for (const auto &[name, value] : options->numericSettings()) {
            if (!p.contains(name))
                continue;
            bool ok = false;
            const double v = p.value(name).toDouble(&ok);
            if (!ok || !(v >= 0.0 && v <= 1.0)) {
                *error = QStringLiteral("offline policy setting %1 must be a number in [0, 1]")
                             .arg(name);
                return nullptr;
            }
            *value = v;
        }
        return std::make_unique<OfflinePolicy>(*options);
    }
    if (config.policy == QLatin1String("llm")) {
        QMap<QString, QString> llmParams;
        for (auto it = p.cbegin(); it != p.cend(); ++it) {
            if (it.key().startsWith(QLatin1String("llm.")))
                llmParams.insert(it.key(), it.value().toString());
        }
        const std::optional<LlmConfig> llm = LlmConfig::fromCli(
            p.value(QStringLiteral("endpoint")).toString(),
            p.value(QStringLiteral("model")).toString(), p.value(QStringLiteral("api")).toString(),
            p.value(QStringLiteral("api_key_env")).toString(), llmParams, error);
        if (!llm)
            return nullptr;
        std::unique_ptr<LlmPolicy> policy =
            LlmPolicy::create(*llm, std::make_shared<StoreResponseCache>(store), error);
        return policy;
    }
    if (config.policy == QLatin1String("command"))
        return createCommandPolicy(p, error);
    if (config.policy == QLatin1String("replay")) {
        if (config.replayRunId <= 0 || !store.run(config.replayRunId)) {
            *error = QStringLiteral("--replay-run must name a run of this database");
            return nullptr;
        }
        QList<CandidateRecord> recorded = store.candidates(config.replayRunId);
        std::sort(recorded.begin(), recorded.end(),
                  [](const CandidateRecord &a, const CandidateRecord &b) {
                      return a.sampleIndex != b.sampleIndex ? a.sampleIndex < b.sampleIndex
                                                            : a.id < b.id;
                  });
        return std::make_unique<ReplayPolicy>(recorded, config.replayRunId);
    }
    *error =
        QStringLiteral("unknown policy '%1' (offline, llm, command or replay)").arg(config.policy);
    return nullptr;
}

} // namespace kiln
