#pragma once

#include <QDialog>

class QAction;
class QTableWidget;
class QTabWidget;
class QTextBrowser;

namespace kiln {

// Help ▸ User guide and Help ▸ Keyboard shortcuts: the user guide read from the installed docs
// (or the checkout's, for a build that is not installed), and every shortcut of the window,
// read from its actions so the list is never out of date.
class HelpDialog : public QDialog
{
    Q_OBJECT

public:
    HelpDialog(const QList<QAction *> &actions, QWidget *parent = nullptr);

    void showShortcuts();
    QTextBrowser *guide() const { return m_guide; }
    QTableWidget *shortcuts() const { return m_shortcuts; }
    // The user guide's file: installed beside the executable, else the checkout's; empty when
    // neither exists.
    static QString guidePath();

private:
    QTextBrowser *m_guide;
    QTableWidget *m_shortcuts;
    QTabWidget *m_tabs;
};

} // namespace kiln
