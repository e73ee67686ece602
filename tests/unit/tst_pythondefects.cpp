#include "candidateexpectation.h"
#include "kernelbenchproblems.h"
#include "languages/kernellanguages.h"
#include "policies/offline/counterrng.h"
#include "policies/offline/defectinjector.h"
#include "policies/offline/pythondefectinjector.h"
#include "policies/offline/variantspace.h"
#include "tasks/kernelbenchsource.h"
#include "tasks/task.h"
#include "verifier/screen/python/torchscreen.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;
using namespace Qt::StringLiterals;

namespace {

const QString kData = QStringLiteral(KILN_SOURCE_DIR "/tests/data/kernelbench");
constexpr quint64 kSeed = 20260;

// One source the injector is tried on: an honest Triton candidate and the task it answers.
struct Subject
{
    QString name;
    QString source;
    QString task;
};

// What Python's ast makes of a file: whether it parses, the lines of its @jit functions
// (def line to last line), and the names those functions read that nothing binds.
struct PythonReport
{
    bool parses = false;
    QList<QPair<int, int>> jit;
    QStringList undefined;
};

const char kChecker[] = R"(import ast, builtins, json, sys

def is_jit(fn):
    for d in fn.decorator_list:
        t = d.func if isinstance(d, ast.Call) else d
        if (t.attr if isinstance(t, ast.Attribute) else getattr(t, "id", "")) == "jit":
            return True
    return False

# `x += y` reads x first (Triton's compiler too): its target binds nothing new.
def augmented(node):
    return {id(n.target) for n in ast.walk(node) if isinstance(n, ast.AugAssign)}

def reads(node):
    aug = augmented(node)
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
            and (isinstance(n.ctx, ast.Load) or id(n) in aug)}

def bound(node):
    names, aug = set(), augmented(node)
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) and id(n) not in aug:
            names.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
        elif isinstance(n, ast.alias):
            names.add((n.asname or n.name).split(".")[0])
        elif isinstance(n, ast.arg):
            names.add(n.arg)
    return names

for path in sys.argv[1:]:
    try:
        tree = ast.parse(open(path).read())
    except SyntaxError:
        print(json.dumps({"parses": False}))
        continue
    module = set(dir(builtins))
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            module.add(stmt.name)
        else:
            module |= bound(stmt)
    jit, undefined = [], set()
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef) and is_jit(fn):
            jit.append([fn.lineno, fn.end_lineno])
            local = bound(fn) | module
            undefined |= reads(fn) - local
    print(json.dumps({"parses": True, "jit": jit, "undefined": sorted(undefined)}))
)";

// Runs the checker once over all `sources`; an empty list when Python could not run.
QList<PythonReport> readWithPython(const QString &python, const QStringList &sources)
{
    QTemporaryDir dir;
    QStringList arguments{u"-c"_s, QString::fromUtf8(kChecker)};
    for (qsizetype i = 0; i < sources.size(); ++i) {
        const QString path = dir.filePath(u"candidate_%1.py"_s.arg(i));
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            return {};
        file.write(sources.at(i).toUtf8());
        arguments << path;
    }
    QProcess process;
    process.start(python, arguments);
    if (!process.waitForFinished(60000) || process.exitCode() != 0)
        return {};
    QList<PythonReport> reports;
    const QList<QByteArray> lines = process.readAllStandardOutput().trimmed().split('\n');
    for (const QByteArray &line : lines) {
        const QJsonObject object = QJsonDocument::fromJson(line).object();
        PythonReport report;
        report.parses = object.value(u"parses"_s).toBool();
        for (const QJsonValue &range : object.value(u"jit"_s).toArray())
            report.jit.append({range.toArray().at(0).toInt(), range.toArray().at(1).toInt()});
        for (const QJsonValue &name : object.value(u"undefined"_s).toArray())
            report.undefined << name.toString();
        reports.append(report);
    }
    return reports.size() == sources.size() ? reports : QList<PythonReport>{};
}

bool insideJit(const PythonReport &report, int line)
{
    for (const auto &[first, last] : report.jit) {
        if (line >= first && line <= last)
            return true;
    }
    return false;
}

