#include "verifier/harness/corewaker.h"

#include <QString>
#include <QtGlobal>

#include <pthread.h>
#include <sched.h>
#include <system_error>
#include <time.h>

namespace kiln {

bool CoreWaker::wanted()
{
    return qEnvironmentVariable("KILN_WAKE_CORES") != QLatin1String("off");
}

CoreWaker::CoreWaker()
{
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return;
    try {
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
            if (CPU_ISSET(cpu, &allowed))
                m_threads.emplace_back([this, cpu] { keepAwake(cpu); });
    } catch (const std::system_error &) {
        // No more threads (a process limit): time without keeping the cores awake.
        m_stop = true;
        for (std::thread &t : m_threads)
            t.join();
        m_threads.clear();
    }
}

void CoreWaker::keepAwake(int cpu)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    ::pthread_setaffinity_np(::pthread_self(), sizeof one, &one);
    const sched_param idle{};
    ::pthread_setschedparam(::pthread_self(), SCHED_IDLE, &idle);
    const timespec nap{0, 30000};
    while (!m_stop.load(std::memory_order_relaxed)) {
        for (int i = 0; i < 2000; ++i)
            __builtin_ia32_pause();
        ::nanosleep(&nap, nullptr);
    }
}

CoreWaker::~CoreWaker()
{
    m_stop = true;
    for (std::thread &t : m_threads)
        t.join();
}

} // namespace kiln
