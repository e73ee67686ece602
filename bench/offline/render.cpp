// Writes samples of the offline policy's variant spaces to a folder, one source per variant and
// a manifest, for the GPU benchmark (run_h200.sh): v0 is the space's best point, then variants
// the simulated model samples at skill 0 (its prior) and at skill 1, then uniform random points.
//   bench_offline_render <out-dir> [cuda|cpu] [per-group] [seed]
// With per-group "all" it writes every knob combination instead, 40 variants per translation
// unit (entries renamed, one namespace each), for an exhaustive compile check. With "defects" it
// writes 4 variants per defect kind of the "wrong" and "compile_error" categories (origin
// "wrong:<kind>" / "compile_error:<kind>"), to check on a GPU that injected bugs break results.
// CUDA variants in the device-only form are written with a host entry (HostLaunchWriter): the
// harness calls host entries. With "device" it writes every CUDA combination that is in the
// device-only form as it is, one file each (device/<task>_<i>.cu), for an exhaustive NVRTC check.
#include "policies/offline/defectinjector.h"
#include "policies/offline/hostlaunchwriter.h"
#include "policies/offline/offlinepolicy.h"
#include "policies/offline/variantspace.h"
#include "tasks/tasklibrary.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QTextStream>

using namespace kiln;

// Every combination of the space, 40 per translation unit, includes hoisted out of the namespaces.
static bool writeAll(const VariantSpace &space, const Task &task, const QString &outDir,
                     const QString &extension)
{
    const QString &name = task.name;
    QDir(outDir).mkpath(QStringLiteral("all"));
    const qint64 count = space.combinationCount();
    for (qint64 first = 0; first < count; first += 40) {
        QStringList includes;
        QString body;
        for (qint64 i = first; i < std::min(count, first + 40); ++i) {
            const auto rendered = space.render(space.configAt(i));
            if (!rendered.ok)
                return false;
            QString text = rendered.text;
            HostLaunchWriter::addHostEntry(&text, task);
            QStringList lines;
            for (const QString &line : text.split(QLatin1Char('\n'))) {
                if (line.startsWith(QLatin1String("#include"))) {
                    if (!includes.contains(line))
                        includes.append(line);
                } else {
                    lines.append(line);
                }
            }
            QString code = lines.join(QLatin1Char('\n'));
            code.replace(QStringLiteral("extern \"C\" void %1(").arg(name),
                         QStringLiteral("extern \"C\" void %1_v%2(").arg(name).arg(i));
            body += QStringLiteral("namespace v%1 {\n%2\n}\n").arg(i).arg(code);
        }
        QFile file(QDir(outDir).filePath(QStringLiteral("all/%1_%2%3")
                                             .arg(name)
                                             .arg(first / 40, 3, 10, QLatin1Char('0'))
                                             .arg(extension)));
        if (!file.open(QIODevice::WriteOnly))
            return false;
        file.write((includes.join(QLatin1Char('\n')) + QStringLiteral("\n") + body).toUtf8());
    }
    return true;
}

