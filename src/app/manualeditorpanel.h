#pragma once

#include "core/candidaterecord.h"

#include <QWidget>

class QLabel;
class QTabWidget;

namespace kiln {

class ManualEditTab;

// The "Editor" dock: one tab per editable copy of a candidate. The tabs hand their submissions
// to the window, which has them verified in the background.
class ManualEditorPanel : public QWidget
{
    Q_OBJECT

public:
    explicit ManualEditorPanel(QWidget *parent = nullptr);

    ManualEditTab *openCopy(const CandidateRecord &original, const QString &database);
    QTabWidget *tabs() const { return m_tabs; }
    QList<ManualEditTab *> editTabs() const;
    ManualEditTab *tabForTicket(int ticket) const;

signals:
    void submitRequested(kiln::ManualEditTab *tab);
    void candidateRequested(qint64 candidateId);

private:
    QTabWidget *m_tabs;
    QLabel *m_empty;
};

} // namespace kiln
