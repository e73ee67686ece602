#include "verifier/harness/verdictrules.h"
#include "verifier/screen/flagcatalog.h"

#include <QTest>

using namespace kiln;

class TestVerdictRules : public QObject
{
    Q_OBJECT

private slots:
    void decide_data()
    {
        QTest::addColumn<bool>("compiled");
        QTest::addColumn<bool>("objectBuilt");
        QTest::addColumn<int>("runtime"); // -1 none, else a Verdict
        QTest::addColumn<bool>("correct");
        QTest::addColumn<QString>("flag"); // a catalogue id, or empty
        QTest::addColumn<int>("verdict");
        const int none = -1;
        QTest::newRow("pass") << true << true << none << true << "" << int(Verdict::Pass);
        QTest::newRow("advisory flag still passes")
            << true << true << none << true << "static_state" << int(Verdict::Pass);
        QTest::newRow("wrong") << true << true << none << false << "" << int(Verdict::Wrong);
        // The verifier failing on its own side is no verdict on the candidate, unless a
        // blocking flag already gave one.
        QTest::newRow("verifier error") << true << true << int(Verdict::VerifierError) << false
                                        << "" << int(Verdict::VerifierError);
        QTest::newRow("blocking flag before a verifier error")
            << true << true << int(Verdict::VerifierError) << false << "torch_reference_model"
            << int(Verdict::Flagged);
        // A suspicious flag does not block: the verdict follows correctness.
        QTest::newRow("suspicious flag on a correct output passes")
            << true << true << none << true << "memory_mapping" << int(Verdict::Pass);
        QTest::newRow("suspicious flag on a wrong output is wrong")
            << true << true << none << false << "torch_state_between_calls" << int(Verdict::Wrong);
        QTest::newRow("blocking flag on a correct output")
            << true << true << none << true << "dynamic_loading" << int(Verdict::Flagged);
        QTest::newRow("gaming that is also wrong is flagged")
            << true << true << none << false << "cached_result" << int(Verdict::Flagged);
        QTest::newRow("crash beats a flag") << true << true << int(Verdict::Crash) << false
                                            << "process_exit" << int(Verdict::Crash);
        QTest::newRow("timeout") << true << true << int(Verdict::Timeout) << false << ""
                                 << int(Verdict::Timeout);
        QTest::newRow("resource") << true << true << int(Verdict::Resource) << false << ""
                                  << int(Verdict::Resource);
        QTest::newRow("syntax error")
            << false << false << none << false << "" << int(Verdict::CompileError);
        QTest::newRow("syntax error with a token flag")
            << false << false << none << false << "dynamic_loading" << int(Verdict::CompileError);
        QTest::newRow("unresolved forbidden library")
            << false << true << none << false << "forbidden_library" << int(Verdict::Flagged);
        QTest::newRow("link error without a flag")
            << false << true << none << false << "" << int(Verdict::CompileError);
        QTest::newRow("link error with an advisory flag")
            << false << true << none << false << "inline_asm" << int(Verdict::CompileError);
    }

    void decide()
    {
        QFETCH(bool, compiled);
        QFETCH(bool, objectBuilt);
        QFETCH(int, runtime);
        QFETCH(bool, correct);
        QFETCH(QString, flag);
        QFETCH(int, verdict);
        VerdictInputs inputs;
        inputs.compiled = compiled;
        inputs.objectBuilt = objectBuilt;
        if (runtime >= 0)
            inputs.runtimeFailure = Verdict(runtime);
        inputs.correct = correct;
        if (!flag.isEmpty()) {
            QVERIFY(FlagCatalog::find(flag));
            inputs.flags.append(FlagCatalog::make(flag));
        }
        QCOMPARE(verdictName(VerdictRules::decide(inputs)), verdictName(Verdict(verdict)));
    }
};

QTEST_GUILESS_MAIN(TestVerdictRules)
#include "tst_verdictrules.moc"
