#include "models/reportformatter.h"
#include "models/transcriptformatter.h"
#include "models/verdictstyle.h"

#include <QJsonArray>
#include <QLocale>
#include <QTest>

using namespace kiln;

class TstReportFormatter : public QObject
{
    Q_OBJECT

private slots:
    void diagnosticsFromLogs_data()
    {
        QTest::addColumn<QString>("log");
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("severity");
        QTest::addColumn<QString>("message");
        QTest::newRow("nvcc") << QStringLiteral(
                                     "kernel.cu(23): error: identifier \"blockDimx\" is undefined")
                              << 23 << QStringLiteral("error")
                              << QStringLiteral("identifier \"blockDimx\" is undefined");
        QTest::newRow("gcc")
            << QStringLiteral(
                   "In function 'void f()':\n/tmp/x/kernel.cpp:12:5: error: 'foo' was not declared")
            << 12 << QStringLiteral("error") << QStringLiteral("'foo' was not declared");
        QTest::newRow("warning") << QStringLiteral("kernel.cpp:7:1: warning: unused variable 'k'")
                                 << 7 << QStringLiteral("warning")
                                 << QStringLiteral("unused variable 'k'");
        QTest::newRow("nvrtc") << QStringLiteral("candidate.cu(4): error: expected a \";\"") << 4
                               << QStringLiteral("error") << QStringLiteral("expected a \";\"");
    }

    void diagnosticsFromLogs()
    {
        QFETCH(QString, log);
        QFETCH(int, line);
        QFETCH(QString, severity);
        QFETCH(QString, message);
        EvaluationResult r;
        r.verdict = Verdict::CompileError;
        r.stages.append(StageResult{QStringLiteral("compile"), false, 10.0, QString(),
                                    QJsonObject{{QStringLiteral("log"), log}}});
        const QList<ReportFormatter::Diagnostic> d = ReportFormatter::compileDiagnostics(r);
        QCOMPARE(d.size(), 1);
        QCOMPARE(d.first().line, line);
        QCOMPARE(d.first().severity, severity);
        QCOMPARE(d.first().message, message);
        QVERIFY(ReportFormatter::html(r).contains(QStringLiteral("kiln-line:%1").arg(line)));
    }

    void structuredDiagnostics()
    {
        EvaluationResult r;
        QJsonArray diags{QJsonObject{{QStringLiteral("line"), 9},
                                     {QStringLiteral("column"), 3},
                                     {QStringLiteral("severity"), QStringLiteral("error")},
                                     {QStringLiteral("message"), QStringLiteral("bad")}}};
        r.stages.append(StageResult{QStringLiteral("compile"), false, 1.0, QString(),
                                    QJsonObject{{QStringLiteral("diagnostics"), diags}}});
        const auto d = ReportFormatter::compileDiagnostics(r);
        QCOMPARE(d.size(), 1);
        QCOMPARE(d.first().line, 9);
        QCOMPARE(d.first().column, 3);
    }

    void reportShowsEverything()
    {
        EvaluationResult r;
        r.verdict = Verdict::Flagged;
        r.speedup = 3.5;
        r.rooflineFraction = 0.62;
        r.candidateTiming = TimingStats::fromSamples({1.0, 1.1, 0.9});
        r.stages.append(StageResult{
            QStringLiteral("correctness"), false, 4.5, QStringLiteral("mismatch"),
            QJsonObject{{QStringLiteral("max_abs_error"), 0.25},
                        {QStringLiteral("first_bad_index"), 4097},
                        {QStringLiteral("cases"),
                         QJsonArray{QJsonObject{{QStringLiteral("shape"), QJsonArray{37, 1000}},
                                                {QStringLiteral("seed"), 12},
                                                {QStringLiteral("ok"), false}}}}}});
        r.flags.append(CheatFlag{
            QStringLiteral("side_stream"), QStringLiteral("Work on another stream"), {31}, true});
        const QString html = ReportFormatter::html(r);
        for (const QString &needle :
             {QStringLiteral("FLAGGED"), QStringLiteral("3.50×"), QStringLiteral("side_stream"),
              QStringLiteral("Work on another stream"), QStringLiteral("kiln-line:31"),
              QStringLiteral("&nbsp;hard&nbsp;"), QStringLiteral("correctness"),
              QStringLiteral("4.5 ms"), QStringLiteral("Max abs error"), QStringLiteral("4097"),
              QStringLiteral("37 × 1000"), QStringLiteral("62%"),
              QStringLiteral("Timing statistics")})
            QVERIFY2(html.contains(needle), qPrintable(needle));
    }

