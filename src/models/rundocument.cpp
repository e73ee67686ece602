#include "rundocument.h"

#include "store/runstore.h"

#include <QFutureWatcher>
#include <QJsonArray>
#include <QSet>
#include <QtConcurrent/QtConcurrentRun>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace kiln {

namespace {

constexpr int cacheSize = 16;

bool isBetter(const CandidateSummary &a, const CandidateSummary &b)
{
    return *a.speedup > *b.speedup;
}

} // namespace

RunDocument::RunDocument(QObject *parent) : QObject(parent) {}

RunDocument::~RunDocument() = default;

bool RunDocument::openDatabase(const QString &path, QString *error)
{
    QString why;
    auto store = RunStore::open(path, RunStore::Mode::ReadOnly, &why);
    if (!store) {
        if (error)
            *error = why.isEmpty() ? QStringLiteral("cannot open %1").arg(path) : why;
        return false;
    }
    close();
    m_store = std::move(store);
    m_path = path;
    return true;
}

void RunDocument::close()
{
    ++m_loadGeneration; // drop a load in flight
    m_loading = false;
    emit runAboutToLoad();
    m_store.reset();
    m_path.clear();
    m_run = RunRecord();
    m_run.id = 0;
    m_rows.clear();
    m_rowOf.clear();
    m_bestRow = -1;
    m_lastEventId = 0;
    m_recordCache.clear();
    m_evaluationCache.clear();
    emit runLoaded();
}

QList<RunRecord> RunDocument::runs() const
{
    return m_store ? m_store->runs() : QList<RunRecord>();
}

bool RunDocument::isLive() const
{
    return hasRun() && (m_run.status == RunRecord::Status::Running ||
                        m_run.status == RunRecord::Status::Created ||
                        m_run.status == RunRecord::Status::Paused);
}

// Everything loadRun reads, gathered in one read snapshot (so the event cursor matches the
// candidates read). Runs on any thread with its own store connection.
RunDocument::LoadedRun RunDocument::readRun(RunStore &store, qint64 runId)
{
    LoadedRun loaded;
    store.transaction([&] {
        loaded.run = store.run(runId);
        if (!loaded.run)
            return false;
        QList<CandidateSummary> &rows = loaded.rows;
        {
            const QList<CandidateRecord> records = store.candidates(runId);
            rows.reserve(records.size());
            for (const CandidateRecord &record : records)
                rows.append(CandidateSummary::fromRecord(record));
        }
        QHash<qint64, int> rowOf;
        rowOf.reserve(rows.size());
        for (int i = 0; i < rows.size(); ++i)
            rowOf.insert(rows[i].id, i);
        {
            const QMap<qint64, EvaluationResult> evaluations = store.evaluationsForRun(runId);
            for (auto it = evaluations.cbegin(); it != evaluations.cend(); ++it) {
                const int row = rowOf.value(it.key(), -1);
                if (row >= 0)
                    rows[row].applyEvaluation(it.value());
            }
        }
        const QList<StoredEvent> events = store.events(runId);
        for (const StoredEvent &event : events) {
            loaded.lastEvent = std::max(loaded.lastEvent, event.id);
            if (event.kind == QStringLiteral("evicted"))
                loaded.evictions.append(event.payload);
        }
        return true;
    });
#ifdef __GLIBC__
    // The full records read above are gone; give their pages back so the resident size
    // reflects what the document keeps.
    malloc_trim(0);
#endif
    return loaded;
}

bool RunDocument::loadRun(qint64 runId, QString *error)
{
    if (!m_store) {
        if (error)
            *error = QStringLiteral("no database is open");
        return false;
    }
    ++m_loadGeneration; // a synchronous load supersedes one in flight
    m_loading = false;
    return apply(readRun(*m_store, runId), runId, error);
}

