#pragma once

#include "verifier/harness/correctnessloop.h"

#include <QJsonObject>
#include <QString>

namespace kiln {

// What one backend does for the correctness loop: its sandbox's work for a shape and for a call,
// and the order a call's buffers are checked in. Failed requests are recorded by the backend
// (into the loop's Record), so a false return needs no reason here.
class CorrectnessSession
{
public:
    enum class SetUp
    {
        Ready,
        Skipped, // the candidate is wrong on this shape (loop.fail()): on to the next one
        Failed   // a failure was recorded: the loop stops
    };
    virtual ~CorrectnessSession() = default;

    virtual qint64 alignment() const = 0; // of the shape's BufferLayout
    // The shared buffer grown to the shape's layout (which the session may extend), guard bands
    // filled, argument set 0 sent.
    virtual SetUp setUp(CorrectnessLoop &loop, CorrectnessLoop::Shape &shape) = 0;
    // The instance's inputs written, the outputs filled with the sentinel, the call made; false
    // when a request failed.
    virtual bool call(const CorrectnessLoop::Shape &shape, const ReferenceInstance &instance,
                      const QString &during) = 0;
    // The shared buffer after the call, where guards and inputs are checked.
    virtual const char *memory() const = 0;
    // The call's inputs and outputs, checked with loop.checkInput() and loop.judgeOutput().
    virtual void judge(CorrectnessLoop &loop, const CorrectnessLoop::Call &call) = 0;
    // After every seed of a shape; false when a request failed.
    virtual bool finishShape(CorrectnessLoop &) { return true; }
    // Whether the loop stops before the next shape or seed, the candidate judged already.
    virtual bool halted(const CorrectnessLoop &) const { return false; }
    // The backend's findings over all calls: flags, and figures for the stage's data.
    virtual void conclude(CorrectnessLoop &, QJsonObject &) {}
};

} // namespace kiln
