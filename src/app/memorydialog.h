#pragma once

#include <QDialog>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableView;

namespace kiln {

class MemoryTableModel;
class RunStore;

// Run ▸ Optimisation memory: the lessons the workspace's runs recorded (docs/strategies.md), with
// the selected lesson's diff. Ideas are edited in place; lessons can be deleted one by one or all
// at once. The store is the workspace's writer, so running searches see the change at their next
// round.
class MemoryDialog : public QDialog
{
    Q_OBJECT

public:
    explicit MemoryDialog(RunStore *store, QWidget *parent = nullptr);

    MemoryTableModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QPlainTextEdit *diff() const { return m_diff; }
    QPushButton *deleteButton() const { return m_delete; }
    // Clears without asking (the Clear button asks first, then calls this).
    bool clearAll();

private:
    void showSelected();
    void deleteSelected();
    void confirmClear();
    void updateSummary();

    MemoryTableModel *m_model;
    QTableView *m_table;
    QPlainTextEdit *m_diff;
    QLabel *m_summary;
    QPushButton *m_delete;
    QPushButton *m_clear;
};

} // namespace kiln
