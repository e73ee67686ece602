#include "candidateexpectation.h"
#include "kernelbenchproblems.h"
#include "languages/kernellanguages.h"
#include "tasks/kernelbenchsource.h"
#include "tasks/task.h"
#include "verifier/screen/flagcatalog.h"
#include "verifier/screen/python/torchscreen.h"

#include <QDir>
#include <QFileInfo>
#include <QTest>
#include <algorithm>

using namespace kiln;
using namespace Qt::StringLiterals;

namespace {

const QString kData = QStringLiteral(KILN_SOURCE_DIR "/tests/data/kernelbench");

QString describe(const QList<CheatFlag> &flags)
{
    QStringList parts;
    for (const CheatFlag &flag : flags) {
        QStringList lines;
        for (int line : flag.lines)
            lines << QString::number(line);
        parts << flag.id + (flag.blocking ? u"!"_s : QString()) + u"@"_s + lines.join(u',') +
                     u" "_s + flag.message;
    }
    return parts.join(u"\n  "_s);
}

const CheatFlag *findFlag(const QList<CheatFlag> &flags, const QString &id)
{
    for (const CheatFlag &flag : flags) {
        if (flag.id == id)
            return &flag;
    }
    return nullptr;
}

// The tasks the importer makes of the problems under KernelBench/level*/, by task name.
QMap<QString, Task> problemTasks()
{
    QMap<QString, Task> tasks;
    for (int level = 1; level <= 2; ++level)
        tasks.insert(testing::kernelBenchProblemsIn(
            kData + u"/KernelBench/level"_s + QString::number(level), level));
    return tasks;
}

Task task(const QString &name)
{
    static const QMap<QString, Task> tasks = problemTasks();
    return tasks.value(name);
}

QString candidateFile(const QString &name)
{
    return testing::readFile(kData + u"/candidates/"_s + name);
}

// The honest row softmax with extra module-level code, another forward body, or extra C++
// in its CUDA source (before the host function).
QString softmaxWith(const QString &moduleCode, const QString &forwardBody = {},
                    const QString &cuda = {})
{
    QString source = candidateFile(u"row_softmax.py"_s);
    if (!cuda.isEmpty())
        source.replace(u"torch::Tensor row_softmax_cuda(torch::Tensor x) {"_s,
                       cuda + u"\ntorch::Tensor row_softmax_cuda(torch::Tensor x) {"_s);
    if (!forwardBody.isEmpty())
        source.replace(u"        return self.row_softmax.row_softmax_cuda(x)\n"_s, forwardBody);
    return source + u"\n"_s + moduleCode + u"\n"_s;
}

// A candidate whose only CUDA source is `sourceAssignment` (Python code binding `src`).
QString extensionWith(const QString &sourceAssignment, const QString &extraArguments = {})
{
    return u"import torch\n"
           "import torch.nn as nn\n"
           "from torch.utils.cpp_extension import load_inline\n"
           "\n"_s +
           sourceAssignment +
           u"\n"
           "ext = load_inline(name=\"t\", cpp_sources=\"torch::Tensor f(torch::Tensor x);\",\n"
           "                  cuda_sources=src, functions=[\"f\"]"_s +
           extraArguments +
           u")\n"
           "\n"
           "class ModelNew(nn.Module):\n"
           "    def forward(self, x):\n"
           "        return ext.f(x)\n"_s;
}

// The 1-based line of the first line of `text` holding `needle`.
int lineOf(const QString &text, const QString &needle)
{
    const QStringList lines = text.split(u'\n');
    for (int k = 0; k < lines.size(); ++k) {
        if (lines[k].contains(needle))
            return k + 1;
    }
    return 0;
}

// One row of obfuscation(): a candidate and the flag it must raise.
void row(const char *name, const QString &source, const QString &flag)
{
    QTest::newRow(name) << source << flag;
}

// Patching through aliases, literal getattr, unpacking, loops and odd syntax.
void addPatchRows()
{
    const QString patch = u"torch_monkey_patch"_s;

    row("import alias", softmaxWith(u"import torch as T\nT.cuda.Event = object"_s), patch);
    row("from import",
        softmaxWith(u"from torch.cuda import Event\n"
                    "Event.elapsed_time = lambda self, end: 0.0"_s),
        patch);
    row("from time import",
        softmaxWith(u"from time import perf_counter\nimport time as clock\n"
                    "clock.perf_counter = lambda: perf_counter() / 4"_s),
        patch);
    row("setattr", softmaxWith(u"import time\nsetattr(time, 'perf_counter', lambda: 0.0)"_s),
        patch);
    row("getattr literal", softmaxWith(u"getattr(torch, 'cuda').Event = object"_s), patch);
    row("alias of getattr",
        softmaxWith(u"cuda_module = getattr(torch, 'cuda')\ncuda_module.Event = object"_s), patch);
    row("tuple alias", softmaxWith(u"E, n = torch.cuda, 1\nE.synchronize = lambda: None"_s), patch);
    row("walrus", softmaxWith(u"(c := torch.cuda).Event = object"_s), patch);
    row("loop variable", softmaxWith(u"for m in [torch.cuda]:\n    m.Event = object"_s), patch);
    row("comprehension target", softmaxWith(u"_ = [0 for torch.cuda.Event in [object]]"_s), patch);
    row("parameter", softmaxWith(u"def tune(m):\n    m.Event = object\ntune(torch.cuda)"_s), patch);
    row("backslash continuation", softmaxWith(u"torch.cuda \\\n    .Event = object"_s), patch);
    row("one-line body", softmaxWith(u"if True: n = 1; torch.cuda.Event = object"_s), patch);
    row("carriage return", softmaxWith(u"# harmless\rtorch.cuda.Event = object"_s), patch);
    row("fullwidth name", softmaxWith(u"\uff54\uff4f\uff52\uff43\uff48.cuda.Event = object"_s),
        patch);
    row("f-string field", softmaxWith(u"_ = f\"{setattr(torch.cuda, 'Event', object)}\""_s), patch);
    row("builtins", softmaxWith(u"import builtins\nbuiltins.print = lambda *a: None"_s), patch);
    row("sys.modules", softmaxWith(u"import sys\nsys.modules['time'] = None"_s), patch);
    row("sys.modules update", softmaxWith(u"import sys\nsys.modules.update({'time': None})"_s),
        patch);
    row("environment", softmaxWith(u"import os\nos.environ['CUDA_LAUNCH_BLOCKING'] = '1'"_s),
        patch);
    row("own class", softmaxWith(u"ModelNew.forward = lambda self, x: torch.softmax(x, 1)"_s),
        patch);
}

// Names built from strings, evaluation, encodings.
void addIntrospectionRows()
{
    const QString intro = u"torch_introspection"_s;

    row("computed getattr", softmaxWith(u"import torch as T\nx = getattr(T, 'cu' + 'da')"_s),
        intro);
    row("torch.from_file",
        softmaxWith(u"import torch as T\nleak = T.from_file('/pr' + 'oc/1/fd/3')"_s), intro);
    row("computed half",
        softmaxWith(QString(), u"        return self.row_softmax.row_softmax_cuda("
                               "getattr(x, 'ha' + 'lf')().float())\n"_s),
        intro);
    row("eval", softmaxWith(u"eval('1 + 1')"_s), intro);
    row("exec alias", softmaxWith(u"run = exec\nrun('n = 1')"_s), intro);
    row("__import__", softmaxWith(u"__import__('os').getcwd()"_s), intro);
    row("importlib", softmaxWith(u"import importlib\nm = importlib.import_module('json')"_s),
        intro);
    row("inspect", softmaxWith(u"import inspect\nframe = inspect.currentframe()"_s), intro);
    row("open", softmaxWith(u"data = open('/tmp/answer.bin', 'rb').read()"_s), intro);
    row("proc", softmaxWith(u"import os\nmaps = os.listdir('/proc/self')"_s), intro);
    row("module as value", softmaxWith(u"modules = [torch]"_s), intro);
    row("globals", softmaxWith(u"globals()['torch'] = None"_s), intro);
    row("dunder", softmaxWith(u"subclasses = object.__subclasses__()"_s), intro);
    row("unknown module", softmaxWith(u"import kernel_cache"_s), intro);
    // Attribute lookups by a computed name that are not spelled getattr(...).
    row("attrgetter",
        softmaxWith(u"import operator\nev = operator.attrgetter('cu' + 'da.Event')(torch)"_s),
        intro);
    row("vars", softmaxWith(u"cuda = vars(torch)['cu' + 'da']"_s), intro);
    row("__getattribute__", softmaxWith(u"cuda = torch.__getattribute__('cu' + 'da')"_s),
        u"torch_lazy_tensor"_s);
    row("globals lookup", softmaxWith(u"t = globals()['tor' + 'ch']"_s), intro);
    row("partial of getattr",
        softmaxWith(u"import functools\nget = functools.partial(getattr, torch)\n"
                    "cuda = get('cu' + 'da')"_s),
        intro);
    row("getattr through map",
        softmaxWith(u"cuda = list(map(getattr, [torch], ['cu' + 'da']))[0]"_s), intro);
    row("getattr alias", softmaxWith(u"g = getattr\ncuda = g(torch, 'cu' + 'da')"_s), intro);
    row("partial of getattr on a tensor",
        softmaxWith(
            u"import functools"_s,
            u"        get = functools.partial(getattr, x)\n"
            "        return self.row_softmax.row_softmax_cuda(get('ha' + 'lf')().float())\n"_s),
        intro);
    row("getattr passed to a function",
        softmaxWith(QString(), u"        pick = lambda f: f(x, 'ha' + 'lf')\n"
                               "        return self.row_softmax.row_softmax_cuda("
                               "pick(getattr)().float())\n"_s),
        intro);
    {
        QString source = candidateFile(u"row_softmax.py"_s);
        source.insert(source.indexOf(u'\n') + 1, u"# -*- coding: utf-7 -*-\n"_s);
        row("utf-7 source", source, intro);
    }
}

// Precision, streams, threads, lazy results.
void addPrecisionStreamThreadRows()
{
    const QString precision = u"precision_downgrade"_s;
    const QString stream = u"torch_stream"_s;
    const QString threads = u"torch_threads"_s;
    const QString lazy = u"torch_lazy_tensor"_s;

    row("half through getattr literal",
        softmaxWith(QString(), u"        return self.row_softmax.row_softmax_cuda("
                               "getattr(x, 'half')().float())\n"_s),
        precision);
    row("to float16",
        softmaxWith(QString(),
                    u"        y = self.row_softmax.row_softmax_cuda(x.to(torch.float16))\n"
                    "        return y.float()\n"_s),
        precision);
    row("autocast",
        softmaxWith(QString(), u"        with torch.autocast('cuda'):\n"
                               "            return self.row_softmax.row_softmax_cuda(x)\n"_s),
        precision);
    row("tf32", softmaxWith(u"torch.backends.cuda.matmul.allow_tf32 = True"_s), precision);
    row("matmul precision", softmaxWith(u"torch.set_float32_matmul_precision('high')"_s),
        precision);
    row("to int8",
        softmaxWith(QString(), u"        y = self.row_softmax.row_softmax_cuda(x)\n"
                               "        return y.to(torch.int8).float()\n"_s),
        precision);
    row("int8 matmul", softmaxWith(u"product = torch._int_mm"_s), precision);
    row("fp8 matmul", softmaxWith(u"product = torch._scaled_mm"_s), precision);
    row("char method",
        softmaxWith(QString(),
                    u"        return self.row_softmax.row_softmax_cuda(x.char().float())\n"_s),
        precision);
    row("stream alias", softmaxWith(u"from torch.cuda import Stream as S\ns = S()"_s), stream);
    row("cuda graph", softmaxWith(u"g = torch.cuda.CUDAGraph()"_s), stream);
    row("non-blocking copy",
        softmaxWith(QString(), u"        y = self.row_softmax.row_softmax_cuda(x)\n"
                               "        return y.to('cuda', non_blocking=True)\n"_s),
        stream);
    row("concurrent futures", softmaxWith(u"import concurrent.futures as cf"_s), threads);
    row("from threading", softmaxWith(u"from threading import Thread"_s), threads);
    row("os.fork", softmaxWith(u"import os\npid = os.fork()"_s), threads);
    row("async", softmaxWith(u"async def later():\n    pass"_s), threads);
    row("tensor subclass via alias",
        softmaxWith(u"Base = torch.Tensor\nclass Lazy(Base):\n    pass"_s), lazy);
    row("torch_function",
        softmaxWith(u"class Hook:\n    @classmethod\n"
                    "    def __torch_function__(cls, f, t, a=(), k=None):\n"
                    "        return f(*a)"_s),
        lazy);
    row("generator",
        softmaxWith(QString(), u"        yield self.row_softmax.row_softmax_cuda(x)\n"_s), lazy);
    row("suppress",
        softmaxWith(u"import contextlib\nwith contextlib.suppress(Exception):\n"
                    "    pass"_s),
        u"torch_fallback"_s);
    row("try finally", softmaxWith(u"try:\n    pass\nfinally:\n    pass"_s), u"torch_fallback"_s);
}

// PyTorch computing the answer, however it is spelt.
void addLibraryRows()
{
    const QString library = u"torch_library_compute"_s;

    row("functional alias",
        softmaxWith(QString(),
                    u"        F = torch.nn.functional\n"
                    "        return F.softmax(self.row_softmax.row_softmax_cuda(x), 1)\n"_s),
        library);
    row("tensor method",
        softmaxWith(QString(), u"        self.row_softmax.row_softmax_cuda(x)\n"
                               "        return x.softmax(1)\n"_s),
        library);
    row("helper",
        softmaxWith(u"def _finish(t):\n    return torch.softmax(t, dim=1)"_s,
                    u"        self.row_softmax.row_softmax_cuda(x)\n"
                    "        return _finish(x)\n"_s),
        library);
    row("aten in C++",
        softmaxWith(QString(), QString(),
                    u"torch::Tensor shortcut(torch::Tensor x) {\n"
                    "    return torch::softmax(x, 1);\n}\n"_s),
        library);
    {
        QString stored = softmaxWith(
            QString(), u"        return self.act(self.row_softmax.row_softmax_cuda(x), 1)\n"_s);
        stored.replace(u"class ModelNew(nn.Module):\n"_s,
                       u"class ModelNew(nn.Module):\n    act = torch.softmax\n"_s);
        row("class attribute", stored, library);
        QString partial =
            softmaxWith(u"import functools"_s,
                        u"        return self.sm(self.row_softmax.row_softmax_cuda(x))\n"_s);
        partial.replace(u"        self.row_softmax = row_softmax\n"_s,
                        u"        self.row_softmax = row_softmax\n"
                        "        self.sm = functools.partial(torch.softmax, dim=1)\n"_s);
        row("stored partial", partial, library);
    }
    row("torch.compile", softmaxWith(u"fast = torch.compile(torch.softmax)"_s), library);
    // Triton in an inline-CUDA run is a candidate of another language.
    row("triton", softmaxWith(u"import triton"_s), u"language_mismatch"_s);
}

// The reference model, however it is reached.
void addReferenceRows()
{
    const QString reference = u"torch_reference_model"_s;

    row("import reference", softmaxWith(u"from reference import Model as M"_s), reference);
    row("call Model", softmaxWith(u"helper = Model()"_s), reference);
    row("getattr Model",
        softmaxWith(u"import sys\nM = getattr(sys.modules['__main__'], 'Model')"_s), reference);
}

// Inside the CUDA source, however the text is put together.
void addInlineSourceRows()
{
    const QString intro = u"torch_introspection"_s;
    const QString precision = u"precision_downgrade"_s;
    const QString stream = u"torch_stream"_s;
    const QString threads = u"torch_threads"_s;
    const QString forbidden = u"forbidden_library"_s;

    row("cublas", extensionWith(u"src = '''\nvoid g() { cublasSgemm(0); }\n'''"_s), forbidden);
    row("hex escape", extensionWith(u"src = \"void g() { \\x63ublasSgemm(0); }\""_s), forbidden);
    row("concatenated", extensionWith(u"part = 'void g() { cub'\nsrc = part + 'lasSgemm(0); }'"_s),
        forbidden);
    row("f-string",
        extensionWith(u"N = 256\nsrc = f'int n = {N}; void g() {{ cublasSgemm(0); }}'"_s),
        forbidden);
    row("universal character name", extensionWith(u"src = r'void g() { cubl\\u0061sSgemm(0); }'"_s),
        forbidden);
    row("splice", extensionWith(u"src = '''\nvoid g() { cublas\\\\\nSgemm(0); }\n'''"_s),
        forbidden);
    row("link flag", extensionWith(u"src = 'void g() {}'"_s, u", extra_ldflags=['-lcublas']"_s),
        forbidden);
    row("built at run time", extensionWith(u"src = 'void g() { X(0); }'.replace('X', 'k')"_s),
        intro);
    row("macro from flags",
        extensionWith(u"src = 'void g() { GEMM(0); }'"_s,
                      u", extra_cuda_cflags=['-DGEMM=cublasSgemm']"_s),
        intro);
    row("include path",
        extensionWith(u"src = 'void g() {}'"_s, u", extra_cuda_cflags=['-I/tmp/headers']"_s),
        intro);
    // Token pasting is seen through: the name it builds is the finding.
    row("token pasting",
        extensionWith(
            u"src = '''\n#define CAT(a, b) a##b\nvoid g() { CAT(cub, lasSgemm)(0); }\n'''"_s),
        u"forbidden_library"_s);
    row("token pasting a torch handle",
        extensionWith(u"src = '''\n#define CAT(a, b) a##b\n"
                      "void g() { auto h = at::cuda::CAT(getCurrentCUDABlas, Handle)(); }\n'''"_s),
        u"torch_library_compute"_s);
    row("macro alias of exit",
        extensionWith(u"src = '''\n#define STOP exit\n\nvoid g() { STOP(0); }\n'''"_s),
        u"process_exit"_s);
    row("quoted include", extensionWith(u"src = '#include \"answer.h\"\\nvoid g() {}'"_s), intro);
    row("python from C++",
        extensionWith(u"src = 'void g() { PyRun_SimpleString(\"import time\"); }'"_s), intro);
    row("stream from pool",
        extensionWith(u"src = 'void g() { auto s = at::cuda::getStreamFromPool(); }'"_s), stream);
    row("std::thread", extensionWith(u"src = 'void g() { std::thread t([]{}); t.join(); }'"_s),
        threads);
    row("stream created",
        extensionWith(u"src = 'void g() { cudaStream_t s; cudaStreamCreate(&s); }'"_s),
        u"stream_creation"_s);
    row("half in C++",
        extensionWith(u"src = 'void g(torch::Tensor x) { auto h = x.to(torch::kHalf); }'"_s),
        precision);
    row("tf32 in C++",
        extensionWith(u"src = 'void g() { at::globalContext().setAllowTF32CuBLAS(true); }'"_s),
        precision);
    row("int8 in C++",
        extensionWith(u"src = 'void g(torch::Tensor x) { auto q = x.to(torch::kChar); }'"_s),
        precision);
    row("int8 matmul in C++",
        extensionWith(
            u"src = 'void g(torch::Tensor a, torch::Tensor b) { auto c = at::_int_mm(a, b); }'"_s),
        precision);
    row("dp4a", extensionWith(u"src = 'int g(int a, int b) { return __dp4a(a, b, 0); }'"_s),
        precision);
    row("char4",
        extensionWith(u"src = 'int g() { char4 v = make_char4(1, 2, 3, 4); return v.x; }'"_s),
        precision);
    row("SIMD bytes",
        extensionWith(u"src = 'unsigned g(unsigned a, unsigned b) { return __vadd4(a, b); }'"_s),
        precision);
    row("int8 wmma fragment",
        extensionWith(u"src = 'using namespace nvcuda; void g() { wmma::fragment<wmma::matrix_a, "
                      "16, 16, 16, signed char, wmma::row_major> a; }'"_s),
        precision);
    row("int4 wmma precision",
        extensionWith(u"src = 'using namespace nvcuda; void g() { wmma::fragment<wmma::matrix_a, "
                      "8, 8, 32, wmma::experimental::precision::s4, wmma::row_major> a; }'"_s),
        precision);
    row("dp4a in PTX",
        extensionWith(u"src = 'int g(int a, int b) { int c; asm(\"dp4a.s32.s32 %0, %1, %2, %3;\" "
                      ": \"=r\"(c) : \"r\"(a), \"r\"(b), \"r\"(0)); return c; }'"_s),
        precision);
    row("quantising PTX",
        extensionWith(u"src = 'int g(float x) { int q; asm(\"cvt.rni.sat.s8.f32 %0, %1;\" "
                      ": \"=r\"(q) : \"f\"(x)); return q; }'"_s),
        precision);
    row("line marker",
        extensionWith(u"src = '# 1 \"/usr/include/stdlib.h\"\\nvoid g() { cublasSgemm(0); }'"_s),
        forbidden);
    row("named escape",
        extensionWith(u"src = 'void g() { \\N{LATIN SMALL LETTER C}ublasSgemm(0); }'"_s), intro);
    row("load from files",
        softmaxWith(u"from torch.utils.cpp_extension import load\n"
                    "other = load(name='x', sources=['x.cu'])"_s),
        intro);
}
} // namespace

