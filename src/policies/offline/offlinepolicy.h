#pragma once

#include "policies/offline/counterrng.h"
#include "policies/offline/promptnotes.h"
#include "policies/offline/variantspace.h"
#include "policies/policy.h"
#include "policies/promptbuilder.h"

#include <QJsonObject>
#include <QMap>
#include <QMutex>
#include <memory>
#include <optional>

namespace kiln {

// Settings of the simulated LLM. The presets ("frontier", the default, and "weak") set every
// per-step figure from a published one (docs/offline-policy.md cites each); a `--param` may
// override any of them.
struct OfflinePolicyOptions
{
    QString preset = QStringLiteral("frontier");
    double skill = 0.7; // [0, 1]: how well it picks knob values and reads timing feedback
    // A fresh kernel for a task the model knows fails in one of these ways (per generation).
    double compileErrorRate = 0.05;
    double wrongRate = 0.04;
    double gamingRate = 0.015;
    // For this share of (run, task) pairs the model holds a misconception: its fresh kernels
    // repeat one mistake and pass only at stuckPassRate. Width cannot fix that; feedback can.
    double stuckShare = 0.57;
    double stuckPassRate = 0.02;
    double fixRate = 0.55;    // a turn whose feedback points at the failure fixes it
    double followRate = 0.77; // a timing-feedback turn moves a knob the feedback names
    // How strongly a long reasoning trace goes with a failed kernel (ConCuR's direction).
    double lengthCoupling = 0.5;
    QString model = QStringLiteral("kiln-offline-sim");
    QString promptTemplateDir; // PromptBuilder overrides; empty: the embedded templates

    QJsonObject toJson() const;
    static OfflinePolicyOptions fromJson(const QJsonObject &object);
    // The named presets; nullopt for an unknown name.
    static std::optional<OfflinePolicyOptions> fromPreset(const QString &name);
    static QStringList presetNames();
    // The numeric settings by their `--param` names, for overrides and validation.
    QList<std::pair<QString, double *>> numericSettings();
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
    // The variant space used for a task (embedded; a KernelBench problem's in the run's
    // language), cached; nullptr when the task has none.
    std::shared_ptr<const VariantSpace> space(const Task &task, Backend backend) const;

private:
    struct Plan;
    struct Draws;
    // Why a KernelBench problem gets no candidates (no space in the run's language, or a
    // reference that is not the one the space was written for); empty when it has a space.
    QString kernelBenchRefusal(const Task &task) const;
    // The kernel language of a task's space: the run's for KernelBench ("cuda" by default).
    static QString spaceLanguage(const Task &task, Backend backend);
    // The knob moves feedback of `kind` suggests, with the skill-weighted odds of each.
    struct FeedbackMoves
    {
        QList<const Knob *> knobs;
        QStringList values;
        QList<double> weights;
    };
    static FeedbackMoves feedbackMoves(const VariantSpace &space, const KnobConfig &knobs,
                                       const QString &kind, double skill);
    // The knob moves the prompt proposes: the agents' plan for the coder, else the memory's.
    static void readPromptMoves(const GenerationRequest &request, const Prompt &prompt, Plan &plan);
    // Applies the plan's prompt moves, each followed at followRate; true when any was.
    bool followPromptMoves(const GenerationRequest &request, const VariantSpace &space,
                           Plan &plan) const;
    // The profiler's, planner's or tester's answer (the tester's and profiler's words are
    // OfflineRoles').
    GenerationResult roleAnswer(const GenerationRequest &request, const VariantSpace *space,
                                const Prompt &prompt) const;
    // The planner's numbered plan of "set knob = value" steps for the parent it was shown.
    QString planText(const GenerationRequest &request, const VariantSpace *space,
                     const Prompt &prompt, CounterRng &rng) const;
    void planFailure(const GenerationRequest &request, bool stuck, Draws &draws, Plan &plan) const;
    void applyDefect(const GenerationRequest &request, CounterRng &rng, QString *source,
                     Plan &plan) const;
    bool taskIsStuck(const GenerationRequest &request, QString *misconception) const;
    KnobConfig samplePrior(const VariantSpace &space, double skill, CounterRng &rng) const;
    KnobConfig mutate(const VariantSpace &space, KnobConfig config, double skill, int moves,
                      CounterRng &rng) const;
    void planRefinement(const GenerationRequest &request, const VariantSpace *space, double skill,
                        CounterRng &rng, Plan &plan) const;

    // Why the request cannot be served at all (cancelled, no task, a KernelBench problem);
    // empty when it can.
    QString requestError(const GenerationRequest &request, const std::atomic<bool> &cancel) const;
    // The refusal of an edit whose parent this model did not write; empty when it wrote them all.
    static QString foreignParentError(const GenerationRequest &request, const VariantSpace *space);
    // The knobs of parent `parent` when it is a point of the space, else a draw from the prior.
    KnobConfig startingKnobs(const GenerationRequest &request, const VariantSpace *space,
                             int parent, CounterRng &rng) const;
    // The variant this generation writes and the reasoning behind it, per operation.
    void planKnobs(const GenerationRequest &request, const VariantSpace *space, Draws &draws,
                   Plan &plan) const;
    void planCrossover(const VariantSpace *space, const KnobConfig &a, const KnobConfig &b,
                       CounterRng &rng, Plan &plan) const;
    // A refinement of a failed parent: fix it, or keep its code as it was.
    void planRepair(const GenerationRequest &request, const VariantSpace *space,
                    const EvaluationResult &evaluation, CounterRng &rng, Plan &plan) const;
    void attemptFix(const CandidateRecord &parent, const QList<int> &deviating, bool guided,
                    const QString &what, CounterRng &rng, Plan &plan) const;
    // A refinement of a correct parent: a knob moved the way its timing feedback points.
    void planFeedbackMove(const EvaluationResult *evaluation, const VariantSpace &space,
                          double skill, CounterRng &rng, Plan &plan) const;
    static QString responseText(const GenerationRequest &request, const VariantSpace &space,
                                const Plan &plan, const QString &source);
    QJsonObject candidateMeta(const GenerationRequest &request, const VariantSpace &space,
                              const Draws &draws, const Plan &plan) const;
    void fillCandidate(const GenerationRequest &request, const VariantSpace &space,
                       const Prompt &prompt, const QString &source, const Draws &draws,
                       const Plan &plan, CandidateRecord &c) const;

    OfflinePolicyOptions m_options;
    PromptBuilder m_prompts;
    mutable QMutex m_mutex;
    mutable QMap<QString, std::shared_ptr<const VariantSpace>> m_spaces;
};

} // namespace kiln
