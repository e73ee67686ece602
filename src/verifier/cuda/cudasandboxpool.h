#pragma once

#include "verifier/cuda/cudasandboxslot.h"
#include "verifier/harness/cudadevices.h"

#include <QMutex>
#include <QWaitCondition>
#include <atomic>
#include <memory>
#include <vector>

namespace kiln {

// options.cudaSlotsPerGpu slots per visible GPU; evaluations take whichever slot is free, so
// several GPUs judge candidates side by side, and on one GPU one evaluation's correctness calls
// can run while another's candidate loads or is scrubbed (timing takes the GPU alone through the
// device lock). Compilation happens before a slot is taken.
class CudaSandboxPool
{
public:
    explicit CudaSandboxPool(const VerifierOptions &options);
    // With the devices given rather than probed (tests of the scheduling without a GPU).
    CudaSandboxPool(const VerifierOptions &options, CudaAvailability availability);

    const CudaAvailability &availability() const { return m_availability; }
    int size() const { return int(m_slots.size()); }

    // Holds one slot until destroyed.
    class Lease
    {
    public:
        Lease(CudaSandboxPool *pool, CudaSandboxSlot *slot) : m_pool(pool), m_slot(slot) {}
        Lease(Lease &&other) noexcept : m_pool(other.m_pool), m_slot(other.m_slot)
        {
            other.m_slot = nullptr;
        }
        Lease(const Lease &) = delete;
        Lease &operator=(const Lease &) = delete;
        Lease &operator=(Lease &&) = delete;
        ~Lease();
        CudaSandboxSlot *slot() const { return m_slot; }

    private:
        CudaSandboxPool *m_pool;
        CudaSandboxSlot *m_slot;
    };

    // Waits for a free GPU; an empty lease when there is none at all or on cancel.
    Lease acquire(const std::atomic<bool> &cancel);

private:
    void release(CudaSandboxSlot *slot);

    CudaAvailability m_availability;
    std::vector<std::unique_ptr<CudaSandboxSlot>> m_slots;
    std::vector<bool> m_busy;
    QMutex m_mutex;
    QWaitCondition m_freed;
};

} // namespace kiln
