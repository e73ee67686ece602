#pragma once

#include "core/evaluationresult.h"

#include <QList>
#include <QString>

namespace kiln {

// Turns a verifier result into the HTML of the report panel (QTextBrowser's subset): verdict,
// speedup with its 95 % interval, confirmation, duplicate and disturbance notes, each stage with
// duration and outcome, compile diagnostics linking to their lines
// ("kiln-line:N"), mismatch and timing statistics, roofline fraction and every flag.
class ReportFormatter
{
public:
    struct Diagnostic
    {
        int line = 0; // 1-based, 0 when unknown
        int column = 0;
        QString severity; // "error", "warning", "note"
        QString message;
    };

    static QString html(const EvaluationResult &result);
    static QString emptyHtml(const QString &why);
    // Compiler diagnostics of the compile stage, structured or parsed from its log.
    static QList<Diagnostic> compileDiagnostics(const EvaluationResult &result);
    static QString lineLinkScheme() { return QStringLiteral("kiln-line"); }
};

} // namespace kiln
