#include "offlinepolicy.h"

#include "languages/kernellanguages.h"
#include "policies/feedbacksummary.h"
#include "policies/offline/defectinjector.h"
#include "policies/offline/feedbackreader.h"
#include "policies/offline/offlineroles.h"
#include "policies/offline/tokenestimator.h"

#include <QDateTime>
#include <QJsonArray>
#include <QMutexLocker>
#include <cmath>

namespace kiln {

namespace {

const QString kSimulatedLabel = QStringLiteral(
    "[simulated — written by Kiln's offline policy from the task's variant space; no language "
    "model was called]");

constexpr quint64 kStreamKnobs = 1;
constexpr quint64 kStreamDefects = 2;
constexpr quint64 kStreamTokens = 3;
constexpr quint64 kStreamDecisions = 4;
constexpr quint64 kStreamMisconception = 5;
constexpr quint64 kStreamPromptMoves = 6;
constexpr quint64 kStreamRoles = 16; // + the role's index: each role draws its own trace

double clamp01(double value)
{
    return std::clamp(value, 0.0, 1.0);
}

std::optional<KnobConfig> parentKnobs(const CandidateRecord &parent, const VariantSpace *space)
{
    if (!space)
        return std::nullopt;
    const QJsonValue knobs = parent.policyMeta.value(QStringLiteral("knobs"));
    if (!knobs.isObject())
        return std::nullopt;
    const KnobConfig config = VariantSpace::configFromJson(knobs.toObject());
    if (!space->isValid(config))
        return std::nullopt;
    return config;
}

QString moveKnob(const Knob &knob, const QString &current, const QString &target)
{
    const qsizetype index = knob.values.indexOf(current);
    if (target == QLatin1String("up"))
        return knob.values.value(std::min(index + 1, knob.values.size() - 1), current);
    if (target == QLatin1String("down"))
        return knob.values.value(std::max<qsizetype>(index - 1, 0), current);
    return target;
}

// The limiter a kernel of this space has when nothing measured says otherwise.
QString usualBound(const VariantSpace *space)
{
    return space && space->bound() == QLatin1String("compute") ? QStringLiteral("compute_bound")
                                                               : QStringLiteral("memory_bound");
}

// Whether a proposed move can be made on `knobs`: a knob of the space, a value it has, a change.
bool applies(const VariantSpace &space, const KnobConfig &knobs, const PromptNotes::KnobMove &move)
{
    const Knob *knob = space.knob(move.knob);
    return knob && knob->values.contains(move.value) && knobs.value(move.knob) != move.value;
}

double valueQuality(const Knob &knob, const QString &value)
{
    const qsizetype index = knob.values.indexOf(value);
    return index >= 0 ? knob.quality.at(index) : 0.0;
}

QString feedbackPhrase(const QString &kind)
{
    if (kind == QLatin1String("memory_bound"))
        return QStringLiteral("the kernel is memory-bound");
    if (kind == QLatin1String("compute_bound"))
        return QStringLiteral("the kernel is compute-bound");
    if (kind == QLatin1String("launch_bound"))
        return QStringLiteral("the run time is dominated by launch overhead");
    return QStringLiteral("the kernel is far from the roofline, latency-bound");
}

} // namespace

struct OfflinePolicy::Plan
{
    KnobConfig knobs;
    QString category; // "" (none), "compile_error", "wrong", "gaming"
    QString feedback; // feedback kind a refinement acted on
    bool fixedParent = false;
    bool keptParent = false; // a failed fix: the parent's source, unchanged
    QStringList notes;       // simulated reasoning, one sentence each
    QString kind;            // the defect kind to apply; empty: any of the category
    QString misconception;   // "category:kind" the model repeats on this task, if any
    QString injected = QStringLiteral("none");
    int injectedLine = 0;
    QList<PromptNotes::KnobMove> promptMoves; // from the memory or the agents' plan
    QString promptMovesFrom;                  // "The plan", "A lesson of the memory"
    bool followAllMoves = false;              // a plan or a first version: every move; else one
};

// The generation's random streams and its reasoning trace. The trace needs `needLength`
// tokens; with a budget the model also fills part of what it was given, and a budget below the
// need cuts the trace short.
struct OfflinePolicy::Draws
{
    Draws(const GenerationRequest &request, double difficulty)
        : knobs(root(request).fork(kStreamKnobs)), defects(root(request).fork(kStreamDefects)),
          decisions(root(request).fork(kStreamDecisions)),
          typicalLength(400.0 + 2600.0 * difficulty), fill(0.55 + 0.3 * difficulty)
    {
        CounterRng tokens = root(request).fork(kStreamTokens);
        latent = tokens.normal();
        needLength = typicalLength * std::exp(0.35 * latent);
    }
    static CounterRng root(const GenerationRequest &request)
    {
        const CounterRng base(request.seed, static_cast<quint64>(request.sampleIndex));
        const qsizetype role = GenerationRequest::roles().indexOf(request.role);
        return role < 0 ? base : base.fork(kStreamRoles + quint64(role));
    }
    double cutShare(const GenerationRequest &request) const
    {
        const double budget = double(request.reasoningLength);
        return budget > 0 && needLength > budget ? 1.0 - budget / needLength : 0.0;
    }
    bool truncated(const GenerationRequest &request) const { return cutShare(request) > 0.0; }
    qint64 reasoningTokens(const GenerationRequest &request) const
    {
        const double budget = double(request.reasoningLength);
        if (budget <= 0)
            return qint64(needLength);
        return qint64(std::min(budget, std::max(needLength, fill * budget)));
    }

