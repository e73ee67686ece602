#include "memorydialog.h"

#include "models/memorytablemodel.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace kiln {

MemoryDialog::MemoryDialog(RunStore *store, QWidget *parent)
    : QDialog(parent), m_model(new MemoryTableModel(store, this)), m_table(new QTableView(this)),
      m_diff(new QPlainTextEdit(this)), m_summary(new QLabel(this)),
      m_delete(new QPushButton(tr("&Delete"), this)),
      m_clear(new QPushButton(tr("C&lear all…"), this))
{
    setObjectName(QStringLiteral("memoryDialog"));
    setWindowTitle(tr("Optimisation memory"));
    resize(900, 560);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    // The idea takes what the short columns leave.
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(MemoryTableModel::Idea, QHeaderView::Stretch);
    m_table->verticalHeader()->hide();
    m_diff->setReadOnly(true);
    m_diff->setFont(QFont(QStringLiteral("DejaVu Sans Mono"), 9));
    m_diff->setPlaceholderText(tr("Select a lesson to read the change it recorded."));

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_table);
    splitter->addWidget(m_diff);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    auto *reload = buttons->addButton(tr("&Reload"), QDialogButtonBox::ActionRole);
    // Enter never deletes or clears by accident.
    m_delete->setAutoDefault(false);
    m_clear->setAutoDefault(false);
    buttons->addButton(m_delete, QDialogButtonBox::ActionRole);
    buttons->addButton(m_clear, QDialogButtonBox::DestructiveRole);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(splitter);
    layout->addWidget(buttons);

    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(reload, &QPushButton::clicked, m_model, &MemoryTableModel::reload);
    connect(m_delete, &QPushButton::clicked, this, &MemoryDialog::deleteSelected);
    connect(m_clear, &QPushButton::clicked, this, &MemoryDialog::confirmClear);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &MemoryDialog::showSelected);
    connect(m_model, &QAbstractItemModel::modelReset, this, &MemoryDialog::updateSummary);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &MemoryDialog::updateSummary);
    updateSummary();
}

void MemoryDialog::updateSummary()
{
    const int rows = m_model->rowCount();
    m_summary->setText(rows == 0 ? tr("The memory is empty. Runs of beam, refine, evolve or agents "
                                      "with the memory parameter above 0 record a lesson each "
                                      "time a kernel beats its parent.")
                                 : (rows == 1 ? tr("1 lesson.") : tr("%1 lessons.").arg(rows)) +
                                       tr(" Double-click an idea to edit it; prompts of later "
                                          "runs carry the most relevant ones."));
    m_delete->setEnabled(m_table->currentIndex().isValid());
    m_clear->setEnabled(rows > 0);
    if (!m_table->currentIndex().isValid())
        m_diff->clear();
}

void MemoryDialog::showSelected()
{
    const QModelIndex current = m_table->currentIndex();
    m_delete->setEnabled(current.isValid());
    if (!current.isValid()) {
        m_diff->clear();
        return;
    }
    const MemoryEntry &e = m_model->entry(current.row());
    const QString where = e.shape.isEmpty() ? tr("%1 on %2").arg(e.task, e.backend)
                                            : tr("%1 on %2 (%3)").arg(e.task, e.backend, e.shape);
    m_diff->setPlainText(
        tr("%1: %2\n\n%3")
            .arg(where, e.idea, e.diff.isEmpty() ? tr("(no source diff recorded)") : e.diff));
}

void MemoryDialog::deleteSelected()
{
    const QModelIndex current = m_table->currentIndex();
    if (current.isValid() && !m_model->removeEntry(current.row()))
        QMessageBox::warning(this, windowTitle(), m_model->lastError());
}

bool MemoryDialog::clearAll()
{
    const bool ok = m_model->clearAll();
    if (!ok)
        QMessageBox::warning(this, windowTitle(), m_model->lastError());
    return ok;
}

void MemoryDialog::confirmClear()
{
    if (QMessageBox::question(this, windowTitle(),
                              tr("Remove all %n lesson(s) from the memory of this workspace?",
                                 nullptr, m_model->rowCount())) == QMessageBox::Yes)
        clearAll();
}

} // namespace kiln