class TstTorchScreen : public QObject
{
    Q_OBJECT

private slots:
    void problemFiles();
    void candidates_data();
    void candidates();
    void obfuscation_data();
    void obfuscation();
    void notFindings_data();
    void notFindings();
    void partialLibraryIsAdvice();
    void unpackedSizesAreNumbers();
    void lineNumbers();
    void referencePrecisionIsAllowed();
    void tritonRules_data();
    void tritonRules();
    void kernelNamesDoNotHidePython();
    void catalogue();
};

// The importer's view of the problem files: three valid level-1 problems and one level-2
// problem; the malformed two are reported.
void TstTorchScreen::problemFiles()
{
    const QDir level1(kData + u"/KernelBench/level1"_s);
    QCOMPARE(KernelBenchSource::problemDefects(
                 testing::readFile(level1.filePath(u"4_Missing_get_inputs.py"_s))),
             QStringList{u"no top-level `def get_inputs()`"_s});
    QVERIFY(!KernelBenchSource::problemDefects(
                 testing::readFile(level1.filePath(u"5_Not_a_problem.py"_s)))
                 .isEmpty());
    const QStringList names = problemTasks().keys();
    QCOMPARE(names, (QStringList{u"kb1_001_scaled_residual_add"_s, u"kb1_002_row_softmax"_s,
                                 u"kb1_003_small_matmul"_s, u"kb2_001_matmul_bias_relu"_s}));
}

