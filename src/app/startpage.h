#pragma once

#include <QStringList>
#include <QWidget>

class QListWidget;

namespace kiln {

// What the window shows where the tree will be, before any run is on screen: ways to begin
// (a new run, the demo search, a database), the databases opened lately, and where help is.
class StartPage : public QWidget
{
    Q_OBJECT

public:
    explicit StartPage(QWidget *parent = nullptr);

    void setRecent(const QStringList &paths);
    QListWidget *recentList() const { return m_recent; }

signals:
    void newRunRequested();
    void demoRequested();
    void openRequested();
    void recentRequested(const QString &path);
    void guideRequested();

private:
    QListWidget *m_recent;
    QWidget *m_recentBox;
};

} // namespace kiln
