#include "tasks/taskloader.h"

#include "tasks/kernelbenchtaskloader.h"
#include "tasks/sizeexpression.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>

#include <climits>
#include <cmath>

namespace kiln {

namespace {

const QLatin1String kTaskFile("task.json");

// Names a parameter must not take: they would not compile as C parameter names.
const QStringList &reservedWords()
{
    static const QStringList words = {
        QStringLiteral("auto"),     QStringLiteral("bool"),     QStringLiteral("break"),
        QStringLiteral("case"),     QStringLiteral("char"),     QStringLiteral("class"),
        QStringLiteral("const"),    QStringLiteral("continue"), QStringLiteral("default"),
        QStringLiteral("delete"),   QStringLiteral("do"),       QStringLiteral("double"),
        QStringLiteral("else"),     QStringLiteral("enum"),     QStringLiteral("extern"),
        QStringLiteral("false"),    QStringLiteral("float"),    QStringLiteral("for"),
        QStringLiteral("goto"),     QStringLiteral("if"),       QStringLiteral("inline"),
        QStringLiteral("int"),      QStringLiteral("long"),     QStringLiteral("new"),
        QStringLiteral("operator"), QStringLiteral("private"),  QStringLiteral("public"),
        QStringLiteral("register"), QStringLiteral("return"),   QStringLiteral("short"),
        QStringLiteral("signed"),   QStringLiteral("sizeof"),   QStringLiteral("static"),
        QStringLiteral("stream"),   QStringLiteral("struct"),   QStringLiteral("switch"),
        QStringLiteral("template"), QStringLiteral("this"),     QStringLiteral("true"),
        QStringLiteral("typedef"),  QStringLiteral("union"),    QStringLiteral("unsigned"),
        QStringLiteral("void"),     QStringLiteral("volatile"), QStringLiteral("while"),
    };
    return words;
}

const QStringList &dtypes()
{
    static const QStringList names = {QStringLiteral("f32"), QStringLiteral("i32")};
    return names;
}

// Collects errors with the file they belong to; the field path is built by the caller.
class Validator
{
public:
    Validator(const QString &directory) : m_directory(directory)
    {
        m_jsonPath = m_directory + QLatin1Char('/') + kTaskFile;
    }

    TaskLoader::Result run(const QByteArray &json);

private:
    void error(const QString &field, const QString &reason) { errorIn(m_jsonPath, field, reason); }
    void errorIn(const QString &file, const QString &field, const QString &reason)
    {
        m_errors.append(TaskLoadError{file, field, reason});
    }

    static QString typeName(const QJsonValue &value)
    {
        switch (value.type()) {
        case QJsonValue::Null:
            return QStringLiteral("null");
        case QJsonValue::Bool:
            return QStringLiteral("a boolean");
        case QJsonValue::Double:
            return QStringLiteral("a number");
        case QJsonValue::String:
            return QStringLiteral("a string");
        case QJsonValue::Array:
            return QStringLiteral("an array");
        case QJsonValue::Object:
            return QStringLiteral("an object");
        case QJsonValue::Undefined:
            break;
        }
        return QStringLiteral("missing");
    }

    void unknownKeys(const QJsonObject &object, const QString &path, const QStringList &known)
    {
        for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
            if (!known.contains(it.key()))
                error(join(path, it.key()), QStringLiteral("unknown field (expected one of: %1)")
                                                .arg(known.join(QStringLiteral(", "))));
        }
    }

    static QString join(const QString &path, const QString &key)
    {
        return path.isEmpty() ? key : path + QLatin1Char('.') + key;
    }
    static QString index(const QString &path, qsizetype i)
    {
        return QStringLiteral("%1[%2]").arg(path).arg(i);
    }

    // Typed accessors: report a missing or mistyped field and return nothing.
    std::optional<QJsonValue> typed(const QJsonObject &object, const QString &path,
                                    const QString &key, QJsonValue::Type type, bool required)
    {
        const QJsonValue value = object.value(key);
        if (value.isUndefined()) {
            if (required)
                error(join(path, key), QStringLiteral("required field is missing"));
            return std::nullopt;
        }
        if (value.type() != type) {
            // typeName() of the expected type reads "a string", "a number", "an object"...
            error(join(path, key), QStringLiteral("must be %1, not %2")
                                       .arg(typeName(QJsonValue(type)), typeName(value)));
            return std::nullopt;
        }
        return value;
    }

    std::optional<QString> string(const QJsonObject &object, const QString &path,
                                  const QString &key, bool required = true)
    {
        const auto value = typed(object, path, key, QJsonValue::String, required);
        return value ? std::optional<QString>(value->toString()) : std::nullopt;
    }

    std::optional<double> number(const QJsonObject &object, const QString &path, const QString &key,
                                 bool required = true)
    {
        const auto value = typed(object, path, key, QJsonValue::Double, required);
        return value ? std::optional<double>(value->toDouble()) : std::nullopt;
    }

    std::optional<QJsonObject> object(const QJsonObject &parent, const QString &path,
                                      const QString &key, bool required = true)
    {
        const auto value = typed(parent, path, key, QJsonValue::Object, required);
        return value ? std::optional<QJsonObject>(value->toObject()) : std::nullopt;
    }