// The lines an edit changed: [first, last] (1-based) of the new text, from the lines both
// texts share at their start and end.
QPair<int, int> changedLines(const QString &before, const QString &after)
{
    const QStringList a = before.split(u'\n');
    const QStringList b = after.split(u'\n');
    int prefix = 0;
    while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix])
        ++prefix;
    int suffix = 0;
    while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
           a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
        ++suffix;
    return {prefix + 1, static_cast<int>(b.size()) - suffix};
}

// The blocking flag the static screen must raise for a gaming kind; empty for a kind only
// the GPU run can catch.
QString expectedScreenFlag(const QString &kind)
{
    static const QHash<QString, QString> flags = {
        {u"torch_fallback"_s, u"torch_library_compute"_s},
        {u"patch_check"_s, u"torch_monkey_patch"_s},
        {u"precision_downgrade"_s, u"precision_downgrade"_s},
        {u"side_stream"_s, u"torch_stream"_s}};
    return flags.value(kind);
}

QStringList allIds(const QList<CheatFlag> &flags)
{
    QStringList ids;
    for (const CheatFlag &flag : flags)
        ids << flag.id;
    return ids;
}

// The KernelBench problems of the test data (level 1 and the Triton spaces'), by task name.
QMap<QString, Task> problemTasks()
{
    QMap<QString, Task> tasks;
    for (const QString &folder : {u"/KernelBench/level1"_s, u"/triton_spaces/level1"_s})
        tasks.insert(testing::kernelBenchProblemsIn(kData + folder, 1));
    return tasks;
}

// A few renderings of a space: its best point, its first and last, and each knob value once
// beside the best values of the others.
QList<Subject> renderings(const QString &directory)
{
    QString error;
    const std::optional<VariantSpace> space = VariantSpace::loadDirectory(directory, &error);
    if (!space) {
        qWarning("%s: %s", qPrintable(directory), qPrintable(error));
        return {};
    }
    QList<KnobConfig> configs{space->bestConfig(), space->configAt(0),
                              space->configAt(space->combinationCount() - 1)};
    for (const Knob &knob : space->knobs()) {
        for (const QString &value : knob.values) {
            KnobConfig config = space->bestConfig();
            config.insert(knob.name, value);
            configs.append(config);
        }
    }
    QList<Subject> subjects;
    QSet<QString> seen;
    for (const KnobConfig &config : configs) {
        const TemplateEngine::Result result = space->render(config);
        if (!result.ok || seen.contains(result.text))
            continue;
        seen.insert(result.text);
        subjects.append(
            {u"%1 #%2"_s.arg(space->task()).arg(subjects.size()), result.text, space->task()});
    }
    return subjects;
}

QList<Subject> subjects()
{
    QList<Subject> list;
    for (const QString &name :
         {u"scaled_residual_add"_s, u"row_softmax"_s, u"small_matmul_autotuned"_s}) {
        const QString path = kData + u"/candidates/triton/"_s + name + u".py"_s;
        list.append({name, testing::readFile(path), testing::readExpectation(path).task});
    }
    const QDir spaces(QStringLiteral(KILN_SOURCE_DIR "/tasks/kernelbench"));
    for (const QString &problem : spaces.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        const QString directory = spaces.filePath(problem + u"/variants/triton"_s);
        if (QFileInfo::exists(directory + u"/knobs.json"_s))
            list += renderings(directory);
    }
    return list;
}

QStringList categories()
{
    return {u"compile_error"_s, u"wrong"_s, u"gaming"_s};
}

struct Injection
{
    DefectInjector::Outcome outcome;
    QString text;
};

Injection inject(const QString &source, const QString &category, const QString &kind)
{
    Injection injection{{}, source};
    CounterRng rng(kSeed, 3);
    injection.outcome = PythonDefectInjector::apply(&injection.text, category, kind, rng);
    return injection;
}

// The lines around an injection's reported line, for a failure message.
QString excerpt(const Injection &injection)
{
    const QStringList lines = injection.text.split(u'\n');
    const int line = injection.outcome.line;
    QStringList shown;
    for (int k = qMax(1, line - 3); k <= qMin(static_cast<int>(lines.size()), line + 3); ++k)
        shown << u"%1%2: %3"_s.arg(k == line ? u">"_s : u" "_s).arg(k).arg(lines.at(k - 1));
    return shown.join(u'\n');
}

