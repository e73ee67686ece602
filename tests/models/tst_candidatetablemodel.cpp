#include "models/candidatefiltermodel.h"
#include "models/candidateselection.h"
#include "models/candidatetablemodel.h"
#include "models/rundocument.h"
#include "store/runstore.h"
#include "syntheticrun.h"

#include <QAbstractItemModelTester>
#include <QFont>
#include <QJsonArray>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;

namespace {

// A timed pass: the estimate, its 95 % interval when given, confirmed or not, a duplicate's
// original when given.
EvaluationResult timedPass(double estimate, std::optional<std::pair<double, double>> interval,
                           bool confirmed = false, std::optional<qint64> duplicateOf = {})
{
    EvaluationResult r;
    r.verdict = Verdict::Pass;
    r.correct = true;
    r.speedup = estimate;
    if (interval)
        r.speedupInterval = SpeedupInterval{estimate, interval->first, interval->second};
    r.confirmed = confirmed;
    r.duplicateOf = duplicateOf;
    return r;
}

} // namespace

class TstCandidateTableModel : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_path;
    qint64 m_runId = 0;
    // A run whose speedups have intervals, confirmations and a duplicate (speedupFixture()).
    QString m_surePath;
    qint64 m_sureRunId = 0;
    QHash<QString, qint64> m_sure; // candidate by name

    bool speedupFixture();
    int sureRow(const RunDocument &doc, const char *name) const
    {
        return doc.rowOf(m_sure.value(QString::fromLatin1(name)));
    }

    int countWhere(const RunDocument &doc,
                   const std::function<bool(const CandidateSummary &)> &pred)
    {
        int n = 0;
        for (const CandidateSummary &c : doc.candidates())
            n += (!c.placeholder && pred(c)) ? 1 : 0;
        return n;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath(QStringLiteral("models.db"));
        auto store = RunStore::open(m_path, RunStore::Mode::ReadWrite);
        QVERIFY(store);
        SyntheticRunOptions options;
        options.candidates = 400;
        options.islands = 3;
        options.crossover = true;
        m_runId = createSyntheticRun(*store, options);
        QVERIFY(m_runId > 0);
        QVERIFY(speedupFixture());
    }

    void loadsTheRun()
    {
        RunDocument doc;
        QString error;
        QVERIFY2(doc.openDatabase(m_path, &error), qPrintable(error));
        QVERIFY(doc.loadRun(m_runId, &error));
        QCOMPARE(doc.count(), 400);
        QVERIFY(!doc.isLive());
        QVERIFY(doc.bestRow() >= 0);
        const CandidateSummary &best = doc.at(doc.bestRow());
        QCOMPARE(best.verdict, Verdict::Pass);
        for (const CandidateSummary &c : doc.candidates()) {
            if (c.evaluated && c.verdict == Verdict::Pass)
                QVERIFY(*c.speedup <= *best.speedup);
        }
        // Evictions logged by the engine mark ghosts.
        QVERIFY(countWhere(doc, [](const CandidateSummary &c) { return c.ghost; }) > 0);
        // Full records come from the store on demand.
        const auto record = doc.candidate(best.id);
        QVERIFY(record);
        QVERIFY(record->source.contains(QStringLiteral("softmax")));
        QVERIFY(doc.evaluation(best.id));
        QVERIFY(!doc.loadRun(9999, &error));
        QVERIFY(error.contains(QStringLiteral("9999")));
    }

    void refusesForeignFiles()
    {
        const QString bogus = m_dir.filePath(QStringLiteral("bogus.db"));
        QFile f(bogus);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not a database at all, just some text padding it out to a page.");
        f.close();
        RunDocument doc;
        QString error;
        QVERIFY(!doc.openDatabase(bogus, &error));
        QVERIFY(!error.isEmpty());
    }

    void modelsPassTheTester()
    {
        RunDocument doc;
        QVERIFY(doc.openDatabase(m_path));
        CandidateTableModel model(&doc);
        CandidateFilterModel filter;
        filter.setSourceModel(&model);
        QAbstractItemModelTester t1(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&filter,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(doc.loadRun(m_runId));
        QCOMPARE(model.rowCount(), doc.count());
        QCOMPARE(model.columnCount(), int(CandidateTableModel::ColumnCount));
        filter.sort(CandidateTableModel::SpeedupColumn, Qt::DescendingOrder);
        filter.setVerdicts({int(Verdict::Pass)});
        filter.setFlagFilter(QStringLiteral("*"));
        filter.clearFilters();
        QCOMPARE(filter.rowCount(), countWhere(doc, [](const CandidateSummary &) { return true; }));
    }

    void filters_data()
    {
        QTest::addColumn<int>("which");
        QTest::newRow("verdict pass") << 0;
        QTest::newRow("verdicts wrong+compile") << 1;
        QTest::newRow("any flag") << 2;
        QTest::newRow("flag side_stream") << 3;
        QTest::newRow("operation crossover") << 4;
        QTest::newRow("island 2") << 5;
        QTest::newRow("generations 2..4") << 6;
        QTest::newRow("speedup >= 1.2") << 7;
    }

    void filters()
    {
        QFETCH(int, which);
        RunDocument doc;
        QVERIFY(doc.openDatabase(m_path));
        QVERIFY(doc.loadRun(m_runId));
        CandidateTableModel model(&doc);
        CandidateFilterModel filter;
        filter.setSourceModel(&model);
        std::function<bool(const CandidateSummary &)> pred;
        switch (which) {
        case 0:
            filter.setVerdicts({int(Verdict::Pass)});
            pred = [](const CandidateSummary &c) {
                return c.evaluated && c.verdict == Verdict::Pass;
            };
            break;
        case 1:
            filter.setVerdicts({int(Verdict::Wrong), int(Verdict::CompileError)});
            pred = [](const CandidateSummary &c) {
                return c.evaluated &&
                       (c.verdict == Verdict::Wrong || c.verdict == Verdict::CompileError);
            };
            break;
        case 2:
            filter.setFlagFilter(QStringLiteral("*"));
            pred = [](const CandidateSummary &c) { return !c.flagIds.isEmpty(); };
            break;
        case 3:
            filter.setFlagFilter(QStringLiteral("side"));
            pred = [](const CandidateSummary &c) {
                return c.flagIds.contains(QStringLiteral("side_stream"));
            };
            break;
        case 4:
            filter.setOperations({int(Operation::Crossover)});
            pred = [](const CandidateSummary &c) { return c.operation == Operation::Crossover; };
            break;
        case 5:
            filter.setIsland(2);
            pred = [](const CandidateSummary &c) { return c.island == 2; };
            break;
        case 6:
            filter.setGenerationRange(2, 4);
            pred = [](const CandidateSummary &c) { return c.generation >= 2 && c.generation <= 4; };
            break;
        case 7:
            filter.setMinimumSpeedup(1.2);
            pred = [](const CandidateSummary &c) { return c.speedup && *c.speedup >= 1.2; };
            break;
        }
        const int expected = countWhere(doc, pred);
        QVERIFY2(expected > 0, "the fixture should exercise every filter");
        QCOMPARE(filter.rowCount(), expected);
        for (int r = 0; r < filter.rowCount(); ++r) {
            const int row = filter.mapToSource(filter.index(r, 0)).row();
            QVERIFY(pred(doc.at(row)));
        }
    }

    void sortsNumerically()
    {
        RunDocument doc;
        QVERIFY(doc.openDatabase(m_path));
        QVERIFY(doc.loadRun(m_runId));
        CandidateTableModel model(&doc);
        CandidateFilterModel filter;
        filter.setSourceModel(&model);
        filter.sort(CandidateTableModel::SpeedupColumn, Qt::DescendingOrder);
        // Descending speedup: numbers compare as numbers (2.5 after 10.0, not before it).
        double previousSpeedup = std::numeric_limits<double>::infinity();
        for (int r = 0; r < filter.rowCount(); ++r) {
            const double speedup = filter.index(r, CandidateTableModel::SpeedupColumn)
                                       .data(CandidateTableModel::SortRole)
                                       .toDouble();
            QVERIFY(speedup <= previousSpeedup);
            previousSpeedup = speedup;
        }
        double fastest = 0;
        for (const CandidateSummary &c : doc.candidates())
            fastest = std::max(fastest, c.speedup.value_or(0.0));
        QCOMPARE(filter.index(0, 0).data(CandidateTableModel::SpeedupRole).toDouble(), fastest);
        filter.sort(CandidateTableModel::TokensColumn, Qt::AscendingOrder);
        qint64 previous = -1;
        for (int r = 0; r < filter.rowCount(); ++r) {
            const qint64 tokens = filter.index(r, CandidateTableModel::TokensColumn)
                                      .data(CandidateTableModel::SortRole)
                                      .toLongLong();
            QVERIFY(tokens >= previous);
            previous = tokens;
        }
    }

    void growsIncrementally()
    {
        const QString path = m_dir.filePath(QStringLiteral("live.db"));
        auto writer = RunStore::open(path, RunStore::Mode::ReadWrite);
        QVERIFY(writer);
        RunRecord run;
        run.tasks = {QStringLiteral("softmax")};
        run.strategy = QStringLiteral("refine");
        run.status = RunRecord::Status::Running;
        const qint64 runId = writer->createRun(run);
        auto add = [&](std::optional<qint64> parent) {
            CandidateRecord c;
            c.runId = runId;
            c.task = QStringLiteral("softmax");
            c.parent = parent;
            c.operation = parent ? Operation::Refine : Operation::Sample;
            c.source = QStringLiteral("void softmax() {}\n");
            writer->addCandidate(c);
            return c.id;
        };
        const qint64 root = add(std::nullopt);
        add(root);

        RunDocument doc;
        QVERIFY(doc.openDatabase(path));
        QVERIFY(doc.loadRun(runId));
        QVERIFY(doc.isLive());
        CandidateTableModel model(&doc);
        CandidateFilterModel filter;
        filter.setSourceModel(&model);
        filter.setVerdicts({int(Verdict::Pass)});
        QAbstractItemModelTester t1(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&filter,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(filter.rowCount(), 0);

        const qint64 third = add(root);
        const qint64 fourth = add(third);
        EvaluationResult pass;
        pass.verdict = Verdict::Pass;
        pass.correct = true;
        pass.speedup = 1.7;
        QVERIFY(writer->addEvaluation(third, pass));
        QVERIFY(writer->appendEvent(runId, QStringLiteral("evicted"), std::nullopt,
                                    QJsonObject{{QStringLiteral("ids"), QJsonArray{root}}}));
        QSignalSpy best(&doc, &RunDocument::bestChanged);
        QVERIFY(doc.poll() > 0);
        QCOMPARE(reset.count(), 0); // growth never resets the model
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(filter.rowCount(), 1);
        QCOMPARE(doc.at(doc.rowOf(third)).verdict, Verdict::Pass);
        QCOMPARE(doc.at(doc.bestRow()).id, third);
        QCOMPARE(best.count(), 1);
        QVERIFY(doc.at(doc.rowOf(root)).ghost);
        QCOMPARE(*doc.at(doc.rowOf(fourth)).parent, third);
        QCOMPARE(doc.poll(), 0); // nothing new

        QVERIFY(writer->updateRunStatus(runId, RunRecord::Status::Finished));
        QSignalSpy changed(&doc, &RunDocument::runChanged);
        doc.poll();
        QCOMPARE(changed.count(), 1);
        QVERIFY(!doc.isLive());
    }

    void loadsInTheBackground()
    {
        RunDocument doc;
        QVERIFY(doc.openDatabase(m_path));
        CandidateTableModel model(&doc);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy finished(&doc, &RunDocument::loadFinished);
        doc.loadRunAsync(m_runId);
        doc.loadRunAsync(m_runId); // supersedes the first: one result only
        QVERIFY(doc.isLoading());
        QCOMPARE(doc.poll(), 0); // no polling while a load is in flight
        QVERIFY(finished.wait(60000));
        QTest::qWait(50);
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.first().at(0).toBool(), true);
        QVERIFY(!doc.isLoading());
        QCOMPARE(doc.count(), 400);
        QCOMPARE(model.rowCount(), 400);
        QVERIFY(doc.bestRow() >= 0);

        finished.clear();
        doc.loadRunAsync(424242);
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.first().at(0).toBool(), false);
        QVERIFY(finished.first().at(1).toString().contains(QStringLiteral("424242")));
        QCOMPARE(doc.count(), 400); // the shown run stays

        doc.loadRunAsync(m_runId);
        doc.close(); // drops the load in flight
        QTest::qWait(300);
        QVERIFY(!doc.hasRun());
    }

    void showsHowSureASpeedupIs_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("speedup");  // the Speedup column's text
        QTest::addColumn<QString>("verdict");  // the Verdict column's text
        QTest::addColumn<bool>("confirmed");   // ConfirmedRole
        QTest::addColumn<qint64>("original");  // DuplicateOfRole, 0 for none
        QTest::addColumn<double>("low");       // SpeedupLowRole, 0 for none
        QTest::addColumn<double>("high");      // SpeedupHighRole
        QTest::addColumn<QStringList>("tips"); // in the Speedup column's tooltip
        const QString root = QStringLiteral("#%1").arg(m_sure.value(QStringLiteral("root")));
        const QString fast = QStringLiteral("#%1").arg(m_sure.value(QStringLiteral("fast")));
        const qint64 rootId = m_sure.value(QStringLiteral("root"));
        QTest::newRow("interval")
            << QStringLiteral("root") << QStringLiteral("2.31× ± 0.04") << QStringLiteral("pass")
            << false << qint64(0) << 2.27 << 2.35
            << QStringList{QStringLiteral(
                   "95 % interval 2.27×–2.35× (paired bootstrap of the timed calls)")};
        QTest::newRow("confirmed, within noise of its parent")
            << QStringLiteral("near") << QStringLiteral("2.33× ± 0.04 ✓") << QStringLiteral("pass")
            << true << qint64(0) << 2.30 << 2.37
            << QStringList{QStringLiteral("confirmed: re-measured with 4× the trials against a "
                                          "fresh baseline"),
                           QStringLiteral("within noise of parent %1 (2.31× ± 0.04)").arg(root)};
        QTest::newRow("a real gain")
            << QStringLiteral("fast") << QStringLiteral("3.00× ± 0.12") << QStringLiteral("pass")
            << false << qint64(0) << 2.90 << 3.12
            << QStringList{QStringLiteral("a real gain over parent %1").arg(root)};
        QTest::newRow("a real loss")
            << QStringLiteral("slow") << QStringLiteral("2.00× ± 0.10") << QStringLiteral("pass")
            << false << qint64(0) << 1.90 << 2.10
            << QStringList{QStringLiteral("a real loss against parent %1").arg(fast)};
        QTest::newRow("no interval")
            << QStringLiteral("plain") << QStringLiteral("1.50×") << QStringLiteral("pass") << false
            << qint64(0) << 0.0 << 0.0
            << QStringList{
                   QStringLiteral("parent %1 (3.00× ± 0.12): no interval to tell").arg(fast)};
        QTest::newRow("duplicate")
            << QStringLiteral("copy") << QStringLiteral("2.31× ± 0.04")
            << QStringLiteral("pass (= %1)").arg(root) << false << rootId << 2.27 << 2.35
            << QStringList{QStringLiteral("same source as %1 (whitespace and comments aside): its "
                                          "judgement is reused, not measured again")
                               .arg(root)};
        QTest::newRow("not timed")
            << QStringLiteral("wrong") << QString() << QStringLiteral("wrong") << false << qint64(0)
            << 0.0 << 0.0 << QStringList();
    }

    void showsHowSureASpeedupIs()
    {
        QFETCH(QString, name);
        QFETCH(QString, speedup);
        QFETCH(QString, verdict);
        QFETCH(bool, confirmed);
        QFETCH(qint64, original);
        QFETCH(double, low);
        QFETCH(double, high);
        QFETCH(QStringList, tips);
        RunDocument doc;
        QVERIFY(doc.openDatabase(m_surePath));
        QVERIFY(doc.loadRun(m_sureRunId));
        CandidateTableModel model(&doc);
        const int row = doc.rowOf(m_sure.value(name));
        QVERIFY(row >= 0);
        const QModelIndex cell = model.index(row, CandidateTableModel::SpeedupColumn);
        QCOMPARE(cell.data().toString(), speedup);
        QCOMPARE(model.index(row, CandidateTableModel::VerdictColumn).data().toString(), verdict);
        QCOMPARE(cell.data(CandidateTableModel::ConfirmedRole).toBool(), confirmed);
        const QVariant duplicateOf = cell.data(CandidateTableModel::DuplicateOfRole);
        QCOMPARE(duplicateOf.isValid(), original != 0);
        if (original) {
            QCOMPARE(duplicateOf.toLongLong(), original);
            QVERIFY(qvariant_cast<QFont>(cell.data(Qt::FontRole)).italic());
            QVERIFY(model.index(row, CandidateTableModel::VerdictColumn)
                        .data(Qt::ToolTipRole)
                        .toString()
                        .contains(QStringLiteral("judgement is reused")));
        } else {
            QVERIFY(!cell.data(Qt::FontRole).isValid());
        }
        const QVariant lowData = cell.data(CandidateTableModel::SpeedupLowRole);
        const QVariant highData = cell.data(CandidateTableModel::SpeedupHighRole);
        QCOMPARE(lowData.isValid(), low > 0);
        QCOMPARE(highData.isValid(), high > 0);
        if (low > 0) {
            QCOMPARE(lowData.toDouble(), low);
            QCOMPARE(highData.toDouble(), high);
        }
        const QString tip = cell.data(Qt::ToolTipRole).toString();
        for (const QString &needle : tips)
            QVERIFY2(tip.contains(needle), qPrintable(tip + QStringLiteral("\n lacks: ") + needle));
        if (tips.isEmpty())
            QVERIFY(tip.isEmpty());
    }

    void sortsByTheEstimate()
    {
        RunDocument doc;
        QVERIFY(doc.openDatabase(m_surePath));
        QVERIFY(doc.loadRun(m_sureRunId));
        CandidateTableModel model(&doc);
        CandidateFilterModel filter;
        filter.setSourceModel(&model);
        filter.sort(CandidateTableModel::SpeedupColumn, Qt::DescendingOrder);
        QList<double> speedups;
        QList<qint64> ids;
        for (int r = 0; r < filter.rowCount(); ++r) {
            const QModelIndex index = filter.index(r, CandidateTableModel::SpeedupColumn);
            speedups << index.data(CandidateTableModel::SortRole).toDouble();
            ids << index.data(CandidateTableModel::IdRole).toLongLong();
        }
        // "wide" (2.20, interval 1.50–3.50) sorts by its estimate, not by either end or the text.
        QCOMPARE(speedups, (QList<double>{3.0, 2.33, 2.31, 2.31, 2.2, 2.0, 1.5, -1.0}));
        QCOMPARE(ids.at(0), m_sure.value(QStringLiteral("fast")));
        QCOMPARE(ids.at(4), m_sure.value(QStringLiteral("wide")));
        QCOMPARE(ids.at(7), m_sure.value(QStringLiteral("wrong")));
        // The run confirms its bests: the best is the confirmed one, not the faster measurement.
        QCOMPARE(doc.at(doc.bestRow()).id, m_sure.value(QStringLiteral("near")));
    }

    void selectionSignalsOnlyOnChange()
    {
        CandidateSelection selection;
        QSignalSpy current(&selection, &CandidateSelection::currentChanged);
        selection.setCurrent(4);
        selection.setCurrent(4);
        selection.setCompare(2);
        QCOMPARE(current.count(), 1);
        selection.clear();
        QCOMPARE(selection.current(), 0);
        QCOMPARE(selection.compare(), 0);
    }
};

