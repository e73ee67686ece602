#include "tasks/tasklibrary.h"
#include "tasks/taskloader.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;

class TstTaskLoader : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void validTaskLoads();
    void malformed_data();
    void malformed();
    void reportsEveryErrorAtOnce();
    void entryDetection_data();
    void entryDetection();
    void shippedTasksLoadClean_data();
    void shippedTasksLoadClean();
    void signaturesMatchVerifierContract();
    void summaryJsonMatchesCliContract();
    void shapeArithmetic();
    void libraryEmbedsCoreTasks();
    void libraryOverridesAndKeepsGoodTasks();
    void libraryReportsMissingDirectory();
};

namespace {

const char *const kBaseTask = R"({
    "schema": 1,
    "name": "mytask",
    "title": "Scaled layer",
    "description": "A test task: y = x * gamma per column, with a few scalars to cover every role.",
    "entry": "mytask",
    "sizes": ["rows", "cols"],
    "parameters": [
        {"name": "x", "role": "input", "dtype": "f32", "shape": ["rows", "cols"]},
        {"name": "gamma", "role": "input", "dtype": "f32", "shape": ["cols"],
         "distribution": {"kind": "uniform", "low": 0.5, "high": 1.5}},
        {"name": "y", "role": "output", "dtype": "f32", "shape": ["rows", "cols"]},
        {"name": "rows", "role": "scalar", "dtype": "i32", "value": "rows"},
        {"name": "cols", "role": "scalar", "dtype": "i32", "value": "cols"},
        {"name": "eps", "role": "scalar", "dtype": "f32", "value": "1e-5"}
    ],
    "shapes": {
        "correctness": [
            {"rows": 1, "cols": 1},
            {"rows": 1, "cols": 17, "label": "one row"},
            {"rows": 7, "cols": 1000},
            {"rows": 33, "cols": 65}
        ],
        "timing": {"cpu": {"rows": 64, "cols": 128}, "cuda": {"rows": 4096, "cols": 4096}}
    },
    "distributions": [
        {"name": "normal", "kind": "normal", "mean": 0, "std": 1},
        {"name": "uniform", "kind": "uniform", "low": -1, "high": 1},
        {"name": "heavy", "kind": "student_t", "dof": 2, "scale": 1},
        {"name": "offset", "kind": "normal", "mean": 0, "std": 1, "offset": 50}
    ],
    "tolerance": {"f32": {"abs": 1e-6, "rel": 1e-5, "scaled": 0}},
    "roofline": {"bytes": "8 * rows * cols + 4 * cols", "flops": "rows * cols"},
    "libraries": {
        "allowed": {"cpu": ["openmp"], "cuda": []},
        "forbidden": ["cublas", "blas"]
    },
    "reference": {"cpu": "reference.cpp", "cuda": "reference.cu"},
    "library_baseline": {"cuda": {"source": "baseline.cu", "libraries": ["cublas"]}}
})";

const char *const kCpuSource = "// reference\nextern \"C\" void mytask(const float *x, const float "
                               "*gamma, float *y, int rows, int cols, float eps) {}\n";
const char *const kCudaSource = "#include <cuda_runtime.h>\nextern \"C\" void mytask(const float "
                                "*x, const float *gamma, float *y, int rows, int cols, float eps, "
                                "cudaStream_t stream) {}\n";

const QStringList kCoreTasks = {QStringLiteral("layernorm"),  QStringLiteral("matmul"),
                                QStringLiteral("reduce_sum"), QStringLiteral("softmax"),
                                QStringLiteral("transpose"),  QStringLiteral("vector_add")};

bool writeFile(const QString &path, const QByteArray &contents)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
           file.write(contents) == contents.size();
}

// "a.b[2].c" -> {"a", "b", 2, "c"}.
QVariantList splitPath(const QString &path)
{
    QVariantList segments;
    static const QRegularExpression token(QStringLiteral(R"(([^.\[\]]+)|\[(\d+)\])"));
    auto it = token.globalMatch(path);
    while (it.hasNext()) {
        const auto match = it.next();
        if (match.captured(2).isEmpty())
            segments.append(match.captured(1));
        else
            segments.append(match.captured(2).toInt());
    }
    return segments;
}

// Sets (or, with `remove`, deletes) the value at `segments` inside `value`.
QJsonValue edit(const QJsonValue &value, QVariantList segments, const QJsonValue &replacement,
                bool remove)
{
    const QVariant head = segments.takeFirst();
    if (head.typeId() == QMetaType::Int) {
        QJsonArray array = value.toArray();
        const int index = head.toInt();
        if (segments.isEmpty()) {
            if (remove)
                array.removeAt(index);
            else
                array[index] = replacement;
        } else {
            array[index] = edit(array.at(index), segments, replacement, remove);
        }
        return array;
    }
    QJsonObject object = value.toObject();
    const QString key = head.toString();
    if (segments.isEmpty()) {
        if (remove)
            object.remove(key);
        else
            object.insert(key, replacement);
    } else {
        object.insert(key, edit(object.value(key), segments, replacement, remove));
    }
    return object;
}

