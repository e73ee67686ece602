#include "variantspace.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <functional>

namespace kiln {

namespace {

QString valueString(const QJsonValue &value)
{
    if (value.isDouble())
        return QString::number(value.toDouble(), 'g', 12);
    if (value.isBool())
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    return value.toString();
}

bool readText(const QString &path, QString *text, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("cannot open %1").arg(path);
        return false;
    }
    *text = QString::fromUtf8(file.readAll());
    return true;
}

// The simulated model's belief tags as numbers; -1 for an unknown tag.
double beliefLevel(const QString &tag)
{
    static const QMap<QString, double> levels{{QStringLiteral("best"), 1.0},
                                              {QStringLiteral("good"), 0.75},
                                              {QStringLiteral("fair"), 0.5},
                                              {QStringLiteral("poor"), 0.25}};
    return levels.value(tag, -1.0);
}

QList<double> normalised(QList<double> weights)
{
    double total = 0.0;
    for (double w : std::as_const(weights))
        total += w;
    if (total <= 0.0)
        return QList<double>(weights.size(), 1.0 / std::max<qsizetype>(1, weights.size()));
    for (double &w : weights)
        w /= total;
    return weights;
}

// The folders under `root` whose space (the folder `directory` names) has a knobs.json.
QStringList withKnobs(const QString &root, const std::function<QString(const QString &)> &directory)
{
    QStringList found;
    const QStringList entries = QDir(root).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (const QString &entry : entries)
        if (QFile::exists(directory(entry) + QStringLiteral("/knobs.json")))
            found.append(entry);
    return found;
}

} // namespace

QString VariantSpace::directoryFor(const QString &root, const QString &task, Backend backend)
{
    return root + QLatin1Char('/') + task + QStringLiteral("/variants/") + backendName(backend);
}

QStringList VariantSpace::availableTasks(Backend backend)
{
    return withKnobs(resourceRoot(), [backend](const QString &task) {
        return directoryFor(resourceRoot(), task, backend);
    });
}

std::optional<VariantSpace> VariantSpace::loadEmbedded(const QString &task, Backend backend,
                                                       QString *error)
{
    return loadDirectory(directoryFor(resourceRoot(), task, backend), error);
}

QString VariantSpace::kernelBenchDirectory(const QString &root, const QString &problem,
                                           const QString &language)
{
    return root + QStringLiteral("/kernelbench/") + problem + QStringLiteral("/variants/") +
           language;
}

QStringList VariantSpace::availableKernelBench(const QString &language)
{
    return withKnobs(resourceRoot() + QStringLiteral("/kernelbench"),
                     [language](const QString &problem) {
                         return kernelBenchDirectory(resourceRoot(), problem, language);
                     });
}

std::optional<VariantSpace> VariantSpace::loadKernelBench(const QString &problem,
                                                          const QString &language, QString *error)
{
    return loadDirectory(kernelBenchDirectory(resourceRoot(), problem, language), error);
}

bool VariantSpace::fitsReference(const QString &referenceSource, QString *why) const
{
    for (const QString &pattern : m_referencePatterns) {
        if (!QRegularExpression(pattern).match(referenceSource).hasMatch()) {
            if (why)
                *why = pattern;
            return false;
        }
    }
    return true;
}

std::optional<VariantSpace> VariantSpace::loadDirectory(const QString &directory, QString *error)
{
    QString json;
    if (!readText(directory + QStringLiteral("/knobs.json"), &json, error))
        return std::nullopt;
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json.toUtf8(), &parseError);
    if (!document.isObject()) {
        if (error)
            *error = QStringLiteral("%1/knobs.json: %2").arg(directory, parseError.errorString());
        return std::nullopt;
    }
    const QJsonObject object = document.object();
    QString templateText;
    const QString templateName = object.value(QStringLiteral("template")).toString();
    if (templateName.isEmpty() ||
        !readText(directory + QLatin1Char('/') + templateName, &templateText, error)) {
        if (error && templateName.isEmpty())
            *error = QStringLiteral("%1/knobs.json names no template").arg(directory);
        return std::nullopt;
    }
    return fromJson(object, templateText, error);
}