// The inline-CUDA candidates, judged in a run of the default language, and the Triton ones
// (candidates/triton) in a Triton run.
void TstTorchScreen::candidates_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("language");
    const QDir dir(kData + u"/candidates"_s);
    const QFileInfoList files = dir.entryInfoList({u"*.py"_s}, QDir::Files, QDir::Name);
    QVERIFY(files.size() >= 18);
    for (const QFileInfo &file : files)
        QTest::newRow(qPrintable(file.fileName())) << file.filePath() << u"cuda"_s;
    const QFileInfoList triton =
        QDir(dir.filePath(u"triton"_s)).entryInfoList({u"*.py"_s}, QDir::Files, QDir::Name);
    QVERIFY(triton.size() >= 10);
    for (const QFileInfo &file : triton)
        QTest::newRow(qPrintable(u"triton/"_s + file.fileName())) << file.filePath() << u"triton"_s;
}

// Every candidate expecting a screen flag X raises it blocking; honest ones raise nothing at all;
// wrong ones, compile errors and crashes raise nothing that blocks (their verdict comes from
// running them).
void TstTorchScreen::candidates()
{
    QFETCH(QString, path);
    QFETCH(QString, language);
    const testing::Expectation expectation = testing::readExpectation(path);
    QVERIFY2(!expectation.task.isEmpty(), "first line must be `# expect: task=... verdict=...`");
    const Task problem = task(expectation.task);
    QVERIFY2(problem.isKernelBench(), qPrintable(u"no problem for "_s + expectation.task));
    const QList<CheatFlag> flags =
        TorchScreen::screen(problem, testing::readFile(path), *KernelLanguages::find(language));
    const QString found = describe(flags);
    // A flag of the correctness or timing stage comes from running the candidate: the screen
    // must then raise nothing that blocks.
    const FlagInfo *info = FlagCatalog::find(expectation.flag);
    const bool dynamicFlag = info && info->stage != u"screen";
    // A screen flag may stand beside another verdict (an import that also fails to compile).
    if (!expectation.flag.isEmpty() && !dynamicFlag) {
        QVERIFY2(testing::blockingFlagIds(flags).contains(expectation.flag),
                 qPrintable(u"expected blocking "_s + expectation.flag + u", got\n  "_s + found));
    } else if (expectation.verdict == u"pass") {
        // Nothing, but the advice the usual level-2 practice (a library op kept) earns.
        const bool onlyAdvice = std::all_of(flags.cbegin(), flags.cend(), [](const CheatFlag &f) {
            return f.id == u"torch_partial_library"_s;
        });
        QVERIFY2(onlyAdvice, qPrintable(u"expected no findings, got\n  "_s + found));
    } else {
        QVERIFY2(testing::blockingFlagIds(flags).isEmpty(),
                 qPrintable(u"expected nothing blocking, got\n  "_s + found));
    }
}

