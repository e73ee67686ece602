#pragma once

#include "core/runrecord.h"

#include <QString>

namespace kiln {

class RunDocument;

// The one-line descriptions of a run the window shows: its line in the run picker, the status
// bar's summary of the shown run (rich text) and the window title. A lenient run says so in
// each, because its speedups are the naive harness's, not true ones.
class RunSummaryText
{
public:
    static QString pickerLabel(const RunRecord &run);
    static QString statusLine(const RunDocument &document);
    static QString windowTitle(const RunDocument &document);
};

} // namespace kiln
