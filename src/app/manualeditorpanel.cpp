#include "manualeditorpanel.h"

#include "manualedittab.h"

#include <QLabel>
#include <QStackedLayout>
#include <QTabWidget>

namespace kiln {

ManualEditorPanel::ManualEditorPanel(QWidget *parent)
    : QWidget(parent), m_tabs(new QTabWidget(this)), m_empty(new QLabel(this))
{
    setObjectName(QStringLiteral("manualEditorPanel"));
    auto *layout = new QStackedLayout(this);
    m_empty->setText(tr("<h3>Can you beat the search?</h3><p>Select a candidate and choose "
                        "<b>Edit a copy</b> (Ctrl+E): the copy opens here, editable. "
                        "<b>Submit as child</b> verifies it on the run's own inputs and adds "
                        "it to the tree as a manual node.</p><p>You can also drop a .cu or "
                        ".cpp file onto the window.</p>"));
    m_empty->setWordWrap(true);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setStyleSheet(QStringLiteral("color: #5a6470; padding: 24px;"));
    m_tabs->setTabsClosable(true);
    m_tabs->setDocumentMode(true);
    layout->addWidget(m_empty);
    layout->addWidget(m_tabs);
    connect(m_tabs, &QTabWidget::tabCloseRequested, this, [this, layout](int index) {
        QWidget *tab = m_tabs->widget(index);
        m_tabs->removeTab(index);
        tab->deleteLater();
        if (m_tabs->count() == 0)
            layout->setCurrentWidget(m_empty);
    });
    layout->setCurrentWidget(m_empty);
}

ManualEditTab *ManualEditorPanel::openCopy(const CandidateRecord &original, const QString &database)
{
    auto *tab = new ManualEditTab(original, database);
    connect(tab, &ManualEditTab::submitRequested, this, &ManualEditorPanel::submitRequested);
    connect(tab, &ManualEditTab::candidateRequested, this, &ManualEditorPanel::candidateRequested);
    m_tabs->setCurrentIndex(m_tabs->addTab(tab, tab->title()));
    static_cast<QStackedLayout *>(layout())->setCurrentWidget(m_tabs);
    return tab;
}

QList<ManualEditTab *> ManualEditorPanel::editTabs() const
{
    QList<ManualEditTab *> tabs;
    for (int i = 0; i < m_tabs->count(); ++i)
        if (auto *tab = qobject_cast<ManualEditTab *>(m_tabs->widget(i)))
            tabs.append(tab);
    return tabs;
}

ManualEditTab *ManualEditorPanel::tabForTicket(int ticket) const
{
    for (ManualEditTab *tab : editTabs())
        if (tab->ticket() == ticket)
            return tab;
    return nullptr;
}

} // namespace kiln