void TstTorchScreen::obfuscation_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("flag");
    addPatchRows();
    addIntrospectionRows();
    addPrecisionStreamThreadRows();
    addLibraryRows();
    addReferenceRows();
    addInlineSourceRows();
}

void TstTorchScreen::obfuscation()
{
    QFETCH(QString, source);
    QFETCH(QString, flag);
    const QList<CheatFlag> flags = TorchScreen::screen(task(u"kb1_002_row_softmax"_s), source);
    QVERIFY2(testing::blockingFlagIds(flags).contains(flag) ||
                 (findFlag(flags, flag) && !FlagCatalog::find(flag)->blocking),
             qPrintable(u"expected "_s + flag + u", got\n  "_s + describe(flags)));
}

// What a Triton run's screen adds: the language's reduced dtypes and precision keywords, its
// bundled library kernels, and another language's modules; and what it leaves alone.
void TstTorchScreen::tritonRules_data()
{
    QTest::addColumn<QString>("body");
    QTest::addColumn<QString>("flag"); // empty: nothing blocking
    const QString kernel = u"@triton.jit\n"
                           "def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n"
                           "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                           "    x = tl.load(x_ptr + o, mask=o < n)\n"
                           "    %1\n"
                           "    tl.store(y_ptr + o, y, mask=o < n)\n"_s;
    auto row = [&](const char *name, const QString &line, const QString &extra,
                   const QString &flag) {
        QTest::newRow(name) << extra + kernel.arg(line) << flag;
    };
    const QString precision = u"precision_downgrade"_s;
    row("honest", u"y = tl.exp(x - tl.max(x, axis=0))"_s, {}, {});
    row("half cast", u"y = x.to(tl.float16).to(tl.float32)"_s, {}, precision);
    row("bfloat16 alias", u"y = x.to(tlang.bfloat16)"_s, u"import triton.language as tlang\n"_s,
        precision);
    row("allow_tf32", u"y = tl.dot(x, x, allow_tf32=True)"_s, {}, precision);
    row("tf32x3", u"y = tl.dot(x, x, input_precision='tf32x3')"_s, {}, precision);
    row("ieee dot", u"y = tl.dot(x, x, input_precision='ieee')"_s, {}, {});
    row("tf32 by position", u"y = tl.dot(x, x, None, 'tf32')"_s, {}, precision);
    row("precision from a name", u"y = tl.dot(x, x, input_precision=PREC)"_s, u"PREC = 'tf32'\n"_s,
        precision);
    row("precision from kwargs", u"y = tl.dot(x, x, **OPTS)"_s, u"OPTS = {}\n"_s, precision);
    row("load_inline beside triton", u"y = x"_s,
        u"from torch.utils.cpp_extension import load_inline\n"_s, u"language_mismatch"_s);
    row("triton.ops", u"y = x"_s, u"from triton.ops import matmul\n"_s, u"torch_library_compute"_s);
    row("cute module", u"y = x"_s, u"import cutlass.cute as cute\n"_s, u"language_mismatch"_s);
    row("try in a kernel", u"y = x\n    try:\n        pass\n    except Exception:\n        pass"_s,
        {}, u"torch_fallback"_s);
}