// Writes the base task, with edits, into `root`/`folder`; returns the folder path.
// Each edit is "path=<json>" or "path=-" (delete); file edits are "name=<text>" or "name=-".
QString writeTask(const QString &root, const QString &folder, const QStringList &edits,
                  const QStringList &fileEdits = {}, const QByteArray &rawJson = {})
{
    const QString directory = root + QLatin1Char('/') + folder;
    QDir().mkpath(directory);
    QJsonValue document = QJsonDocument::fromJson(kBaseTask).object();
    for (const QString &change : edits) {
        const qsizetype equals = change.indexOf(QLatin1Char('='));
        const QString path = change.left(equals);
        const QString text = change.mid(equals + 1);
        if (text == QLatin1String("-")) {
            document = edit(document, splitPath(path), QJsonValue(), true);
        } else {
            const QJsonDocument wrapped =
                QJsonDocument::fromJson(QByteArray("[") + text.toUtf8() + QByteArray("]"));
            Q_ASSERT_X(wrapped.isArray(), "writeTask", qPrintable(text));
            document = edit(document, splitPath(path), wrapped.array().at(0), false);
        }
    }
    writeFile(directory + QStringLiteral("/task.json"),
              rawJson.isEmpty() ? QJsonDocument(document.toObject()).toJson() : rawJson);
    writeFile(directory + QStringLiteral("/reference.cpp"), kCpuSource);
    writeFile(directory + QStringLiteral("/reference.cu"), kCudaSource);
    writeFile(directory + QStringLiteral("/baseline.cu"), kCudaSource);
    for (const QString &change : fileEdits) {
        const qsizetype equals = change.indexOf(QLatin1Char('='));
        const QString name = directory + QLatin1Char('/') + change.left(equals);
        const QString text = change.mid(equals + 1);
        if (text == QLatin1String("-"))
            QFile::remove(name);
        else
            writeFile(name, text.toUtf8());
    }
    return directory;
}

QString readText(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

QString sourceTasksDirectory()
{
    return QStringLiteral(KILN_SOURCE_DIR "/tasks");
}

} // namespace

void TstTaskLoader::initTestCase()
{
    // Keeps the per-user tasks folder away from the real home directory.
    QStandardPaths::setTestModeEnabled(true);
    QDir(TaskLibrary::userTasksDirectory()).removeRecursively();
}

void TstTaskLoader::validTaskLoads()
{
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const auto result = TaskLoader::load(writeTask(root.path(), QStringLiteral("mytask"), {}));
    QVERIFY2(result.ok(), qPrintable(result.errorStrings().join(QLatin1Char('\n'))));
    const Task &task = *result.task;
    QCOMPARE(task.name, QStringLiteral("mytask"));
    QCOMPARE(task.sizes, (QStringList{QStringLiteral("rows"), QStringLiteral("cols")}));
    QCOMPARE(task.parameters.size(), 6);
    QCOMPARE(task.parameters[2].role, TaskParameter::Role::Output);
    QVERIFY(task.parameters[1].distribution.has_value());
    QCOMPARE(task.parameters[1].distribution->kind, ValueDistribution::Kind::Uniform);
    QCOMPARE(task.parameters[1].distribution->a, 0.5);
    QVERIFY(!task.parameters[0].distribution.has_value());
    QCOMPARE(task.correctnessShapes.size(), 4);
    QCOMPARE(task.correctnessShapes[1].label, QStringLiteral("one row"));
    QCOMPARE(task.shapeLabel(task.correctnessShapes[2]), QStringLiteral("rows=7,cols=1000"));
    QCOMPARE(task.timingShapes.value(Backend::Cuda).sizes.value(QStringLiteral("rows")), 4096);
    QCOMPARE(task.distributions.size(), 4);
    QCOMPARE(task.distributions[2].kind, ValueDistribution::Kind::StudentT);
    QCOMPARE(task.distributions[3].offset, 50.0);
    QCOMPARE(task.tolerance(QStringLiteral("f32")).rel, 1e-5);
    QCOMPARE(task.allowedLibraries.value(Backend::Cpu), QStringList{QStringLiteral("openmp")});
    QCOMPARE(task.forbiddenLibraries,
             (QStringList{QStringLiteral("cublas"), QStringLiteral("blas")}));
    QCOMPARE(task.referenceSource.value(Backend::Cpu), QString::fromUtf8(kCpuSource));
    QCOMPARE(task.libraryBaselineSource.value(Backend::Cuda), QString::fromUtf8(kCudaSource));
    QCOMPARE(task.libraryBaselineLibraries.value(Backend::Cuda),
             QStringList{QStringLiteral("cublas")});
    QCOMPARE(task.backends(), (QList<Backend>{Backend::Cpu, Backend::Cuda}));
    QCOMPARE(task.signature(Backend::Cpu),
             QStringLiteral("void mytask(const float* x, const float* gamma, float* y, int rows, "
                            "int cols, float eps)"));
}

