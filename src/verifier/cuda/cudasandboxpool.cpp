#include "verifier/cuda/cudasandboxpool.h"

#include <algorithm>

namespace kiln {

CudaSandboxPool::CudaSandboxPool(const VerifierOptions &options)
    : CudaSandboxPool(options, CudaDevices::probe(options))
{
}

CudaSandboxPool::CudaSandboxPool(const VerifierOptions &options, CudaAvailability availability)
    : m_availability(std::move(availability))
{
    // Slots of one GPU interleave (GPU 0, GPU 1, ..., GPU 0 again), so evaluations spread over
    // the GPUs before any GPU takes a second.
    for (int s = 0; s < std::max(1, options.cudaSlotsPerGpu); ++s) {
        for (const CudaDevice &device : m_availability.devices) {
            m_slots.push_back(std::make_unique<CudaSandboxSlot>(options, device));
            m_busy.push_back(false);
        }
    }
}

CudaSandboxPool::Lease::~Lease()
{
    if (m_slot)
        m_pool->release(m_slot);
}

CudaSandboxPool::Lease CudaSandboxPool::acquire(const std::atomic<bool> &cancel)
{
    QMutexLocker lock(&m_mutex);
    if (m_slots.empty())
        return Lease(this, nullptr);
    for (;;) {
        for (std::size_t i = 0; i < m_slots.size(); ++i) {
            if (!m_busy[i]) {
                m_busy[i] = true;
                m_slots[i]->setLeased(true);
                return Lease(this, m_slots[i].get());
            }
        }
        if (cancel.load())
            return Lease(this, nullptr);
        // Wake up now and then to notice a cancel.
        m_freed.wait(&m_mutex, 200);
    }
}

void CudaSandboxPool::release(CudaSandboxSlot *slot)
{
    QMutexLocker lock(&m_mutex);
    for (std::size_t i = 0; i < m_slots.size(); ++i)
        if (m_slots[i].get() == slot) {
            m_busy[i] = false;
            slot->setLeased(false);
        }
    m_freed.wakeOne();
}

} // namespace kiln