// Inline CUDA's kernels live in strings: a Python function that shares a kernel's name (here
// one only a comment declares) is Python, and its PyTorch compute counts.
void TstTorchScreen::kernelNamesDoNotHidePython()
{
    const QString source = u"import torch\nimport torch.nn as nn\n"
                           "from torch.utils.cpp_extension import load_inline\n"
                           "# __global__ void helper(float* x)\n"
                           "def helper(x):\n"
                           "    return torch.softmax(x, dim=1)\n"
                           "class ModelNew(nn.Module):\n"
                           "    def forward(self, x):\n"
                           "        return helper(x)\n"_s;
    const QList<CheatFlag> flags = TorchScreen::screen(task(u"kb1_002_row_softmax"_s), source);
    QVERIFY2(testing::blockingFlagIds(flags).contains(u"torch_library_compute"_s),
             qPrintable(describe(flags)));
}

void TstTorchScreen::tritonRules()
{
    QFETCH(QString, body);
    QFETCH(QString, flag);
    const QString source =
        u"import torch\nimport torch.nn as nn\nimport triton\n"
        "import triton.language as tl\n"_s +
        body +
        u"\nclass ModelNew(nn.Module):\n"
        "    def forward(self, x):\n"
        "        y = torch.empty_like(x)\n"
        "        k[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)\n"
        "        return y\n"_s;
    const QList<CheatFlag> flags = TorchScreen::screen(task(u"kb1_002_row_softmax"_s), source,
                                                       *KernelLanguages::find(u"triton"_s));
    if (flag.isEmpty())
        QVERIFY2(testing::blockingFlagIds(flags).isEmpty(), qPrintable(describe(flags)));
    else
        QVERIFY2(testing::blockingFlagIds(flags).contains(flag),
                 qPrintable(u"expected "_s + flag + u", got\n  "_s + describe(flags)));
}

