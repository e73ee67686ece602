#pragma once

#include "core/backend.h"

#include <QString>

namespace kiln {

// What makes two candidates' sources "the same kernel": equal after comments are removed and
// whitespace is normalised, so a re-indented or re-commented copy is recognised as a duplicate.
// C, C++ and CUDA: // and /* */ comments go (string and character literals are kept whole) and
// whitespace is dropped wherever it cannot separate two tokens. Python (the pytorch backend):
// blank lines and trailing spaces go, while indentation, which is syntax, and every #, which may
// start a #define of an inline CUDA source, stay.
class SourceFingerprint
{
public:
    static QString normalised(const QString &source, Backend backend);
    // A hex digest of normalised(): equal digests, equal kernels.
    static QString of(const QString &source, Backend backend);
};

} // namespace kiln