void TstTaskLoader::malformed_data()
{
    QTest::addColumn<QStringList>("edits");
    QTest::addColumn<QStringList>("fileEdits");
    QTest::addColumn<QByteArray>("rawJson");
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("reason");

    const QStringList none;
    const QString json = QStringLiteral("task.json");
    auto row = [&](const char *name, const QStringList &edits, const QString &field,
                   const QString &reason, const QStringList &fileEdits = {},
                   const QString &file = QStringLiteral("task.json")) {
        QTest::newRow(name) << edits << fileEdits << QByteArray() << QStringLiteral("mytask")
                            << file << field << reason;
    };
    auto s = [](const char *text) { return QString::fromUtf8(text); };

    // File level.
    QTest::newRow("json syntax error")
        << none << none << QByteArray("{\n  \"schema\": 1,\n  oops\n}") << s("mytask") << json
        << s("(json)") << s("syntax error at line 3");
    QTest::newRow("json root is array") << none << none << QByteArray("[1, 2]") << s("mytask")
                                        << json << s("(root)") << s("must be a JSON object");
    row("task.json missing", none, s("(file)"), s("file not found"), {s("task.json=-")});
    row("unknown top-level field", {s("tolerence={}")}, s("tolerence"), s("unknown field"));

    // Header.
    row("schema missing", {s("schema=-")}, s("schema"), s("required field is missing"));
    row("schema newer", {s("schema=2")}, s("schema"), s("unsupported schema version"));
    row("schema wrong type", {s("schema=\"1\"")}, s("schema"), s("unsupported schema version"));
    row("name missing", {s("name=-")}, s("name"), s("required field is missing"));
    row("name wrong type", {s("name=3")}, s("name"), s("must be a string, not a number"));
    row("name not identifier", {s("name=\"my-task\"")}, s("name"), s("not a C identifier"));
    QTest::newRow("name differs from folder")
        << none << none << QByteArray() << s("othertask") << json << s("name")
        << s("must equal the folder name \"othertask\"");
    row("entry missing", {s("entry=-")}, s("entry"), s("required field is missing"));
    row("entry differs from name", {s("entry=\"mytask2\"")}, s("entry"),
        s("must equal the task name"));
    row("entry not identifier", {s("entry=\"my task\"")}, s("entry"), s("not a C identifier"));
    row("title missing", {s("title=-")}, s("title"), s("required field is missing"));
    row("title empty", {s("title=\"  \"")}, s("title"), s("must not be empty"));
    row("title multi-line", {s("title=\"a\\nb\"")}, s("title"), s("one line"));
    row("description too short", {s("description=\"adds\"")}, s("description"), s("at least 40"));
    row("description wrong type", {s("description=[]")}, s("description"),
        s("must be a string, not an array"));

    // Sizes.
    row("sizes missing", {s("sizes=-")}, s("sizes"), s("required field is missing"));
    row("sizes not array", {s("sizes=\"rows\"")}, s("sizes"), s("must be an array"));
    row("sizes empty", {s("sizes=[]")}, s("sizes"), s("at least one size"));
    row("size duplicate", {s("sizes=[\"rows\",\"cols\",\"rows\"]")}, s("sizes[2]"),
        s("duplicate size"));
    row("size not identifier", {s("sizes[1]=\"2cols\"")}, s("sizes[1]"), s("C identifier"));
    row("size not string", {s("sizes[1]=7")}, s("sizes[1]"), s("C identifier"));
    row("size named label", {s("sizes[1]=\"label\"")}, s("sizes[1]"), s("reserved"));

    // Parameters.
    row("parameters missing", {s("parameters=-")}, s("parameters"), s("required field is missing"));
    row("parameters not array", {s("parameters={}")}, s("parameters"), s("must be an array"));
    row("parameters empty", {s("parameters=[]")}, s("parameters"), s("entry's parameters"));
    row("parameter not object", {s("parameters[3]=\"rows\"")}, s("parameters[3]"),
        s("must be an object"));
    row("parameter name missing", {s("parameters[0].name=-")}, s("parameters[0].name"),
        s("required field is missing"));
    row("parameter name keyword", {s("parameters[0].name=\"float\"")}, s("parameters[0].name"),
        s("not usable as a C parameter name"));
    row("parameter name stream", {s("parameters[0].name=\"stream\"")}, s("parameters[0].name"),
        s("not usable"));
    row("parameter name invalid", {s("parameters[0].name=\"x y\"")}, s("parameters[0].name"),
        s("not usable"));
    row("parameter name duplicate", {s("parameters[1].name=\"x\"")}, s("parameters[1].name"),
        s("duplicate parameter name \"x\""));
    row("role missing", {s("parameters[0].role=-")}, s("parameters[0].role"),
        s("required field is missing"));
    row("role unknown", {s("parameters[2].role=\"inout\"")}, s("parameters[2].role"),
        s("unknown role \"inout\""));
    row("dtype missing", {s("parameters[0].dtype=-")}, s("parameters[0].dtype"),
        s("required field is missing"));
    row("dtype unknown", {s("parameters[0].dtype=\"f16\"")}, s("parameters[0].dtype"),
        s("unknown dtype \"f16\""));
    row("no output", {s("parameters[2].role=\"input\"")}, s("parameters"),
        s("at least one output"));
    row("buffer shape missing", {s("parameters[0].shape=-")}, s("parameters[0].shape"),
        s("required field is missing"));
    row("buffer shape not array", {s("parameters[0].shape=\"rows\"")}, s("parameters[0].shape"),
        s("must be an array"));
    row("buffer shape empty", {s("parameters[0].shape=[]")}, s("parameters[0].shape"),
        s("at least one dimension"));
    row("shape expression malformed", {s("parameters[0].shape[1]=\"cols *\"")},
        s("parameters[0].shape[1]"), s("invalid expression"));
    row("shape expression wrong type", {s("parameters[0].shape[1]=true")},
        s("parameters[0].shape[1]"), s("must be an expression string"));
    row("shape undeclared size", {s("parameters[0].shape[1]=\"depth\"")},
        s("parameters[0].shape[1]"), s("undeclared size 'depth'"));
    row("scalar value missing", {s("parameters[3].value=-")}, s("parameters[3].value"),
        s("required field is missing"));
    row("scalar value undeclared size", {s("parameters[3].value=\"n\"")}, s("parameters[3].value"),
        s("undeclared size 'n'"));
    row("scalar value malformed", {s("parameters[5].value=\"1e-\"")}, s("parameters[5].value"),
        s("invalid expression"));
    row("scalar with shape", {s("parameters[3].shape=[\"rows\"]")}, s("parameters[3].shape"),
        s("unknown field"));
    row("buffer with value", {s("parameters[0].value=\"rows\"")}, s("parameters[0].value"),
        s("unknown field"));
    row("output with distribution",
        {s("parameters[2].distribution={\"kind\":\"normal\",\"mean\":0,\"std\":1}")},
        s("parameters[2].distribution"), s("unknown field"));
    row("parameter distribution invalid", {s("parameters[1].distribution.high=0.1")},
        s("parameters[1].distribution.high"), s("greater than low"));
    row("parameter distribution not object", {s("parameters[1].distribution=3")},
        s("parameters[1].distribution"), s("must be an object"));
    row("parameter unknown field", {s("parameters[0].const=true")}, s("parameters[0].const"),
        s("unknown field"));
    row("i32 scalar not integral", {s("parameters[3].value=\"rows / 2\"")},
        s("parameters[3].value"), s("not a 32-bit integer for shapes.correctness[0]"));
    row("i32 scalar out of range", {s("parameters[3].value=\"rows * 1e10\"")},
        s("parameters[3].value"), s("not a 32-bit integer"));
    row("scalar divides by zero", {s("parameters[5].value=\"1 / (rows - 1)\"")},
        s("parameters[5].value"), s("does not evaluate for shapes.correctness[0]"));
    row("buffer with zero elements", {s("parameters[0].shape[0]=\"rows - 1\"")}, s("parameters[0]"),
        s("positive whole element count for shapes.correctness[0]"));
    row("buffer with fractional extent", {s("parameters[0].shape[0]=\"rows / 2\"")},
        s("parameters[0]"), s("positive whole element count"));

    // Shapes.
    row("shapes missing", {s("shapes=-")}, s("shapes"), s("required field is missing"));
    row("shapes unknown field", {s("shapes.tuning={}")}, s("shapes.tuning"), s("unknown field"));
    row("correctness missing", {s("shapes.correctness=-")}, s("shapes.correctness"),
        s("required field is missing"));
    row("too few correctness shapes", {s("shapes.correctness[3]=-")}, s("shapes.correctness"),
        s("at least 4 shapes"));
    row("shape not object", {s("shapes.correctness[0]=[1,1]")}, s("shapes.correctness[0]"),
        s("must be an object of sizes"));
    row("shape missing size", {s("shapes.correctness[2].cols=-")}, s("shapes.correctness[2]"),
        s("size \"cols\" is missing"));
    row("shape zero", {s("shapes.correctness[2].cols=0")}, s("shapes.correctness[2].cols"),
        s("positive integer"));
    row("shape negative", {s("shapes.correctness[2].rows=-3")}, s("shapes.correctness[2].rows"),
        s("positive integer"));
    row("shape fractional", {s("shapes.correctness[2].rows=1.5")}, s("shapes.correctness[2].rows"),
        s("positive integer"));
    row("shape beyond int", {s("shapes.correctness[2].rows=3000000000")},
        s("shapes.correctness[2].rows"), s("fits an int"));
    row("shape size as string", {s("shapes.correctness[2].rows=\"7\"")},
        s("shapes.correctness[2].rows"), s("positive integer"));
    row("shape undeclared size", {s("shapes.correctness[2].depth=3")},
        s("shapes.correctness[2].depth"), s("not a declared size"));
    row("shape label not string", {s("shapes.correctness[2].label=5")},
        s("shapes.correctness[2].label"), s("non-empty string"));
    row("duplicate correctness shape", {s("shapes.correctness[3]={\"cols\":1000,\"rows\":7}")},
        s("shapes.correctness[3]"), s("duplicate shape"));
    row("timing missing", {s("shapes.timing=-")}, s("shapes.timing"),
        s("required field is missing"));
    row("timing missing a backend", {s("shapes.timing.cuda=-")}, s("shapes.timing"),
        s("no timing shape for backend \"cuda\""));
    row("timing unknown backend", {s("shapes.timing.opencl={\"rows\":1,\"cols\":1}")},
        s("shapes.timing.opencl"), s("unknown backend \"opencl\""));
    row("timing shape invalid", {s("shapes.timing.cpu.rows=0")}, s("shapes.timing.cpu.rows"),
        s("positive integer"));
    row("timing without reference", {s("reference.cuda=-"), s("library_baseline=-")},
        s("shapes.timing.cuda"), s("backend without a reference"));

    // Distributions.
    row("distributions missing", {s("distributions=-")}, s("distributions"),
        s("required field is missing"));
    row("distributions empty", {s("distributions=[]")}, s("distributions"), s("at least one"));
    row("distribution not object", {s("distributions[0]=\"normal\"")}, s("distributions[0]"),
        s("must be an object"));
    row("distribution name missing", {s("distributions[0].name=-")}, s("distributions[0].name"),
        s("required field is missing"));
    row("distribution name invalid", {s("distributions[0].name=\"heavy tailed\"")},
        s("distributions[0].name"), s("not an identifier"));
    row("distribution duplicate name", {s("distributions[1].name=\"normal\"")},
        s("distributions[1].name"), s("duplicate distribution"));
    row("distribution kind missing", {s("distributions[0].kind=-")}, s("distributions[0].kind"),
        s("required field is missing"));
    row("distribution kind unknown", {s("distributions[0].kind=\"cauchy\"")},
        s("distributions[0].kind"), s("unknown distribution \"cauchy\""));
    row("normal std zero", {s("distributions[0].std=0")}, s("distributions[0].std"),
        s("must be positive"));
    row("normal mean missing", {s("distributions[0].mean=-")}, s("distributions[0].mean"),
        s("required field is missing"));
    row("normal with low", {s("distributions[0].low=0")}, s("distributions[0].low"),
        s("unknown field"));
    row("uniform inverted", {s("distributions[1].high=-2")}, s("distributions[1].high"),
        s("greater than low"));
    row("student_t dof zero", {s("distributions[2].dof=0")}, s("distributions[2].dof"),
        s("must be positive"));
    row("student_t scale negative", {s("distributions[2].scale=-1")}, s("distributions[2].scale"),
        s("must be positive"));
    row("offset not number", {s("distributions[3].offset=\"50\"")}, s("distributions[3].offset"),
        s("must be a number"));

    // Tolerance.
    row("tolerance missing", {s("tolerance=-")}, s("tolerance"), s("required field is missing"));
    row("tolerance not object", {s("tolerance=0.1")}, s("tolerance"), s("must be an object"));
    row("tolerance unknown dtype", {s("tolerance.f16={\"abs\":0,\"rel\":0}")}, s("tolerance.f16"),
        s("unknown dtype"));
    row("tolerance entry not object", {s("tolerance.f32=1e-5")}, s("tolerance.f32"),
        s("abs, rel and scaled"));
    row("tolerance for output dtype missing", {s("tolerance={}")}, s("tolerance"),
        s("no tolerance for dtype \"f32\" of output \"y\""));
    row("tolerance abs missing", {s("tolerance.f32.abs=-")}, s("tolerance.f32.abs"),
        s("required field is missing"));
    row("tolerance rel negative", {s("tolerance.f32.rel=-1e-5")}, s("tolerance.f32.rel"),
        s("non-negative"));
    row("tolerance scaled wrong type", {s("tolerance.f32.scaled=\"1e-5\"")},
        s("tolerance.f32.scaled"), s("must be a number"));
    row("tolerance unknown field", {s("tolerance.f32.ulp=4")}, s("tolerance.f32.ulp"),
        s("unknown field"));

    // Roofline.
    row("roofline missing", {s("roofline=-")}, s("roofline"), s("required field is missing"));
    row("roofline bytes missing", {s("roofline.bytes=-")}, s("roofline.bytes"),
        s("required field is missing"));
    row("roofline flops malformed", {s("roofline.flops=\"rows * (cols\"")}, s("roofline.flops"),
        s("invalid expression"));
    row("roofline undeclared size", {s("roofline.flops=\"2 * K\"")}, s("roofline.flops"),
        s("undeclared size 'K'"));
    row("roofline bytes not positive", {s("roofline.bytes=\"0 - rows\"")}, s("roofline.bytes"),
        s("must be positive"));
    row("roofline unknown field", {s("roofline.intensity=\"1\"")}, s("roofline.intensity"),
        s("unknown field"));

    // Libraries.
    row("libraries missing", {s("libraries=-")}, s("libraries"), s("required field is missing"));
    row("forbidden missing", {s("libraries.forbidden=-")}, s("libraries.forbidden"),
        s("required field is missing"));
    row("forbidden not array", {s("libraries.forbidden=\"cublas\"")}, s("libraries.forbidden"),
        s("must be an array"));
    row("library name invalid", {s("libraries.forbidden[0]=\"cuBLAS\"")},
        s("libraries.forbidden[0]"), s("lowercase identifier"));
    row("library duplicate", {s("libraries.forbidden[1]=\"cublas\"")}, s("libraries.forbidden[1]"),
        s("duplicate library"));
    row("allowed missing", {s("libraries.allowed=-")}, s("libraries.allowed"),
        s("required field is missing"));
    row("allowed unknown backend", {s("libraries.allowed.rocm=[]")}, s("libraries.allowed.rocm"),
        s("unknown backend"));
    row("allowed and forbidden", {s("libraries.allowed.cpu=[\"blas\"]")},
        s("libraries.allowed.cpu"), s("both allowed and forbidden"));
    row("libraries unknown field", {s("libraries.preferred=[]")}, s("libraries.preferred"),
        s("unknown field"));

    // Reference sources.
    row("reference missing", {s("reference=-")}, s("reference"), s("required field is missing"));
    row("reference empty", {s("reference={}"), s("shapes.timing={}"), s("library_baseline=-")},
        s("reference"), s("at least one backend"));
    row("reference unknown backend", {s("reference.metal=\"reference.metal\"")},
        s("reference.metal"), s("unknown backend"));
    row("reference not string", {s("reference.cpu=1")}, s("reference.cpu"),
        s("must be a file name"));
    row("reference file missing", none, s("reference.cpu"), s("\"reference.cpp\" not found"),
        {s("reference.cpp=-")});
    row("reference wrong extension", {s("reference.cpu=\"reference.c\"")}, s("reference.cpu"),
        s("must end in .cpp"));
    row("cuda reference wrong extension", {s("reference.cuda=\"reference.cpp\"")},
        s("reference.cuda"), s("must end in .cu"));
    row("reference escapes folder", {s("reference.cpu=\"../other/reference.cpp\"")},
        s("reference.cpu"), s("relative path inside the task folder"));
    row("reference absolute", {s("reference.cpu=\"/etc/reference.cpp\"")}, s("reference.cpu"),
        s("relative path inside the task folder"));
    row("reference empty file", none, s("reference.cpu"), s("the file is empty"),
        {s("reference.cpp= \n")}, s("reference.cpp"));
    row("reference lacks entry", none, s("reference.cpu"), s("does not define the entry"),
        {s("reference.cpp=void mytask(float *y) {}\n")}, s("reference.cpp"));
    row("reference entry only in comment", none, s("reference.cuda"),
        s("does not define the entry"),
        {s("reference.cu=// extern \"C\" void mytask(\n/* extern \"C\" void mytask( */ void "
           "other() {}\n")},
        s("reference.cu"));
    row("reference defines other entry", none, s("reference.cpu"), s("does not define the entry"),
        {s("reference.cpp=extern \"C\" void mytask2(float *y) {}\n")}, s("reference.cpp"));

    // Library baseline.
    row("baseline not object", {s("library_baseline=[]")}, s("library_baseline"),
        s("must be an object"));
    row("baseline unknown backend", {s("library_baseline.gpu={}")}, s("library_baseline.gpu"),
        s("unknown backend"));
    row("baseline entry not object", {s("library_baseline.cuda=\"baseline.cu\"")},
        s("library_baseline.cuda"), s("source and libraries"));
    row("baseline source missing", {s("library_baseline.cuda.source=-")},
        s("library_baseline.cuda.source"), s("must be a file name"));
    row("baseline file missing", none, s("library_baseline.cuda.source"),
        s("\"baseline.cu\" not found"), {s("baseline.cu=-")});
    row("baseline lacks entry", none, s("library_baseline.cuda.source"),
        s("does not define the entry"), {s("baseline.cu=int x;\n")}, s("baseline.cu"));
    row("baseline libraries missing", {s("library_baseline.cuda.libraries=-")},
        s("library_baseline.cuda.libraries"), s("required field is missing"));
    row("baseline libraries invalid", {s("library_baseline.cuda.libraries=[\"\"]")},
        s("library_baseline.cuda.libraries[0]"), s("lowercase identifier"));
    row("baseline unknown field", {s("library_baseline.cuda.flags=\"-O3\"")},
        s("library_baseline.cuda.flags"), s("unknown field"));
    row("baseline without reference", {s("reference.cuda=-"), s("shapes.timing.cuda=-")},
        s("library_baseline.cuda"), s("needs a reference for the same backend"));
}