// What is wrong with an injected source, from Python's reading of it; empty when nothing.
QString pythonProblem(const QString &category, const Injection &injection,
                      const PythonReport &report, const PythonReport &honest,
                      const QString &honestText)
{
    const QString kind = injection.outcome.kind;
    const int line = injection.outcome.line;
    if (kind == u"missing_colon")
        return report.parses ? u"still parses"_s : QString();
    if (!report.parses)
        return u"does not parse"_s;
    if (category == u"gaming")
        return {};
    if (!insideJit(report, line) || !insideJit(honest, line))
        return u"line %1 is outside the @triton.jit functions"_s.arg(line);
    if (kind == u"undefined_name" && report.undefined.isEmpty())
        return u"no undefined name in the kernels"_s;
    if (kind != u"undefined_name" && !report.undefined.isEmpty())
        return u"undefined names %1"_s.arg(report.undefined.join(u", "_s));
    if (kind == u"missing_constexpr" &&
        injection.text.count(u"tl.constexpr"_s) != honestText.count(u"tl.constexpr"_s) - 1)
        return u"not exactly one tl.constexpr removed"_s;
    return {};
}

QString screenProblem(const Task &task, const Injection &injection)
{
    const KernelLanguage &triton = *KernelLanguages::find(u"triton"_s);
    const QList<CheatFlag> flags = TorchScreen::screen(task, injection.text, triton);
    const QString kind = injection.outcome.kind;
    const QString expected = expectedScreenFlag(kind);
    const QStringList blocking = testing::blockingFlagIds(flags);
    if (!expected.isEmpty())
        return blocking.contains(expected)
                   ? QString()
                   : u"screen raised [%1], not %2"_s.arg(allIds(flags).join(u' '), expected);
    // cached_result: the screen only notes the state; the second correctness call catches it.
    if (!blocking.isEmpty() || !allIds(flags).contains(u"torch_state_between_calls"_s))
        return u"screen raised [%1]"_s.arg(allIds(flags).join(u' '));
    return {};
}

// An online log-sum-exp helper and a kernel that loads class indices: the sites a kind must
// skip there.
const QString kOnlineLse = uR"(import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def lse(row_ptr, cols, BLOCK: tl.constexpr):
    m_i = tl.full((BLOCK,), -float("inf"), tl.float32)
    l_i = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, cols, BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        x = tl.load(row_ptr + offsets, mask=offsets < cols, other=-float("inf"))
        m_new = tl.maximum(m_i, x)
        l_i = l_i * tl.exp(m_i - m_new) + tl.exp(x - m_new)
        m_i = m_new
    top = tl.max(m_i, axis=0)
    return top + tl.log(tl.sum(l_i * tl.exp(m_i - top), axis=0))


@triton.jit
def loss_kernel(x_ptr, target_ptr, out_ptr, cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    target = tl.load(target_ptr + row)
    picked = tl.load(x_ptr + row * stride + target)
    tl.store(out_ptr + row, lse(x_ptr + row * stride, cols, BLOCK) - picked)


class ModelNew(nn.Module):
    def forward(self, x, target):
        out = torch.empty(x.shape[0], device=x.device, dtype=torch.float32)
        loss_kernel[(x.shape[0],)](x, target, out, x.shape[1], x.stride(0), BLOCK=1024)
        return out.mean()
)"_s;

// The edited lines of every site of `kind` that 40 draws find.
QSet<QString> editedLines(const QString &source, const QString &category, const QString &kind)
{
    QSet<QString> lines;
    for (quint64 key = 0; key < 40; ++key) {
        QString text = source;
        CounterRng rng(kSeed, key);
        const DefectInjector::Outcome outcome =
            PythonDefectInjector::apply(&text, category, kind, rng);
        if (outcome.kind == kind)
            lines.insert(text.split(u'\n').value(outcome.line - 1).trimmed());
    }
    return lines;
}

} // namespace

