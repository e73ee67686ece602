#include "concurrencylimiter.h"

#include <algorithm>
#include <chrono>

namespace kiln {

ConcurrencyLimiter::ConcurrencyLimiter(int capacity) : m_slots(std::max(1, capacity)) {}

bool ConcurrencyLimiter::acquire(const std::atomic<bool> &cancel)
{
    std::unique_lock lock(m_mutex);
    // The cancel flag is a plain atomic nobody notifies us about: wake up now and then to look.
    while (m_inUse >= m_slots) {
        if (cancel.load())
            return false;
        m_freed.wait_for(lock, std::chrono::milliseconds(20));
    }
    if (cancel.load())
        return false;
    ++m_inUse;
    m_peak = std::max(m_peak, m_inUse);
    return true;
}

void ConcurrencyLimiter::release()
{
    {
        std::lock_guard lock(m_mutex);
        --m_inUse;
    }
    m_freed.notify_one();
}

int ConcurrencyLimiter::inUse() const
{
    std::lock_guard lock(m_mutex);
    return m_inUse;
}

int ConcurrencyLimiter::peakInUse() const
{
    std::lock_guard lock(m_mutex);
    return m_peak;
}

} // namespace kiln