void RunDocument::loadRunAsync(qint64 runId)
{
    const int generation = ++m_loadGeneration;
    if (!m_store) {
        emit loadFinished(false, QStringLiteral("no database is open"));
        return;
    }
    m_loading = true;
    emit loadStarted(runId);
    const QString path = m_path;
    auto *watcher = new QFutureWatcher<LoadedRun>(this);
    connect(watcher, &QFutureWatcher<LoadedRun>::finished, this,
            [this, watcher, generation, runId] {
                watcher->deleteLater();
                if (generation != m_loadGeneration)
                    return; // superseded by a newer load, or the database was closed
                m_loading = false;
                QString error;
                const bool ok = apply(watcher->result(), runId, &error);
                emit loadFinished(ok, error);
            });
    // The worker reads through its own connection: the document's stays on this thread.
    watcher->setFuture(QtConcurrent::run([path, runId] {
        QString why;
        auto store = RunStore::open(path, RunStore::Mode::ReadOnly, &why);
        if (!store)
            return LoadedRun();
        return readRun(*store, runId);
    }));
}

bool RunDocument::apply(LoadedRun loaded, qint64 runId, QString *error)
{
    if (!loaded.run) {
        if (error)
            *error = QStringLiteral("no run %1 in %2").arg(runId).arg(m_path);
        return false;
    }
    emit runAboutToLoad();
    m_run = *loaded.run;
    m_rows = std::move(loaded.rows);
    m_rowOf.clear();
    m_rowOf.reserve(m_rows.size());
    for (int i = 0; i < m_rows.size(); ++i)
        m_rowOf.insert(m_rows[i].id, i);
    m_lastEventId = loaded.lastEvent;
    m_recordCache.clear();
    m_evaluationCache.clear();
    for (const QJsonObject &payload : std::as_const(loaded.evictions))
        markGhosts(payload);
    appendPlaceholders(0);
    m_bestRow = -1;
    for (int i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].isBestCandidate() &&
            (m_bestRow < 0 || isBetter(m_rows[i], m_rows[m_bestRow])))
            m_bestRow = i;
    }
    emit runLoaded();
    return true;
}

void RunDocument::markGhosts(const QJsonObject &payload)
{
    const QJsonArray ids = payload.value(QStringLiteral("ids")).toArray();
    for (const QJsonValue &id : ids) {
        const int row = rowOf(id.toInteger());
        if (row >= 0)
            m_rows[row].ghost = true;
    }
}

void RunDocument::appendPlaceholders(int fromRow)
{
    // A parent from outside the run (or deleted) still gets a node, so lineage never breaks.
    QList<qint64> missing;
    for (int i = fromRow; i < m_rows.size(); ++i) {
        for (const std::optional<qint64> &p : {m_rows[i].parent, m_rows[i].secondParent}) {
            if (p && !m_rowOf.contains(*p) && !missing.contains(*p))
                missing.append(*p);
        }
    }
    for (qint64 id : std::as_const(missing)) {
        CandidateSummary s;
        s.id = id;
        s.ghost = true;
        s.placeholder = true;
        m_rowOf.insert(id, int(m_rows.size()));
        m_rows.append(s);
    }
}

void RunDocument::updateBest(int row)
{
    const CandidateSummary &s = m_rows[row];
    if (!s.isBestCandidate())
        return;
    if (m_bestRow < 0 || isBetter(s, m_rows[m_bestRow])) {
        m_bestRow = row;
        emit bestChanged(row);
    }
}

std::optional<CandidateRecord> RunDocument::candidate(qint64 candidateId)
{
    for (const CandidateRecord &record : std::as_const(m_recordCache)) {
        if (record.id == candidateId)
            return record;
    }
    if (!m_store)
        return std::nullopt;
    std::optional<CandidateRecord> record = m_store->candidate(candidateId);
    if (record) {
        m_recordCache.prepend(*record);
        if (m_recordCache.size() > cacheSize)
            m_recordCache.removeLast();
    }
    return record;
}