class TstPythonDefects : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void everyKindBreaksEverySource_data();
    void everyKindBreaksEverySource();
    void everyKindHasASite();
    void sameSeedSameSource();
    void noSiteLeavesSourceUnchanged();
    void sitesAvoidSilentAndUncompilableEdits();
    void defectInjectorDispatchesTorch();

private:
    QString m_python;
    QList<Subject> m_subjects;
    QMap<QString, Task> m_tasks;
};

void TstPythonDefects::initTestCase()
{
    m_python = QStandardPaths::findExecutable(u"python3"_s);
    if (m_python.isEmpty())
        QSKIP("python3 is needed to parse the injected sources");
    m_subjects = subjects();
    m_tasks = problemTasks();
    QVERIFY(m_subjects.size() >= 3);
    for (const Subject &subject : std::as_const(m_subjects))
        QVERIFY2(!subject.source.isEmpty() && !subject.task.isEmpty(), qPrintable(subject.name));
}

void TstPythonDefects::everyKindBreaksEverySource_data()
{
    QTest::addColumn<int>("index");
    for (qsizetype i = 0; i < m_subjects.size(); ++i)
        QTest::newRow(qPrintable(m_subjects.at(i).name)) << static_cast<int>(i);
}

// Every kind of every category, applied: a changed source whose reported line was changed,
// and the failure the category promises (Python's syntax, the kernels, the static screen).
void TstPythonDefects::everyKindBreaksEverySource()
{
    QFETCH(int, index);
    const Subject &subject = m_subjects.at(index);
    Task task = m_tasks.value(subject.task);
    task.name = subject.task; // a problem missing from the test data: screened without reference
    QVERIFY2(testing::blockingFlagIds(
                 TorchScreen::screen(task, subject.source, *KernelLanguages::find(u"triton"_s)))
                 .isEmpty(),
             "the honest source is blocked");
    QList<QPair<QString, Injection>> injections;
    QStringList texts{subject.source};
    for (const QString &category : categories()) {
        for (const QString &kind : PythonDefectInjector::kinds(category, QString())) {
            const Injection injection = inject(subject.source, category, kind);
            const QString what = category + u'/' + kind + u" -> "_s + injection.outcome.kind;
            QVERIFY2(injection.outcome.applied, qPrintable(what + u": not applied"_s));
            QVERIFY2(injection.text != subject.source, qPrintable(what + u": unchanged"_s));
            const auto [first, last] = changedLines(subject.source, injection.text);
            QVERIFY2(injection.outcome.line >= first && injection.outcome.line <= last,
                     qPrintable(u"%1: line %2, changed %3-%4"_s.arg(what)
                                    .arg(injection.outcome.line)
                                    .arg(first)
                                    .arg(last)));
            injections.append({category, injection});
            texts << injection.text;
        }
    }
    const QList<PythonReport> reports = readWithPython(m_python, texts);
    QCOMPARE(reports.size(), texts.size());
    QVERIFY2(reports.first().parses && reports.first().undefined.isEmpty(),
             qPrintable(reports.first().undefined.join(u' ')));
    for (qsizetype i = 0; i < injections.size(); ++i) {
        const auto &[category, injection] = injections.at(i);
        const QString what = category + u'/' + injection.outcome.kind + u": "_s;
        const QString python =
            pythonProblem(category, injection, reports.at(i + 1), reports.first(), subject.source);
        QVERIFY2(python.isEmpty(), qPrintable(what + python + u"\n"_s + excerpt(injection)));
        if (category == u"gaming") {
            const QString screen = screenProblem(task, injection);
            QVERIFY2(screen.isEmpty(), qPrintable(what + screen + u"\n"_s + excerpt(injection)));
        }
    }
}

// Each kind finds a site of its own in at least one source (no kind lives only on fallbacks).
void TstPythonDefects::everyKindHasASite()
{
    for (const QString &category : categories()) {
        for (const QString &kind : PythonDefectInjector::kinds(category, QString())) {
            QStringList sources;
            for (const Subject &subject : std::as_const(m_subjects)) {
                if (inject(subject.source, category, kind).outcome.kind == kind)
                    sources << subject.name;
            }
            QVERIFY2(!sources.isEmpty(), qPrintable(kind));
            qInfo("%s: a site of its own in %lld of %lld sources", qPrintable(kind),
                  static_cast<long long>(sources.size()),
                  static_cast<long long>(m_subjects.size()));
        }
    }
}

