#include "diagnosispanel.h"

#include "models/candidatehighlight.h"
#include "models/candidateselection.h"
#include "models/diagnosismodel.h"

#include "engine/diagnosis/diagnosisfinding.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListView>
#include <QPushButton>
#include <QVBoxLayout>

namespace kiln {

DiagnosisPanel::DiagnosisPanel(DiagnosisModel *model, CandidateHighlight *highlight,
                               CandidateSelection *selection, QWidget *parent)
    : QWidget(parent), m_model(model), m_highlight(highlight), m_selection(selection)
{
    m_header = new QLabel;
    m_header->setWordWrap(true);
    m_list = new QListView;
    m_list->setObjectName(QStringLiteral("diagnosisList"));
    m_list->setModel(model);
    m_list->setWordWrap(true);
    m_list->setSpacing(3);
    m_list->setUniformItemSizes(false);
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_evidence = new QLabel;
    m_evidence->setWordWrap(true);
    m_clear = new QPushButton(tr("Clear highlight"));
    m_clear->setObjectName(QStringLiteral("clearHighlight"));
    auto *footer = new QHBoxLayout;
    footer->addWidget(m_evidence, 1);
    footer->addWidget(m_clear);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_header);
    layout->addWidget(m_list, 1);
    layout->addLayout(footer);

    connect(m_list, &QListView::clicked, this,
            [this](const QModelIndex &index) { showFinding(index.row(), false); });
    connect(m_list, &QListView::doubleClicked, this,
            [this](const QModelIndex &index) { showFinding(index.row(), true); });
    connect(m_clear, &QPushButton::clicked, m_highlight, &CandidateHighlight::clear);
    connect(m_highlight, &CandidateHighlight::changed, this, &DiagnosisPanel::updateHeader);
    connect(m_model, &DiagnosisModel::diagnosed, this, &DiagnosisPanel::followDiagnosis);
    updateHeader();
}

void DiagnosisPanel::showFinding(int row, bool select)
{
    const QModelIndex index = m_model->index(row);
    const QList<qint64> ids = index.data(DiagnosisModel::CandidatesRole).value<QList<qint64>>();
    m_highlight->set(ids, m_model->findings().value(row).title);
    m_highlightedRun = m_model->runId();
    if (select && !ids.isEmpty())
        m_selection->setCurrent(ids.first());
}

// A live run's new diagnosis keeps the finding highlighted, with its evidence as it is now; a
// diagnosis of another run ends the highlight.
void DiagnosisPanel::followDiagnosis()
{
    const QString shown = m_highlight->label();
    if (m_model->runId() != m_highlightedRun) {
        m_highlight->clear();
    } else if (!shown.isEmpty()) {
        for (const DiagnosisFinding &f : m_model->findings())
            if (f.title == shown)
                m_highlight->set(f.candidates, f.title);
    }
    m_highlightedRun = m_model->runId();
    updateHeader();
}

void DiagnosisPanel::updateHeader()
{
    m_header->setText(
        m_model->runId()
            ? tr("Why run %1 stopped improving: each analyzer rated 1 (not seen) to 5 (plain). "
                 "Click a finding to highlight its evidence.")
                  .arg(m_model->runId())
            : tr("No run to diagnose: open a workspace or start a run."));
    m_clear->setEnabled(!m_highlight->isEmpty());
    m_evidence->setText(m_highlight->isEmpty() ? QString()
                                               : tr("%n candidate(s) highlighted: %1", "",
                                                    int(m_highlight->ids().size()))
                                                     .arg(m_highlight->label()));
}

} // namespace kiln
