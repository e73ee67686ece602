#include "tasks/kernelbenchtaskloader.h"

#include "tasks/kernelbenchsource.h"

#include <QFile>
#include <QFileInfo>

namespace kiln {

namespace {

const QString kReferenceKey = QStringLiteral("pytorch");

class KernelBenchValidator
{
public:
    explicit KernelBenchValidator(const QString &directory) : m_directory(directory) {}

    TaskLoader::Result run(const QJsonObject &root)
    {
        const QStringList known = {QStringLiteral("schema"),      QStringLiteral("format"),
                                   QStringLiteral("name"),        QStringLiteral("title"),
                                   QStringLiteral("description"), QStringLiteral("kernelbench"),
                                   QStringLiteral("tolerance"),   QStringLiteral("reference")};
        for (auto it = root.constBegin(); it != root.constEnd(); ++it) {
            if (!known.contains(it.key()))
                error(it.key(), QStringLiteral("unknown field (expected one of: %1)")
                                    .arg(known.join(QStringLiteral(", "))));
        }
        if (root.value(QStringLiteral("schema")).toInt() != TaskLoader::kSchemaVersion)
            error(QStringLiteral("schema"), QStringLiteral("unsupported schema version (this "
                                                           "build reads %1)")
                                                .arg(TaskLoader::kSchemaVersion));
        m_task.directory = m_directory;
        readNames(root);
        readOrigin(root.value(QStringLiteral("kernelbench")).toObject());
        readTolerance(root.value(QStringLiteral("tolerance")));
        readReference(root.value(QStringLiteral("reference")).toObject());
        if (!m_errors.isEmpty())
            return {std::nullopt, m_errors};
        return {m_task, {}};
    }

private:
    void error(const QString &field, const QString &reason)
    {
        m_errors.append(TaskLoadError{m_directory + QStringLiteral("/task.json"), field, reason});
    }

    void readNames(const QJsonObject &root)
    {
        const QString name = root.value(QStringLiteral("name")).toString();
        const QString folder = QFileInfo(m_directory).fileName();
        if (!TaskLoader::isIdentifier(name))
            error(QStringLiteral("name"), QStringLiteral("\"%1\" is not an identifier").arg(name));
        else if (name != folder)
            error(QStringLiteral("name"),
                  QStringLiteral("\"%1\" must equal the folder name \"%2\"").arg(name, folder));
        m_task.name = name;
        m_task.entry = QStringLiteral("ModelNew");
        m_task.title = root.value(QStringLiteral("title")).toString().trimmed();
        if (m_task.title.isEmpty())
            error(QStringLiteral("title"), QStringLiteral("required, and must not be empty"));
        m_task.description = root.value(QStringLiteral("description")).toString();
    }

    void readOrigin(const QJsonObject &origin)
    {
        KernelBenchProblem problem;
        problem.level = origin.value(QStringLiteral("level")).toInt();
        problem.number = origin.value(QStringLiteral("problem")).toInt();
        problem.file = origin.value(QStringLiteral("file")).toString();
        if (problem.level < 1)
            error(QStringLiteral("kernelbench.level"), QStringLiteral("must be 1 or more"));
        if (problem.number < 0)
            error(QStringLiteral("kernelbench.problem"), QStringLiteral("must not be negative"));
        m_task.kernelBench = problem;
    }

    void readTolerance(const QJsonValue &value)
    {
        Tolerance tolerance{KernelBenchTaskLoader::kDefaultTolerance,
                            KernelBenchTaskLoader::kDefaultTolerance, 0.0};
        if (!value.isUndefined()) {
            const QJsonObject f32 = value.toObject().value(QStringLiteral("f32")).toObject();
            tolerance.abs = f32.value(QStringLiteral("abs")).toDouble(-1.0);
            tolerance.rel = f32.value(QStringLiteral("rel")).toDouble(-1.0);
            if (!(tolerance.abs >= 0.0) || !(tolerance.rel >= 0.0))
                error(QStringLiteral("tolerance.f32"),
                      QStringLiteral("needs non-negative numbers \"abs\" and \"rel\""));
        }
        m_task.tolerances.insert(QStringLiteral("f32"), tolerance);
    }

    void readReference(const QJsonObject &reference)
    {
        const QString fileName = reference.value(kReferenceKey).toString();
        if (fileName.isEmpty() || !fileName.endsWith(QLatin1String(".py")) ||
            fileName.contains(QLatin1String("..")) || fileName.startsWith(QLatin1Char('/'))) {
            error(QStringLiteral("reference.pytorch"),
                  QStringLiteral("must name a .py file inside the task folder"));
            return;
        }
        QFile file(m_directory + QLatin1Char('/') + fileName);
        if (!file.open(QIODevice::ReadOnly)) {
            error(QStringLiteral("reference.pytorch"),
                  QStringLiteral("cannot read \"%1\"").arg(fileName));
            return;
        }
        const QString source = QString::fromUtf8(file.readAll());
        const QStringList defects = KernelBenchSource::problemDefects(source);
        if (!defects.isEmpty()) {
            error(QStringLiteral("reference.pytorch"), defects.join(QStringLiteral("; ")));
            return;
        }
        m_task.referenceSource.insert(Backend::Torch, source);
    }

    QString m_directory;
    Task m_task;
    QList<TaskLoadError> m_errors;
};

} // namespace

TaskLoader::Result KernelBenchTaskLoader::load(const QJsonObject &root, const QString &directory)
{
    return KernelBenchValidator(directory).run(root);
}

QJsonObject KernelBenchTaskLoader::taskJson(const Task &task, const QString &referenceFile)
{
    const Tolerance tolerance = task.tolerance(QStringLiteral("f32"));
    const KernelBenchProblem problem = task.kernelBench.value_or(KernelBenchProblem{});
    return {
        {QStringLiteral("schema"), TaskLoader::kSchemaVersion},
        {QStringLiteral("format"), QStringLiteral("kernelbench")},
        {QStringLiteral("name"), task.name},
        {QStringLiteral("title"), task.title},
        {QStringLiteral("description"), task.description},
        {QStringLiteral("kernelbench"), QJsonObject{{QStringLiteral("level"), problem.level},
                                                    {QStringLiteral("problem"), problem.number},
                                                    {QStringLiteral("file"), problem.file}}},
        {QStringLiteral("tolerance"),
         QJsonObject{{QStringLiteral("f32"), QJsonObject{{QStringLiteral("abs"), tolerance.abs},
                                                         {QStringLiteral("rel"), tolerance.rel}}}}},
        {QStringLiteral("reference"), QJsonObject{{kReferenceKey, referenceFile}}}};
}

} // namespace kiln
