#include "engine/diagnosis/depthwidthanalyzer.h"

namespace kiln {

namespace {

bool isDepth(Operation operation)
{
    return operation == Operation::Refine || operation == Operation::Mutate ||
           operation == Operation::Crossover;
}

} // namespace

// Where the raises of a best came from against where the evaluations went: children of earlier
// candidates (refine, mutate, crossover: depth) or fresh samples (width); hand-written ones are
// neither. The rating is the gap between depth's share of the two kinds' evaluations and its
// share of their raises.
DiagnosisFinding DepthWidthAnalyzer::analyze(const RunHistory &history) const
{
    DiagnosisFinding f{QStringLiteral("depth_width"), QStringLiteral("Depth versus width")};
    int depth = 0, width = 0;
    for (int i = 0; i < history.evaluatedCount(); ++i) {
        const Operation operation = history.evaluated(i).operation;
        depth += isDepth(operation);
        width += operation == Operation::Sample;
    }
    f.figures.insert(QStringLiteral("depth_evaluations"), depth);
    f.figures.insert(QStringLiteral("width_evaluations"), width);
    int depthRaises = 0, widthRaises = 0;
    QList<qint64> raised;
    for (const RunHistory::Improvement &improvement : history.improvements()) {
        const Operation operation = history.evaluated(improvement.position).operation;
        depthRaises += isDepth(operation);
        widthRaises += operation == Operation::Sample;
        raised.append(improvement.candidate);
    }
    const int raises = depthRaises + widthRaises;
    if (raises < 2 || depth + width == 0) {
        f.finding = QStringLiteral("Too few raises of a best to tell (%1).").arg(raises);
        return f;
    }
    f.candidates = raised;
    f.rounds = history.roundsOf(f.candidates);
    const double spend = double(depth) / (depth + width);
    const double yield = double(depthRaises) / raises;
    f.rating = DiagnosisFinding::rate(std::abs(spend - yield), {0.15, 0.3, 0.45, 0.6});
    const bool depthPays = yield > spend;
    f.finding = QStringLiteral("Children of earlier candidates (refine, mutate, crossover) took "
                               "%1% of the evaluations and made %2% of the %3 raises of a best: "
                               "per evaluation, %4 paid more.")
                    .arg(100.0 * spend, 0, 'f', 0)
                    .arg(100.0 * yield, 0, 'f', 0)
                    .arg(raises)
                    .arg(depthPays ? QStringLiteral("depth (the children)")
                                   : QStringLiteral("width (fresh samples)"));
    f.figures.insert(QStringLiteral("depth_raises"), depthRaises);
    f.figures.insert(QStringLiteral("width_raises"), widthRaises);
    f.figures.insert(QStringLiteral("depth_share_of_evaluations"), spend);
    f.figures.insert(QStringLiteral("depth_share_of_raises"), yield);
    return f;
}

} // namespace kiln
