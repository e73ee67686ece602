#pragma once

#include <QWidget>

class QLabel;
class QListView;
class QPushButton;

namespace kiln {

class CandidateHighlight;
class CandidateSelection;
class DiagnosisModel;

// The shown run's diagnosis (docs/diagnosis.md): each analyzer's rating and finding, computed
// off the GUI thread and kept current while a live run grows. Clicking a finding highlights its
// evidence on the tree, the table and the speedup plot; double-clicking also selects its first
// candidate.
class DiagnosisPanel : public QWidget
{
    Q_OBJECT

public:
    DiagnosisPanel(DiagnosisModel *model, CandidateHighlight *highlight,
                   CandidateSelection *selection, QWidget *parent = nullptr);

    QListView *list() const { return m_list; }

private:
    void showFinding(int row, bool select);
    void followDiagnosis();
    void updateHeader();

    DiagnosisModel *m_model;
    CandidateHighlight *m_highlight;
    CandidateSelection *m_selection;
    QLabel *m_header;
    QListView *m_list;
    QLabel *m_evidence;
    QPushButton *m_clear;
    qint64 m_highlightedRun = 0;
};

} // namespace kiln
