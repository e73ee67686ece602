#pragma once

#include <QString>

namespace kiln {

// A compact unified diff ("@@ -a,b +c,d @@", "-", "+", " " lines) between two sources, for the
// optimisation memory's lessons: `context` unchanged lines around each change, and no more than
// `maxLines` lines in all (the rest summarised in one line).
class UnifiedDiff
{
public:
    static QString between(const QString &before, const QString &after, int context = 1,
                           int maxLines = 40);
};

} // namespace kiln