    std::optional<QJsonArray> array(const QJsonObject &parent, const QString &path,
                                    const QString &key, bool required = true)
    {
        const auto value = typed(parent, path, key, QJsonValue::Array, required);
        return value ? std::optional<QJsonArray>(value->toArray()) : std::nullopt;
    }

    // An expression may be written as a JSON string or, for constants, a number.
    std::optional<QString> expression(const QJsonValue &value, const QString &path)
    {
        QString text;
        if (value.isString())
            text = value.toString();
        else if (value.isDouble())
            text = QString::number(value.toDouble(), 'g', 17);
        else {
            error(
                path,
                value.isUndefined()
                    ? QStringLiteral("required field is missing")
                    : QStringLiteral("must be an expression string, not %1").arg(typeName(value)));
            return std::nullopt;
        }
        const SizeExpression parsed(text);
        if (!parsed.isValid()) {
            error(path, QStringLiteral("invalid expression \"%1\": %2").arg(text, parsed.error()));
            return std::nullopt;
        }
        const QStringList names = parsed.identifiers();
        bool ok = true;
        for (const QString &name : names) {
            if (!m_task.sizes.contains(name)) {
                error(path, QStringLiteral("expression \"%1\" uses undeclared size '%2' "
                                           "(declared sizes: %3)")
                                .arg(text, name, m_task.sizes.join(QStringLiteral(", "))));
                ok = false;
            }
        }
        return ok ? std::optional<QString>(text) : std::nullopt;
    }

    std::optional<QStringList> libraryList(const QJsonValue &value, const QString &path)
    {
        if (!value.isArray()) {
            error(path,
                  QStringLiteral("must be an array of library names, not %1").arg(typeName(value)));
            return std::nullopt;
        }
        static const QRegularExpression libraryName(QStringLiteral("^[a-z][a-z0-9_]*$"));
        QStringList names;
        const QJsonArray entries = value.toArray();
        for (qsizetype i = 0; i < entries.size(); ++i) {
            const QJsonValue entry = entries.at(i);
            if (!entry.isString() || !libraryName.match(entry.toString()).hasMatch()) {
                error(index(path, i), QStringLiteral("a library name is a lowercase identifier "
                                                     "such as \"cublas\" or \"openmp\""));
                continue;
            }
            if (names.contains(entry.toString()))
                error(index(path, i),
                      QStringLiteral("duplicate library \"%1\"").arg(entry.toString()));
            else
                names.append(entry.toString());
        }
        return names;
    }

    std::optional<Backend> backendKey(const QString &key, const QString &path)
    {
        const auto backend = backendFromName(key);
        if (!backend)
            error(path, QStringLiteral("unknown backend \"%1\" (expected cpu or cuda)").arg(key));
        return backend;
    }

    // Reads a source file named by the task; `backend` selects the allowed extensions.
    std::optional<QString> sourceFile(const QJsonValue &value, const QString &path, Backend backend)
    {
        if (!value.isString() || value.toString().isEmpty()) {
            error(path, QStringLiteral("must be a file name, not %1").arg(typeName(value)));
            return std::nullopt;
        }
        const QString fileName = value.toString();
        if (QDir::isAbsolutePath(fileName) || fileName.contains(QLatin1String("..")) ||
            fileName.contains(QLatin1Char('\\'))) {
            error(path, QStringLiteral("\"%1\" must be a relative path inside the task folder")
                            .arg(fileName));
            return std::nullopt;
        }
        const QString suffix = QFileInfo(fileName).suffix();
        const QStringList allowed =
            backend == Backend::Cuda
                ? QStringList{QStringLiteral("cu")}
                : QStringList{QStringLiteral("cpp"), QStringLiteral("cc"), QStringLiteral("cxx")};
        if (!allowed.contains(suffix)) {
            error(path,
                  QStringLiteral("\"%1\" must end in .%2 for the %3 backend")
                      .arg(fileName, allowed.join(QStringLiteral(", .")), backendName(backend)));
            return std::nullopt;
        }
        const QString filePath = m_directory + QLatin1Char('/') + fileName;
        QFile file(filePath);
        if (!file.exists()) {
            error(path, QStringLiteral("file \"%1\" not found in the task folder").arg(fileName));
            return std::nullopt;
        }
        if (!file.open(QIODevice::ReadOnly)) {
            error(path, QStringLiteral("cannot read \"%1\": %2").arg(fileName, file.errorString()));
            return std::nullopt;
        }
        const QString source = QString::fromUtf8(file.readAll());
        if (source.trimmed().isEmpty()) {
            errorIn(filePath, path, QStringLiteral("the file is empty"));
            return std::nullopt;
        }
        if (!m_task.entry.isEmpty() && !TaskLoader::definesEntry(source, m_task.entry)) {
            errorIn(filePath, path,
                    QStringLiteral("does not define the entry: expected extern \"C\" void %1(...)")
                        .arg(m_task.entry));
            return std::nullopt;
        }
        return source;
    }

