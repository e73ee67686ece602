#pragma once

#include "engine/evaluator.h"

#include <QList>
#include <atomic>
#include <chrono>
#include <thread>

namespace kiln {

// For the GUI benchmark only: hands out recorded verdicts at a set overall rate, so the window
// can be fed faster than this machine's verifier judges (3-4 evaluations per second on 2
// cores). The engine, the policy, the store and the window around it are the real ones.
class PacedEvaluator : public Evaluator
{
public:
    PacedEvaluator(QList<EvaluationResult> recorded, double perSecond, int concurrency)
        : m_recorded(std::move(recorded)), m_period(1.0 / perSecond), m_concurrency(concurrency),
          m_start(std::chrono::steady_clock::now())
    {
    }

    EvaluationResult evaluate(const Task &, Backend, const QString &, quint64,
                              const std::atomic<bool> &cancel) override
    {
        const qint64 k = m_next++;
        const auto due = m_start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                       std::chrono::duration<double>(m_period * double(k)));
        while (!cancel && std::chrono::steady_clock::now() < due)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return m_recorded.at(int(k % m_recorded.size()));
    }
    int concurrency() const override { return m_concurrency; }

private:
    QList<EvaluationResult> m_recorded;
    double m_period;
    int m_concurrency;
    std::chrono::steady_clock::time_point m_start;
    std::atomic<qint64> m_next{0};
};

} // namespace kiln
