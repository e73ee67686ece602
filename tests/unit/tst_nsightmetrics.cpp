// NsightMetrics on report tables laid out as `ncu --import R --csv --page raw --print-units
// base` prints them (a header of metric names, a row of units, a row per launch) and as the
// details page's long form. The tables here are written for the test, following those layouts;
// tst_profile reads a real report on the GPU machine.
#include "engine/profile/nsightmetrics.h"
#include "engine/reports/profilereport.h"

#include <QJsonArray>
#include <QTest>

using namespace kiln;
using namespace Qt::StringLiterals;

namespace {

const QString kHeader =
    uR"c("ID","Process ID","Process Name","Host Name","Kernel Name","Block Size","Grid Size",)c"
    uR"c("gpu__time_duration.sum","launch__grid_size","launch__block_size","dram__bytes_read.sum",)c"
    uR"c("sm__throughput.avg.pct_of_peak_sustained_elapsed",)c"
    uR"c("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",)c"
    uR"c("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",)c"
    uR"c("smsp__average_warps_issue_stalled_not_issued_per_issue_active.ratio",)c"
    uR"c("smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio",)c"
    uR"c("smsp__average_warps_issue_stalled_wait_per_issue_active.ratio")c"_s;
const QString kUnits = uR"c("","","","","","","","nsecond","","","Kbyte","%","","","","","")c"_s;

QString launch(int id, const char *kernel, int grid, double ns, double dramKb, double stallLong)
{
    return uR"c("%1","77","kiln-cuda-sandbox","gpu","%2","(256, 1, 1)","(%3, 1, 1)","%4","%3",)c"
           uR"c("256","%5","61.5","%6","1.5","9","0.25","0")c"_s.arg(id)
               .arg(QString::fromLatin1(kernel))
               .arg(grid)
               .arg(QString::number(ns, 'f', 0).replace(u"000"_s, u",000"_s))
               .arg(dramKb)
               .arg(stallLong);
}

} // namespace

