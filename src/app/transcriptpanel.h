#pragma once

#include "core/candidaterecord.h"

#include <QWidget>

class QTextBrowser;

namespace kiln {

// The prompt, reasoning and response that produced the selected candidate, with token counts.
class TranscriptPanel : public QWidget
{
    Q_OBJECT

public:
    explicit TranscriptPanel(QWidget *parent = nullptr);

    void showCandidate(const CandidateRecord &record);
    void clear(const QString &why);
    QTextBrowser *browser() const { return m_browser; }

private:
    QTextBrowser *m_browser;
};

} // namespace kiln
