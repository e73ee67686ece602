#pragma once

#include "core/candidaterecord.h"
#include "core/evaluationresult.h"

#include <QWidget>
#include <optional>

class QLabel;
class QTextBrowser;

namespace kiln {

// The verifier's report on the selected candidate; diagnostics and flag lines are links that
// jump to the line in the code panel.
class ReportPanel : public QWidget
{
    Q_OBJECT

public:
    explicit ReportPanel(QWidget *parent = nullptr);

    void showCandidate(const CandidateRecord &record,
                       const std::optional<EvaluationResult> &result);
    void clear(const QString &why);
    QTextBrowser *browser() const { return m_browser; }

signals:
    void lineRequested(int line);

private:
    QLabel *m_header;
    QTextBrowser *m_browser;
};

} // namespace kiln
