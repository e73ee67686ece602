#pragma once

#include "engine/manualsubmission.h"

#include <QString>

namespace kiln {

// A person's edited copy of a candidate, sent to be judged as a manual child of that candidate.
class EditedCopySubmission
{
public:
    // Why the source cannot be judged; empty when it can.
    static QString refusal(const QString &source);
    static ManualSubmission::Request request(qint64 runId, qint64 parentId, const QString &source);
};

} // namespace kiln
