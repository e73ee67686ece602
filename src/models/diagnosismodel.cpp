#include "diagnosismodel.h"

#include "engine/diagnosis/rundiagnosis.h"
#include "rundocument.h"
#include "store/runstore.h"
#include "verdictstyle.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

namespace kiln {

DiagnosisModel::DiagnosisModel(RunDocument *document, QObject *parent)
    : QAbstractListModel(parent), m_document(document)
{
    m_growth.setSingleShot(true);
    m_growth.setInterval(kRefreshMs);
    connect(&m_growth, &QTimer::timeout, this, &DiagnosisModel::refresh);
    // A replay step reloads the run as it stood then; the diagnosis stays the run's as it is.
    connect(document, &RunDocument::runLoaded, this, [this] {
        if (!m_document->isReplaying())
            refresh();
    });
    const auto grown = [this] {
        if (!m_growth.isActive() && !m_document->isReplaying())
            m_growth.start();
    };
    connect(document, &RunDocument::candidatesAppended, this, grown);
    connect(document, &RunDocument::candidateChanged, this, grown);
    // The run's state or budget changed (it finished, say): its last writes are in the store.
    connect(document, &RunDocument::runChanged, this, grown);
}

// A computation still running ends on its own: it holds nothing of the model's.
DiagnosisModel::~DiagnosisModel() = default;

int DiagnosisModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_findings.size());
}

QVariant DiagnosisModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_findings.size())
        return {};
    const DiagnosisFinding &f = m_findings[index.row()];
    switch (role) {
    case Qt::DisplayRole:
        return QStringLiteral("%1  %2/5\n%3").arg(f.title).arg(f.rating).arg(f.finding);
    case Qt::DecorationRole:
        return VerdictStyle::ratingColor(f.rating);
    case Qt::ToolTipRole:
        return f.finding;
    case CandidatesRole:
        return QVariant::fromValue(f.candidates);
    default:
        return {};
    }
}

// The store is opened afresh on the worker: a connection belongs to the thread that uses it.
void DiagnosisModel::refresh()
{
    m_growth.stop();
    if (m_watcher) {
        m_again = true;
        return;
    }
    const qint64 runId = m_document->hasRun() ? m_document->run().id : 0;
    const QString path = m_document->databasePath();
    if (runId == 0 || path.isEmpty()) {
        apply({});
        return;
    }
    m_watcher = new QFutureWatcher<Computed>(this);
    connect(m_watcher, &QFutureWatcher<Computed>::finished, this, [this] {
        const Computed computed = m_watcher->result();
        m_watcher->deleteLater();
        m_watcher = nullptr;
        apply(computed);
        if (std::exchange(m_again, false))
            refresh();
    });
    m_watcher->setFuture(QtConcurrent::run([path, runId] {
        Computed computed{runId, {}};
        if (auto store = RunStore::open(path, RunStore::Mode::ReadOnly))
            computed.findings = RunDiagnosis::diagnose(RunHistory::load(*store, runId));
        return computed;
    }));
}

void DiagnosisModel::apply(const Computed &computed)
{
    // A diagnosis of a run the document no longer shows is dropped.
    const qint64 shown = m_document->hasRun() ? m_document->run().id : 0;
    if (computed.runId != shown)
        return;
    beginResetModel();
    m_findings = computed.findings;
    m_runId = computed.runId;
    endResetModel();
    emit diagnosed();
}

} // namespace kiln