std::optional<VariantSpace> VariantSpace::fromJson(const QJsonObject &object,
                                                   const QString &templateText, QString *error)
{
    auto fail = [error](const QString &message) {
        if (error)
            *error = message;
        return std::nullopt;
    };
    VariantSpace space;
    space.m_task = object.value(QStringLiteral("task")).toString();
    const auto backend = backendFromName(object.value(QStringLiteral("backend")).toString());
    if (space.m_task.isEmpty() || !backend)
        return fail(QStringLiteral("knobs.json needs \"task\" and a known \"backend\""));
    space.m_backend = *backend;
    space.m_language = object.value(QStringLiteral("language")).toString();
    if (space.m_backend == Backend::Torch && space.m_language.isEmpty())
        return fail(QStringLiteral("knobs.json of a pytorch space needs its \"language\""));
    for (const QJsonValue &pattern : object.value(QStringLiteral("reference")).toArray()) {
        const QRegularExpression expression(pattern.toString());
        if (pattern.toString().isEmpty() || !expression.isValid())
            return fail(QStringLiteral("knobs.json: reference pattern '%1' is not a valid "
                                       "regular expression")
                            .arg(pattern.toString()));
        space.m_referencePatterns.append(pattern.toString());
    }
    space.m_template = templateText;
    space.m_difficulty =
        std::clamp(object.value(QStringLiteral("difficulty")).toDouble(0.5), 0.0, 1.0);
    space.m_bound = object.value(QStringLiteral("bound")).toString(QStringLiteral("memory"));
    const QJsonArray knobs = object.value(QStringLiteral("knobs")).toArray();
    for (const QJsonValue &entry : knobs) {
        const QJsonObject k = entry.toObject();
        Knob knob;
        knob.name = k.value(QStringLiteral("name")).toString();
        knob.description = k.value(QStringLiteral("description")).toString();
        for (const QJsonValue &v : k.value(QStringLiteral("values")).toArray())
            knob.values.append(valueString(v));
        if (knob.name.isEmpty() || knob.values.isEmpty())
            return fail(QStringLiteral("knob without a name or values"));
        for (const QJsonValue &v : k.value(QStringLiteral("prior")).toArray())
            knob.prior.append(v.toDouble());
        // Beliefs are ordinal tags set from published guidance ("basis"), never from timings;
        // a user's space may still give numbers ("quality").
        for (const QJsonValue &v : k.value(QStringLiteral("belief")).toArray()) {
            const double level = beliefLevel(v.toString());
            if (level < 0.0)
                return fail(QStringLiteral("knob %1: belief '%2' is not best, good, fair or poor")
                                .arg(knob.name, v.toString()));
            knob.quality.append(level);
        }
        if (knob.quality.isEmpty())
            for (const QJsonValue &v : k.value(QStringLiteral("quality")).toArray())
                knob.quality.append(std::clamp(v.toDouble(), 0.0, 1.0));
        knob.basis = k.value(QStringLiteral("basis")).toString();
        if (knob.prior.isEmpty())
            knob.prior = QList<double>(knob.values.size(), 1.0);
        if (knob.quality.isEmpty())
            knob.quality = QList<double>(knob.values.size(), 0.5);
        if (knob.prior.size() != knob.values.size() || knob.quality.size() != knob.values.size())
            return fail(
                QStringLiteral("knob %1: prior and belief must match values").arg(knob.name));
        knob.prior = normalised(knob.prior);
        const QJsonObject feedback = k.value(QStringLiteral("feedback")).toObject();
        for (auto it = feedback.constBegin(); it != feedback.constEnd(); ++it) {
            const QString target = valueString(it.value());
            if (target != QLatin1String("up") && target != QLatin1String("down") &&
                !knob.values.contains(target))
                return fail(QStringLiteral("knob %1: feedback target '%2' is not a value")
                                .arg(knob.name, target));
            knob.feedback.insert(it.key(), target);
        }
        space.m_knobs.append(knob);
    }
    const QStringList used = TemplateEngine::referencedVariables(templateText);
    for (const Knob &knob : std::as_const(space.m_knobs))
        if (!used.contains(knob.name))
            return fail(QStringLiteral("knob %1 is never used by the template").arg(knob.name));
    return space;
}

const Knob *VariantSpace::knob(const QString &name) const
{
    for (const Knob &k : m_knobs)
        if (k.name == name)
            return &k;
    return nullptr;
}

qint64 VariantSpace::combinationCount() const
{
    qint64 count = 1;
    for (const Knob &k : m_knobs)
        count *= k.values.size();
    return count;
}

KnobConfig VariantSpace::configAt(qint64 index) const
{
    KnobConfig config;
    for (const Knob &k : m_knobs) {
        config.insert(k.name, k.values.at(index % k.values.size()));
        index /= k.values.size();
    }
    return config;
}

KnobConfig VariantSpace::bestConfig() const
{
    KnobConfig config;
    for (const Knob &k : m_knobs) {
        qsizetype best = 0;
        for (qsizetype i = 1; i < k.values.size(); ++i)
            if (k.quality.at(i) > k.quality.at(best))
                best = i;
        config.insert(k.name, k.values.at(best));
    }
    return config;
}

bool VariantSpace::isValid(const KnobConfig &config) const
{
    for (const Knob &k : m_knobs)
        if (!k.values.contains(config.value(k.name)))
            return false;
    return true;
}

double VariantSpace::quality(const KnobConfig &config) const
{
    if (m_knobs.isEmpty())
        return 0.5;
    double sum = 0.0;
    for (const Knob &k : m_knobs) {
        const qsizetype i = k.values.indexOf(config.value(k.name));
        sum += i >= 0 ? k.quality.at(i) : 0.0;
    }
    return sum / m_knobs.size();
}

TemplateEngine::Result VariantSpace::render(const KnobConfig &config) const
{
    return TemplateEngine::render(m_template, config);
}

QJsonObject VariantSpace::configToJson(const KnobConfig &config)
{
    QJsonObject object;
    for (auto it = config.constBegin(); it != config.constEnd(); ++it)
        object.insert(it.key(), it.value());
    return object;
}

KnobConfig VariantSpace::configFromJson(const QJsonObject &object)
{
    KnobConfig config;
    for (auto it = object.constBegin(); it != object.constEnd(); ++it)
        config.insert(it.key(), valueString(it.value()));
    return config;
}

} // namespace kiln