void TstTorchScreen::notFindings_data()
{
    QTest::addColumn<QString>("source");
    auto row = [](const char *name, const QString &source) { QTest::newRow(name) << source; };
    row("comments", softmaxWith(u"# torch.cuda.Stream(), try: except:, import threading, Model()\n"
                                "# torch.cuda.Event = object"_s));
    row("docstring",
        softmaxWith(u"def helper():\n"
                    "    \"\"\"Unlike torch.softmax(x) or class ModelNew(Model), this\n"
                    "    uses no threading, no /proc and no .half().\"\"\"\n"
                    "    return 1"_s));
    row("strings that are not sources",
        softmaxWith(u"NOTE = 'cublasSgemm and torch.cuda.Stream are not used here'"_s));
    row("variable named half",
        softmaxWith(QString(), u"        half = x.size(1) // 2\n"
                               "        return self.row_softmax.row_softmax_cuda(x)\n"_s));
    row("device variable named half",
        softmaxWith(QString(), QString(),
                    u"__device__ int halve(int n) { int half = n / 2; return half; }\n"_s));
    row("own objects",
        softmaxWith(u"config = {}\nconfig['block'] = 256\n"
                    "class Options:\n    pass\nopts = Options()\nopts.block = 256"_s));
    row("shape arithmetic",
        softmaxWith(QString(), u"        rows = x.size(0) * 1\n"
                               "        assert rows + 0 == x.shape[0]\n"
                               "        return self.row_softmax.row_softmax_cuda(x)\n"_s));
    row("harmless imports", softmaxWith(u"import math\nimport os\nimport time\n"
                                        "BLOCK = int(os.environ.get('BLOCK', '256'))\n"
                                        "t0 = time.perf_counter()"_s));
    row("f-string source",
        extensionWith(u"BLOCK = 128\nsrc = f'constexpr int kBlock = {BLOCK};'"_s));
    row("list of sources", extensionWith(u"a = 'int x;'\nsrc = [a, '''\nint y;\n''']"_s));
    row("byte masks and float wmma",
        extensionWith(u"src = 'using namespace nvcuda; float g(const uchar4* m, float x) { "
                      "wmma::fragment<wmma::accumulator, 16, 16, 16, float> c; uchar4 v = m[0]; "
                      "return v.x ? x : 0.0f; }'"_s));
    row("harmless flags",
        extensionWith(u"src = 'int x;'"_s,
                      u", extra_cflags=['-O3', ''], extra_cuda_cflags=['-O3', "
                      "'--use_fast_math', '-lineinfo', '-DBLOCK=256', '-Xptxas', '-v']"_s));
}

