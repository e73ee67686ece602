#pragma once

#include "verifier/harness/outputchecker.h"
#include "verifier/harness/referencebank.h"

#include <QList>
#include <QPair>

namespace kiln {

// One output of one correctness call against the reference's answer, with the mechanisms a
// mismatch (or a suspicious match) points at: nothing written, the previous seed's answer at the
// same addresses (a cache), an output that does not follow the reference. Both backends use it.
class ReferenceComparison
{
public:
    struct Finding
    {
        CheckResult check;
        QList<QPair<QString, QString>> flags; // (flag id, detail)
    };
    // got: the output buffer of parameter `parameter` after the call on `instance`; previous:
    // the instance of the seed before at the same addresses (null for the first seed).
    static Finding judge(const char *got, const Task &task, int parameter,
                         const ReferenceInstance &instance, const ReferenceInstance *previous,
                         const QString &shapeLabel, int seed);
};

} // namespace kiln