    void reportShowsFlagTiers()
    {
        // Each flag is shown in its tier's colour, named, with its evidence; a flag without a
        // tier (an old run) takes the tier its blocking implies.
        EvaluationResult r;
        r.verdict = Verdict::Pass;
        r.correct = true;
        r.flags = {CheatFlag{QStringLiteral("timer_inconsistent"),
                             QStringLiteral("clock off"),
                             {},
                             true,
                             QStringLiteral("hard")},
                   CheatFlag{QStringLiteral("static_state"),
                             QStringLiteral("keeps a counter"),
                             {12},
                             false,
                             QStringLiteral("suspicious")},
                   CheatFlag{QStringLiteral("large_speedup"), QStringLiteral("fast"), {}, false}};
        const QString html = ReportFormatter::html(r);
        for (const QString &tier :
             {QStringLiteral("hard"), QStringLiteral("suspicious"), QStringLiteral("telemetry")}) {
            const QString chip = QStringLiteral("bgcolor=\"%1\" style=\"color:white;\">&nbsp;%2")
                                     .arg(VerdictStyle::flagTierColor(tier).name(), tier);
            QVERIFY2(html.contains(chip), qPrintable(chip));
        }
        QCOMPARE(VerdictStyle::flagTierColor(QStringLiteral("hard")),
                 VerdictStyle::color(Verdict::Flagged));
        QVERIFY(html.contains(QStringLiteral("keeps a counter")));
        QVERIFY(html.contains(QStringLiteral("the verdict follows correctness")));
        QVERIFY(html.contains(QStringLiteral("kiln-line:12")));
    }

    void reportSaysHowSureTheSpeedupIs()
    {
        EvaluationResult r;
        r.verdict = Verdict::Pass;
        r.correct = true;
        r.speedup = 2.31;
        r.speedupInterval = SpeedupInterval{2.31, 2.27, 2.35};
        r.confirmed = true;
        r.disturbance = QStringLiteral("pid 4242 (<stress>) used the device during 3 calls");
        QString html = ReportFormatter::html(r);
        for (const QString &needle :
             {QStringLiteral("<b>2.31× ± 0.04</b> speedup, confirmed"),
              QStringLiteral("95 % interval 2.27×–2.35× (paired bootstrap of the timed calls)"),
              QStringLiteral("confirmed: re-measured with 4× the trials against a fresh baseline"),
              QStringLiteral("disturbed:"), QStringLiteral("pid 4242 (&lt;stress&gt;)")})
            QVERIFY2(html.contains(needle), qPrintable(needle));
        QVERIFY(!html.contains(QStringLiteral("duplicate")));

        // A duplicate whose judgement was reused says so; one measured again says that instead.
        r.confirmed = false;
        r.disturbance.clear();
        r.duplicateOf = 9;
        r.stages = {StageResult{QStringLiteral("duplicate"), true, 0.0, QString(), {}}};
        html = ReportFormatter::html(r);
        QVERIFY(html.contains(QStringLiteral("duplicate of #9")));
        QVERIFY(html.contains(QStringLiteral("its judgement is reused, not measured again")));
        QVERIFY(!html.contains(QStringLiteral("confirmed")));
        QVERIFY(!html.contains(QStringLiteral("disturbed:")));
        r.stages = {StageResult{QStringLiteral("timing"), true, 120.0, QString(), {}}};
        html = ReportFormatter::html(r);
        QVERIFY(html.contains(QStringLiteral("duplicate of #9")));
        QVERIFY(html.contains(QStringLiteral("measured again")));
        QVERIFY(!html.contains(QStringLiteral("judgement is reused")));
    }

