#include "rundocument.h"

#include "engine/reports/fastpreport.h"
#include "runfollower.h"
#include "store/runstore.h"

#include <QFutureWatcher>
#include <QJsonArray>
#include <QSet>
#include <QtConcurrent/QtConcurrentRun>
#include <utility>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace kiln {

namespace {

constexpr int cacheSize = 16;

// A confirmed judgement beats any unconfirmed one, so a run that confirms its bests counts only
// those (as the engine's report does); otherwise the faster wins, and of equals the one that was
// measured rather than a duplicate.
bool isBetter(const CandidateSummary &a, const CandidateSummary &b)
{
    if (a.confirmed != b.confirmed)
        return a.confirmed;
    // A duplicate that reuses its original's judgement ties with it: the original is the best.
    if (*a.speedup == *b.speedup)
        return !a.duplicateOf && b.duplicateOf;
    return *a.speedup > *b.speedup;
}

} // namespace

RunDocument::RunDocument(QObject *parent) : QObject(parent)
{
    m_followTimer.setInterval(500);
    connect(&m_followTimer, &QTimer::timeout, this, &RunDocument::followTick);
    m_pushTimer.setSingleShot(true);
    m_pushTimer.setInterval(50);
    connect(&m_pushTimer, &QTimer::timeout, this, &RunDocument::flushPushed);
}

RunDocument::~RunDocument() = default;

bool RunDocument::openDatabase(const QString &path, QString *error)
{
    QString why;
    // A workspace of an older Kiln is upgraded once, so it opens in the window as it does in
    // kiln-cli.
    if (!RunStore::upgrade(path, &why)) {
        if (error)
            *error = why;
        return false;
    }
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
    m_replayStep = -1;
    m_timeline.reset();
    m_pushTimer.stop();
    m_pushed = RunDelta();
    m_pushedRows.clear();
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
    m_deltasDuringLoad.clear();
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
// candidates read): the lineage columns only, and the evictions from the log. Runs on any
// thread with its own store connection.
RunDocument::LoadedRun RunDocument::readRun(RunStore &store, qint64 runId)
{
    LoadedRun loaded;
    store.transaction([&] {
        loaded.run = store.run(runId);
        if (!loaded.run)
            return false;
        loaded.rows = store.lineage(runId);
        loaded.lastEvent = store.lastEventId(runId);
        for (const StoredEvent &event : store.events(runId, 0, QStringLiteral("evicted"))) {
            for (const QJsonValue &id : event.payload.value(QStringLiteral("ids")).toArray())
                loaded.evicted.append(id.toInteger());
        }
        return true;
    });
#ifdef __GLIBC__
    // Give the pages of the query's temporaries back, so the resident size reflects what the
    // document keeps.
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
    m_replayStep = -1;
    m_timeline.reset();
    return apply(readRun(*m_store, runId), runId, error);
}

void RunDocument::loadRunAsync(qint64 runId)
{
    const int generation = ++m_loadGeneration;
    m_replayStep = -1;
    m_timeline.reset();
    if (!m_store) {
        emit loadFinished(false, QStringLiteral("no database is open"));
        return;
    }
    m_loading = true;
    m_loadingRunId = runId;
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
        // The document checked the file when it opened it; a load reads it again at once.
        auto store = RunStore::open(path, RunStore::Mode::ReadOnly, &why, RunStore::Check::Header);
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
    if (!m_applyingReplay) { // a run read from the store: any replay of the one before is over
        m_replayStep = -1;
        m_timeline.reset();
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
    markGhosts(loaded.evicted, false);
    appendPlaceholders(0);
    m_bestRow = -1;
    for (int i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].isBestCandidate() &&
            (m_bestRow < 0 || isBetter(m_rows[i], m_rows[m_bestRow])))
            m_bestRow = i;
    }
    emit runLoaded();
    // What a live controller pushed while the load was in flight (applying twice is harmless).
    const QList<RunDelta> pending = std::exchange(m_deltasDuringLoad, {});
    for (const RunDelta &delta : pending)
        applyDelta(delta);
    return true;
}

