// What a policy is shown of a result (FeedbackSummary): everything about a failure on the visible
// correctness set, and of one on hidden inputs (the hidden set, the timed calls) only the verdict:
// no shape, value, address or candidate output.
#include "policies/feedbacksummary.h"

#include <QJsonArray>
#include <QTest>

using namespace kiln;

namespace {

StageResult stage(const QString &name, bool ok, const QString &detail, const QJsonObject &data = {})
{
    StageResult s;
    s.name = name;
    s.ok = ok;
    s.detail = detail;
    s.data = data;
    return s;
}

CheatFlag flag(const QString &id, const QString &message)
{
    CheatFlag f;
    f.id = id;
    f.message = message;
    f.blocking = true;
    return f;
}

// A correctness failure as the verifier records it, on the set `set`, with `detail` its text.
EvaluationResult wrongOn(const QString &set, const QString &detail)
{
    const QJsonObject failure{
        {QStringLiteral("shape"), QStringLiteral("rows=37,cols=999")},
        {QStringLiteral("seed"), 2},
        {QStringLiteral("distribution"), QStringLiteral("mixed")},
        {QStringLiteral("set"), set},
        {QStringLiteral("check"),
         QJsonObject{{QStringLiteral("got"), 1.5}, {QStringLiteral("expected"), 2.25}}}};
    EvaluationResult result;
    result.verdict = Verdict::Wrong;
    result.summary = detail;
    result.stages = {stage(QStringLiteral("screen"), true, QStringLiteral("no findings")),
                     stage(QStringLiteral("compile"), true, QStringLiteral("compiled")),
                     stage(QStringLiteral("correctness"), false, detail,
                           {{QStringLiteral("calls"), 64},
                            {QStringLiteral("failure"), failure},
                            {QStringLiteral("failed_on"), set}}),
                     stage(QStringLiteral("verdict"), false, detail)};
    return result;
}

// Nothing of the hidden instance: its sizes, the values, the candidate's output or an address.
void verifyNothingHidden(const QString &text)
{
    for (const char *secret :
         {"rows=37", "cols=999", "1.5", "2.25", "got", "expected", "0x7f3a", "stderr", "5357"})
        QVERIFY2(!text.contains(QLatin1String(secret)),
                 qPrintable(QStringLiteral("'%1' in:\n%2").arg(QLatin1String(secret), text)));
}

} // namespace

class TestFeedbackSummary : public QObject
{
    Q_OBJECT

private slots:
    // The visible set's inputs are public: the policy is shown where and how it went wrong.
    void visibleFailureShowsEverything()
    {
        const EvaluationResult result =
            wrongOn(QStringLiteral("visible"),
                    QStringLiteral("y on rows=37,cols=999 (normal data): 1 of 36963 elements "
                                   "wrong; first at index 12: got 1.5, expected 2.25"));
        const QString text = FeedbackSummary::describe(result);
        QVERIFY2(text.contains(u"first at index 12: got 1.5, expected 2.25"), qPrintable(text));
        QVERIFY(text.contains(u"Stage correctness: FAILED - y on rows=37,cols=999"));
        QCOMPARE(FeedbackSummary::hiddenFailureStage(result), QString());
        QCOMPARE(FeedbackSummary::policySummary(result), result.summary);
    }

    // A stored hardware profile of the parent goes into its feedback, its metrics a line each.
    void hardwareProfileIsListed()
    {
        EvaluationResult result;
        result.verdict = Verdict::Pass;
        result.candidateMs = 0.05;
        StageResult profile;
        profile.name = QStringLiteral("hardware_profile");
        profile.ok = true;
        profile.detail = QStringLiteral("Nsight Compute 2025.3 on NVIDIA H100");
        profile.data = {{QStringLiteral("kernels"),
                         QJsonArray{QJsonObject{
                             {QStringLiteral("kernel"), QStringLiteral("add")},
                             {QStringLiteral("memory_throughput_pct"), 91.5},
                             {QStringLiteral("top_stalls"),
                              QJsonArray{QJsonObject{
                                  {QStringLiteral("reason"), QStringLiteral("long_scoreboard")},
                                  {QStringLiteral("cycles_per_issue"), 12.5}}}}}}}};
        result.stages.append(profile);
        const QString text = FeedbackSummary::describe(result);
        QVERIFY2(text.contains(u"Hardware profile (Nsight Compute 2025.3 on NVIDIA H100):"),
                 qPrintable(text));
        QVERIFY2(text.contains(u"- kernel `add`"), qPrintable(text));
        QVERIFY2(text.contains(u"memory throughput: 91.5 % of peak"), qPrintable(text));
        QVERIFY2(text.contains(u"top warp stalls: long_scoreboard (12.5 cycles"), qPrintable(text));
        result.stages.first().ok = false; // a failed profile says nothing here
        QVERIFY(!FeedbackSummary::describe(result).contains(u"Hardware profile"));
    }

