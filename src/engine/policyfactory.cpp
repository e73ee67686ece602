#include "policyfactory.h"

#include "engine/storeresponsecache.h"
#include "policies/llmconfig.h"
#include "policies/llmpolicy.h"
#include "policies/offline/offlinepolicy.h"
#include "policies/replaypolicy.h"
#include "store/runstore.h"

namespace kiln {

QStringList PolicyFactory::offlineParameterNames()
{
    return {QStringLiteral("skill"), QStringLiteral("compile_error_rate"),
            QStringLiteral("wrong_rate"), QStringLiteral("gaming_rate")};
}

std::unique_ptr<Policy> PolicyFactory::create(const RunConfig &config, RunStore &store,
                                              QString *error)
{
    const QVariantMap &p = config.policyParameters;
    if (config.policy == QLatin1String("offline")) {
        OfflinePolicyOptions options;
        options.skill = p.value(QStringLiteral("skill"), options.skill).toDouble();
        options.compileErrorRate =
            p.value(QStringLiteral("compile_error_rate"), options.compileErrorRate).toDouble();
        options.wrongRate = p.value(QStringLiteral("wrong_rate"), options.wrongRate).toDouble();
        options.gamingRate = p.value(QStringLiteral("gaming_rate"), options.gamingRate).toDouble();
        for (double v :
             {options.skill, options.compileErrorRate, options.wrongRate, options.gamingRate}) {
            if (!(v >= 0.0 && v <= 1.0)) {
                *error = QStringLiteral("offline policy settings must lie in [0, 1]");
                return nullptr;
            }
        }
        return std::make_unique<OfflinePolicy>(options);
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