void TstTaskLoader::malformed()
{
    QFETCH(QStringList, edits);
    QFETCH(QStringList, fileEdits);
    QFETCH(QByteArray, rawJson);
    QFETCH(QString, folder);
    QFETCH(QString, file);
    QFETCH(QString, field);
    QFETCH(QString, reason);

    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString directory = writeTask(root.path(), folder, edits, fileEdits, rawJson);
    const auto result = TaskLoader::load(directory);
    QVERIFY2(!result.ok(), "a malformed task loaded");
    QVERIFY(!result.errors.isEmpty());
    const QString expectedFile = directory + QLatin1Char('/') + file;
    bool found = false;
    for (const TaskLoadError &error : result.errors)
        found = found || (error.file == expectedFile && error.field == field &&
                          error.reason.contains(reason));
    QVERIFY2(found, qPrintable(QStringLiteral("expected %1: %2: ...%3...\ngot:\n%4")
                                   .arg(expectedFile, field, reason,
                                        result.errorStrings().join(QLatin1Char('\n')))));
    // The one-line form is "file: field: reason".
    const TaskLoadError &first = result.errors.first();
    QCOMPARE(first.toString(),
             first.file + QStringLiteral(": ") + first.field + QStringLiteral(": ") + first.reason);
}

void TstTaskLoader::reportsEveryErrorAtOnce()
{
    QTemporaryDir root;
    const QString directory =
        writeTask(root.path(), QStringLiteral("mytask"),
                  {QStringLiteral("parameters[0].dtype=\"f64\""),
                   QStringLiteral("shapes.correctness[0].rows=0"),
                   QStringLiteral("tolerance.f32.abs=-1"), QStringLiteral("roofline.flops=\"Q\"")});
    const auto result = TaskLoader::load(directory);
    QVERIFY(!result.ok());
    QStringList fields;
    for (const TaskLoadError &error : result.errors)
        fields.append(error.field);
    QVERIFY2(fields.contains(QStringLiteral("parameters[0].dtype")),
             qPrintable(fields.join(QLatin1Char(' '))));
    QVERIFY(fields.contains(QStringLiteral("shapes.correctness[0].rows")));
    QVERIFY(fields.contains(QStringLiteral("tolerance.f32.abs")));
    QVERIFY(fields.contains(QStringLiteral("roofline.flops")));
}

