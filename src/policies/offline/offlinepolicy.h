#pragma once

#include "policies/offline/counterrng.h"
#include "policies/offline/variantspace.h"
#include "policies/policy.h"
#include "policies/promptbuilder.h"

#include <QJsonObject>
#include <QMap>
#include <QMutex>
#include <memory>

namespace kiln {

// Settings of the simulated LLM. The rates are per generation at skill 0.5; skill scales them
// (factor 1.6 - 1.2 * skill), the prior's quality, the fix probabilities and how faithfully a
// refinement follows the feedback (docs/offline-policy.md).
struct OfflinePolicyOptions
{
    double skill = 0.5; // [0, 1]
    double compileErrorRate = 0.15;
    double wrongRate = 0.12;
    double gamingRate = 0.05;
    QString model = QStringLiteral("kiln-offline-sim");
    QString promptTemplateDir; // PromptBuilder overrides; empty: the embedded templates

    QJsonObject toJson() const;
    static OfflinePolicyOptions fromJson(const QJsonObject &object);
};

// The embedded default policy: a simulated language model that writes real kernel variants
// from each task's variant space, with LLM-like failure modes, reacting to the verifier's
// feedback. Deterministic per (run seed, sample index): the same request gives the same source
// regardless of threads, order or resume. Everything it produces is labelled simulated.
class OfflinePolicy : public Policy
{
public:
    explicit OfflinePolicy(OfflinePolicyOptions options = {});

    QString name() const override { return QStringLiteral("offline"); }
    bool isSimulated() const override { return true; }
    QString refusal(const Task &task, Backend backend) const override;
    GenerationResult generate(const GenerationRequest &request,
                              const std::atomic<bool> &cancel) override;

    const OfflinePolicyOptions &options() const { return m_options; }

    // What the feedback of a correct parent asks for: "memory_bound", "compute_bound",
    // "launch_bound" or "latency" (verifier hint first, then timing, then the space's default).
    static QString feedbackKind(const EvaluationResult &evaluation, const VariantSpace &space);
    // The variant space used for a task (embedded), cached; nullptr when the task has none.
    std::shared_ptr<const VariantSpace> space(const QString &task, Backend backend) const;

private:
    struct Plan;
    KnobConfig samplePrior(const VariantSpace &space, double skill, CounterRng &rng) const;
    KnobConfig mutate(const VariantSpace &space, KnobConfig config, double skill, int moves,
                      CounterRng &rng) const;
    void planRefinement(const GenerationRequest &request, const VariantSpace *space, double skill,
                        CounterRng &rng, Plan &plan) const;

    OfflinePolicyOptions m_options;
    PromptBuilder m_prompts;
    mutable QMutex m_mutex;
    mutable QMap<QString, std::shared_ptr<const VariantSpace>> m_spaces;
};

} // namespace kiln