class TestNsightMetrics : public QObject
{
    Q_OBJECT

private slots:
    void fieldsKeepQuotedCommas()
    {
        QCOMPARE(NsightMetrics::fields(uR"c("a","f(float*, int)","say ""hi""",3)c"_s),
                 (QStringList{u"a"_s, u"f(float*, int)"_s, uR"c(say "hi")c"_s, u"3"_s}));
    }

    // Correctness launches at small grids, then the timing shape's: only the largest grid
    // counts, times come out in ms and sizes in bytes, the stalls by cycles (not_issued is not
    // a stall reason, a zero is left out).
    void rawPageSummarisesTheTimingShape()
    {
        const QString csv =
            u"==PROF== Connected to process 77\n"_s + kHeader + u'\n' + kUnits + u'\n' +
            launch(0, "add_kernel(float const*, float*, int)", 4, 1000, 8, 1) + u'\n' +
            launch(1, "add_kernel(float const*, float*, int)", 4096, 41000, 16384, 7) + u'\n' +
            launch(2, "add_kernel(float const*, float*, int)", 4096, 43000, 16384, 5) + u'\n' +
            launch(3, "add_kernel(float const*, float*, int)", 4096, 42000, 16384, 6) + u'\n';
        QString error;
        const QList<NsightMetrics::Launch> launches = NsightMetrics::parse(csv, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(launches.size(), 4);
        QCOMPARE(launches.first().kernel, u"add_kernel"_s);
        const QJsonObject summary = NsightMetrics::summarise(launches);
        QCOMPARE(summary.value(u"launches_profiled"_s).toInt(), 4);
        const QJsonArray kernels = summary.value(u"kernels"_s).toArray();
        QCOMPARE(kernels.size(), 1);
        const QJsonObject add = kernels.first().toObject();
        QCOMPARE(add.value(u"launches"_s).toInt(), 3);
        QCOMPARE(add.value(u"grid_size"_s).toDouble(), 4096.0);
        QCOMPARE(add.value(u"duration_ms"_s).toDouble(), 0.042);
        QCOMPARE(summary.value(u"duration_ms"_s).toDouble(), 0.042);
        QCOMPARE(add.value(u"dram_read_bytes"_s).toDouble(), 16384e3);
        QCOMPARE(add.value(u"sm_throughput_pct"_s).toDouble(), 61.5);
        const QJsonArray stalls = add.value(u"top_stalls"_s).toArray();
        QCOMPARE(stalls.size(), 3);
        QCOMPARE(stalls[0].toObject().value(u"reason"_s).toString(), u"long_scoreboard"_s);
        QCOMPARE(stalls[0].toObject().value(u"cycles_per_issue"_s).toDouble(), 6.0);
        QCOMPARE(stalls[1].toObject().value(u"reason"_s).toString(), u"barrier"_s);
        QCOMPARE(stalls[2].toObject().value(u"reason"_s).toString(), u"math_pipe_throttle"_s);
        // What the profiler's prompt reads.
        StageResult stage;
        stage.ok = true;
        stage.detail = u"Nsight Compute test"_s;
        stage.data = summary;
        const QString text = ProfileReport::text(EvaluationResult{}, stage);
        QVERIFY2(text.contains(u"kernel `add_kernel` (grid 4096"_s), qPrintable(text));
        QVERIFY2(text.contains(u"duration: 0.042 ms"_s), qPrintable(text));
        QVERIFY2(text.contains(u"long_scoreboard (6 cycles"_s), qPrintable(text));
    }

    // Two kernels a call: the call's duration is the sum of their medians.
    void kernelsOfOneCallAddUp()
    {
        const QString csv = kHeader + u'\n' + kUnits + u'\n' + launch(0, "a", 64, 2000, 1, 1) +
                            u'\n' + launch(1, "b", 32, 3000, 1, 1) + u'\n';
        QString error;
        const QJsonObject summary = NsightMetrics::summarise(NsightMetrics::parse(csv, &error));
        QCOMPARE(summary.value(u"kernels"_s).toArray().size(), 2);
        QCOMPARE(summary.value(u"duration_ms"_s).toDouble(), 0.005);
    }

    void detailsPageLongForm()
    {
        const QString csv =
            uR"c("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Section Name","Metric Name","Metric Unit","Metric Value")c"
            u"\n"
            uR"c("0","9","p","h","k(int)","1","7","Command line profiler metrics","gpu__time_duration.sum","usecond","12.5")c"
            u"\n"
            uR"c("0","9","p","h","k(int)","1","7","Command line profiler metrics","launch__grid_size","","1,024")c"_s;
        QString error;
        const QList<NsightMetrics::Launch> launches = NsightMetrics::parse(csv, &error);
        QCOMPARE(launches.size(), 1);
        QCOMPARE(launches.first().kernel, u"k"_s);
        // Only the trailing parameter list is dropped.
        QString longForm = csv;
        longForm.replace(u"k(int)"_s, u"(anonymous namespace)::k(int)"_s);
        QCOMPARE(NsightMetrics::parse(longForm, &error).first().kernel,
                 u"(anonymous namespace)::k"_s);
        QCOMPARE(launches.first().values.value(u"gpu__time_duration.sum"_s), 0.0125);
        QCOMPARE(launches.first().values.value(u"launch__grid_size"_s), 1024.0);
    }

    void noTableIsAnError()
    {
        QString error;
        QVERIFY(NsightMetrics::parse(u"==ERROR== ERR_NVGPUCTRPERM\n"_s, &error).isEmpty());
        QVERIFY(error.contains(u"no table"_s));
        error.clear();
        QVERIFY(NsightMetrics::parse(kHeader + u'\n' + kUnits + u'\n', &error).isEmpty());
        QVERIFY(error.contains(u"no profiled launch"_s));
    }
};

QTEST_GUILESS_MAIN(TestNsightMetrics)
#include "tst_nsightmetrics.moc"