    void readHeader(const QJsonObject &root);
    void readSizes(const QJsonObject &root);
    void readParameters(const QJsonObject &root);
    // One entry of "parameters"; `names` are those taken by the entries before it.
    std::optional<TaskParameter> readParameter(const QJsonObject &object, const QString &path,
                                               QSet<QString> &names);
    // The parts of a parameter: each reports its errors and returns false when it found one.
    bool readParameterName(const QJsonObject &object, const QString &path, QSet<QString> &names,
                           TaskParameter &parameter);
    bool readParameterRole(const std::optional<QString> &role, const QString &path,
                           TaskParameter &parameter);
    bool readParameterDtype(const QJsonObject &object, const QString &path,
                            TaskParameter &parameter);
    bool readBufferShape(const QJsonObject &object, const QString &path, TaskParameter &parameter);
    bool readInputDistribution(const QJsonObject &object, const QString &path,
                               TaskParameter &parameter);
    std::optional<ValueDistribution> readDistribution(const QJsonObject &object,
                                                      const QString &path, bool named);
    void readDistributions(const QJsonObject &root);
    std::optional<ShapeConfig> readShape(const QJsonValue &value, const QString &path);
    void readShapes(const QJsonObject &root);
    void readTolerances(const QJsonObject &root);
    void readRoofline(const QJsonObject &root);
    void readLibraries(const QJsonObject &root);
    void readReferences(const QJsonObject &root);
    void readLibraryBaselines(const QJsonObject &root);
    void checkShapesAgainstParameters();

    QString m_directory;
    QString m_jsonPath;
    Task m_task;
    QMap<Backend, ShapeConfig> m_timingShapes; // checked against the references at the end
    QList<TaskLoadError> m_errors;
};

TaskLoader::Result Validator::run(const QByteArray &json)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        const QByteArray before = json.left(parseError.offset);
        const int line = int(before.count('\n')) + 1;
        const int column = int(parseError.offset - (before.lastIndexOf('\n') + 1)) + 1;
        error(QStringLiteral("(json)"), QStringLiteral("syntax error at line %1, column %2: %3")
                                            .arg(line)
                                            .arg(column)
                                            .arg(parseError.errorString()));
        return {std::nullopt, m_errors};
    }
    if (!document.isObject()) {
        error(QStringLiteral("(root)"), QStringLiteral("must be a JSON object"));
        return {std::nullopt, m_errors};
    }
    const QJsonObject root = document.object();
    unknownKeys(root, QString(),
                {QStringLiteral("schema"), QStringLiteral("name"), QStringLiteral("title"),
                 QStringLiteral("description"), QStringLiteral("entry"), QStringLiteral("sizes"),
                 QStringLiteral("parameters"), QStringLiteral("shapes"),
                 QStringLiteral("distributions"), QStringLiteral("tolerance"),
                 QStringLiteral("roofline"), QStringLiteral("libraries"),
                 QStringLiteral("reference"), QStringLiteral("library_baseline"),
                 QStringLiteral("variants")});
    m_task.directory = m_directory;
    readHeader(root);
    readSizes(root);
    readParameters(root);
    readShapes(root);
    readDistributions(root);
    readTolerances(root);
    readRoofline(root);
    readLibraries(root);
    readReferences(root);
    readLibraryBaselines(root);
    if (m_errors.isEmpty())
        checkShapesAgainstParameters();
    if (!m_errors.isEmpty())
        return {std::nullopt, m_errors};
    return {m_task, {}};
}

void Validator::readHeader(const QJsonObject &root)
{
    const QJsonValue schema = root.value(QStringLiteral("schema"));
    if (schema.isUndefined())
        error(QStringLiteral("schema"), QStringLiteral("required field is missing"));
    else if (!schema.isDouble() || schema.toDouble() != TaskLoader::kSchemaVersion)
        error(QStringLiteral("schema"),
              QStringLiteral("unsupported schema version (this build reads %1)")
                  .arg(TaskLoader::kSchemaVersion));

    const QString folder = QFileInfo(m_directory).fileName();
    if (const auto name = string(root, QString(), QStringLiteral("name"))) {
        if (!TaskLoader::isIdentifier(*name))
            error(
                QStringLiteral("name"),
                QStringLiteral("\"%1\" is not a C identifier ([A-Za-z_][A-Za-z0-9_]*)").arg(*name));
        else if (*name != folder)
            error(QStringLiteral("name"),
                  QStringLiteral("\"%1\" must equal the folder name \"%2\"").arg(*name, folder));
        else
            m_task.name = *name;
    }
    if (const auto entry = string(root, QString(), QStringLiteral("entry"))) {
        if (!TaskLoader::isIdentifier(*entry))
            error(QStringLiteral("entry"),
                  QStringLiteral("\"%1\" is not a C identifier").arg(*entry));
        else if (!m_task.name.isEmpty() && *entry != m_task.name)
            error(
                QStringLiteral("entry"),
                QStringLiteral("\"%1\" must equal the task name \"%2\"").arg(*entry, m_task.name));
        else
            m_task.entry = *entry;
    }
    if (const auto title = string(root, QString(), QStringLiteral("title"))) {
        if (title->trimmed().isEmpty())
            error(QStringLiteral("title"), QStringLiteral("must not be empty"));
        else if (title->contains(QLatin1Char('\n')) || title->size() > 80)
            error(QStringLiteral("title"),
                  QStringLiteral("must be one line of at most 80 characters"));
        else
            m_task.title = *title;
    }
    if (const auto description = string(root, QString(), QStringLiteral("description"))) {
        // It is pasted into prompts: a few words cannot state the contract.
        if (description->trimmed().size() < 40)
            error(QStringLiteral("description"),
                  QStringLiteral("must describe the computation for a prompt (at least 40 "
                                 "characters)"));
        else
            m_task.description = *description;
    }
}

