#pragma once

#include "mainwindow.h"

#include <QDialog>

class QComboBox;
class QLabel;
class QListWidget;
class QSpinBox;

namespace kiln {

// Asks for an equal-budget comparison: one task, the strategies to compare, the budget (in
// evaluations) and how many seeds each. Checked before it closes.
class CompareDialog : public QDialog
{
    Q_OBJECT

public:
    CompareDialog(const QStringList &tasks, const QStringList &strategies,
                  QWidget *parent = nullptr);

    void setComparison(const MainWindow::Comparison &comparison);
    MainWindow::Comparison comparison() const;
    // Empty when the inputs can start; else what is wrong.
    QString problem() const;

private:
    QComboBox *m_task;
    QListWidget *m_strategies;
    QSpinBox *m_budget;
    QSpinBox *m_seeds;
    QLabel *m_problem;
};

} // namespace kiln
