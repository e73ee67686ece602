#include "transcriptpanel.h"

#include "models/reportformatter.h"
#include "models/transcriptformatter.h"

#include <QTextBrowser>
#include <QVBoxLayout>

namespace kiln {

TranscriptPanel::TranscriptPanel(QWidget *parent)
    : QWidget(parent), m_browser(new QTextBrowser(this))
{
    setObjectName(QStringLiteral("transcriptPanel"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_browser);
    m_browser->setFrameShape(QFrame::NoFrame);
    m_browser->document()->setDocumentMargin(10);
    QFont mono(QStringLiteral("DejaVu Sans Mono"));
    mono.setPointSize(9);
    m_browser->document()->setDefaultStyleSheet(
        QStringLiteral("pre { font-family: '%1'; font-size: 9pt; }").arg(mono.family()));
    clear(tr("Select a candidate to read the conversation that produced it."));
}

void TranscriptPanel::clear(const QString &why)
{
    m_browser->setHtml(ReportFormatter::emptyHtml(why));
}

void TranscriptPanel::showCandidate(const CandidateRecord &record)
{
    m_browser->setHtml(
        QStringLiteral("<h3 style=\"margin-top:0;\">Candidate #%1</h3>").arg(record.id) +
        TranscriptFormatter::html(record));
}

} // namespace kiln
