#include "reportpanel.h"

#include "codepanel.h"

#include "models/reportformatter.h"

#include <QLabel>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace kiln {

ReportPanel::ReportPanel(QWidget *parent)
    : QWidget(parent), m_header(new QLabel(this)), m_browser(new QTextBrowser(this))
{
    setObjectName(QStringLiteral("reportPanel"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    m_header->setTextFormat(Qt::RichText);
    m_header->setContentsMargins(8, 5, 8, 5);
    m_header->setStyleSheet(
        QStringLiteral("QLabel { background: #f6f7f9; border-bottom: 1px solid #e1e4e8; }"));
    layout->addWidget(m_header);
    layout->addWidget(m_browser, 1);
    m_browser->setOpenLinks(false);
    m_browser->setFrameShape(QFrame::NoFrame);
    m_browser->document()->setDocumentMargin(10);
    connect(m_browser, &QTextBrowser::anchorClicked, this, [this](const QUrl &url) {
        if (url.scheme() == ReportFormatter::lineLinkScheme())
            emit lineRequested(url.path().toInt());
    });
    clear(tr("Select a candidate to see what the verifier found."));
}

void ReportPanel::clear(const QString &why)
{
    m_header->setText(QString());
    m_header->setVisible(false);
    m_browser->setHtml(ReportFormatter::emptyHtml(why));
}

void ReportPanel::showCandidate(const CandidateRecord &record,
                                const std::optional<EvaluationResult> &result)
{
    m_header->setVisible(true);
    m_header->setText(candidateHeadline(record, result));
    if (!result) {
        m_browser->setHtml(ReportFormatter::emptyHtml(
            tr("The verifier has not reported on #%1 yet.").arg(record.id)));
        return;
    }
    m_browser->setHtml(ReportFormatter::html(*result));
}

} // namespace kiln
