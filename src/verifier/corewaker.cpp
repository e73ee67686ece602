#include "corewaker.h"

#include <pthread.h>
#include <sched.h>

namespace kiln {

CoreWaker::CoreWaker()
{
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (!CPU_ISSET(cpu, &allowed))
            continue;
        m_threads.emplace_back([this, cpu] {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            ::pthread_setaffinity_np(::pthread_self(), sizeof one, &one);
            const sched_param idle{};
            ::pthread_setschedparam(::pthread_self(), SCHED_IDLE, &idle);
            while (!m_stop.load(std::memory_order_relaxed))
                __builtin_ia32_pause();
        });
    }
}

CoreWaker::~CoreWaker()
{
    m_stop = true;
    for (std::thread &t : m_threads)
        t.join();
}

} // namespace kiln