// root 2.31 [2.27, 2.35]; near, its child, measured 2.40 then confirmed at 2.33 [2.30, 2.37];
// fast, its child, 3.00 [2.90, 3.12]; slow and plain, children of fast, 2.00 [1.90, 2.10] and
// 1.50 without an interval; copy, a duplicate of root; wide 2.20 [1.50, 3.50]; wrong, untimed.
bool TstCandidateTableModel::speedupFixture()
{
    m_surePath = m_dir.filePath(QStringLiteral("sure.db"));
    auto store = RunStore::open(m_surePath, RunStore::Mode::ReadWrite);
    if (!store)
        return false;
    RunRecord run;
    run.tasks = {QStringLiteral("softmax")};
    run.strategy = QStringLiteral("refine");
    m_sureRunId = store->createRun(run);
    const auto add = [&](const char *name, const char *parent,
                         const QList<EvaluationResult> &judgements) {
        CandidateRecord c;
        c.runId = m_sureRunId;
        c.task = QStringLiteral("softmax");
        if (parent)
            c.parent = m_sure.value(QString::fromLatin1(parent));
        c.operation = parent ? Operation::Refine : Operation::Sample;
        c.source = QStringLiteral("void softmax() { /* %1 */ }\n").arg(QLatin1String(name));
        if (store->addCandidate(c) <= 0)
            return false;
        m_sure.insert(QString::fromLatin1(name), c.id);
        for (const EvaluationResult &judgement : judgements)
            if (store->addEvaluation(c.id, judgement) <= 0)
                return false;
        return true;
    };
    EvaluationResult wrong;
    wrong.verdict = Verdict::Wrong;
    bool ok = add("root", nullptr, {timedPass(2.31, {{2.27, 2.35}})});
    ok = ok && add("near", "root",
                   {timedPass(2.40, {{2.20, 2.60}}), timedPass(2.33, {{2.30, 2.37}}, true)});
    ok = ok && add("fast", "root", {timedPass(3.0, {{2.90, 3.12}})});
    ok = ok && add("slow", "fast", {timedPass(2.0, {{1.90, 2.10}})});
    ok = ok && add("plain", "fast", {timedPass(1.5, std::nullopt)});
    ok = ok && add("copy", "root",
                   {timedPass(2.31, {{2.27, 2.35}}, false, m_sure.value(QStringLiteral("root")))});
    ok = ok && add("wide", nullptr, {timedPass(2.2, {{1.50, 3.50}})});
    return ok && add("wrong", nullptr, {wrong});
}

QTEST_GUILESS_MAIN(TstCandidateTableModel)
#include "tst_candidatetablemodel.moc"
