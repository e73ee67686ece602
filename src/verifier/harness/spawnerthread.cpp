#include "verifier/harness/spawnerthread.h"

#include <future>

namespace kiln {

SpawnerThread::SpawnerThread() : m_thread([this] { loop(); }) {}

SpawnerThread::~SpawnerThread()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    m_thread.join();
}

void SpawnerThread::run(const std::function<void()> &work)
{
    std::packaged_task<void()> task(work);
    std::future<void> done = task.get_future();
    {
        std::lock_guard lock(m_mutex);
        m_queue.emplace_back([&task] { task(); });
    }
    m_wake.notify_one();
    done.get();
}

void SpawnerThread::loop()
{
    for (;;) {
        std::function<void()> work;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
            if (m_queue.empty())
                return; // stopping, nothing left
            work = std::move(m_queue.front());
            m_queue.pop_front();
        }
        work();
    }
}

} // namespace kiln
