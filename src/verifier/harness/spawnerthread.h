#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace kiln {

// One thread that lives as long as its owner and runs the work handed to it, one piece at a
// time. Sandboxes that serve many evaluations are started from here: a sandbox dies with the
// thread that started it (PR_SET_PDEATHSIG follows the thread, not the process), and the
// evaluation threads come and go with every round.
class SpawnerThread
{
public:
    SpawnerThread();
    ~SpawnerThread();
    SpawnerThread(const SpawnerThread &) = delete;
    SpawnerThread &operator=(const SpawnerThread &) = delete;

    // Runs `work` on the thread and returns when it has.
    void run(const std::function<void()> &work);

private:
    void loop();

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::function<void()>> m_queue;
    bool m_stopping = false;
    std::thread m_thread;
};

} // namespace kiln