void TstTaskLoader::entryDetection_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<bool>("defines");
    QTest::newRow("plain") << QStringLiteral("extern \"C\" void f(int n) {}") << true;
    QTest::newRow("newlines") << QStringLiteral("extern \"C\"\nvoid\nf (int n) {}") << true;
    QTest::newRow("block") << QStringLiteral("extern \"C\" {\nvoid f(int n) {}\n}") << true;
    QTest::newRow("attribute")
        << QStringLiteral("extern \"C\" __attribute__((visibility(\"default\"))) void f(int n);")
        << true;
    QTest::newRow("not extern C") << QStringLiteral("void f(int n) {}") << false;
    QTest::newRow("prefix name") << QStringLiteral("extern \"C\" void ff(int n) {}") << false;
    QTest::newRow("suffix name") << QStringLiteral("extern \"C\" void f2(int n) {}") << false;
    QTest::newRow("commented") << QStringLiteral("/* extern \"C\" void f(int n) {} */") << false;
}

void TstTaskLoader::entryDetection()
{
    QFETCH(QString, source);
    QFETCH(bool, defines);
    QCOMPARE(TaskLoader::definesEntry(source, QStringLiteral("f")), defines);
}

void TstTaskLoader::shippedTasksLoadClean_data()
{
    QTest::addColumn<QString>("name");
    for (const QString &name : kCoreTasks)
        QTest::newRow(qPrintable(name)) << name;
}