// Every combination in the device-only form, one file each, as the verifier's NVRTC path gets it.
static bool writeDeviceOnly(const VariantSpace &space, const QString &name, const QString &outDir)
{
    QDir(outDir).mkpath(QStringLiteral("device"));
    for (qint64 i = 0; i < space.combinationCount(); ++i) {
        const auto rendered = space.render(space.configAt(i));
        if (!rendered.ok)
            return false;
        if (!rendered.text.contains(QLatin1String("// kiln-launch:")))
            continue;
        QFile file(QDir(outDir).filePath(QStringLiteral("device/%1_%2.cu").arg(name).arg(i)));
        if (!file.open(QIODevice::WriteOnly))
            return false;
        file.write(rendered.text.toUtf8());
    }
    return true;
}

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() < 2) {
        QTextStream(stderr)
            << "usage: bench_offline_render <out-dir> [cuda|cpu] [per-group] [seed]\n";
        return 2;
    }
    const QString outDir = args.at(1);
    const Backend backend =
        backendFromName(args.value(2, QStringLiteral("cuda"))).value_or(Backend::Cuda);
    const bool all = args.value(3) == QLatin1String("all");
    const bool defects = args.value(3) == QLatin1String("defects");
    const bool deviceOnly = args.value(3) == QLatin1String("device");
    const int perGroup = args.value(3, QStringLiteral("8")).toInt();
    const quint64 seed = args.value(4, QStringLiteral("1")).toULongLong();
    TaskLibrary tasks;
    tasks.loadEmbedded();
    const QString extension =
        backend == Backend::Cuda ? QStringLiteral(".cu") : QStringLiteral(".cpp");
    for (const QString &name : VariantSpace::availableTasks(backend)) {
        const auto space = VariantSpace::loadEmbedded(name, backend);
        const Task *task = tasks.task(name);
        if (!space || !task)
            continue;
        if (all || deviceOnly) {
            if (all ? !writeAll(*space, *task, outDir, extension)
                    : !writeDeviceOnly(*space, name, outDir))
                return 1;
            continue;
        }
        QDir(outDir).mkpath(name);
        QFile manifest(QDir(outDir).filePath(name + QStringLiteral("/manifest.tsv")));
        if (!manifest.open(QIODevice::WriteOnly))
            return 1;
        QTextStream out(&manifest);
        QList<QPair<QString, KnobConfig>> configs{{QStringLiteral("best"), space->bestConfig()}};
        for (double skill : {0.0, 1.0}) {
            OfflinePolicyOptions options;
            options.skill = skill;
            options.compileErrorRate = options.wrongRate = options.gamingRate = 0.0;
            OfflinePolicy policy(options);
            const std::atomic<bool> cancel{false};
            for (int i = 0; i < perGroup; ++i) {
                GenerationRequest request;
                request.task = task;
                request.backend = backend;
                request.seed = seed;
                request.sampleIndex = i;
                const auto result = policy.generate(request, cancel);
                configs.append(
                    {skill == 0.0 ? QStringLiteral("prior_skill0") : QStringLiteral("prior_skill1"),
                     VariantSpace::configFromJson(
                         result.candidate.policyMeta.value(QStringLiteral("knobs")).toObject())});
            }
        }
        CounterRng rng(seed, 99);
        QList<QString> sources;
        if (defects) {
            configs.clear();
            for (const QString &category :
                 {QStringLiteral("wrong"), QStringLiteral("compile_error")})
                for (const QString &kind : DefectInjector::kinds(category, *task, backend))
                    for (int i = 0; i < 4; ++i) {
                        const KnobConfig config = space->configAt(
                            qint64(rng.next() % quint64(space->combinationCount())));
                        QString source = space->render(config).text;
                        const auto outcome =
                            DefectInjector::apply(&source, category, kind, *task, backend, rng);
                        configs.append({category + QLatin1Char(':') + outcome.kind +
                                            QLatin1Char('@') + QString::number(outcome.line),
                                        config});
                        sources.append(source);
                    }
        }
        for (int i = 0; i < (defects ? 0 : perGroup); ++i)
            configs.append(
                {QStringLiteral("uniform"),
                 space->configAt(qint64(rng.next() % quint64(space->combinationCount())))});
        for (qsizetype i = 0; i < configs.size(); ++i) {
            auto rendered = space->render(configs.at(i).second);
            if (!rendered.ok)
                return 1;
            if (i < sources.size())
                rendered.text = sources.at(i);
            if (backend == Backend::Cuda)
                HostLaunchWriter::addHostEntry(&rendered.text, *task);
            QFile file(
                QDir(outDir).filePath(QStringLiteral("%1/v%2%3").arg(name).arg(i).arg(extension)));
            if (!file.open(QIODevice::WriteOnly))
                return 1;
            file.write(rendered.text.toUtf8());
            out << i << '\t' << configs.at(i).first << '\t' << space->quality(configs.at(i).second)
                << '\t'
                << QJsonDocument(VariantSpace::configToJson(configs.at(i).second))
                       .toJson(QJsonDocument::Compact)
                << '\n';
        }
    }
    return 0;
}