void Validator::readSizes(const QJsonObject &root)
{
    const auto sizes = array(root, QString(), QStringLiteral("sizes"));
    if (!sizes)
        return;
    if (sizes->isEmpty())
        error(QStringLiteral("sizes"), QStringLiteral("must declare at least one size"));
    for (qsizetype i = 0; i < sizes->size(); ++i) {
        const QString path = index(QStringLiteral("sizes"), i);
        const QJsonValue value = sizes->at(i);
        if (!value.isString() || !TaskLoader::isIdentifier(value.toString())) {
            error(path, QStringLiteral("a size name must be a C identifier string"));
            continue;
        }
        const QString name = value.toString();
        if (name == QLatin1String("label"))
            error(path, QStringLiteral("\"label\" is reserved for shape labels"));
        else if (m_task.sizes.contains(name))
            error(path, QStringLiteral("duplicate size \"%1\"").arg(name));
        else
            m_task.sizes.append(name);
    }
}

std::optional<ValueDistribution> Validator::readDistribution(const QJsonObject &object,
                                                             const QString &path, bool named)
{
    ValueDistribution distribution;
    bool ok = true;
    if (named) {
        const auto name = string(object, path, QStringLiteral("name"));
        if (!name || !TaskLoader::isIdentifier(*name)) {
            if (name)
                error(join(path, QStringLiteral("name")),
                      QStringLiteral("\"%1\" is not an identifier").arg(*name));
            ok = false;
        } else {
            distribution.name = *name;
        }
    }
    const auto kind = string(object, path, QStringLiteral("kind"));
    if (!kind)
        return std::nullopt;
    QStringList known = {QStringLiteral("kind"), QStringLiteral("offset")};
    if (named)
        known.append(QStringLiteral("name"));
    QString first;
    QString second;
    if (*kind == QLatin1String("normal")) {
        distribution.kind = ValueDistribution::Kind::Normal;
        first = QStringLiteral("mean");
        second = QStringLiteral("std");
    } else if (*kind == QLatin1String("uniform")) {
        distribution.kind = ValueDistribution::Kind::Uniform;
        first = QStringLiteral("low");
        second = QStringLiteral("high");
    } else if (*kind == QLatin1String("student_t")) {
        distribution.kind = ValueDistribution::Kind::StudentT;
        first = QStringLiteral("dof");
        second = QStringLiteral("scale");
    } else {
        error(join(path, QStringLiteral("kind")),
              QStringLiteral("unknown distribution \"%1\" (expected normal, uniform or student_t)")
                  .arg(*kind));
        return std::nullopt;
    }
    known << first << second;
    unknownKeys(object, path, known);
    const auto a = number(object, path, first);
    const auto b = number(object, path, second);
    const auto offset = number(object, path, QStringLiteral("offset"), false);
    if (!a || !b)
        return std::nullopt;
    distribution.a = *a;
    distribution.b = *b;
    distribution.offset = offset.value_or(0.0);
    switch (distribution.kind) {
    case ValueDistribution::Kind::Normal:
        if (!(distribution.b > 0)) {
            error(join(path, QStringLiteral("std")), QStringLiteral("must be positive"));
            ok = false;
        }
        break;
    case ValueDistribution::Kind::Uniform:
        if (!(distribution.a < distribution.b)) {
            error(join(path, QStringLiteral("high")), QStringLiteral("must be greater than low"));
            ok = false;
        }
        break;
    case ValueDistribution::Kind::StudentT:
        if (!(distribution.a > 0)) {
            error(join(path, QStringLiteral("dof")), QStringLiteral("must be positive"));
            ok = false;
        }
        if (!(distribution.b > 0)) {
            error(join(path, QStringLiteral("scale")), QStringLiteral("must be positive"));
            ok = false;
        }
        break;
    }
    return ok ? std::optional<ValueDistribution>(distribution) : std::nullopt;
}