// Names in comments and docstrings, variables that merely look like findings, and the
// candidate's own objects raise nothing that blocks.
void TstTorchScreen::notFindings()
{
    QFETCH(QString, source);
    const QList<CheatFlag> flags = TorchScreen::screen(task(u"kb1_002_row_softmax"_s), source);
    QVERIFY2(testing::blockingFlagIds(flags).isEmpty(), qPrintable(u"got\n  "_s + describe(flags)));
}

// The usual level-2 practice: nn.Linear stays in PyTorch, the custom kernel does the ReLU.
void TstTorchScreen::partialLibraryIsAdvice()
{
    QString source = candidateFile(u"matmul_bias_relu.py"_s);
    source.replace(
        u"        return self.fused.linear_bias_relu_cuda(x, self.linear.weight, self.linear.bias)"_s,
        u"        y = self.linear(x)\n"
        "        return self.fused.linear_bias_relu_cuda(y, self.linear.weight, self.linear.bias)"_s);
    const QList<CheatFlag> flags = TorchScreen::screen(task(u"kb2_001_matmul_bias_relu"_s), source);
    QVERIFY2(testing::blockingFlagIds(flags).isEmpty(), qPrintable(describe(flags)));
    const CheatFlag *partial = findFlag(flags, u"torch_partial_library"_s);
    QVERIFY2(partial, qPrintable(describe(flags)));
    QCOMPARE(partial->lines, QList<int>{lineOf(source, u"y = self.linear(x)"_s)});

    // All of the reference's work in PyTorch is no solution, whatever the kernel does.
    source.replace(u"        y = self.linear(x)\n"_s,
                   u"        y = torch.relu(self.linear(x))\n"_s);
    QVERIFY(
        testing::blockingFlagIds(TorchScreen::screen(task(u"kb2_001_matmul_bias_relu"_s), source))
            .contains(u"torch_library_compute"_s));
}

// Sizes unpacked from a shape are numbers: arithmetic on them is no PyTorch compute. A tuple
// that could hold a tensor beside a size makes none of its names a number.
void TstTorchScreen::unpackedSizesAreNumbers()
{
    const auto partial = [](const QString &forward) {
        const QString source = softmaxWith(
            QString(), forward + u"        return self.row_softmax.row_softmax_cuda(x)\n"_s);
        return findFlag(TorchScreen::screen(task(u"kb1_002_row_softmax"_s), source),
                        u"torch_partial_library"_s) != nullptr;
    };
    QVERIFY(!partial(u"        rows, cols = x.shape\n"
                     "        scale = 1.0 / rows + cols * 2\n"_s));
    QVERIFY(!partial(u"        rows, cols = x.size(0), x.size(1)\n"
                     "        scale = 1.0 / rows\n"_s));
    QVERIFY(partial(u"        y, n = x, x.numel()\n"
                    "        x = y * 2\n"_s));
}

