#include "profilepanel.h"

#include "models/profileformatter.h"
#include "models/reportformatter.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace kiln {

ProfilePanel::ProfilePanel(QWidget *parent)
    : QWidget(parent), m_browser(new QTextBrowser(this)),
      m_button(new QPushButton(tr("Profile with Nsight Compute"), this)), m_state(new QLabel(this))
{
    setObjectName(QStringLiteral("profilePanel"));
    m_button->setObjectName(QStringLiteral("profileButton"));
    m_button->setToolTip(tr("Run the candidate once more under Nsight Compute, confined as "
                            "always, and its task's reference beside it"));
    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 0);
    bar->addWidget(m_button);
    bar->addWidget(m_state, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_browser);
    m_browser->setFrameShape(QFrame::NoFrame);
    m_browser->document()->setDocumentMargin(10);
    connect(m_button, &QPushButton::clicked, this, [this] {
        if (m_candidate)
            emit profileRequested(m_candidate);
    });
    clear(tr("Select a candidate to see its hardware profile."));
}

void ProfilePanel::clear(const QString &why)
{
    m_candidate = 0;
    m_browser->setHtml(ReportFormatter::emptyHtml(why));
    updateButton();
}

void ProfilePanel::showCandidate(qint64 candidateId, const QList<ProfileRecord> &profiles,
                                 const QString &unavailable)
{
    m_candidate = candidateId;
    m_available = unavailable.isEmpty();
    m_browser->setHtml(
        QStringLiteral("<h3 style=\"margin-top:0;\">Candidate #%1</h3>").arg(candidateId) +
        ProfileFormatter::html(profiles, unavailable));
    updateButton();
}

void ProfilePanel::setProfiling(qint64 candidateId)
{
    m_profiling = candidateId;
    updateButton();
}

void ProfilePanel::updateButton()
{
    m_button->setEnabled(m_candidate && m_available && !m_profiling);
    m_state->setText(m_profiling
                         ? tr("Profiling candidate #%1 (its reference next)…").arg(m_profiling)
                         : QString());
}

} // namespace kiln