    void hiddenFailureShowsNoValues()
    {
        EvaluationResult result =
            wrongOn(QStringLiteral("hidden"),
                    QStringLiteral("y on hidden rows=37,cols=999 (mixed data): 1 of 36963 "
                                   "elements wrong; first at index 12: got 1.5, expected 2.25"));
        // A flag first raised on the hidden set carries no evidence of its own (CorrectnessLoop).
        result.flags = {flag(QStringLiteral("near_constant_output"),
                             QStringLiteral("The output is (nearly) constant (on hidden inputs)"))};
        result.stages[2].data.insert(QStringLiteral("hidden_evidence"),
                                     QJsonObject{{QStringLiteral("near_constant_output"),
                                                  QStringLiteral("rows=37,cols=999")}});
        const QString text = FeedbackSummary::describe(result);
        QVERIFY2(text.startsWith(
                     u"Verdict: wrong - wrong on hidden inputs (shape and values not shown)"),
                 qPrintable(text));
        QVERIFY2(
            text.contains(u"Stage correctness: FAILED - wrong on hidden inputs (shape and values "
                          u"not shown)"),
            qPrintable(text));
        QVERIFY(text.contains(u"Flag near_constant_output (blocking)"));
        verifyNothingHidden(text);
        QCOMPARE(FeedbackSummary::hiddenFailureStage(result), QStringLiteral("correctness"));
        verifyNothingHidden(FeedbackSummary::policySummary(result));
    }

    // A crash on hidden inputs: its address and the candidate's stderr could carry what it saw.
    void hiddenCrashShowsNoCandidateOutput()
    {
        const QString crash =
            QStringLiteral("crashed during the call on hidden n=5357, seed 2: signal 11 "
                           "(Segmentation fault) at address 0x7f3a; stderr: 0.25 1.5");
        EvaluationResult result = wrongOn(QStringLiteral("hidden"), crash);
        result.verdict = Verdict::Crash;
        const QString text = FeedbackSummary::describe(result);
        QVERIFY2(text.startsWith(u"Verdict: crash - crashed on hidden inputs"), qPrintable(text));
        verifyNothingHidden(text);
    }

    // Timed calls run on inputs drawn from the secret, after the hidden set.
    void timedCallFailureShowsNoValues()
    {
        const QString wrong =
            QStringLiteral("timed call 7 (normal data) gave a wrong y: 1 of 128000 elements "
                           "wrong; first at index 5357: got 1.5, expected 2.25");
        EvaluationResult result;
        result.verdict = Verdict::Wrong;
        result.summary = wrong;
        result.stages = {
            stage(QStringLiteral("correctness"), true, QStringLiteral("64 calls within tolerance")),
            stage(QStringLiteral("timing"), false, wrong),
            stage(QStringLiteral("verdict"), false, wrong)};
        const QString text = FeedbackSummary::describe(result);
        QVERIFY2(text.contains(u"Stage timing: FAILED - wrong in a timed call on hidden inputs "
                               u"(values not shown)"),
                 qPrintable(text));
        verifyNothingHidden(text);
        QCOMPARE(FeedbackSummary::hiddenFailureStage(result), QStringLiteral("timing"));

        result.verdict = Verdict::Crash;
        result.summary = result.stages[1].detail = result.stages[2].detail =
            QStringLiteral("crashed during timing: signal 11 (Segmentation fault) at address "
                           "0x7f3a; stderr: got 1.5");
        const QString crash = FeedbackSummary::describe(result);
        QVERIFY2(crash.contains(u"crashed during timing (details not shown"), qPrintable(crash));
        verifyNothingHidden(crash);
    }

    // A duplicate keeps its original's verdict and summary, not its stages.
    void duplicateOfAHiddenFailure()
    {
        EvaluationResult result;
        result.verdict = Verdict::Wrong;
        result.duplicateOf = 12;
        result.summary = QStringLiteral("duplicate of #12: y on hidden rows=37,cols=999 (mixed "
                                        "data): first at index 12: got 1.5, expected 2.25");
        result.stages = {
            stage(QStringLiteral("duplicate"), true, QStringLiteral("reused"),
                  {{QStringLiteral("hidden_failure"), QStringLiteral("correctness")}})};
        const QString text = FeedbackSummary::describe(result);
        QVERIFY2(text.startsWith(u"Verdict: wrong - duplicate of #12: wrong on hidden inputs"),
                 qPrintable(text));
        verifyNothingHidden(text);
    }

    // Blocked by a flag raised on the hidden set: the flag is named, the shape is not.
    void flaggedOnHiddenInputs()
    {
        EvaluationResult result =
            wrongOn(QStringLiteral("hidden"),
                    QStringLiteral("modified an input on hidden rows=37,cols=999"));
        result.verdict = Verdict::Flagged;
        result.summary = QStringLiteral("blocked by input_modified");
        result.stages[3].detail = result.summary;
        result.flags = {flag(QStringLiteral("input_modified"),
                             QStringLiteral("Modified an input buffer (on hidden inputs)"))};
        const QString text = FeedbackSummary::describe(result);
        QVERIFY2(text.startsWith(u"Verdict: flagged - blocked by input_modified"),
                 qPrintable(text));
        verifyNothingHidden(text);
    }
};

QTEST_GUILESS_MAIN(TestFeedbackSummary)
#include "tst_feedbacksummary.moc"