    CounterRng knobs;
    CounterRng defects;
    CounterRng decisions;
    double typicalLength;
    double fill;
    double latent = 0.0;
    double needLength = 0.0;
};

QList<std::pair<QString, double *>> OfflinePolicyOptions::numericSettings()
{
    return {{QStringLiteral("skill"), &skill},
            {QStringLiteral("compile_error_rate"), &compileErrorRate},
            {QStringLiteral("wrong_rate"), &wrongRate},
            {QStringLiteral("gaming_rate"), &gamingRate},
            {QStringLiteral("stuck_share"), &stuckShare},
            {QStringLiteral("stuck_pass_rate"), &stuckPassRate},
            {QStringLiteral("fix_rate"), &fixRate},
            {QStringLiteral("follow_rate"), &followRate},
            {QStringLiteral("length_coupling"), &lengthCoupling}};
}

QStringList OfflinePolicyOptions::presetNames()
{
    return {QStringLiteral("frontier"), QStringLiteral("weak")};
}

std::optional<OfflinePolicyOptions> OfflinePolicyOptions::fromPreset(const QString &name)
{
    OfflinePolicyOptions o; // the defaults are the frontier preset
    if (name == QLatin1String("frontier"))
        return o;
    if (name != QLatin1String("weak"))
        return std::nullopt;
    o.preset = name;
    o.skill = 0.2;
    o.compileErrorRate = 0.25;
    o.wrongRate = 0.21;
    o.gamingRate = 0.08;
    o.stuckShare = 0.62;
    o.stuckPassRate = 0.02;
    o.fixRate = 0.22;
    o.followRate = 0.47;
    return o;
}

QJsonObject OfflinePolicyOptions::toJson() const
{
    QJsonObject object{{QStringLiteral("preset"), preset},
                       {QStringLiteral("model"), model},
                       {QStringLiteral("prompt_template_dir"), promptTemplateDir}};
    OfflinePolicyOptions copy = *this;
    for (const auto &[name, value] : copy.numericSettings())
        object.insert(name, *value);
    return object;
}

OfflinePolicyOptions OfflinePolicyOptions::fromJson(const QJsonObject &object)
{
    const QString presetName = object.value(QStringLiteral("preset")).toString();
    OfflinePolicyOptions o = fromPreset(presetName).value_or(OfflinePolicyOptions{});
    for (const auto &[name, value] : o.numericSettings())
        *value = clamp01(object.value(name).toDouble(*value));
    o.model = object.value(QStringLiteral("model")).toString(o.model);
    o.promptTemplateDir = object.value(QStringLiteral("prompt_template_dir")).toString();
    return o;
}

OfflinePolicy::OfflinePolicy(OfflinePolicyOptions options)
    : m_options(std::move(options)), m_prompts(m_options.promptTemplateDir)
{
    for (const auto &[name, value] : m_options.numericSettings())
        *value = clamp01(*value);
}

QString OfflinePolicy::refusal(const Task &task, Backend backend) const
{
    if (task.isKernelBench() || backend == Backend::Torch)
        return kernelBenchRefusal(task);
    if (space(task, backend))
        return {};
    return QStringLiteral("the offline policy writes kernels only for tasks with a variant space, "
                          "and %1 has none for the %2 backend; use --policy llm (a model), "
                          "--policy replay (a recorded run), or submit kernels by hand")
        .arg(task.name, backendName(backend));
}

QString OfflinePolicy::kernelBenchRefusal(const Task &task) const
{
    const QString language = spaceLanguage(task, Backend::Torch);
    const auto space = this->space(task, Backend::Torch);
    QString pattern;
    // The prompt shows the problem's reference: a space is used only where that source is the
    // one its template was written for (a newer KernelBench may change a problem).
    if (space && space->fitsReference(task.referenceSource.value(Backend::Torch), &pattern))
        return {};
    if (space)
        return QStringLiteral("%1's reference is not the problem the offline policy's %2 "
                              "variants were written for (it does not match /%3/); use --policy "
                              "llm (or replay/manual)")
            .arg(task.name, language, pattern);
    // What it can write instead, language by language.
    QStringList known;
    for (const QString &id : KernelLanguages::ids()) {
        const QStringList problems = VariantSpace::availableKernelBench(id);
        if (!problems.isEmpty())
            known << QStringLiteral("%1 in %2").arg(problems.join(QStringLiteral(", ")), id);
    }
    return QStringLiteral("%1 has no variant space of the offline policy in %2 (it writes "
                          "KernelBench candidates only for %3): use --policy llm (or "
                          "replay/manual)")
        .arg(task.name, language,
             known.isEmpty() ? QStringLiteral("no problem") : known.join(QStringLiteral("; ")));
}

QString OfflinePolicy::spaceLanguage(const Task &task, Backend backend)
{
    if (backend != Backend::Torch)
        return {};
    return task.candidateLanguage.isEmpty() ? KernelLanguages::defaultLanguage().id()
                                            : task.candidateLanguage;
}

std::shared_ptr<const VariantSpace> OfflinePolicy::space(const Task &task, Backend backend) const
{
    const QString language = spaceLanguage(task, backend);
    const QString key =
        task.name + QLatin1Char('/') + backendName(backend) + QLatin1Char('/') + language;
    QMutexLocker locker(&m_mutex);
    auto it = m_spaces.constFind(key);
    if (it != m_spaces.constEnd())
        return it.value();
    std::shared_ptr<const VariantSpace> loaded;
    auto space = backend == Backend::Torch ? VariantSpace::loadKernelBench(task.name, language)
                                           : VariantSpace::loadEmbedded(task.name, backend);
    if (space)
        loaded = std::make_shared<const VariantSpace>(std::move(*space));
    m_spaces.insert(key, loaded);
    return loaded;
}

QString OfflinePolicy::feedbackKind(const EvaluationResult &evaluation, const VariantSpace &space)
{
    // A verifier that names the limiter wins ("bound": "memory" | "compute" | "launch" |
    // "latency").
    for (const StageResult &stage : evaluation.stages) {
        const QString hint = stage.data.value(QStringLiteral("bound")).toString();
        if (hint == QLatin1String("memory") || hint == QLatin1String("compute") ||
            hint == QLatin1String("launch"))
            return hint + QStringLiteral("_bound");
        if (hint == QLatin1String("latency"))
            return hint;
    }
    if (evaluation.backend != Backend::Cpu && evaluation.candidateMs &&
        *evaluation.candidateMs < 0.01)
        return QStringLiteral("launch_bound");
    if (evaluation.rooflineFraction && *evaluation.rooflineFraction < 0.2)
        return QStringLiteral("latency");
    return usualBound(&space);
}

KnobConfig OfflinePolicy::samplePrior(const VariantSpace &space, double skill,
                                      CounterRng &rng) const
{
    // Mixture of the mediocre prior and a quality-peaked distribution; skill sets the mix.
    const double lambda = 0.85 * std::pow(skill, 1.5);
    KnobConfig config;
    for (const Knob &knob : space.knobs()) {
        QList<double> peaked;
        double total = 0.0;
        for (double q : knob.quality) {
            peaked.append(std::pow(q, 4.0));
            total += peaked.last();
        }
        QList<double> weights;
        for (qsizetype i = 0; i < knob.values.size(); ++i)
            weights.append((1.0 - lambda) * knob.prior.at(i) +
                           lambda * (total > 0.0 ? peaked.at(i) / total : 0.0));
        config.insert(knob.name, knob.values.at(rng.weighted(weights)));
    }
    return config;
}

KnobConfig OfflinePolicy::mutate(const VariantSpace &space, KnobConfig config, double skill,
                                 int moves, CounterRng &rng) const
{
    const QList<Knob> &knobs = space.knobs();
    if (knobs.isEmpty())
        return config;
    for (int m = 0; m < moves; ++m) {
        const Knob &knob = knobs.at(rng.below(static_cast<int>(knobs.size())));
        const QString current = config.value(knob.name);
        QList<double> weights;
        for (qsizetype i = 0; i < knob.values.size(); ++i) {
            if (knob.values.at(i) == current)
                weights.append(0.0);
            else
                weights.append(1.0 + 3.0 * skill * knob.quality.at(i));
        }
        if (knob.values.size() > 1)
            config.insert(knob.name, knob.values.at(rng.weighted(weights)));
    }
    return config;
}

void OfflinePolicy::planRefinement(const GenerationRequest &request, const VariantSpace *space,
                                   double skill, CounterRng &rng, Plan &plan) const
{
    const EvaluationResult *evaluation =
        request.parentEvaluations.isEmpty() ? nullptr : &request.parentEvaluations.first();
    const Verdict verdict = evaluation ? evaluation->verdict : Verdict::Pass;
    if (verdict != Verdict::Pass) {
        planRepair(request, space, *evaluation, rng, plan);
        return;
    }
    if (!space || space->knobs().isEmpty())
        return;

    // A move its prompt proposes (the agents' plan, a lesson of the memory) is followed as
    // often as feedback that names a knob.
    if (followPromptMoves(request, *space, plan))
        return;
    planFeedbackMove(evaluation, *space, skill, rng, plan);
}

void OfflinePolicy::planRepair(const GenerationRequest &request, const VariantSpace *space,
                               const EvaluationResult &evaluation, CounterRng &rng,
                               Plan &plan) const
{
    const CandidateRecord &parent = request.parents.first();
    // What the prompt says about the failure (the text any model gets), and where the parent's
    // code departs from what this model would write for the same variant: a fix is likely only
    // where the feedback points there.
    const QString feedback = FeedbackSummary::describe(evaluation);
    QList<int> deviating;
    if (space) {
        const TemplateEngine::Result clean = space->render(plan.knobs);
        if (clean.ok)
            deviating = FeedbackReader::deviatingLines(parent.source, clean.text);
    }
    const QList<int> pointed = FeedbackReader::pointedLines(feedback);
    const bool pointsAtCode = FeedbackReader::pointsAt(pointed, deviating);

    switch (evaluation.verdict) {
    case Verdict::CompileError:
        attemptFix(parent, deviating, pointsAtCode, QStringLiteral("did not compile"), rng, plan);
        return;
    case Verdict::Wrong:
    case Verdict::Crash:
    case Verdict::Timeout:
    case Verdict::Resource:
        attemptFix(
            parent, deviating, FeedbackReader::namesFailingShape(feedback),
            QStringLiteral("produced wrong results (%1)").arg(verdictName(evaluation.verdict)), rng,
            plan);
        return;
    case Verdict::Flagged:
        // A blocking flag names the mechanism (and its lines, where it has them).
        attemptFix(parent, deviating,
                   pointsAtCode || feedback.contains(QLatin1String("(blocking)")),
                   QStringLiteral("was flagged by the anti-cheat checks"), rng, plan);
        return;
    case Verdict::Pass:
    case Verdict::VerifierError: // nothing wrong with the parent was seen: nothing to repair
        return;
    }
}

void OfflinePolicy::attemptFix(const CandidateRecord &parent, const QList<int> &deviating,
                               bool guided, const QString &what, CounterRng &rng, Plan &plan) const
{
    // Unguided, the model looks at a line of its choosing: the fix succeeds only as often
    // as that line is one of the faulty ones.
    const double lines = std::max<qsizetype>(1, parent.source.count(QLatin1Char('\n')) + 1);
    const double share = std::min(1.0, std::max<qsizetype>(1, deviating.size()) / lines);
    if (rng.chance(guided ? m_options.fixRate : m_options.fixRate * share)) {
        plan.fixedParent = true;
        plan.notes.append(
            QStringLiteral("The parent %1; the feedback points at the cause and I fixed it.")
                .arg(what));
        return;
    }
    plan.keptParent = true;
    plan.notes.append(guided ? QStringLiteral("The parent %1; my attempted fix does not "
                                              "address the real cause.")
                                   .arg(what)
                             : QStringLiteral("The parent %1; the feedback does not say "
                                              "where, and I did not find the cause.")
                                   .arg(what));
}

void OfflinePolicy::planFeedbackMove(const EvaluationResult *evaluation, const VariantSpace &space,
                                     double skill, CounterRng &rng, Plan &plan) const
{
    // Correct parent: move a knob the way the feedback points, with noise.
    const QString kind =
        evaluation ? feedbackKind(*evaluation, space) : space.bound() + QStringLiteral("_bound");
    plan.feedback = kind;
    const FeedbackMoves moves = feedbackMoves(space, plan.knobs, kind, skill);
    if (!moves.knobs.isEmpty() && rng.chance(m_options.followRate)) {
        const int i = rng.weighted(moves.weights);
        const Knob *knob = moves.knobs.at(i);
        plan.notes.append(QStringLiteral("The feedback says %1, so I change %2 (%3) from %4 to %5.")
                              .arg(feedbackPhrase(kind), knob->name, knob->description,
                                   plan.knobs.value(knob->name), moves.values.at(i)));
        plan.knobs.insert(knob->name, moves.values.at(i));
    } else {
        const KnobConfig before = plan.knobs;
        plan.knobs = mutate(space, plan.knobs, skill, 1, rng);
        for (auto it = plan.knobs.constBegin(); it != plan.knobs.constEnd(); ++it)
            if (before.value(it.key()) != it.value())
                plan.notes.append(
                    QStringLiteral("The feedback says %1; I try %2 = %3 instead of %4.")
                        .arg(feedbackPhrase(kind), it.key(), it.value(), before.value(it.key())));
    }
    if (rng.chance(0.25 * (1.0 - skill)))
        plan.knobs = mutate(space, plan.knobs, skill, 1, rng);
}

OfflinePolicy::FeedbackMoves OfflinePolicy::feedbackMoves(const VariantSpace &space,
                                                          const KnobConfig &knobs,
                                                          const QString &kind, double skill)
{
    FeedbackMoves moves;
    for (const Knob &knob : space.knobs()) {
        const auto target = knob.feedback.constFind(kind);
        if (target == knob.feedback.constEnd())
            continue;
        const QString current = knobs.value(knob.name);
        const QString next = moveKnob(knob, current, target.value());
        if (next == current)
            continue;
        const double gain = valueQuality(knob, next) - valueQuality(knob, current);
        moves.knobs.append(&knob);
        moves.values.append(next);
        moves.weights.append(0.2 + 4.0 * skill * std::max(0.0, gain) + (1.0 - skill) * 0.5);
    }
    return moves;
}

void OfflinePolicy::readPromptMoves(const GenerationRequest &request, const Prompt &prompt,
                                    Plan &plan)
{
    // The agents' coder follows its plan; any other generation the memory's lessons, if any.
    if (request.role == QLatin1String("coder")) {
        plan.promptMoves =
            PromptNotes::planMoves(PromptNotes::section(prompt.user, QStringLiteral("Plan")));
        plan.promptMovesFrom = QStringLiteral("The plan");
        plan.followAllMoves = true;
        return;
    }
    plan.promptMoves = PromptNotes::memoryMoves(prompt.user);
    plan.promptMovesFrom = QStringLiteral("A lesson of the memory");
    plan.followAllMoves = request.operation == Operation::Sample;
}

bool OfflinePolicy::followPromptMoves(const GenerationRequest &request, const VariantSpace &space,
                                      Plan &plan) const
{
    if (plan.promptMoves.isEmpty())
        return false;
    // Its own stream, so a prompt without moves draws exactly as before.
    CounterRng rng = Draws::root(request).fork(kStreamPromptMoves);
    bool moved = false;
    for (const PromptNotes::KnobMove &move : std::as_const(plan.promptMoves)) {
        if (!applies(space, plan.knobs, move) || !rng.chance(m_options.followRate))
            continue;
        plan.notes.append(
            QStringLiteral("%1 says to set %2 = %3 (it was %4), so I do.")
                .arg(plan.promptMovesFrom, move.knob, move.value, plan.knobs.value(move.knob)));
        plan.knobs.insert(move.knob, move.value);
        moved = true;
        if (!plan.followAllMoves)
            break;
    }
    return moved;
}

bool OfflinePolicy::taskIsStuck(const GenerationRequest &request, QString *misconception) const
{
    // Drawn once per (run seed, task, backend), so every fresh sample of the run shares it.
    quint64 key = 1469598103934665603ULL; // FNV-1a of "task/backend"
    const Task &task = *request.task;
    for (const char c : (task.name + QLatin1Char('/') + backendName(request.backend)).toUtf8())
        key = (key ^ quint8(c)) * 1099511628211ULL;
    CounterRng rng(request.seed, key, kStreamMisconception);
    if (!rng.chance(m_options.stuckShare))
        return false;
    static const QStringList categories{QStringLiteral("compile_error"), QStringLiteral("wrong"),
                                        QStringLiteral("gaming")};
    const QList<double> weights{m_options.compileErrorRate, m_options.wrongRate,
                                m_options.gamingRate};
    if (weights.at(0) + weights.at(1) + weights.at(2) <= 0.0)
        return false; // a model that makes no mistakes has no misconceptions either
    const QString category = categories.at(rng.weighted(weights));
    const QStringList kinds = DefectInjector::kinds(category, task, request.backend);
    if (kinds.isEmpty())
        return false;
    *misconception = category + QLatin1Char(':') + kinds.at(rng.below(int(kinds.size())));
    return true;
}

void OfflinePolicy::planFailure(const GenerationRequest &request, bool stuck, Draws &draws,
                                Plan &plan) const
{
    CounterRng &rng = draws.defects;
    // The trace's latent scales the odds of failing (mean factor 1), so a rate of 0 or 1 stays.
    const double beta = m_options.lengthCoupling;
    const double k = std::exp(beta * draws.latent - 0.5 * beta * beta);
    const double total = m_options.compileErrorRate + m_options.wrongRate + m_options.gamingRate;
    const double p = std::min(1.0, total);
    const double scale = total > 0.0 ? (p * k / (1.0 - p + p * k)) / total : 0.0;
    const double compile = m_options.compileErrorRate * scale;
    const double wrong = m_options.wrongRate * scale;
    const double gaming = m_options.gamingRate * scale;
    const double u = rng.uniform();
    if (stuck) {
        if (!rng.chance(m_options.stuckPassRate)) {
            plan.category = plan.misconception.section(QLatin1Char(':'), 0, 0);
            plan.kind = plan.misconception.section(QLatin1Char(':'), 1);
        }
    } else if (u < compile) {
        plan.category = QStringLiteral("compile_error");
    } else if (u < compile + wrong) {
        plan.category = QStringLiteral("wrong");
    } else if (u < compile + wrong + gaming) {
        plan.category = QStringLiteral("gaming");
    }
    // A trace cut off by its budget leaves the answer broken as often as it was cut short.
    if (plan.category.isEmpty() && rng.chance(draws.cutShare(request))) {
        const double total = m_options.compileErrorRate + m_options.wrongRate;
        plan.category = rng.chance(total > 0.0 ? m_options.compileErrorRate / total : 0.5)
                            ? QStringLiteral("compile_error")
                            : QStringLiteral("wrong");
        plan.notes.append(QStringLiteral("I ran out of reasoning budget before checking this."));
    }
}

void OfflinePolicy::applyDefect(const GenerationRequest &request, CounterRng &rng, QString *source,
                                Plan &plan) const
{
    // A kept parent's defect is whatever the parent had: this model does not know it.
    plan.injected = plan.keptParent ? QStringLiteral("inherited") : QStringLiteral("none");
    if (plan.category.isEmpty())
        return;
    const Task &task = *request.task;
    const QStringList kinds = DefectInjector::kinds(plan.category, task, request.backend);
    const QString kind =
        plan.kind.isEmpty() ? kinds.value(rng.below(std::max(1, int(kinds.size())))) : plan.kind;
    const DefectInjector::Outcome outcome =
        DefectInjector::apply(source, plan.category, kind, task, request.backend, rng);
    if (outcome.applied) {
        plan.injected = plan.category + QLatin1Char(':') + outcome.kind;
        plan.injectedLine = outcome.line;
    }
}

QString OfflinePolicy::requestError(const GenerationRequest &request,
                                    const std::atomic<bool> &cancel) const
{
    if (cancel.load())
        return QStringLiteral("cancelled");
    if (!request.task)
        return QStringLiteral("offline policy: request without a task");
    if (request.task->isKernelBench() || request.backend == Backend::Torch)
        return kernelBenchRefusal(*request.task);
    return {};
}

GenerationResult OfflinePolicy::generate(const GenerationRequest &request,
                                         const std::atomic<bool> &cancel)
{
    GenerationResult result;
    result.error = requestError(request, cancel);
    if (!result.error.isEmpty())
        return result;
    const Task &task = *request.task;
    const std::shared_ptr<const VariantSpace> space = this->space(task, request.backend);
    const double difficulty = space ? space->difficulty() : 0.5;
    // The prompt first: all this model knows of the memory and of its team is in it.
    const Prompt prompt = m_prompts.build(request);
    if (request.answersInProse())
        return roleAnswer(request, space.get(), prompt);

    // One latent draw sets the trace's length and, through lengthCoupling, its odds of failing:
    // long traces go with wrong answers, and the knob choices do not depend on it.
    Draws draws(request, difficulty);
    Plan plan;
    readPromptMoves(request, prompt, plan);
    result.error = foreignParentError(request, space.get());
    if (!result.error.isEmpty())
        return result;
    planKnobs(request, space.get(), draws, plan);

    // Source: the variant rendered. A task without a space is refused (submitting its reference
    // would be a "kernel" that no model wrote).
    if (!space) {
        result.error = refusal(task, request.backend);
        return result;
    }
    const TemplateEngine::Result rendered = space->render(plan.knobs);
    if (!rendered.ok) {
        result.error = QStringLiteral("offline policy: variant template of %1/%2, line %3: %4")
                           .arg(task.name, backendName(request.backend))
                           .arg(rendered.errorLine)
                           .arg(rendered.error);
        return result;
    }
    QString source = plan.keptParent ? request.parents.first().source : rendered.text;

    // Fresh defects, unless the parent's code was kept as it was.
    if (!plan.keptParent) {
        const bool fresh =
            request.operation == Operation::Sample || request.operation == Operation::Manual;
        planFailure(request, fresh && taskIsStuck(request, &plan.misconception), draws, plan);
    }
    applyDefect(request, draws.defects, &source, plan);

    fillCandidate(request, *space, prompt, source, draws, plan, result.candidate);
    result.ok = true;
    return result;
}

QString OfflinePolicy::foreignParentError(const GenerationRequest &request,
                                          const VariantSpace *space)
{
    // An edit starts from its parents' code. This simulated model can edit only what it wrote
    // (its kernels are points of the space); another author's kernel is refused, never replaced
    // by a fresh sample recorded as an edit of it.
    const QList<CandidateRecord> &parents = request.parents;
    const int edited =
        request.operation == Operation::Crossover                                          ? 2
        : request.operation == Operation::Refine || request.operation == Operation::Mutate ? 1
                                                                                           : 0;
    for (int i = 0; space && i < std::min<int>(edited, int(parents.size())); ++i)
        if (!parentKnobs(parents.at(i), space))
            return QStringLiteral("the offline policy edits only kernels it wrote; candidate #%1 "
                                  "(%2) is not one of them: use an LLM policy or edit it by hand")
                .arg(parents.at(i).id)
                .arg(parents.at(i).policy.isEmpty() ? QStringLiteral("unknown author")
                                                    : parents.at(i).policy);
    return {};
}

KnobConfig OfflinePolicy::startingKnobs(const GenerationRequest &request, const VariantSpace *space,
                                        int parent, CounterRng &rng) const
{
    if (parent >= 0 && parent < request.parents.size())
        if (auto knobs = parentKnobs(request.parents.at(parent), space))
            return *knobs;
    return space ? samplePrior(*space, m_options.skill, rng) : KnobConfig{};
}

void OfflinePolicy::planKnobs(const GenerationRequest &request, const VariantSpace *space,
                              Draws &draws, Plan &plan) const
{
    const double skill = m_options.skill;
    switch (request.operation) {
    case Operation::Sample:
    case Operation::Manual:
        plan.knobs = startingKnobs(request, space, -1, draws.knobs);
        plan.notes.append(QStringLiteral("A first version of %1 for the %2 backend.")
                              .arg(request.task->name, backendName(request.backend)));
        if (space)
            followPromptMoves(request, *space, plan);
        break;
    case Operation::Refine:
        plan.knobs = startingKnobs(request, space, 0, draws.knobs);
        if (!request.parents.isEmpty())
            planRefinement(request, space, skill, draws.decisions, plan);
        break;
    case Operation::Mutate:
        plan.knobs = startingKnobs(request, space, 0, draws.knobs);
        if (space && !followPromptMoves(request, *space, plan)) {
            const KnobConfig before = plan.knobs;
            plan.knobs =
                mutate(*space, plan.knobs, skill, draws.decisions.chance(0.4) ? 2 : 1, draws.knobs);
            for (auto it = plan.knobs.constBegin(); it != plan.knobs.constEnd(); ++it)
                if (before.value(it.key()) != it.value())
                    plan.notes.append(QStringLiteral("Trying a different %1: %2 instead of %3.")
                                          .arg(it.key(), it.value(), before.value(it.key())));
        }
        break;
    case Operation::Crossover: {
        // Two statements: the first parent's knobs are drawn before the second's.
        const KnobConfig first = startingKnobs(request, space, 0, draws.knobs);
        const KnobConfig second = startingKnobs(request, space, 1, draws.knobs);
        planCrossover(space, first, second, draws.decisions, plan);
        break;
    }
    }
}

void OfflinePolicy::planCrossover(const VariantSpace *space, const KnobConfig &a,
                                  const KnobConfig &b, CounterRng &rng, Plan &plan) const
{
    QStringList fromA;
    QStringList fromB;
    if (space) {
        for (const Knob &knob : space->knobs()) {
            const QString va = a.value(knob.name);
            const QString vb = b.value(knob.name);
            if (va == vb) {
                plan.knobs.insert(knob.name, va);
                continue;
            }
            bool takeA = rng.chance(0.5);
            if (rng.chance(0.35 * m_options.skill))
                takeA = valueQuality(knob, va) >= valueQuality(knob, vb);
            plan.knobs.insert(knob.name, takeA ? va : vb);
            (takeA ? fromA : fromB).append(knob.name);
        }
        // Crossover means both parents contribute whenever they differ in two knobs or more.
        if (fromA.size() + fromB.size() >= 2 && (fromA.isEmpty() || fromB.isEmpty())) {
            QStringList &donorList = fromA.isEmpty() ? fromB : fromA;
            const QString flip = donorList.takeAt(rng.below(static_cast<int>(donorList.size())));
            plan.knobs.insert(flip, fromA.isEmpty() ? a.value(flip) : b.value(flip));
            (fromA.isEmpty() ? fromA : fromB).append(flip);
        }
    } else {
        plan.knobs = a;
    }
    plan.notes.append(
        QStringLiteral("Combining the two parents: %1 from the first, %2 from the second.")
            .arg(fromA.isEmpty() ? QStringLiteral("nothing") : fromA.join(QStringLiteral(", ")),
                 fromB.isEmpty() ? QStringLiteral("nothing") : fromB.join(QStringLiteral(", "))));
}

QString OfflinePolicy::responseText(const GenerationRequest &request, const VariantSpace &space,
                                    const Plan &plan, const QString &source)
{
    // The fence and the words a model would use for what it wrote.
    QString language = QStringLiteral("cpp");
    QString kind = QStringLiteral("C++/OpenMP kernel");
    if (request.backend == Backend::Cuda) {
        language = QStringLiteral("cuda");
        kind = QStringLiteral("CUDA kernel");
    } else if (request.backend == Backend::Torch) {
        language = QStringLiteral("python");
        const KernelLanguage *written = KernelLanguages::find(space.language());
        kind = QStringLiteral("ModelNew with %1 kernels")
                   .arg(written ? written->displayName() : space.language());
    }
    QStringList choices;
    for (const Knob &knob : space.knobs())
        choices.append(QStringLiteral("- %1 = %2: %3")
                           .arg(knob.name, plan.knobs.value(knob.name), knob.description));
    return QStringLiteral("%1\n\nHere is %2 %3 for `%4`.\n\n```%5\n%6%7```\n\nKey choices:\n%8\n")
        .arg(kSimulatedLabel,
             request.operation == Operation::Sample ? QStringLiteral("a")
                                                    : QStringLiteral("an improved"),
             kind, request.backend == Backend::Torch ? request.task->name : request.task->entry,
             language, source,
             source.endsWith(QLatin1Char('\n')) ? QString() : QStringLiteral("\n"),
             choices.isEmpty() ? QStringLiteral("- the task's reference structure")
                               : choices.join(QLatin1Char('\n')));
}

QJsonObject OfflinePolicy::candidateMeta(const GenerationRequest &request,
                                         const VariantSpace &space, const Draws &draws,
                                         const Plan &plan) const
{
    QJsonObject meta{
        {QStringLiteral("simulated"), true},
        {QStringLiteral("model"), m_options.model},
        {QStringLiteral("preset"), m_options.preset},
        {QStringLiteral("skill"), m_options.skill},
        {QStringLiteral("knobs"), VariantSpace::configToJson(plan.knobs)},
        {QStringLiteral("injected"), plan.injected},
        {QStringLiteral("space"),
         request.task->name + QLatin1Char('/') + backendName(request.backend) +
             (space.language().isEmpty() ? QString() : QLatin1Char('/') + space.language())}};
    if (plan.injectedLine > 0)
        meta.insert(QStringLiteral("injected_line"), plan.injectedLine);
    if (!plan.misconception.isEmpty())
        meta.insert(QStringLiteral("misconception"), plan.misconception);
    if (draws.truncated(request))
        meta.insert(QStringLiteral("truncated"), true);
    meta.insert(QStringLiteral("quality"), space.quality(plan.knobs));
    if (!plan.feedback.isEmpty())
        meta.insert(QStringLiteral("feedback"), plan.feedback);
    if (plan.fixedParent)
        meta.insert(QStringLiteral("fixed_parent"), true);
    if (plan.keptParent)
        meta.insert(QStringLiteral("kept_parent"), true);
    return meta;
}

void OfflinePolicy::fillCandidate(const GenerationRequest &request, const VariantSpace &space,
                                  const Prompt &prompt, const QString &source, const Draws &draws,
                                  const Plan &plan, CandidateRecord &c) const
{
    // Token accounting as an LLM would report it: real prompt text, the answer, reasoning drawn
    // per task difficulty and requested budget.
    const QString promptText = prompt.transcript();
    const QString response = responseText(request, space, plan, source);
    const qint64 reasoningTokens = std::max<qint64>(draws.reasoningTokens(request), 16);
    QString reasoning = kSimulatedLabel + QLatin1Char('\n') + plan.notes.join(QLatin1Char('\n'));
    reasoning +=
        QStringLiteral("\nEstimated quality of this variant: %1 (0 = worst, 1 = best knob values).")
            .arg(space.quality(plan.knobs), 0, 'f', 2);

    const QList<CandidateRecord> &parents = request.parents;
    c.task = request.task->name;
    c.operation = request.operation;
    c.generation = request.generation;
    c.island = request.island;
    if (!parents.isEmpty() && parents.first().id != 0)
        c.parent = parents.first().id;
    if (request.operation == Operation::Crossover && parents.size() > 1 && parents.at(1).id != 0)
        c.secondParent = parents.at(1).id;
    c.source = source;
    c.policy = name();
    c.prompt = promptText;
    c.reasoning = reasoning;
    c.response = response;
    c.promptTokens = TokenEstimator::count(promptText);
    c.completionTokens = TokenEstimator::count(response);
    c.reasoningTokens = reasoningTokens;
    c.reasoningLength =
        request.reasoningLength > 0 ? request.reasoningLength : qint64(draws.typicalLength);
    c.createdAt = QDateTime::currentDateTimeUtc();
    c.policyMeta = candidateMeta(request, space, draws, plan);
}

QString OfflinePolicy::planText(const GenerationRequest &request, const VariantSpace *space,
                                const Prompt &prompt, CounterRng &rng) const
{
    std::optional<KnobConfig> knobs;
    if (space && !request.parents.isEmpty())
        knobs = parentKnobs(request.parents.first(), space);
    if (!knobs)
        return QStringLiteral("1. Rewrite the kernel in the structure I know for this task.");
    const QString diagnosis = PromptNotes::section(prompt.user, QStringLiteral("Diagnosis"));
    if (diagnosis.startsWith(QLatin1String("not measured")))
        return QStringLiteral("1. Fix the failure the verifier reported; optimise only once the "
                              "kernel passes.");
    QString kind = PromptNotes::diagnosedLimiter(diagnosis);
    if (kind.isEmpty())
        kind = usualBound(space);
    QStringList steps;
    // A lesson of the memory that applies here comes first, as often as feedback is followed.
    for (const PromptNotes::KnobMove &move : PromptNotes::memoryMoves(prompt.user)) {
        if (applies(*space, *knobs, move) && rng.chance(m_options.followRate)) {
            steps << QStringLiteral(
                         "set %1 = %2 (it was %3): a lesson of the memory gained from it")
                         .arg(move.knob, move.value, knobs->value(move.knob));
            break;
        }
    }
    const FeedbackMoves moves = feedbackMoves(*space, *knobs, kind, m_options.skill);
    if (!moves.knobs.isEmpty()) {
        const int i = rng.weighted(moves.weights);
        steps << QStringLiteral("set %1 = %2 (it was %3): %4, and %1 is %5")
                     .arg(moves.knobs.at(i)->name, moves.values.at(i),
                          knobs->value(moves.knobs.at(i)->name), feedbackPhrase(kind),
                          moves.knobs.at(i)->description);
    }
    if (steps.isEmpty()) {
        const KnobConfig other = mutate(*space, *knobs, m_options.skill, 1, rng);
        for (auto it = other.constBegin(); it != other.constEnd(); ++it)
            if (knobs->value(it.key()) != it.value())
                steps << QStringLiteral("set %1 = %2 (it was %3): no knob answers this limiter "
                                        "directly, so I try another %1")
                             .arg(it.key(), it.value(), knobs->value(it.key()));
    }
    QStringList numbered;
    for (qsizetype i = 0; i < steps.size(); ++i)
        numbered << QStringLiteral("%1. %2").arg(i + 1).arg(steps[i]);
    return numbered.isEmpty() ? QStringLiteral("1. Keep the kernel as it is.")
                              : numbered.join(QLatin1Char('\n'));
}

GenerationResult OfflinePolicy::roleAnswer(const GenerationRequest &request,
                                           const VariantSpace *space, const Prompt &prompt) const
{
    Draws draws(request, space ? space->difficulty() : 0.5);
    QString answer;
    if (request.role == QLatin1String("profiler")) {
        answer = OfflineRoles::diagnosis(
            PromptNotes::section(prompt.user, QStringLiteral("Profile")), usualBound(space));
    } else if (request.role == QLatin1String("planner")) {
        answer = planText(request, space, prompt, draws.decisions);
    } else if (request.role == QLatin1String("tester")) {
        answer = OfflineRoles::testerAnswer(prompt.user, draws.decisions);
    } else {
        GenerationResult unknown;
        unknown.error = QStringLiteral("offline policy: no role '%1'").arg(request.role);
        return unknown;
    }
    GenerationResult result;
    CandidateRecord &c = result.candidate;
    c.task = request.task->name;
    c.operation = request.operation;
    c.policy = name();
    c.prompt = prompt.transcript();
    c.response = kSimulatedLabel + QStringLiteral("\n\n") + answer;
    c.reasoning =
        kSimulatedLabel + QStringLiteral("\nThe %1's reading of its prompt.").arg(request.role);
    c.promptTokens = TokenEstimator::count(c.prompt);
    c.completionTokens = TokenEstimator::count(c.response);
    c.reasoningTokens = std::max<qint64>(draws.reasoningTokens(request), 16);
    c.reasoningLength =
        request.reasoningLength > 0 ? request.reasoningLength : qint64(draws.typicalLength);
    c.createdAt = QDateTime::currentDateTimeUtc();
    c.policyMeta = {{QStringLiteral("simulated"), true},
                    {QStringLiteral("model"), m_options.model},
                    {QStringLiteral("role"), request.role}};
    result.ok = true;
    return result;
}

} // namespace kiln
