#include "helpdialog.h"

#include "core/installlayout.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace kiln {

QString HelpDialog::guidePath()
{
    const QStringList places = {
        InstallLayout::besideExecutable(QStringLiteral("../share/doc/kiln/docs/user-guide.md")),
        QStringLiteral(KILN_SOURCE_DOCS "/user-guide.md")};
    for (const QString &path : places)
        if (!path.isEmpty() && QFileInfo::exists(path))
            return path;
    return {};
}

HelpDialog::HelpDialog(const QList<QAction *> &actions, QWidget *parent)
    : QDialog(parent), m_guide(new QTextBrowser), m_shortcuts(new QTableWidget(0, 2)),
      m_tabs(new QTabWidget)
{
    setObjectName(QStringLiteral("helpDialog"));
    setWindowTitle(tr("Kiln help"));
    const QString path = guidePath();
    QFile file(path);
    if (!path.isEmpty() && file.open(QIODevice::ReadOnly)) {
        m_guide->setSearchPaths({QFileInfo(path).absolutePath()});
        m_guide->setMarkdown(QString::fromUtf8(file.readAll()));
    } else {
        m_guide->setPlainText(tr("The user guide (docs/user-guide.md) is not installed here."));
    }
    m_guide->setOpenExternalLinks(false);
    m_guide->setOpenLinks(true);

    m_shortcuts->setObjectName(QStringLiteral("shortcutTable"));
    m_shortcuts->setHorizontalHeaderLabels({tr("Action"), tr("Shortcut")});
    m_shortcuts->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_shortcuts->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_shortcuts->verticalHeader()->hide();
    for (const QAction *action : actions) {
        if (action->shortcut().isEmpty())
            continue;
        const int row = m_shortcuts->rowCount();
        m_shortcuts->insertRow(row);
        m_shortcuts->setItem(row, 0, new QTableWidgetItem(action->text().remove(QLatin1Char('&'))));
        m_shortcuts->setItem(
            row, 1, new QTableWidgetItem(action->shortcut().toString(QKeySequence::NativeText)));
    }
    m_shortcuts->sortItems(0);

    m_tabs->addTab(m_guide, tr("User guide"));
    m_tabs->addTab(m_shortcuts, tr("Keyboard shortcuts"));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_tabs);
    layout->addWidget(buttons);
    resize(900, 700);
}

void HelpDialog::showShortcuts()
{
    m_tabs->setCurrentWidget(m_shortcuts);
}

} // namespace kiln