void Validator::readParameters(const QJsonObject &root)
{
    const auto parameters = array(root, QString(), QStringLiteral("parameters"));
    if (!parameters)
        return;
    QSet<QString> names;
    int outputs = 0;
    for (qsizetype i = 0; i < parameters->size(); ++i) {
        const QString path = index(QStringLiteral("parameters"), i);
        if (!parameters->at(i).isObject()) {
            error(path,
                  QStringLiteral("must be an object, not %1").arg(typeName(parameters->at(i))));
            continue;
        }
        const QJsonObject object = parameters->at(i).toObject();
        // Counted even when the rest of the parameter is wrong: its errors are reported already.
        if (object.value(QStringLiteral("role")).toString() == QLatin1String("output"))
            ++outputs;
        if (const auto parameter = readParameter(object, path, names))
            m_task.parameters.append(*parameter);
    }
    if (parameters->isEmpty())
        error(QStringLiteral("parameters"), QStringLiteral("must declare the entry's parameters"));
    else if (outputs == 0)
        error(QStringLiteral("parameters"), QStringLiteral("needs at least one output buffer"));
}

std::optional<TaskParameter> Validator::readParameter(const QJsonObject &object,
                                                      const QString &path, QSet<QString> &names)
{
    TaskParameter parameter;
    // Every part is read, whatever an earlier one found, so that all errors are reported.
    bool ok = readParameterName(object, path, names, parameter);
    const auto role = string(object, path, QStringLiteral("role"));
    ok = readParameterRole(role, path, parameter) && ok;
    ok = readParameterDtype(object, path, parameter) && ok;

    QStringList known = {QStringLiteral("name"), QStringLiteral("role"), QStringLiteral("dtype")};
    if (role && *role == QLatin1String("scalar")) {
        known.append(QStringLiteral("value"));
        if (const auto value = expression(object.value(QStringLiteral("value")),
                                          join(path, QStringLiteral("value"))))
            parameter.value = *value;
        else
            ok = false;
    } else if (role) {
        // An unknown role is checked as a buffer, so its other fields still get their errors.
        known.append(QStringLiteral("shape"));
        if (*role == QLatin1String("input"))
            known.append(QStringLiteral("distribution"));
        ok = readBufferShape(object, path, parameter) && ok;
        if (*role == QLatin1String("input") && object.contains(QStringLiteral("distribution")))
            ok = readInputDistribution(object, path, parameter) && ok;
    }
    unknownKeys(object, path, known);
    return ok ? std::optional<TaskParameter>(parameter) : std::nullopt;
}

bool Validator::readParameterName(const QJsonObject &object, const QString &path,
                                  QSet<QString> &names, TaskParameter &parameter)
{
    const auto name = string(object, path, QStringLiteral("name"));
    if (!name)
        return false;
    if (!TaskLoader::isIdentifier(*name) || reservedWords().contains(*name)) {
        error(join(path, QStringLiteral("name")),
              QStringLiteral("\"%1\" is not usable as a C parameter name").arg(*name));
        return false;
    }
    if (names.contains(*name)) {
        error(join(path, QStringLiteral("name")),
              QStringLiteral("duplicate parameter name \"%1\"").arg(*name));
        return false;
    }
    names.insert(*name);
    parameter.name = *name;
    return true;
}

bool Validator::readParameterRole(const std::optional<QString> &role, const QString &path,
                                  TaskParameter &parameter)
{
    if (!role)
        return false;
    if (*role == QLatin1String("input")) {
        parameter.role = TaskParameter::Role::Input;
    } else if (*role == QLatin1String("output")) {
        parameter.role = TaskParameter::Role::Output;
    } else if (*role == QLatin1String("scalar")) {
        parameter.role = TaskParameter::Role::Scalar;
    } else {
        error(join(path, QStringLiteral("role")),
              QStringLiteral("unknown role \"%1\" (expected input, output or scalar)").arg(*role));
        return false;
    }
    return true;
}

bool Validator::readParameterDtype(const QJsonObject &object, const QString &path,
                                   TaskParameter &parameter)
{
    const auto dtype = string(object, path, QStringLiteral("dtype"));
    if (!dtype)
        return false;
    if (!dtypes().contains(*dtype)) {
        error(join(path, QStringLiteral("dtype")),
              QStringLiteral("unknown dtype \"%1\" (expected %2)")
                  .arg(*dtype, dtypes().join(QStringLiteral(" or "))));
        return false;
    }
    parameter.dtype = *dtype;
    return true;
}

bool Validator::readBufferShape(const QJsonObject &object, const QString &path,
                                TaskParameter &parameter)
{
    const auto shape = array(object, path, QStringLiteral("shape"));
    if (!shape)
        return false;
    bool ok = true;
    if (shape->isEmpty()) {
        error(join(path, QStringLiteral("shape")),
              QStringLiteral("a buffer needs at least one dimension"));
        ok = false;
    }
    for (qsizetype d = 0; d < shape->size(); ++d) {
        if (const auto dimension =
                expression(shape->at(d), index(join(path, QStringLiteral("shape")), d)))
            parameter.shape.append(*dimension);
        else
            ok = false;
    }
    return ok;
}

bool Validator::readInputDistribution(const QJsonObject &object, const QString &path,
                                      TaskParameter &parameter)
{
    const auto distribution = this->object(object, path, QStringLiteral("distribution"));
    if (distribution)
        parameter.distribution =
            readDistribution(*distribution, join(path, QStringLiteral("distribution")), false);
    return parameter.distribution.has_value();
}

