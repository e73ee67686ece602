// kiln-cli profile on the GPU machine: a passing CUDA candidate of a stored run is profiled
// by Nsight Compute in its confined sandbox (--profiled, the profiler's private network), beside
// its task's reference; the stored metrics, the report and the fingerprint are checked, and ncu's
// duration is compared with the verifier's median. Skipped without a GPU or ncu.
#include "engine/profile/nsightcommand.h"
#include "kilncli.h"
#include "store/runstore.h"
#include "verifier/harness/cudadevices.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;
using namespace kiln::test;
using namespace Qt::StringLiterals;

class TestProfile : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString db() const { return m_dir.filePath(u"workspace.kiln"_s); }

private slots:
    void initTestCase()
    {
        const CudaAvailability gpu = CudaDevices::probe(VerifierOptions::defaults());
        if (!gpu.usable)
            QSKIP(qPrintable(u"no usable GPU: "_s + gpu.reason));
        if (NsightCommand::locate().isEmpty())
            QSKIP("no Nsight Compute (ncu) here");
        const CliOutcome run = runCli({u"run"_s, u"--task"_s, u"vector_add"_s, u"--backend"_s,
                                       u"cuda"_s, u"--budget"_s, u"1"_s, u"--db"_s, db()});
        QVERIFY2(run.status == 0, run.err.constData());
    }

    void passingCandidateAndItsReference()
    {
        const CliOutcome submitted = runCli(
            {u"submit"_s, u"--db"_s, db(), u"--run"_s, u"1"_s, u"--json"_s,
             QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cuda/vector_add_naive.cu")});
        QCOMPARE(submitted.json().value(u"verdict"_s).toString(), u"pass"_s);
        const qint64 candidate = submitted.json().value(u"candidate_id"_s).toInteger();
        const CliOutcome profiled = runCli({u"profile"_s, u"--db"_s, db(), u"--candidate"_s,
                                            QString::number(candidate), u"--json"_s},
                                           600000);
        QVERIFY2(profiled.status == 0, (profiled.out + profiled.err).constData());
        auto store = RunStore::open(db(), RunStore::Mode::ReadOnly);
        QVERIFY(store);
        const QList<ProfileRecord> profiles = store->profiles(candidate);
        QCOMPARE(profiles.size(), 2);
        for (const ProfileRecord &profile : profiles) {
            QVERIFY2(profile.ok, qPrintable(profile.reason));
            QVERIFY(QFileInfo::exists(profile.reportPath));
            const QJsonArray kernels = profile.metrics.value(u"kernels"_s).toArray();
            QVERIFY(!kernels.isEmpty());
            const QJsonObject first = kernels.first().toObject();
            QVERIFY(first.value(u"duration_ms"_s).toDouble() > 0.0);
            QVERIFY(first.value(u"memory_throughput_pct"_s).toDouble() > 0.0);
            QVERIFY(first.value(u"registers_per_thread"_s).toDouble() > 0.0);
            QVERIFY(!profile.fingerprint.value(u"ncu_version"_s).toString().isEmpty());
            // Confined as every candidate is, in the profiler's namespace.
            const QString isolation = profile.fingerprint.value(u"isolation"_s).toString();
            QVERIFY2(isolation.contains(u"PROFILED"_s) && isolation.contains(u"seccomp=1"_s),
                     qPrintable(isolation));
        }
        const ProfileRecord &own = profiles[1]; // newest first: the reference, then this
        QCOMPARE(own.subject, u"candidate"_s);
        const double difference = own.metrics.value(u"difference_pct"_s).toDouble(1e9);
        qInfo("ncu %.4f ms, the verifier %.4f ms: %+.1f %%",
              own.metrics.value(u"duration_ms"_s).toDouble(),
              own.metrics.value(u"verifier_ms"_s).toDouble(), difference);
        QVERIFY2(std::abs(difference) < 10.0, qPrintable(QString::number(difference)));
    }
};

QTEST_GUILESS_MAIN(TestProfile)
#include "tst_profile.moc"
