// kiln-cli doctor through the real binary: on this machine, and with each thing it checks
// broken on purpose (no sandbox, an unwritable cache, a broken task folder).
#include "kilncli.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

using namespace kiln::test;

namespace {

QJsonObject doctor(const QProcessEnvironment &environment, const QStringList &more = QStringList())
{
    const CliOutcome o =
        runCli(QStringList{QStringLiteral("doctor"), QStringLiteral("--json")} + more, 120000,
               environment);
    if (o.status != 0)
        qWarning("doctor: status %d: %s", o.status, o.err.constData());
    return o.status == 0 ? o.json() : QJsonObject();
}

// The findings of one check (a check may report several, e.g. one per broken task folder).
QList<QJsonObject> findings(const QJsonObject &report, const QString &check)
{
    QList<QJsonObject> found;
    for (const QJsonValue &value : report.value(QStringLiteral("checks")).toArray()) {
        if (value.toObject().value(QStringLiteral("check")).toString() == check)
            found.append(value.toObject());
    }
    return found;
}

QString status(const QJsonObject &report, const QString &check)
{
    const QList<QJsonObject> all = findings(report, check);
    return all.isEmpty() ? QString() : all.first().value(QStringLiteral("status")).toString();
}

QString fixOf(const QJsonObject &report, const QString &check)
{
    const QList<QJsonObject> all = findings(report, check);
    return all.isEmpty() ? QString() : all.first().value(QStringLiteral("fix")).toString();
}

QProcessEnvironment environmentWith(const QString &name, const QString &value)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(name, value);
    return environment;
}

} // namespace

class TstDoctor : public QObject
{
    Q_OBJECT

private slots:
    void thisMachine()
    {
        const QJsonObject report = doctor(QProcessEnvironment::systemEnvironment());
        QVERIFY(!report.isEmpty());
        QCOMPARE(report.value(QStringLiteral("version")).toString(), QStringLiteral(KILN_VERSION));
        QVERIFY(report.value(QStringLiteral("ok")).toBool());
        QVERIFY(report.value(QStringLiteral("backends")).toObject().value(u"cpu").toBool());
        for (const QString &check :
             {QStringLiteral("sandbox"), QStringLiteral("namespaces"), QStringLiteral("landlock"),
              QStringLiteral("seccomp"), QStringLiteral("compiler"), QStringLiteral("nvcc"),
              QStringLiteral("cuda-runtime"), QStringLiteral("cache"), QStringLiteral("work"),
              QStringLiteral("tasks"), QStringLiteral("strategies"), QStringLiteral("cpu-backend"),
              QStringLiteral("problem-lint"), QStringLiteral("ncu")})
            QVERIFY2(!status(report, check).isEmpty(), qPrintable(check));
        QCOMPARE(status(report, QStringLiteral("cpu-backend")), QStringLiteral("ok"));
        QCOMPARE(status(report, QStringLiteral("compiler")), QStringLiteral("ok"));
        // The A/A test: the reference against itself, with the floor it implies.
        const QList<QJsonObject> noise = findings(report, QStringLiteral("cpu-noise-floor"));
        QCOMPARE(noise.size(), 1);
        const QString floor = noise.first().value(QStringLiteral("found")).toString();
        QVERIFY2(floor.contains(QLatin1String("A/A")) &&
                     floor.contains(QLatin1String("noise floor")),
                 qPrintable(floor));
        QVERIFY(status(report, QStringLiteral("cpu-noise-floor")) != QLatin1String("problem"));
        // Every finding that is not ok says how to fix it.
        for (const QJsonValue &value : report.value(QStringLiteral("checks")).toArray()) {
            const QJsonObject finding = value.toObject();
            QVERIFY(!finding.value(QStringLiteral("found")).toString().isEmpty());
            if (finding.value(QStringLiteral("status")).toString() != QLatin1String("ok"))
                QVERIFY2(!finding.value(QStringLiteral("fix")).toString().isEmpty(),
                         qPrintable(finding.value(QStringLiteral("check")).toString()));
        }
        // The CUDA backend is usable exactly when its end-to-end check passed.
        const bool cuda =
            report.value(QStringLiteral("backends")).toObject().value(u"cuda").toBool();
        QCOMPARE(cuda, status(report, QStringLiteral("cuda-backend")) == QLatin1String("ok"));
    }

    // A KILN_NCU that is not there: no hardware profiles, said as a warning with the fix.
    void profilerNamedButMissing()
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("KILN_NCU"), QStringLiteral("/nonexistent/ncu"));
        const QJsonObject report = doctor(environment);
        QCOMPARE(status(report, QStringLiteral("ncu")), QStringLiteral("warning"));
        const QJsonObject ncu = findings(report, QStringLiteral("ncu")).value(0);
        QVERIFY2(ncu.value(QStringLiteral("found")).toString().contains(u"no hardware profiles"),
                 qPrintable(ncu.value(QStringLiteral("found")).toString()));
        QVERIFY(ncu.value(QStringLiteral("fix")).toString().contains(u"KILN_NCU"));
    }

    void textReport()
    {
        const CliOutcome o = runCli({QStringLiteral("doctor")}, 120000);
        QCOMPARE(o.status, 0);
        QVERIFY2(o.out.contains("CPU backend: usable."), o.out.constData());
        QVERIFY(o.out.contains("cpu-backend"));
    }

    void missingSandbox()
    {
        const QJsonObject report = doctor(environmentWith(
            QStringLiteral("KILN_SANDBOX"), QStringLiteral("/nonexistent/kiln-sandbox")));
        QVERIFY(!report.isEmpty());
        QCOMPARE(status(report, QStringLiteral("sandbox")), QStringLiteral("problem"));
        QVERIFY(fixOf(report, QStringLiteral("sandbox")).contains(QLatin1String("KILN_SANDBOX")));
        QVERIFY(!report.value(QStringLiteral("ok")).toBool());
        QVERIFY(!report.value(QStringLiteral("backends")).toObject().value(u"cpu").toBool());
    }

    void unwritableCache()
    {
        // Nobody, root included, creates folders in /proc.
        const QJsonObject report = doctor(
            environmentWith(QStringLiteral("KILN_CACHE_DIR"), QStringLiteral("/proc/kiln-cache")));
        QCOMPARE(status(report, QStringLiteral("cache")), QStringLiteral("problem"));
        QVERIFY(fixOf(report, QStringLiteral("cache")).contains(QLatin1String("KILN_CACHE_DIR")));
        QVERIFY(!report.value(QStringLiteral("ok")).toBool());
    }

    void brokenTaskFolder()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("half_written")));
        QFile json(dir.filePath(QStringLiteral("half_written/task.json")));
        QVERIFY(json.open(QIODevice::WriteOnly));
        json.write("{\"schema\": 1, \"name\": ");
        json.close();
        const QJsonObject report = doctor(QProcessEnvironment::systemEnvironment(),
                                          {QStringLiteral("--tasks-dir"), dir.path()});
        bool named = false;
        for (const QJsonObject &finding : findings(report, QStringLiteral("tasks"))) {
            if (finding.value(QStringLiteral("status")).toString() == QLatin1String("warning") &&
                finding.value(QStringLiteral("found"))
                    .toString()
                    .contains(QLatin1String("half_written")))
                named = true;
        }
        QVERIFY2(named, "the broken task folder is not reported");
        // A broken extra folder does not stop the built-in tasks or the CPU backend.
        QCOMPARE(status(report, QStringLiteral("cpu-backend")), QStringLiteral("ok"));
    }
};

QTEST_GUILESS_MAIN(TstDoctor)
#include "tst_doctor.moc"
