#include "candidatespanel.h"

#include "svgiconengine.h"
#include "ui_candidatespanel.h"

#include "models/candidatefiltermodel.h"
#include "models/candidateselection.h"
#include "models/candidatetablemodel.h"
#include "models/rundocument.h"
#include "models/verdictstyle.h"

#include <QHeaderView>
#include <QLocale>
#include <QMenu>
#include <QPainter>

namespace kiln {

namespace {

QIcon swatch(const QColor &color)
{
    QPixmap pixmap(12, 12);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(color.darker(140));
    p.setBrush(color);
    p.drawEllipse(QRectF(1, 1, 10, 10));
    return QIcon(pixmap);
}

} // namespace

CandidatesPanel::CandidatesPanel(RunDocument *document, CandidateSelection *selection,
                                 QWidget *parent)
    : QWidget(parent), m_ui(new Ui::CandidatesPanel), m_document(document), m_selection(selection),
      m_model(new CandidateTableModel(document, this)), m_filter(new CandidateFilterModel(this)),
      m_verdictMenu(new QMenu(this)), m_operationMenu(new QMenu(this))
{
    m_ui->setupUi(this);
    setObjectName(QStringLiteral("candidatesPanel"));
    m_filter->setSourceModel(m_model);
    m_ui->tableView->setModel(m_filter);
    setupTable();
    setupFilterMenus();
    connectFilters();
    connectSelection();
    connect(document, &RunDocument::runLoaded, this, [this] {
        rebuildIslands();
        updateCount();
    });
    connect(m_filter, &QAbstractItemModel::rowsInserted, this, &CandidatesPanel::updateCount);
    connect(m_filter, &QAbstractItemModel::rowsRemoved, this, &CandidatesPanel::updateCount);
    connect(m_filter, &QAbstractItemModel::modelReset, this, &CandidatesPanel::updateCount);
    rebuildIslands();
    updateCount();
}

void CandidatesPanel::setupTable()
{
    // Rows arrive in id order already: no sort until the user asks for one, so opening a run
    // of 100,000 candidates does not start with a needless sort.
    m_ui->tableView->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    m_ui->tableView->verticalHeader()->setDefaultSectionSize(22);
    m_ui->tableView->horizontalHeader()->setHighlightSections(false);
    // Room for a verdict "compile error (= #123)" and a speedup "2.31× ± 0.04 ✓".
    const int widths[] = {70, 165, 115, 90, 110, 60, 55, 80, 160, 90};
    for (int c = 0; c < CandidateTableModel::ColumnCount; ++c)
        m_ui->tableView->setColumnWidth(c, widths[c]);
    // Flags are the one column whose text varies in length: it takes the spare width.
    m_ui->tableView->horizontalHeader()->setStretchLastSection(false);
    m_ui->tableView->horizontalHeader()->setSectionResizeMode(CandidateTableModel::FlagsColumn,
                                                              QHeaderView::Stretch);
    // The count changes with every candidate of a live run: a label of fixed size keeps that from
    // laying the whole window out again each time (see SteadyLabel).
    m_ui->countLabel->setFixedSize(
        m_ui->countLabel->fontMetrics().horizontalAdvance(
            tr("%1 of %2 candidates").arg(QStringLiteral("000,000"), QStringLiteral("000,000"))) +
            8,
        m_ui->countLabel->sizeHint().height());
    m_ui->countLabel->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_ui->clearButton->setIcon(SvgIconEngine::icon(QStringLiteral("clear")));
    m_ui->clearButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
}

// The verdict and operation menus: one checkable entry per value.
void CandidatesPanel::setupFilterMenus()
{
    for (Verdict v : allVerdicts()) {
        QAction *a =
            m_verdictMenu->addAction(swatch(VerdictStyle::color(v)), VerdictStyle::label(v));
        a->setCheckable(true);
        a->setData(int(v));
    }
    QAction *pending =
        m_verdictMenu->addAction(swatch(VerdictStyle::pendingColor()), tr("pending"));
    pending->setCheckable(true);
    pending->setData(CandidateFilterModel::PendingVerdict);
    m_ui->verdictButton->setMenu(m_verdictMenu);
    for (Operation op : {Operation::Sample, Operation::Refine, Operation::Mutate,
                         Operation::Crossover, Operation::Manual}) {
        QAction *a = m_operationMenu->addAction(operationName(op));
        a->setCheckable(true);
        a->setData(int(op));
    }
    m_ui->operationButton->setMenu(m_operationMenu);
}

void CandidatesPanel::connectFilters()
{
    connect(m_verdictMenu, &QMenu::triggered, this, &CandidatesPanel::applyFilters);
    connect(m_operationMenu, &QMenu::triggered, this, &CandidatesPanel::applyFilters);
    connect(m_ui->flagEdit, &QLineEdit::textChanged, this, &CandidatesPanel::applyFilters);
    connect(m_ui->islandCombo, &QComboBox::currentIndexChanged, this,
            &CandidatesPanel::applyFilters);
    connect(m_ui->generationMin, &QSpinBox::valueChanged, this, &CandidatesPanel::applyFilters);
    connect(m_ui->generationMax, &QSpinBox::valueChanged, this, &CandidatesPanel::applyFilters);
    connect(m_ui->minSpeedup, &QDoubleSpinBox::valueChanged, this, &CandidatesPanel::applyFilters);
    connect(m_ui->clearButton, &QToolButton::clicked, this, &CandidatesPanel::clearFilters);
}

void CandidatesPanel::clearFilters()
{
    const QSignalBlocker b1(m_ui->flagEdit), b2(m_ui->islandCombo), b3(m_ui->generationMin),
        b4(m_ui->generationMax), b5(m_ui->minSpeedup);
    for (QAction *a : m_verdictMenu->actions())
        a->setChecked(false);
    for (QAction *a : m_operationMenu->actions())
        a->setChecked(false);
    m_ui->flagEdit->clear();
    m_ui->islandCombo->setCurrentIndex(0);
    m_ui->generationMin->setValue(-1);
    m_ui->generationMax->setValue(-1);
    m_ui->minSpeedup->setValue(0.0);
    applyFilters();
}

// The table's current row and the shared selection follow each other.
void CandidatesPanel::connectSelection()
{
    connect(m_ui->tableView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (m_following || !current.isValid())
                    return;
                m_selection->setCurrent(current.data(CandidateTableModel::IdRole).toLongLong());
            });
    connect(m_selection, &CandidateSelection::currentChanged, this,
            &CandidatesPanel::followSelection);
    // The table's way to pick the second candidate of the diff.
    m_ui->tableView->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_ui->tableView, &QWidget::customContextMenuRequested, this,
            &CandidatesPanel::showContextMenu);
}