void Validator::readDistributions(const QJsonObject &root)
{
    const auto distributions = array(root, QString(), QStringLiteral("distributions"));
    if (!distributions)
        return;
    if (distributions->isEmpty())
        error(QStringLiteral("distributions"),
              QStringLiteral("must list at least one distribution"));
    QSet<QString> names;
    for (qsizetype i = 0; i < distributions->size(); ++i) {
        const QString path = index(QStringLiteral("distributions"), i);
        if (!distributions->at(i).isObject()) {
            error(path,
                  QStringLiteral("must be an object, not %1").arg(typeName(distributions->at(i))));
            continue;
        }
        const auto distribution = readDistribution(distributions->at(i).toObject(), path, true);
        if (!distribution)
            continue;
        if (names.contains(distribution->name)) {
            error(join(path, QStringLiteral("name")),
                  QStringLiteral("duplicate distribution \"%1\"").arg(distribution->name));
            continue;
        }
        names.insert(distribution->name);
        m_task.distributions.append(*distribution);
    }
}

std::optional<ShapeConfig> Validator::readShape(const QJsonValue &value, const QString &path)
{
    if (!value.isObject()) {
        error(path,
              QStringLiteral("a shape must be an object of sizes, not %1").arg(typeName(value)));
        return std::nullopt;
    }
    const QJsonObject object = value.toObject();
    ShapeConfig shape;
    bool ok = true;
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        const QString field = join(path, it.key());
        if (it.key() == QLatin1String("label")) {
            if (!it.value().isString() || it.value().toString().isEmpty()) {
                error(field, QStringLiteral("must be a non-empty string"));
                ok = false;
            } else {
                shape.label = it.value().toString();
            }
            continue;
        }
        if (!m_task.sizes.contains(it.key())) {
            error(field, QStringLiteral("\"%1\" is not a declared size").arg(it.key()));
            ok = false;
            continue;
        }
        const double number = it.value().toDouble(-1.0);
        if (!it.value().isDouble() || number != std::floor(number) || number < 1 ||
            number > INT_MAX) {
            error(field, QStringLiteral("must be a positive integer that fits an int"));
            ok = false;
            continue;
        }
        shape.sizes.insert(it.key(), qint64(number));
    }
    for (const QString &size : std::as_const(m_task.sizes)) {
        if (!object.contains(size)) {
            error(path, QStringLiteral("size \"%1\" is missing").arg(size));
            ok = false;
        }
    }
    return ok ? std::optional<ShapeConfig>(shape) : std::nullopt;
}

void Validator::readShapes(const QJsonObject &root)
{
    const auto shapes = object(root, QString(), QStringLiteral("shapes"));
    if (!shapes)
        return;
    unknownKeys(*shapes, QStringLiteral("shapes"),
                {QStringLiteral("correctness"), QStringLiteral("timing")});
    if (const auto correctness =
            array(*shapes, QStringLiteral("shapes"), QStringLiteral("correctness"))) {
        if (correctness->size() < TaskLoader::kMinCorrectnessShapes)
            error(QStringLiteral("shapes.correctness"),
                  QStringLiteral("needs at least %1 shapes (edge cases and non-tile multiples), "
                                 "has %2")
                      .arg(TaskLoader::kMinCorrectnessShapes)
                      .arg(correctness->size()));
        for (qsizetype i = 0; i < correctness->size(); ++i) {
            const QString path = index(QStringLiteral("shapes.correctness"), i);
            const auto shape = readShape(correctness->at(i), path);
            if (!shape)
                continue;
            bool duplicate = false;
            for (const ShapeConfig &earlier : std::as_const(m_task.correctnessShapes))
                duplicate = duplicate || earlier.sizes == shape->sizes;
            if (duplicate)
                error(path, QStringLiteral("duplicate shape"));
            else
                m_task.correctnessShapes.append(*shape);
        }
    }
    if (const auto timing = object(*shapes, QStringLiteral("shapes"), QStringLiteral("timing"))) {
        for (auto it = timing->constBegin(); it != timing->constEnd(); ++it) {
            const QString path = join(QStringLiteral("shapes.timing"), it.key());
            const auto backend = backendKey(it.key(), path);
            if (!backend)
                continue;
            if (const auto shape = readShape(it.value(), path))
                m_timingShapes.insert(*backend, *shape);
        }
    }
}