std::optional<EvaluationResult> RunDocument::evaluation(qint64 candidateId)
{
    for (const auto &entry : std::as_const(m_evaluationCache)) {
        if (entry.first == candidateId)
            return entry.second;
    }
    if (!m_store)
        return std::nullopt;
    std::optional<EvaluationResult> result = m_store->evaluation(candidateId);
    if (result) {
        m_evaluationCache.prepend({candidateId, *result});
        if (m_evaluationCache.size() > cacheSize)
            m_evaluationCache.removeLast();
    }
    return result;
}

void RunDocument::appendRows(const QList<CandidateSummary> &rows)
{
    if (rows.isEmpty())
        return;
    const int first = int(m_rows.size());
    emit candidatesAboutToBeAppended(first, first + int(rows.size()) - 1);
    for (const CandidateSummary &s : rows) {
        m_rowOf.insert(s.id, int(m_rows.size()));
        m_rows.append(s);
    }
    emit candidatesAppended(first, int(m_rows.size()) - 1);
}

int RunDocument::poll()
{
    if (!m_store || !hasRun() || m_loading)
        return 0;
    const QList<StoredEvent> events = m_store->events(m_run.id, m_lastEventId);
    int applied = 0;
    bool runDirty = false;
    QList<CandidateSummary> pending;
    auto flush = [&] {
        if (pending.isEmpty())
            return;
        const int first = int(m_rows.size());
        appendRows(pending);
        pending.clear();
        // Parents from outside the run get placeholder nodes, appended like any other row.
        const int before = int(m_rows.size());
        QList<CandidateSummary> placeholders;
        for (int i = first; i < before; ++i) {
            for (const std::optional<qint64> &p : {m_rows[i].parent, m_rows[i].secondParent}) {
                if (!p || m_rowOf.contains(*p))
                    continue;
                bool listed = false;
                for (const CandidateSummary &ph : std::as_const(placeholders))
                    listed = listed || ph.id == *p;
                if (listed)
                    continue;
                CandidateSummary ph;
                ph.id = *p;
                ph.ghost = true;
                ph.placeholder = true;
                placeholders.append(ph);
            }
        }
        appendRows(placeholders);
    };
    for (const StoredEvent &event : events) {
        m_lastEventId = std::max(m_lastEventId, event.id);
        if (event.kind == QStringLiteral("candidate_added")) {
            if (!event.candidateId || m_rowOf.contains(*event.candidateId))
                continue;
            bool queued = false;
            for (const CandidateSummary &s : std::as_const(pending))
                queued = queued || s.id == *event.candidateId;
            if (queued)
                continue;
            const std::optional<CandidateRecord> record = m_store->candidate(*event.candidateId);
            if (!record || record->runId != m_run.id)
                continue;
            pending.append(CandidateSummary::fromRecord(*record));
            ++applied;
        } else if (event.kind == QStringLiteral("candidate_evaluated")) {
            flush();
            if (!event.candidateId)
                continue;
            const int row = rowOf(*event.candidateId);
            if (row < 0)
                continue;
            const std::optional<EvaluationResult> result = m_store->evaluation(*event.candidateId);
            if (!result)
                continue;
            for (int i = 0; i < m_evaluationCache.size(); ++i) {
                if (m_evaluationCache[i].first == *event.candidateId) {
                    m_evaluationCache.removeAt(i);
                    break;
                }
            }
            m_rows[row].applyEvaluation(*result);
            emit candidateChanged(row);
            updateBest(row);
            ++applied;
        } else if (event.kind == QStringLiteral("evicted")) {
            flush();
            const QJsonArray ids = event.payload.value(QStringLiteral("ids")).toArray();
            for (const QJsonValue &id : ids) {
                const int row = rowOf(id.toInteger());
                if (row >= 0 && !m_rows[row].ghost) {
                    m_rows[row].ghost = true;
                    emit candidateChanged(row);
                    ++applied;
                }
            }
        } else {
            runDirty = true;
        }
    }
    flush();
    if (runDirty) {
        if (const std::optional<RunRecord> run = m_store->run(m_run.id)) {
            m_run = *run;
            emit runChanged();
            ++applied;
        }
    }
    return applied;
}

} // namespace kiln
