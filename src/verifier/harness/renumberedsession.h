#pragma once

#include "verifier/harness/timingloop.h"

namespace kiln {

// A timing session whose calls are numbered from `first`: a timing loop run again (after a
// disturbance) draws fresh inputs for every call instead of repeating the ones it has seen, so a
// kernel that remembers earlier inputs gains nothing from the repetition.
class RenumberedSession : public TimingSession
{
public:
    RenumberedSession(TimingSession &calls, int first) : m_calls(calls), m_first(first) {}
    bool time(int first, int count, QList<Sample> &samples) override
    {
        return m_calls.time(m_first + first, count, samples);
    }
    bool finalCheck(int call) override { return m_calls.finalCheck(m_first + call); }
    int batchLimit() const override { return m_calls.batchLimit(); }

private:
    TimingSession &m_calls;
    int m_first;
};

} // namespace kiln
