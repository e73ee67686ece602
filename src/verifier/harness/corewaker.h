#pragma once

#include <atomic>
#include <thread>
#include <vector>

namespace kiln {

// Keeps every core awake while a timing runs (the CPU backend's calls, and the CUDA backend's
// round trips, which the engine's clock bound judges). An idle core halts (a virtual CPU returns to
// its host, a physical one enters a sleep state), and waking it takes up to hundreds of
// microseconds: an OpenMP kernel whose worker sleeps on such a core measured 0.27 ms or 0.61 ms
// per call depending on whether that core happened to be awake. One thread per core spins at
// SCHED_IDLE priority, which the scheduler runs only when nothing else wants the core, so the
// candidate's and the baseline's threads take the core at once and lose no time to it. The
// spinners nap 30 us between bursts: without the naps a core that only ever ran a spinner was
// never seen idle, and a kernel's two threads could share one core for a whole evaluation.
class CoreWaker
{
public:
    // Unless KILN_WAKE_CORES=off (to measure what it changes).
    static bool wanted();

    CoreWaker();
    ~CoreWaker();
    CoreWaker(const CoreWaker &) = delete;
    CoreWaker &operator=(const CoreWaker &) = delete;

    int cores() const { return int(m_threads.size()); }

private:
    void keepAwake(int cpu); // spins at SCHED_IDLE on `cpu`, napping briefly, until m_stop

    std::atomic<bool> m_stop{false};
    std::vector<std::thread> m_threads;
};

} // namespace kiln
