#include "comparedialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace kiln {

CompareDialog::CompareDialog(const QStringList &tasks, const QStringList &strategies,
                             QWidget *parent)
    : QDialog(parent), m_task(new QComboBox), m_strategies(new QListWidget), m_budget(new QSpinBox),
      m_seeds(new QSpinBox), m_problem(new QLabel)
{
    setWindowTitle(tr("Compare strategies at equal budget"));
    setObjectName(QStringLiteral("compareDialog"));
    m_task->addItems(tasks);
    for (const QString &name : strategies) {
        auto *item = new QListWidgetItem(name, m_strategies);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
    }
    m_budget->setRange(1, 100000);
    m_budget->setSuffix(tr(" evaluations"));
    m_seeds->setRange(1, 32);
    m_problem->setStyleSheet(QStringLiteral("color: #b00020;"));
    auto *form = new QFormLayout;
    form->addRow(tr("Task"), m_task);
    form->addRow(tr("Strategies"), m_strategies);
    form->addRow(tr("Budget per run"), m_budget);
    form->addRow(tr("Seeds per strategy"), m_seeds);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Start comparison"));
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_problem);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        m_problem->setText(problem());
        if (m_problem->text().isEmpty())
            accept();
    });
    setComparison(MainWindow::Comparison());
}

void CompareDialog::setComparison(const MainWindow::Comparison &comparison)
{
    if (!comparison.task.isEmpty())
        m_task->setCurrentText(comparison.task);
    QStringList wanted = comparison.strategies;
    if (wanted.isEmpty()) // width, depth and a structured search
        wanted = {QStringLiteral("best-of-n"), QStringLiteral("refine"), QStringLiteral("beam")};
    for (int i = 0; i < m_strategies->count(); ++i)
        m_strategies->item(i)->setCheckState(
            wanted.contains(m_strategies->item(i)->text()) ? Qt::Checked : Qt::Unchecked);
    m_budget->setValue(int(comparison.budget));
    m_seeds->setValue(comparison.seeds);
}

MainWindow::Comparison CompareDialog::comparison() const
{
    MainWindow::Comparison c;
    c.task = m_task->currentText();
    for (int i = 0; i < m_strategies->count(); ++i)
        if (m_strategies->item(i)->checkState() == Qt::Checked)
            c.strategies << m_strategies->item(i)->text();
    c.budget = m_budget->value();
    c.seeds = m_seeds->value();
    return c;
}

QString CompareDialog::problem() const
{
    const MainWindow::Comparison c = comparison();
    if (c.task.isEmpty())
        return tr("Pick a task.");
    if (c.strategies.size() < 2)
        return tr("Pick at least two strategies to compare.");
    return {};
}

} // namespace kiln