void TstPythonDefects::sameSeedSameSource()
{
    for (const Subject &subject : std::as_const(m_subjects)) {
        for (const QString &category : categories()) {
            for (const QString &kind : PythonDefectInjector::kinds(category, QString())) {
                const Injection a = inject(subject.source, category, kind);
                const Injection b = inject(subject.source, category, kind);
                QCOMPARE(a.text, b.text);
                QCOMPARE(a.outcome.kind, b.outcome.kind);
                QCOMPARE(a.outcome.line, b.outcome.line);
            }
        }
    }
}

void TstPythonDefects::noSiteLeavesSourceUnchanged()
{
    const QString plain = u"import math\n\nSCALE = math.sqrt(2.0)\n"_s;
    for (const QString &category : categories()) {
        for (const QString &kind : PythonDefectInjector::kinds(category, QString())) {
            const Injection injection = inject(plain, category, kind);
            QVERIFY2(!injection.outcome.applied, qPrintable(category + u'/' + kind));
            QCOMPARE(injection.text, plain);
        }
    }
    QVERIFY(PythonDefectInjector::gamingKinds(plain).isEmpty());
    // The gaming kinds that have a site depend on the source: no tl.dot or tl.load, no
    // precision_downgrade.
    QString noLoads = m_subjects.first().source;
    noLoads.replace(u"tl.load("_s, u"load("_s);
    QVERIFY(!PythonDefectInjector::gamingKinds(noLoads).contains(u"precision_downgrade"_s));
    QVERIFY(PythonDefectInjector::gamingKinds(noLoads).contains(u"patch_check"_s));
}

// A rescaled accumulator (online softmax multiplies it by exp(-inf) = 0 at first) would pass
// with any start; a loaded class index rounded to fp16 would not compile; a @jit helper's
// constexpr comes from its caller's argument, whatever its annotation.
void TstPythonDefects::sitesAvoidSilentAndUncompilableEdits()
{
    const QSet<QString> accumulators = editedLines(kOnlineLse, u"wrong"_s, u"wrong_accumulator"_s);
    QCOMPARE(accumulators, QSet<QString>{u"m_i = tl.full((BLOCK,), float(\"inf\"), tl.float32)"_s});
    const QSet<QString> loads = editedLines(kOnlineLse, u"gaming"_s, u"precision_downgrade"_s);
    QCOMPARE(loads.size(), 2);
    for (const QString &line : loads) {
        QVERIFY2(line.endsWith(u".to(tl.float16).to(tl.float32)"_s), qPrintable(line));
        QVERIFY2(!line.startsWith(u"target"_s), qPrintable(line));
    }
    QVERIFY(editedLines(kOnlineLse, u"compile_error"_s, u"missing_constexpr"_s).isEmpty());
}

// DefectInjector hands Backend::Torch to PythonDefectInjector, with the same draws.
void TstPythonDefects::defectInjectorDispatchesTorch()
{
    const Task task = m_tasks.value(m_subjects.first().task);
    for (const QString &category : categories()) {
        QCOMPARE(DefectInjector::kinds(category, task, Backend::Torch),
                 PythonDefectInjector::kinds(category, QString()));
        for (const QString &kind : PythonDefectInjector::kinds(category, QString())) {
            QString source = m_subjects.first().source;
            CounterRng rng(kSeed, 3);
            const DefectInjector::Outcome outcome =
                DefectInjector::apply(&source, category, kind, task, Backend::Torch, rng);
            const Injection direct = inject(m_subjects.first().source, category, kind);
            QCOMPARE(outcome.kind, direct.outcome.kind);
            QCOMPARE(outcome.line, direct.outcome.line);
            QCOMPARE(source, direct.text);
        }
    }
}

QTEST_GUILESS_MAIN(TstPythonDefects)
#include "tst_pythondefects.moc"