void CandidatesPanel::showContextMenu(const QPoint &pos)
{
    const QModelIndex index = m_ui->tableView->indexAt(pos);
    if (!index.isValid())
        return;
    const qint64 id = index.data(CandidateTableModel::IdRole).toLongLong();
    QMenu menu(this);
    menu.addAction(tr("Select #%1").arg(id), this, [this, id] { m_selection->setCurrent(id); });
    if (m_selection->current() && m_selection->current() != id)
        menu.addAction(tr("Compare #%1 with #%2").arg(m_selection->current()).arg(id), this,
                       [this, id] { m_selection->setCompare(id); });
    menu.exec(m_ui->tableView->viewport()->mapToGlobal(pos));
}

CandidatesPanel::~CandidatesPanel() = default;

QAbstractItemView *CandidatesPanel::view() const
{
    return m_ui->tableView;
}

void CandidatesPanel::rebuildIslands()
{
    const QSignalBlocker blocker(m_ui->islandCombo);
    m_ui->islandCombo->clear();
    m_ui->islandCombo->addItem(tr("All islands"), -1);
    int islands = 0;
    for (const CandidateSummary &c : m_document->candidates())
        islands = std::max(islands, c.island + 1);
    for (int i = 0; i < islands; ++i)
        m_ui->islandCombo->addItem(swatch(VerdictStyle::islandColor(i)), tr("Island %1").arg(i), i);
    m_ui->islandCombo->setVisible(islands > 1);
}

void CandidatesPanel::setVerdictFilter(const QSet<int> &verdicts)
{
    for (QAction *a : m_verdictMenu->actions())
        a->setChecked(verdicts.contains(a->data().toInt()));
    applyFilters();
}

void CandidatesPanel::setFlagFilter(const QString &text)
{
    m_ui->flagEdit->setText(text);
}

void CandidatesPanel::applyFilters()
{
    QSet<int> verdicts;
    QStringList verdictNames;
    for (QAction *a : m_verdictMenu->actions()) {
        if (a->isChecked()) {
            verdicts.insert(a->data().toInt());
            verdictNames << a->text();
        }
    }
    QSet<int> operations;
    QStringList operationNames;
    for (QAction *a : m_operationMenu->actions()) {
        if (a->isChecked()) {
            operations.insert(a->data().toInt());
            operationNames << a->text();
        }
    }
    m_ui->verdictButton->setText(
        verdicts.isEmpty() ? tr("Verdict: all")
                           : tr("Verdict: %1").arg(verdictNames.join(QStringLiteral(", "))));
    m_ui->operationButton->setText(
        operations.isEmpty() ? tr("Operation: all")
                             : tr("Operation: %1").arg(operationNames.join(QStringLiteral(", "))));
    m_filter->setVerdicts(verdicts);
    m_filter->setOperations(operations);
    m_filter->setFlagFilter(m_ui->flagEdit->text());
    const int island =
        m_ui->islandCombo->currentData().isValid() ? m_ui->islandCombo->currentData().toInt() : -1;
    m_filter->setIsland(island >= 0 ? std::optional<int>(island) : std::nullopt);
    const int gmin = m_ui->generationMin->value();
    const int gmax = m_ui->generationMax->value();
    m_filter->setGenerationRange(gmin >= 0 ? std::optional<int>(gmin) : std::nullopt,
                                 gmax >= 0 ? std::optional<int>(gmax) : std::nullopt);
    const double s = m_ui->minSpeedup->value();
    m_filter->setMinimumSpeedup(s > 0.0 ? std::optional<double>(s) : std::nullopt);
    updateCount();
    followSelection(m_selection->current());
}

void CandidatesPanel::followSelection(qint64 candidateId)
{
    const int row = candidateId ? m_document->rowOf(candidateId) : -1;
    const QModelIndex proxy =
        row >= 0 ? m_filter->mapFromSource(m_model->index(row, 0)) : QModelIndex();
    m_following = true;
    if (proxy.isValid()) {
        m_ui->tableView->selectionModel()->setCurrentIndex(
            proxy, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_ui->tableView->scrollTo(proxy);
    } else {
        m_ui->tableView->selectionModel()->clearSelection();
    }
    m_following = false;
}

void CandidatesPanel::updateCount()
{
    int total = 0;
    for (const CandidateSummary &c : m_document->candidates())
        total += c.placeholder ? 0 : 1;
    const QLocale locale;
    m_ui->countLabel->setText(
        tr("%1 of %2 candidates")
            .arg(locale.toString(m_filter->rowCount()), locale.toString(total)));
}

} // namespace kiln