void Validator::readTolerances(const QJsonObject &root)
{
    const auto tolerance = object(root, QString(), QStringLiteral("tolerance"));
    if (!tolerance)
        return;
    for (auto it = tolerance->constBegin(); it != tolerance->constEnd(); ++it) {
        const QString path = join(QStringLiteral("tolerance"), it.key());
        if (!dtypes().contains(it.key())) {
            error(path, QStringLiteral("unknown dtype \"%1\"").arg(it.key()));
            continue;
        }
        if (!it.value().isObject()) {
            error(path, QStringLiteral("must be an object with abs, rel and scaled"));
            continue;
        }
        const QJsonObject object = it.value().toObject();
        unknownKeys(object, path,
                    {QStringLiteral("abs"), QStringLiteral("rel"), QStringLiteral("scaled")});
        Tolerance value;
        bool ok = true;
        const auto check = [&](const QString &key, bool required, double &target) {
            const auto number = this->number(object, path, key, required);
            if (!number) {
                ok = ok && !required && !object.contains(key);
                return;
            }
            if (!(*number >= 0) || !std::isfinite(*number)) {
                error(join(path, key), QStringLiteral("must be a finite non-negative number"));
                ok = false;
                return;
            }
            target = *number;
        };
        check(QStringLiteral("abs"), true, value.abs);
        check(QStringLiteral("rel"), true, value.rel);
        check(QStringLiteral("scaled"), false, value.scaled);
        if (ok)
            m_task.tolerances.insert(it.key(), value);
    }
    for (const TaskParameter &parameter : std::as_const(m_task.parameters)) {
        if (parameter.role == TaskParameter::Role::Output && !tolerance->contains(parameter.dtype))
            error(QStringLiteral("tolerance"),
                  QStringLiteral("no tolerance for dtype \"%1\" of output \"%2\"")
                      .arg(parameter.dtype, parameter.name));
    }
}

void Validator::readRoofline(const QJsonObject &root)
{
    const auto roofline = object(root, QString(), QStringLiteral("roofline"));
    if (!roofline)
        return;
    unknownKeys(*roofline, QStringLiteral("roofline"),
                {QStringLiteral("bytes"), QStringLiteral("flops")});
    if (const auto bytes =
            expression(roofline->value(QStringLiteral("bytes")), QStringLiteral("roofline.bytes")))
        m_task.rooflineBytes = *bytes;
    if (const auto flops =
            expression(roofline->value(QStringLiteral("flops")), QStringLiteral("roofline.flops")))
        m_task.rooflineFlops = *flops;
}

void Validator::readLibraries(const QJsonObject &root)
{
    const auto libraries = object(root, QString(), QStringLiteral("libraries"));
    if (!libraries)
        return;
    unknownKeys(*libraries, QStringLiteral("libraries"),
                {QStringLiteral("allowed"), QStringLiteral("forbidden")});
    if (const auto forbidden = libraries->value(QStringLiteral("forbidden"));
        !forbidden.isUndefined()) {
        if (const auto names = libraryList(forbidden, QStringLiteral("libraries.forbidden")))
            m_task.forbiddenLibraries = *names;
    } else {
        error(QStringLiteral("libraries.forbidden"), QStringLiteral("required field is missing"));
    }
    const auto allowed = object(*libraries, QStringLiteral("libraries"), QStringLiteral("allowed"));
    if (!allowed)
        return;
    for (auto it = allowed->constBegin(); it != allowed->constEnd(); ++it) {
        const QString path = join(QStringLiteral("libraries.allowed"), it.key());
        const auto backend = backendKey(it.key(), path);
        if (!backend)
            continue;
        const auto names = libraryList(it.value(), path);
        if (!names)
            continue;
        for (const QString &name : *names) {
            if (m_task.forbiddenLibraries.contains(name))
                error(path, QStringLiteral("\"%1\" is both allowed and forbidden").arg(name));
        }
        m_task.allowedLibraries.insert(*backend, *names);
    }
}

void Validator::readReferences(const QJsonObject &root)
{
    const auto reference = object(root, QString(), QStringLiteral("reference"));
    if (!reference)
        return;
    if (reference->isEmpty())
        error(QStringLiteral("reference"),
              QStringLiteral("needs a reference for at least one backend"));
    for (auto it = reference->constBegin(); it != reference->constEnd(); ++it) {
        const QString path = join(QStringLiteral("reference"), it.key());
        const auto backend = backendKey(it.key(), path);
        if (!backend)
            continue;
        if (const auto source = sourceFile(it.value(), path, *backend))
            m_task.referenceSource.insert(*backend, *source);
        if (!m_timingShapes.contains(*backend))
            error(QStringLiteral("shapes.timing"),
                  QStringLiteral("no timing shape for backend \"%1\"").arg(it.key()));
    }
    for (auto it = m_timingShapes.constBegin(); it != m_timingShapes.constEnd(); ++it) {
        if (!reference->contains(backendName(it.key())))
            error(join(QStringLiteral("shapes.timing"), backendName(it.key())),
                  QStringLiteral("timing shape for a backend without a reference"));
    }
    m_task.timingShapes = m_timingShapes;
}

void Validator::readLibraryBaselines(const QJsonObject &root)
{
    const auto baselines = object(root, QString(), QStringLiteral("library_baseline"), false);
    if (!baselines)
        return;
    for (auto it = baselines->constBegin(); it != baselines->constEnd(); ++it) {
        const QString path = join(QStringLiteral("library_baseline"), it.key());
        const auto backend = backendKey(it.key(), path);
        if (!backend)
            continue;
        if (!root.value(QStringLiteral("reference")).toObject().contains(it.key()))
            error(path,
                  QStringLiteral("a library baseline needs a reference for the same backend"));
        if (!it.value().isObject()) {
            error(path, QStringLiteral("must be an object with source and libraries"));
            continue;
        }
        const QJsonObject object = it.value().toObject();
        unknownKeys(object, path, {QStringLiteral("source"), QStringLiteral("libraries")});
        const auto source = sourceFile(object.value(QStringLiteral("source")),
                                       join(path, QStringLiteral("source")), *backend);
        std::optional<QStringList> libraries;
        if (object.contains(QStringLiteral("libraries")))
            libraries = libraryList(object.value(QStringLiteral("libraries")),
                                    join(path, QStringLiteral("libraries")));
        else
            error(join(path, QStringLiteral("libraries")),
                  QStringLiteral("required field is missing"));
        if (source && libraries) {
            m_task.libraryBaselineSource.insert(*backend, *source);
            m_task.libraryBaselineLibraries.insert(*backend, *libraries);
        }
    }
}