void TstTaskLoader::shippedTasksLoadClean()
{
    QFETCH(QString, name);
    const auto result = TaskLoader::load(sourceTasksDirectory() + QLatin1Char('/') + name);
    QVERIFY2(result.ok(), qPrintable(result.errorStrings().join(QLatin1Char('\n'))));
    const Task &task = *result.task;
    QCOMPARE(task.backends(), (QList<Backend>{Backend::Cpu, Backend::Cuda}));
    QVERIFY(task.correctnessShapes.size() >= 4);
    // An edge case (some size 1) and a shape that is no multiple of 16 in some size.
    bool hasOne = false;
    bool hasOddSize = false;
    for (const ShapeConfig &shape : task.correctnessShapes) {
        for (qint64 size : shape.sizes) {
            hasOne = hasOne || size == 1;
            hasOddSize = hasOddSize || (size > 16 && size % 16 != 0);
        }
    }
    QVERIFY(hasOne);
    QVERIFY(hasOddSize);
    QStringList kinds;
    for (const ValueDistribution &distribution : task.distributions)
        kinds.append(distribution.name);
    QCOMPARE(kinds, (QStringList{QStringLiteral("normal"), QStringLiteral("uniform"),
                                 QStringLiteral("heavy_tailed"), QStringLiteral("offset")}));
    QVERIFY(task.tolerances.contains(QStringLiteral("f32")));
    QVERIFY(task.forbiddenLibraries.contains(QStringLiteral("cublas")));
    QVERIFY(task.description.size() > 100);
    // The CUDA timing shape is far larger than the CPU one (launch overhead a few percent).
    QVERIFY(task.bytesMoved(task.timingShapes.value(Backend::Cuda)) >=
            50 * task.bytesMoved(task.timingShapes.value(Backend::Cpu)));
    QCOMPARE(task.libraryBaselineSource.contains(Backend::Cuda), name == QLatin1String("matmul"));
}

