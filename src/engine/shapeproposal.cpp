#include "shapeproposal.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace kiln {

namespace {

const QString kTesterLabel = QStringLiteral("tester: ");

// The first {...} of the answer that parses as JSON and holds a "shapes" array.
std::optional<QJsonArray> shapesArray(const QString &answer)
{
    for (qsizetype start = answer.indexOf(QLatin1Char('{')); start >= 0;
         start = answer.indexOf(QLatin1Char('{'), start + 1)) {
        int depth = 0;
        for (qsizetype i = start; i < answer.size(); ++i) {
            depth += answer[i] == QLatin1Char('{') ? 1 : answer[i] == QLatin1Char('}') ? -1 : 0;
            if (depth != 0)
                continue;
            const QJsonDocument doc =
                QJsonDocument::fromJson(answer.mid(start, i - start + 1).toUtf8());
            if (doc.isObject() && doc.object().value(QStringLiteral("shapes")).isArray())
                return doc.object().value(QStringLiteral("shapes")).toArray();
            break;
        }
    }
    return std::nullopt;
}

// The shapes the task checks (its timing shapes may be far larger: each checked shape runs on
// several input sets, so a proposal stays within what the task already checks).
QList<ShapeConfig> taskShapes(const Task &task)
{
    return task.correctnessShapes;
}

// Bytes the shape moves by the task's roofline, else the product of its sizes.
double volume(const Task &task, const ShapeConfig &shape)
{
    if (!task.rooflineBytes.isEmpty())
        return task.bytesMoved(shape);
    double product = 1.0;
    for (qint64 v : shape.sizes)
        product *= double(v);
    return product;
}

QString checkOne(const QJsonValue &value, const Task &task, ShapeConfig *shape)
{
    if (!value.isObject())
        return QStringLiteral("not an object of sizes");
    const QJsonObject object = value.toObject();
    for (auto it = object.constBegin(); it != object.constEnd(); ++it)
        if (!task.sizes.contains(it.key()))
            return QStringLiteral("'%1' is not a size of %2").arg(it.key(), task.name);
    const QList<ShapeConfig> known = taskShapes(task);
    const QMap<QString, qint64> largestSizes = task.largestCheckedSizes();
    for (const QString &name : task.sizes) {
        const QJsonValue v = object.value(name);
        const double d = v.toDouble(-1.0);
        if (!v.isDouble() || d != std::floor(d) || d < 1.0)
            return QStringLiteral("%1 must be a whole number of at least 1").arg(name);
        const qint64 largest = std::max<qint64>(1, largestSizes.value(name, 1));
        if (d > double(largest))
            return QStringLiteral("%1=%2 is larger than the task's largest checked (%3)")
                .arg(name)
                .arg(qint64(d))
                .arg(largest);
        shape->sizes.insert(name, qint64(d));
    }
    double largestVolume = 0.0;
    for (const ShapeConfig &k : known)
        largestVolume = std::max(largestVolume, volume(task, k));
    if (volume(task, *shape) > largestVolume)
        return QStringLiteral("%1 moves more data than the task's largest checked shape")
            .arg(task.shapeLabel(*shape));
    for (const ShapeConfig &k : known)
        if (k.sizes == shape->sizes)
            return QStringLiteral("%1 is already checked").arg(task.shapeLabel(*shape));
    return {};
}

} // namespace

Task ShapeProposal::forCandidate(const Task &task, const CandidateRecord &candidate)
{
    return withShapes(
        task, fromJson(candidate.policyMeta.value(QStringLiteral("tester_shapes")).toArray()));
}

QList<ShapeConfig> ShapeProposal::added(const Task &task)
{
    QList<ShapeConfig> shapes;
    for (const ShapeConfig &shape : task.correctnessShapes)
        if (shape.label.startsWith(kTesterLabel))
            shapes.append(shape);
    return shapes;
}

ShapeProposal::Outcome ShapeProposal::parse(const QString &answer, const Task &task)
{
    Outcome outcome;
    const std::optional<QJsonArray> array = shapesArray(answer);
    if (!array) {
        outcome.error = QStringLiteral("the tester's answer holds no JSON object with a "
                                       "\"shapes\" array");
        return outcome;
    }
    for (const QJsonValue &value : *array) {
        ShapeConfig shape;
        QString why = checkOne(value, task, &shape);
        for (const ShapeConfig &earlier : std::as_const(outcome.accepted))
            if (why.isEmpty() && earlier.sizes == shape.sizes)
                why = QStringLiteral("%1 is proposed twice").arg(task.shapeLabel(shape));
        if (why.isEmpty() && outcome.accepted.size() >= kMaximum)
            why = QStringLiteral("more than %1 shapes proposed").arg(kMaximum);
        if (why.isEmpty())
            outcome.accepted.append(shape);
        else
            outcome.rejected.append(why);
    }
    return outcome;
}

QJsonArray ShapeProposal::toJson(const QList<ShapeConfig> &shapes)
{
    QJsonArray array;
    for (const ShapeConfig &shape : shapes) {
        QJsonObject object;
        for (auto it = shape.sizes.constBegin(); it != shape.sizes.constEnd(); ++it)
            object.insert(it.key(), double(it.value()));
        array.append(object);
    }
    return array;
}

QList<ShapeConfig> ShapeProposal::fromJson(const QJsonArray &array)
{
    QList<ShapeConfig> shapes;
    for (const QJsonValue &value : array) {
        ShapeConfig shape;
        const QJsonObject object = value.toObject();
        for (auto it = object.constBegin(); it != object.constEnd(); ++it)
            shape.sizes.insert(it.key(), qint64(it.value().toDouble()));
        if (!shape.sizes.isEmpty())
            shapes.append(shape);
    }
    return shapes;
}

Task ShapeProposal::withShapes(const Task &task, const QList<ShapeConfig> &extra)
{
    Task checked = task;
    if (extra.isEmpty() || task.correctnessShapes.isEmpty())
        return checked;
    // Pinned, so the appended shapes never become the shape a backend is timed on.
    for (Backend backend : {Backend::Cpu, Backend::Cuda})
        checked.timingShapes.insert(backend, task.timedShape(backend));
    for (ShapeConfig shape : extra) {
        shape.label = kTesterLabel + task.shapeLabel(shape);
        checked.correctnessShapes.append(shape);
    }
    return checked;
}

} // namespace kiln