// Everything parsed; now every expression must evaluate sensibly on every shape.
void Validator::checkShapesAgainstParameters()
{
    QList<QPair<QString, ShapeConfig>> shapes;
    for (qsizetype i = 0; i < m_task.correctnessShapes.size(); ++i)
        shapes.append(
            {index(QStringLiteral("shapes.correctness"), i), m_task.correctnessShapes[i]});
    for (auto it = m_task.timingShapes.constBegin(); it != m_task.timingShapes.constEnd(); ++it)
        shapes.append({join(QStringLiteral("shapes.timing"), backendName(it.key())), it.value()});
    for (const auto &[shapePath, shape] : std::as_const(shapes)) {
        for (qsizetype p = 0; p < m_task.parameters.size(); ++p) {
            const TaskParameter &parameter = m_task.parameters[p];
            const QString path = index(QStringLiteral("parameters"), p);
            if (parameter.isBuffer()) {
                const qint64 count = m_task.elementCount(parameter, shape);
                if (count < 1)
                    error(path, QStringLiteral("shape does not give a positive whole element "
                                               "count for %1")
                                    .arg(shapePath));
                continue;
            }
            const double value = m_task.scalarValue(parameter, shape);
            if (!std::isfinite(value))
                error(join(path, QStringLiteral("value")),
                      QStringLiteral("does not evaluate for %1").arg(shapePath));
            else if (parameter.dtype == QLatin1String("i32") &&
                     (value != std::floor(value) || value < INT_MIN || value > INT_MAX))
                error(join(path, QStringLiteral("value")),
                      QStringLiteral("is not a 32-bit integer for %1").arg(shapePath));
        }
        const double bytes = m_task.bytesMoved(shape);
        const double flops = m_task.flops(shape);
        if (!std::isfinite(bytes) || bytes <= 0)
            error(QStringLiteral("roofline.bytes"),
                  QStringLiteral("must be positive for %1").arg(shapePath));
        if (!std::isfinite(flops) || flops < 0)
            error(QStringLiteral("roofline.flops"),
                  QStringLiteral("must be non-negative for %1").arg(shapePath));
    }
}

} // namespace

QStringList TaskLoader::Result::errorStrings() const
{
    QStringList strings;
    for (const TaskLoadError &error : errors)
        strings.append(error.toString());
    return strings;
}

TaskLoader::Result TaskLoader::load(const QString &directory)
{
    const QString path = QDir::cleanPath(directory);
    QFile file(path + QLatin1Char('/') + kTaskFile);
    if (!file.open(QIODevice::ReadOnly)) {
        const QString reason = file.exists()
                                   ? QStringLiteral("cannot read: %1").arg(file.errorString())
                                   : QStringLiteral("file not found");
        return {std::nullopt, {TaskLoadError{file.fileName(), QStringLiteral("(file)"), reason}}};
    }
    return loadJson(file.readAll(), path);
}

TaskLoader::Result TaskLoader::loadJson(const QByteArray &json, const QString &directory)
{
    // A KernelBench problem has a format of its own; everything else is a Kiln task.
    const QJsonObject root = QJsonDocument::fromJson(json).object();
    if (root.value(QStringLiteral("format")).toString() == QLatin1String("kernelbench"))
        return KernelBenchTaskLoader::load(root, QDir::cleanPath(directory));
    Validator validator(QDir::cleanPath(directory));
    return validator.run(json);
}

bool TaskLoader::definesEntry(const QString &source, const QString &entry)
{
    // Comments could hide or fake a definition; strip them (string literals are not a concern
    // for reference sources).
    static const QRegularExpression comments(QStringLiteral(R"(//[^\n]*|/\*.*?\*/)"),
                                             QRegularExpression::DotMatchesEverythingOption);
    QString code = source;
    code.replace(comments, QStringLiteral(" "));
    const QString name = QRegularExpression::escape(entry);
    const QRegularExpression single(
        QStringLiteral(R"(extern\s*"C"\s+[^;{}]*?\b%1\s*\()").arg(name));
    if (single.match(code).hasMatch())
        return true;
    const QRegularExpression block(QStringLiteral(R"(extern\s*"C"\s*\{[^}]*\b%1\s*\()").arg(name));
    return block.match(code).hasMatch();
}

bool TaskLoader::isIdentifier(const QString &name)
{
    static const QRegularExpression identifier(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    return identifier.match(name).hasMatch();
}

} // namespace kiln