void TstTaskLoader::signaturesMatchVerifierContract()
{
    // The block of verifier.md, verbatim (whitespace of the wrapped layernorm line folded).
    const QMap<QString, QString> expected = {
        {QStringLiteral("vector_add"),
         QStringLiteral("void vector_add(const float* a, const float* b, float* c, int n)")},
        {QStringLiteral("reduce_sum"),
         QStringLiteral("void reduce_sum(const float* x, float* out, int n)")},
        {QStringLiteral("softmax"),
         QStringLiteral("void softmax(const float* x, float* y, int rows, int cols)")},
        {QStringLiteral("layernorm"),
         QStringLiteral("void layernorm(const float* x, const float* gamma, const float* beta, "
                        "float* y, int rows, int cols, float eps)")},
        {QStringLiteral("matmul"),
         QStringLiteral(
             "void matmul(const float* A, const float* B, float* C, int M, int N, int K)")},
        {QStringLiteral("transpose"),
         QStringLiteral("void transpose(const float* x, float* y, int rows, int cols)")},
    };
    // Cross-check against the design document itself when it is present.
    const QString verifierDoc = readText(QStringLiteral("/work/shared/design/verifier.md"));
    for (auto it = expected.constBegin(); it != expected.constEnd(); ++it) {
        const auto result = TaskLoader::load(sourceTasksDirectory() + QLatin1Char('/') + it.key());
        QVERIFY2(result.ok(), qPrintable(result.errorStrings().join(QLatin1Char('\n'))));
        QCOMPARE(result.task->signature(Backend::Cpu), it.value());
        QString cuda = it.value();
        cuda.chop(1);
        QCOMPARE(result.task->signature(Backend::Cuda),
                 cuda + QStringLiteral(", cudaStream_t stream)"));
        if (!verifierDoc.isEmpty()) {
            QString folded = verifierDoc;
            folded.replace(QRegularExpression(QStringLiteral(",\\s*\\n\\s*")),
                           QStringLiteral(", "));
            QVERIFY2(folded.contains(it.value()), qPrintable(it.value()));
        }
    }
}

void TstTaskLoader::summaryJsonMatchesCliContract()
{
    const auto result = TaskLoader::load(sourceTasksDirectory() + QStringLiteral("/softmax"));
    QVERIFY(result.ok());
    const QJsonObject summary = result.task->summaryJson();
    QCOMPARE(summary.keys(), (QStringList{QStringLiteral("backends"), QStringLiteral("name"),
                                          QStringLiteral("shapes"), QStringLiteral("signature"),
                                          QStringLiteral("title")}));
    QCOMPARE(summary.value(QStringLiteral("name")).toString(), QStringLiteral("softmax"));
    QCOMPARE(summary.value(QStringLiteral("title")).toString(), result.task->title);
    QCOMPARE(summary.value(QStringLiteral("backends")).toArray(),
             (QJsonArray{QStringLiteral("cpu"), QStringLiteral("cuda")}));
    QCOMPARE(
        summary.value(QStringLiteral("signature"))
            .toObject()
            .value(QStringLiteral("cuda"))
            .toString(),
        QStringLiteral(
            "void softmax(const float* x, float* y, int rows, int cols, cudaStream_t stream)"));
    QCOMPARE(summary.value(QStringLiteral("shapes")).toInt(),
             int(result.task->correctnessShapes.size()));
}

void TstTaskLoader::shapeArithmetic()
{
    const auto result = TaskLoader::load(sourceTasksDirectory() + QStringLiteral("/matmul"));
    QVERIFY(result.ok());
    const Task &task = *result.task;
    ShapeConfig shape;
    shape.sizes = {{QStringLiteral("M"), 17}, {QStringLiteral("N"), 33}, {QStringLiteral("K"), 65}};
    QCOMPARE(task.elementCount(*task.parameter(QStringLiteral("A")), shape), 17 * 65);
    QCOMPARE(task.elementCount(*task.parameter(QStringLiteral("B")), shape), 65 * 33);
    QCOMPARE(task.elementCount(*task.parameter(QStringLiteral("C")), shape), 17 * 33);
    QCOMPARE(task.scalarValue(*task.parameter(QStringLiteral("K")), shape), 65.0);
    QCOMPARE(task.bytesMoved(shape), 4.0 * (17 * 65 + 65 * 33 + 17 * 33));
    QCOMPARE(task.flops(shape), 2.0 * 17 * 33 * 65);
    QVERIFY(task.parameter(QStringLiteral("Z")) == nullptr);
    ShapeConfig incomplete;
    QVERIFY(std::isnan(task.flops(incomplete)));
    QCOMPARE(task.elementCount(*task.parameter(QStringLiteral("A")), incomplete), -1);

    const auto layernorm = TaskLoader::load(sourceTasksDirectory() + QStringLiteral("/layernorm"));
    QVERIFY(layernorm.ok());
    QCOMPARE(layernorm.task->scalarValue(*layernorm.task->parameter(QStringLiteral("eps")), shape),
             1e-5);
}

