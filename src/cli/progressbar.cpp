#include "progressbar.h"

#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace kiln {

ProgressBar::ProgressBar(BudgetAxis axis, double budget)
    : m_axis(axis), m_budget(budget), m_enabled(isatty(STDERR_FILENO) == 1)
{
    m_clock.start();
}

void ProgressBar::update(const BudgetUsage &used, double bestSpeedup)
{
    if (!m_enabled)
        return;
    const double spent = usageOnAxis(used, m_axis);
    const double fraction = m_budget > 0 ? std::clamp(spent / m_budget, 0.0, 1.0) : 0.0;
    constexpr int width = 30;
    const int filled = int(fraction * width + 0.5);
    char bar[width + 1];
    for (int i = 0; i < width; ++i)
        bar[i] = i < filled ? '#' : '.';
    bar[width] = '\0';
    const double seconds = std::max(1e-3, m_clock.elapsed() / 1000.0);
    std::fprintf(stderr, "\r[%s] %.0f/%.0f %s  best %.2fx  %.2f evals/s  ", bar, spent, m_budget,
                 qPrintable(budgetAxisName(m_axis)), bestSpeedup, used.evals / seconds);
    std::fflush(stderr);
    m_drawn = true;
}

void ProgressBar::finish()
{
    if (m_drawn)
        std::fputc('\n', stderr);
    m_drawn = false;
}

} // namespace kiln
