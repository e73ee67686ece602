#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>

namespace kiln {

// A counting semaphore whose wait gives up when a cancel flag is raised, so a stop request is
// never stuck behind a full set of slow LLM calls. Shared by every call of one LlmPolicy.
class ConcurrencyLimiter
{
public:
    explicit ConcurrencyLimiter(int capacity);
    // Blocks until a slot is free (true) or cancel becomes true (false).
    bool acquire(const std::atomic<bool> &cancel);
    void release();
    int capacity() const { return m_slots; }
    int inUse() const;
    int peakInUse() const;

    // Holds one slot for a scope.
    class Guard
    {
    public:
        Guard(ConcurrencyLimiter &limiter, const std::atomic<bool> &cancel)
            : m_limiter(limiter), m_held(limiter.acquire(cancel))
        {
        }
        ~Guard()
        {
            if (m_held)
                m_limiter.release();
        }
        Guard(const Guard &) = delete;
        Guard &operator=(const Guard &) = delete;
        bool held() const { return m_held; }

    private:
        ConcurrencyLimiter &m_limiter;
        bool m_held;
    };

private:
    const int m_slots;
    int m_inUse = 0;
    int m_peak = 0;
    mutable std::mutex m_mutex;
    std::condition_variable m_freed;
};

} // namespace kiln