void TstTaskLoader::libraryEmbedsCoreTasks()
{
    TaskLibrary library;
    library.loadEmbedded();
    QVERIFY2(library.errors().isEmpty(),
             qPrintable(library.errorStrings().join(QLatin1Char('\n'))));
    QCOMPARE(library.names(), kCoreTasks);
    const Task *matmul = library.task(QStringLiteral("matmul"));
    QVERIFY(matmul);
    QCOMPARE(matmul->directory, QStringLiteral(":/tasks/matmul"));
    // The embedded copy is the source tree's.
    QCOMPARE(matmul->referenceSource.value(Backend::Cpu),
             readText(sourceTasksDirectory() + QStringLiteral("/matmul/reference.cpp")));
    QVERIFY(
        matmul->libraryBaselineSource.value(Backend::Cuda).contains(QStringLiteral("cublasSgemm")));
    QVERIFY(library.task(QStringLiteral("conv2d")) == nullptr);
}

void TstTaskLoader::libraryOverridesAndKeepsGoodTasks()
{
    const QString user = TaskLibrary::userTasksDirectory();
    QVERIFY(user.endsWith(QStringLiteral("/kiln/tasks")));
    QDir(user).removeRecursively();
    // User folder: a new task, a user override of softmax, and a broken task.
    writeTask(user, QStringLiteral("mytask"), {});
    writeTask(user, QStringLiteral("softmax"),
              {QStringLiteral("name=\"softmax\""), QStringLiteral("entry=\"softmax\""),
               QStringLiteral("title=\"User softmax\"")},
              {QStringLiteral("reference.cpp=extern \"C\" void softmax(const float*, float*) {}"),
               QStringLiteral("reference.cu=extern \"C\" void softmax(const float*, float*) {}"),
               QStringLiteral("baseline.cu=extern \"C\" void softmax(const float*, float*) {}")});
    writeTask(user, QStringLiteral("broken"),
              {QStringLiteral("name=\"broken\""), QStringLiteral("entry=\"broken\""),
               QStringLiteral("tolerance=-")});
    // A broken user copy of matmul must not hide the embedded one.
    writeTask(user, QStringLiteral("matmul"), {QStringLiteral("name=\"matmul\"")});

    // --tasks-dir: one folder of folders overriding the user's mytask, one single task folder.
    QTemporaryDir extra;
    writeTask(extra.path(), QStringLiteral("mytask"), {QStringLiteral("title=\"From tasks-dir\"")});
    QTemporaryDir single;
    const QString singleTask =
        writeTask(single.path(), QStringLiteral("other"),
                  {QStringLiteral("name=\"other\""), QStringLiteral("entry=\"other\"")},
                  {QStringLiteral("reference.cpp=extern \"C\" void other() {}"),
                   QStringLiteral("reference.cu=extern \"C\" void other() {}"),
                   QStringLiteral("baseline.cu=extern \"C\" void other() {}")});

    const TaskLibrary library = TaskLibrary::standard({extra.path(), singleTask});
    QStringList expectedNames = kCoreTasks;
    expectedNames << QStringLiteral("mytask") << QStringLiteral("other");
    expectedNames.sort();
    QCOMPARE(library.names(), expectedNames);
    QCOMPARE(library.task(QStringLiteral("softmax"))->title, QStringLiteral("User softmax"));
    QCOMPARE(library.task(QStringLiteral("softmax"))->directory, user + QStringLiteral("/softmax"));
    QCOMPARE(library.task(QStringLiteral("mytask"))->title, QStringLiteral("From tasks-dir"));
    QCOMPARE(library.task(QStringLiteral("matmul"))->directory, QStringLiteral(":/tasks/matmul"));
    QVERIFY(!library.contains(QStringLiteral("broken")));

    const QStringList errors = library.errorStrings();
    // Only the two broken folders are reported, each as "file: field: reason".
    const QString all = errors.join(QLatin1Char('\n'));
    QVERIFY2(errors.contains(
                 user + QStringLiteral("/broken/task.json: tolerance: required field is missing")),
             qPrintable(all));
    QVERIFY2(
        errors.contains(
            user + QStringLiteral(
                       "/matmul/task.json: entry: \"mytask\" must equal the task name \"matmul\"")),
        qPrintable(all));
    for (const QString &error : errors)
        QVERIFY2(error.startsWith(user + QStringLiteral("/broken/")) ||
                     error.startsWith(user + QStringLiteral("/matmul/")),
                 qPrintable(error));
    QDir(user).removeRecursively();
}

void TstTaskLoader::libraryReportsMissingDirectory()
{
    TaskLibrary library;
    QCOMPARE(library.loadDirectory(QStringLiteral("/nonexistent/kiln-tasks")), 0);
    QCOMPARE(library.errors().size(), 1);
    QCOMPARE(library.errors().first().file, QStringLiteral("/nonexistent/kiln-tasks"));
    QVERIFY(library.names().isEmpty());
}

QTEST_GUILESS_MAIN(TstTaskLoader)
#include "tst_taskloader.moc"