    void mismatchFromVerifierData()
    {
        // The shape the CPU verifier writes: correctness.data.failure.{shape, seed, check{...}}.
        EvaluationResult r;
        r.verdict = Verdict::Wrong;
        const QJsonObject check{
            {QStringLiteral("ok"), false},          {QStringLiteral("elements"), 37000},
            {QStringLiteral("mismatches"), 12},     {QStringLiteral("first_mismatch"), 4097},
            {QStringLiteral("got"), 1.0},           {QStringLiteral("expected"), 0.5},
            {QStringLiteral("max_abs_error"), 0.5}, {QStringLiteral("max_rel_error"), 1.0}};
        const QJsonObject failure{{QStringLiteral("shape"), QStringLiteral("rows=37,cols=1000")},
                                  {QStringLiteral("seed"), 2},
                                  {QStringLiteral("output"), QStringLiteral("y")},
                                  {QStringLiteral("check"), check}};
        r.stages.append(StageResult{
            QStringLiteral("correctness"), false, 3.0, QStringLiteral("y wrong"),
            QJsonObject{{QStringLiteral("calls"), 6}, {QStringLiteral("failure"), failure}}});
        const QString html = ReportFormatter::html(r);
        for (const QString &needle :
             {QStringLiteral("Mismatch statistics"), QStringLiteral("First bad index"),
              QStringLiteral("4097"), QStringLiteral("rows=37,cols=1000"),
              QStringLiteral("12 of 37000"), QStringLiteral("1 / 0.5"),
              QStringLiteral("Failure · Check · Max abs error")})
            QVERIFY2(html.contains(needle), qPrintable(needle));
    }

    void transcriptLabelsSimulation()
    {
        CandidateRecord c;
        c.id = 5;
        c.policy = QStringLiteral("offline");
        c.prompt = QStringLiteral("Make <it> fast");
        c.response = QStringLiteral("```cuda\n...```");
        c.promptTokens = 1200;
        const QString html = TranscriptFormatter::html(c);
        QVERIFY(html.contains(QStringLiteral("Simulated")));
        QVERIFY(html.contains(QStringLiteral("Make &lt;it&gt; fast")));
        QVERIFY(html.contains(QStringLiteral("Prompt")));
        c.policy = QStringLiteral("llm");
        c.policyMeta = QJsonObject{{QStringLiteral("model"), QStringLiteral("gpt-x")}};
        QVERIFY(!TranscriptFormatter::html(c).contains(QStringLiteral("Simulated")));
        QVERIFY(TranscriptFormatter::html(c).contains(QStringLiteral("gpt-x")));
    }

    // An agents round is one candidate; its transcript lists the profile stage and each role's
    // own prompt, reasoning and answer with its tokens, in order.
    void transcriptListsTheAgentsSteps()
    {
        CandidateRecord c;
        c.id = 9;
        c.policy = QStringLiteral("offline");
        c.prompt = QStringLiteral("the coder's prompt");
        QJsonArray steps{QJsonObject{{QStringLiteral("role"), QStringLiteral("profile")},
                                     {QStringLiteral("ok"), false},
                                     {QStringLiteral("detail"), QStringLiteral("no <ncu> here")}}};
        for (const QString &role : {QStringLiteral("profiler"), QStringLiteral("planner"),
                                    QStringLiteral("coder"), QStringLiteral("tester")})
            steps.append(QJsonObject{{QStringLiteral("role"), role},
                                     {QStringLiteral("template"), QStringLiteral("agent_") + role},
                                     {QStringLiteral("ok"), role != QLatin1String("tester")},
                                     {QStringLiteral("error"), QStringLiteral("empty answer")},
                                     {QStringLiteral("prompt"), role + QStringLiteral(" asks")},
                                     {QStringLiteral("response"), role + QStringLiteral(" says")},
                                     {QStringLiteral("prompt_tokens"), 1234}});
        c.policyMeta.insert(QStringLiteral("agent_steps"), steps);
        const QString html = TranscriptFormatter::html(c);
        QVERIFY(html.contains(QStringLiteral("5 steps of the agents' round")));
        QVERIFY(html.contains(QStringLiteral("no &lt;ncu&gt; here")));
        qsizetype at = 0;
        for (const QString &needle :
             {QStringLiteral("Profiler (template agent_profiler)"), QStringLiteral("profiler says"),
              QStringLiteral("Planner (template agent_planner)"), QStringLiteral("coder asks"),
              QStringLiteral("Tester (template agent_tester) — failed: empty answer")}) {
            const qsizetype found = html.indexOf(needle, at);
            QVERIFY2(found > at, qPrintable(needle));
            at = found;
        }
        QVERIFY(html.contains(QLocale().toString(1234)));
        QVERIFY(!html.contains(QStringLiteral("the coder's prompt"))); // shown once, as a step
    }
};

QTEST_GUILESS_MAIN(TstReportFormatter)
#include "tst_reportformatter.moc"