// Flags point at lines of the Python file, also for text inside the CUDA strings.
void TstTorchScreen::lineNumbers()
{
    const QString cublas = candidateFile(u"game_cublas_sgemm.py"_s);
    QList<CheatFlag> flags = TorchScreen::screen(task(u"kb1_003_small_matmul"_s), cublas);
    const CheatFlag *library = findFlag(flags, u"forbidden_library"_s);
    QVERIFY2(library, qPrintable(describe(flags)));
    QVERIFY2(library->lines.contains(lineOf(cublas, u"cublasSgemm(handle"_s)),
             qPrintable(describe(flags)));

    // One Python line holding several C++ lines (\n escapes), and implicit concatenation.
    const QString escaped =
        extensionWith(u"src = (\"#include <x>\\nint a;\\n\"\n"
                      "       \"void g() { cudaStream_t s; cudaStreamCreate(&s); }\\n\")"_s);
    flags = TorchScreen::screen(task(u"kb1_002_row_softmax"_s), escaped);
    const CheatFlag *created = findFlag(flags, u"stream_creation"_s);
    QVERIFY2(created, qPrintable(describe(flags)));
    QCOMPARE(created->lines, QList<int>{lineOf(escaped, u"cudaStreamCreate"_s)});

    // Python-level flags.
    const QString patched = softmaxWith(u"import time\n\ntime.perf_counter = lambda: 0.0"_s);
    flags = TorchScreen::screen(task(u"kb1_002_row_softmax"_s), patched);
    const CheatFlag *patch = findFlag(flags, u"torch_monkey_patch"_s);
    QVERIFY2(patch, qPrintable(describe(flags)));
    QCOMPARE(patch->lines, QList<int>{lineOf(patched, u"time.perf_counter = "_s)});

    const QString fallback = candidateFile(u"game_try_except_fallback.py"_s);
    flags = TorchScreen::screen(task(u"kb1_002_row_softmax"_s), fallback);
    QCOMPARE(findFlag(flags, u"torch_fallback"_s)->lines,
             QList<int>{lineOf(fallback, u"        try:"_s)});

    // A default-stream launch is advice, at the launch's line.
    QString defaultStream = candidateFile(u"row_softmax.py"_s);
    defaultStream.replace(u"<<<rows, kThreads, 0, at::cuda::getCurrentCUDAStream()>>>"_s,
                          u"<<<rows, kThreads>>>"_s);
    flags = TorchScreen::screen(task(u"kb1_002_row_softmax"_s), defaultStream);
    const CheatFlag *advice = findFlag(flags, u"torch_default_stream"_s);
    QVERIFY2(advice && !advice->blocking, qPrintable(describe(flags)));
    QCOMPARE(advice->lines, QList<int>{lineOf(defaultStream, u"<<<rows, kThreads>>>"_s)});
    QVERIFY(testing::blockingFlagIds(flags).isEmpty());
}

// Precision the reference itself uses is no downgrade.
void TstTorchScreen::referencePrecisionIsAllowed()
{
    Task half = task(u"kb1_003_small_matmul"_s);
    QString reference = half.referenceSource.value(Backend::Torch);
    reference.replace(u"torch.randn(M, K)"_s, u"torch.randn(M, K, dtype=torch.float16)"_s);
    reference.replace(u"torch.randn(K, N)"_s, u"torch.randn(K, N, dtype=torch.float16)"_s);
    half.referenceSource.insert(Backend::Torch, reference);
    const QString candidate = candidateFile(u"game_half_precision.py"_s);
    QVERIFY(findFlag(TorchScreen::screen(task(u"kb1_003_small_matmul"_s), candidate),
                     u"precision_downgrade"_s));
    const QList<CheatFlag> flags = TorchScreen::screen(half, candidate);
    QVERIFY2(!findFlag(flags, u"precision_downgrade"_s), qPrintable(describe(flags)));
}

// Every id the screen raises is in the catalogue; the new ones with the agreed severity.
void TstTorchScreen::catalogue()
{
    const QMap<QString, bool> expected = {
        {u"torch_reference_model"_s, true},      {u"torch_fallback"_s, true},
        {u"torch_library_compute"_s, true},      {u"torch_partial_library"_s, false},
        {u"torch_monkey_patch"_s, true},         {u"torch_threads"_s, true},
        {u"torch_lazy_tensor"_s, true},          {u"torch_stream"_s, true},
        {u"torch_default_stream"_s, false},      {u"torch_introspection"_s, true},
        {u"torch_state_between_calls"_s, false}, {u"precision_downgrade"_s, true}};
    for (auto it = expected.cbegin(); it != expected.cend(); ++it) {
        const FlagInfo *info = FlagCatalog::find(it.key());
        QVERIFY2(info, qPrintable(it.key()));
        QCOMPARE(info->blocking, it.value());
        QCOMPARE(info->stage, u"screen"_s);
    }
    const QDir dir(kData + u"/candidates"_s);
    for (const QFileInfo &file : dir.entryInfoList({u"*.py"_s}, QDir::Files)) {
        const testing::Expectation expectation = testing::readExpectation(file.filePath());
        for (const CheatFlag &flag :
             TorchScreen::screen(task(expectation.task), testing::readFile(file.filePath())))
            QVERIFY2(FlagCatalog::find(flag.id), qPrintable(flag.id));
    }
}

QTEST_GUILESS_MAIN(TstTorchScreen)
#include "tst_torchscreen.moc"
