#include "startpage.h"

#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace kiln {

StartPage::StartPage(QWidget *parent)
    : QWidget(parent), m_recent(new QListWidget), m_recentBox(new QWidget)
{
    setObjectName(QStringLiteral("startPage"));
    setAutoFillBackground(true);
    auto *title = new QLabel(tr("<h2>Kiln</h2><p>Search for fast kernels, verify every "
                                "candidate, and see where the compute went.</p>"));
    title->setWordWrap(true);
    auto *newRun = new QPushButton(tr("New run…"));
    newRun->setObjectName(QStringLiteral("startNewRun"));
    newRun->setToolTip(tr("Choose a task, a policy, a strategy and a budget (Ctrl+N)"));
    auto *demo = new QPushButton(tr("Run the demo search"));
    demo->setObjectName(QStringLiteral("startDemo"));
    demo->setToolTip(tr("Beam search on softmax with the offline policy (no key, no network), "
                        "30 evaluations, in the default workspace"));
    auto *open = new QPushButton(tr("Open a database…"));
    open->setObjectName(QStringLiteral("startOpen"));
    auto *guide = new QPushButton(tr("User guide and shortcuts (F1)"));
    guide->setObjectName(QStringLiteral("startGuide"));
    guide->setFlat(true);
    for (QPushButton *b : {newRun, demo, open})
        b->setMinimumWidth(260);
    m_recent->setObjectName(QStringLiteral("startRecent"));
    m_recent->setMaximumHeight(m_recent->fontMetrics().height() * 9);
    auto *recentLayout = new QVBoxLayout(m_recentBox);
    recentLayout->setContentsMargins(0, 12, 0, 0);
    recentLayout->addWidget(new QLabel(tr("<b>Recent databases</b>")));
    recentLayout->addWidget(m_recent);

    auto *column = new QVBoxLayout;
    column->addStretch(1);
    column->addWidget(title);
    for (QWidget *w : std::initializer_list<QWidget *>{newRun, demo, open, m_recentBox, guide})
        column->addWidget(w, 0, Qt::AlignLeft);
    column->addStretch(2);
    auto *outer = new QHBoxLayout(this);
    outer->addStretch(1);
    outer->addLayout(column, 2);
    outer->addStretch(1);

    connect(newRun, &QPushButton::clicked, this, &StartPage::newRunRequested);
    connect(demo, &QPushButton::clicked, this, &StartPage::demoRequested);
    connect(open, &QPushButton::clicked, this, &StartPage::openRequested);
    connect(guide, &QPushButton::clicked, this, &StartPage::guideRequested);
    connect(m_recent, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) {
        emit recentRequested(item->data(Qt::UserRole).toString());
    });
    setRecent({});
}

void StartPage::setRecent(const QStringList &paths)
{
    m_recent->clear();
    for (const QString &path : paths) {
        auto *item = new QListWidgetItem(
            QStringLiteral("%1  —  %2").arg(QFileInfo(path).fileName(), path), m_recent);
        item->setData(Qt::UserRole, path);
    }
    m_recentBox->setVisible(!paths.isEmpty());
}

} // namespace kiln
