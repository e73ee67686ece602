#pragma once

#include <QWidget>
#include <memory>

class QAbstractItemView;
class QMenu;

namespace Ui {
class CandidatesPanel;
}

namespace kiln {

class CandidateFilterModel;
class CandidateSelection;
class CandidateTableModel;
class RunDocument;

// The candidates table with its filter bar; its selection follows and drives the shared
// CandidateSelection.
class CandidatesPanel : public QWidget
{
    Q_OBJECT

public:
    CandidatesPanel(RunDocument *document, CandidateSelection *selection,
                    QWidget *parent = nullptr);
    ~CandidatesPanel() override;

    CandidateTableModel *tableModel() const { return m_model; }
    CandidateFilterModel *filterModel() const { return m_filter; }
    QAbstractItemView *view() const;
    // Checks exactly these verdicts (int(Verdict), -1 = pending) in the verdict filter.
    void setVerdictFilter(const QSet<int> &verdicts);
    void setFlagFilter(const QString &text);

private:
    void setupTable();
    void setupFilterMenus();
    void connectFilters();
    void clearFilters();
    void connectSelection();
    void showContextMenu(const QPoint &pos);
    void rebuildIslands();
    void applyFilters();
    void followSelection(qint64 candidateId);
    void updateCount();

    std::unique_ptr<Ui::CandidatesPanel> m_ui;
    RunDocument *m_document;
    CandidateSelection *m_selection;
    CandidateTableModel *m_model;
    CandidateFilterModel *m_filter;
    QMenu *m_verdictMenu;
    QMenu *m_operationMenu;
    bool m_following = false;
};

} // namespace kiln
