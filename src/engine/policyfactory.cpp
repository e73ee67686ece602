#include "policyfactory.h"

#include "engine/memory/storeresponsecache.h"
#include "policies/llmconfig.h"
#include "policies/llmpolicy.h"
#include "policies/offline/offlinepolicy.h"
#include "policies/replaypolicy.h"
#include "store/runstore.h"

namespace kiln {

QStringList PolicyFactory::offlineParameterNames()
{
    QStringList names{QStringLiteral("preset")};
    OfflinePolicyOptions options;
    for (const auto &[name, value] : options.numericSettings())
        names.append(name);
    return names;
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
    *error = QStringLiteral("unknown policy '%1' (offline, llm or replay)").arg(config.policy);
    return nullptr;
}

} // namespace kiln
