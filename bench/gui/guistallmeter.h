#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <algorithm>
#include <vector>

namespace kiln {

// Measures how long the GUI thread is kept from its event loop: a 2 ms timer notes the gap
// between its firings; a gap beyond the interval is a stall.
class GuiStallMeter : public QObject
{
public:
    explicit GuiStallMeter(QObject *parent = nullptr) : QObject(parent)
    {
        m_timer.setInterval(intervalMs);
        m_timer.setTimerType(Qt::PreciseTimer);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            const double now = m_clock.nsecsElapsed() / 1e6;
            m_stalls.push_back(std::max(0.0, now - m_last - intervalMs));
            m_last = now;
        });
    }
    void start()
    {
        m_stalls.clear();
        m_clock.start();
        m_last = 0;
        m_timer.start();
    }
    void stop() { m_timer.stop(); }
    double longest() const
    {
        return m_stalls.empty() ? 0.0 : *std::max_element(m_stalls.begin(), m_stalls.end());
    }
    double percentile(double p) const
    {
        if (m_stalls.empty())
            return 0.0;
        std::vector<double> v = m_stalls;
        std::sort(v.begin(), v.end());
        return v[std::min(v.size() - 1, size_t(double(v.size()) * p))];
    }

private:
    static constexpr int intervalMs = 2;
    QTimer m_timer;
    QElapsedTimer m_clock;
    double m_last = 0;
    std::vector<double> m_stalls;
};

} // namespace kiln