int RunDocument::markGhosts(const QList<qint64> &candidateIds, bool notify)
{
    int changed = 0;
    for (qint64 id : candidateIds) {
        const int row = rowOf(id);
        if (row < 0 || m_rows[row].ghost)
            continue;
        m_rows[row].ghost = true;
        ++changed;
        if (notify)
            emit candidateChanged(row);
    }
    return changed;
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

int RunDocument::replaySteps()
{
    if (!m_store || !hasRun() || m_loading)
        return 0;
    // Read again when the log has grown since (a live run, or one that finished meanwhile).
    if (!m_timeline || m_timeline->count() != growthSteps())
        m_timeline = std::make_unique<GrowthTimeline>(GrowthTimeline::read(*m_store, m_run.id));
    return m_timeline->count();
}

int RunDocument::growthSteps()
{
    return m_store && hasRun() ? GrowthTimeline::countSteps(*m_store, m_run.id) : 0;
}

bool RunDocument::setReplayStep(int step)
{
    if (!m_store || !hasRun() || m_loading)
        return false;
    if (!m_timeline)
        replaySteps();
    step = std::clamp(step, 0, m_timeline->count());
    const bool forward = isReplaying() && step >= m_replayStep;
    const QList<CandidateSummary> rows = m_timeline->rowsAt(step);
    m_replayStep = step;
    if (forward) {
        RunDelta delta;
        delta.runId = m_run.id;
        delta.candidates = rows;
        m_applyingReplay = true;
        applyDelta(delta);
        m_applyingReplay = false;
        return true;
    }
    LoadedRun state;
    state.run = m_run;
    state.rows = rows;
    state.lastEvent = m_lastEventId;
    for (const CandidateSummary &c : rows)
        if (c.ghost)
            state.evicted.append(c.id);
    m_applyingReplay = true;
    const bool ok = apply(std::move(state), m_run.id, nullptr);
    m_applyingReplay = false;
    return ok;
}

void RunDocument::endReplay()
{
    if (!isReplaying())
        return;
    loadRun(m_run.id); // also clears the replay state
}

QDateTime RunDocument::replayTime() const
{
    return m_timeline && isReplaying() ? m_timeline->timeAt(m_replayStep) : QDateTime();
}

PlotRun RunDocument::plotRun(qint64 runId, bool withFacts)
{
    if (!m_store)
        return {};
    if (runId != m_run.id || m_loading)
        return PlotRun::load(*m_store, runId, withFacts);
    PlotRun plotted;
    plotted.run = m_run;
    plotted.candidates = m_rows;
    if (withFacts)
        plotted.facts = m_store->plotFacts(runId);
    return plotted;
}

FastPReport::Collected RunDocument::fastP()
{
    return m_store ? FastPReport::collect(*m_store) : FastPReport::Collected();
}

QList<ProfileRecord> RunDocument::profiles(qint64 candidateId)
{
    return m_store ? m_store->profiles(candidateId) : QList<ProfileRecord>();
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
    flushPushed();
    if (!m_store || !hasRun() || m_loading)
        return 0;
    return applyDelta(RunDelta::read(*m_store, m_run.id, m_lastEventId));
}

void RunDocument::setFollowing(bool follow)
{
    m_following = follow;
    if (follow)
        m_followTimer.start();
    else
        m_followTimer.stop();
}

void RunDocument::followTick()
{
    if (!m_store || !hasRun() || m_loading)
        return;
    if (!isLive()) {
        setFollowing(false);
        return;
    }
    if (!m_follower) {
        m_follower = new RunFollower(this);
        connect(m_follower, &RunFollower::deltaRead, this, [this](const RunDelta &delta) {
            // A read that started before a reload may carry old events: only newer ones count.
            if (delta.runId == m_run.id && delta.lastEvent > m_lastEventId)
                applyDelta(delta);
            if (!isLive())
                setFollowing(false); // it ended: nothing more will be logged
        });
    }
    m_follower->request(m_path, m_run.id, m_lastEventId);
}

void RunDocument::forgetEvaluation(qint64 candidateId)
{
    for (int i = 0; i < m_evaluationCache.size(); ++i) {
        if (m_evaluationCache[i].first == candidateId) {
            m_evaluationCache.removeAt(i);
            return;
        }
    }
}

int RunDocument::updateRow(int row, const CandidateSummary &summary)
{
    CandidateSummary &current = m_rows[row];
    if (current.placeholder) {
        current = summary; // a parent that was missing has arrived
    } else {
        if (summary.evaluated == current.evaluated && summary.verdict == current.verdict &&
            summary.speedup == current.speedup && summary.flagIds == current.flagIds &&
            summary.summary == current.summary && summary.ghost <= current.ghost)
            return 0;
        const bool ghost = current.ghost || summary.ghost;
        current.evaluated = summary.evaluated;
        current.verdict = summary.verdict;
        current.correct = summary.correct;
        current.speedup = summary.speedup;
        current.candidateMs = summary.candidateMs;
        current.evaluationMs = summary.evaluationMs;
        current.flagIds = summary.flagIds;
        current.firstFlag = summary.firstFlag;
        current.summary = summary.summary;
        current.ghost = ghost;
    }
    forgetEvaluation(current.id);
    emit candidateChanged(row);
    updateBest(row);
    return 1;
}

int RunDocument::applyDelta(const RunDelta &delta)
{
    if (isReplaying() && !m_applyingReplay)
        return 0; // the replay shows the past; endReplay() catches up

    if (m_loading) {
        if (delta.runId == m_loadingRunId)
            m_deltasDuringLoad.append(delta); // applied once the load is in
        return 0;
    }
    if (!hasRun() || delta.runId != m_run.id)
        return 0; // stale: another run's news
    m_lastEventId = std::max(m_lastEventId, delta.lastEvent);
    int changed = 0;
    QList<CandidateSummary> added;
    QSet<qint64> adding;
    for (const CandidateSummary &summary : delta.candidates) {
        const int row = rowOf(summary.id);
        if (row >= 0) {
            changed += updateRow(row, summary);
        } else if (!adding.contains(summary.id)) {
            adding.insert(summary.id);
            added.append(summary);
        }
    }
    if (!added.isEmpty()) {
        const int first = int(m_rows.size());
        appendRows(added);
        changed += int(added.size());
        for (int row = first; row < m_rows.size(); ++row)
            updateBest(row);
        // Parents from outside the run get placeholder nodes, appended like any other row.
        QList<CandidateSummary> placeholders;
        QSet<qint64> missing;
        for (int i = first; i < m_rows.size(); ++i) {
            for (const std::optional<qint64> &p : {m_rows[i].parent, m_rows[i].secondParent}) {
                if (!p || m_rowOf.contains(*p) || missing.contains(*p))
                    continue;
                missing.insert(*p);
                CandidateSummary placeholder;
                placeholder.id = *p;
                placeholder.ghost = true;
                placeholder.placeholder = true;
                placeholders.append(placeholder);
            }
        }
        appendRows(placeholders);
    }
    changed += markGhosts(delta.evicted, true);
    if (delta.run) {
        m_run = *delta.run;
        emit runChanged();
        ++changed;
    }
    return changed;
}

// Pushes are gathered and applied together a few times a second: a round of a live run reports
// dozens of candidates at once, and the views then take them as one insertion.
RunDelta &RunDocument::pushed(qint64 runId)
{
    if (m_pushed.runId != runId) {
        flushPushed();
        m_pushed.runId = runId;
    }
    if (!m_pushTimer.isActive())
        m_pushTimer.start();
    return m_pushed;
}

void RunDocument::flushPushed()
{
    m_pushTimer.stop();
    RunDelta delta = std::exchange(m_pushed, RunDelta());
    m_pushedRows.clear();
    if (!delta.isEmpty())
        applyDelta(delta);
}

bool RunDocument::accepts(qint64 runId) const
{
    return (hasRun() && runId == m_run.id) || (m_loading && runId == m_loadingRunId);
}

void RunDocument::addCandidate(qint64 runId, const CandidateRecord &record)
{
    if (!accepts(runId))
        return;
    RunDelta &delta = pushed(runId);
    m_pushedRows.insert(record.id, delta.candidates.size());
    delta.candidates.append(CandidateSummary::fromRecord(record));
}

void RunDocument::addEvaluation(qint64 runId, qint64 candidateId, const EvaluationResult &result)
{
    const int row = rowOf(candidateId);
    const bool waiting = m_pushed.runId == runId && m_pushedRows.contains(candidateId);
    if (!accepts(runId) || (row < 0 && !waiting && !m_loading))
        return;
    RunDelta &delta = pushed(runId);
    if (const auto it = m_pushedRows.constFind(candidateId); it != m_pushedRows.cend()) {
        delta.candidates[*it].applyEvaluation(result);
        return;
    }
    CandidateSummary summary = row >= 0 ? m_rows[row] : CandidateSummary();
    if (row < 0) {
        // Loading: the row arrives with the load or with an earlier pushed delta.
        summary.id = candidateId;
        summary.placeholder = true;
    }
    summary.applyEvaluation(result);
    m_pushedRows.insert(candidateId, delta.candidates.size());
    delta.candidates.append(summary);
}

void RunDocument::markEvicted(qint64 runId, const QList<qint64> &candidateIds)
{
    if (accepts(runId))
        pushed(runId).evicted += candidateIds;
}

void RunDocument::updateRunState(qint64 runId, RunRecord::Status status, const BudgetUsage &used)
{
    if (!hasRun() || runId != m_run.id)
        return;
    flushPushed(); // what the run reported before its state changed comes first
    RunDelta delta;
    delta.runId = runId;
    RunRecord run = m_run;
    run.status = status;
    run.budgetUsed = used;
    delta.run = run;
    applyDelta(delta);
}

} // namespace kiln
