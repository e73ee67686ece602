// The static screen against scanner evasion (issue 34, item 5): names built by macros, aliases
// and indirect calls, raw system calls in inline assembly, and the C library's other names.
// Each gaming row has an honest twin that must raise nothing blocking; the corpus slot screens
// every file of tests/data/candidates the way the backends do (g++ -save-temps for the CPU,
// the raw source for NVRTC) against its `// expect:` line.

#include "candidateexpectation.h"
#include "tasks/taskloader.h"
#include "verifier/screen/flagcatalog.h"
#include "verifier/screen/native/elfsymbols.h"
#include "verifier/screen/native/macroexpander.h"
#include "verifier/screen/native/staticscreen.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;

namespace {

// Preprocessed text as g++ -E writes it: a header line, then the candidate from its line 1.
QString preprocessed(const QString &body)
{
    return QStringLiteral("# 0 \"cand.cpp\"\n# 1 \"/usr/include/unistd.h\" 1 3 4\n"
                          "extern \"C\" int mprotect(void *, unsigned long, int);\n"
                          "# 1 \"cand.cpp\" 2\n") +
           body;
}

QString describe(const QList<CheatFlag> &flags)
{
    QStringList parts;
    for (const CheatFlag &flag : flags) {
        QStringList lines;
        for (int line : flag.lines)
            lines << QString::number(line);
        parts << flag.id + (flag.blocking ? QStringLiteral("!") : QString()) + QLatin1Char('@') +
                     lines.join(QLatin1Char(',')) + QStringLiteral(" [") + flag.message +
                     QLatin1Char(']');
    }
    return parts.join(QStringLiteral("; "));
}

CheatFlag flagOf(const QList<CheatFlag> &flags, const QString &id)
{
    for (const CheatFlag &flag : flags) {
        if (flag.id == id)
            return flag;
    }
    return {};
}

bool anyBlocking(const QList<CheatFlag> &flags)
{
    for (const CheatFlag &flag : flags) {
        if (flag.blocking)
            return true;
    }
    return false;
}

Task loadTask(const QString &name)
{
    const TaskLoader::Result loaded =
        TaskLoader::load(QStringLiteral(KILN_SOURCE_DIR "/tasks/") + name);
    return loaded.ok() ? *loaded.task : Task();
}

// What the CPU backend screens: the preprocessed text and the object of one g++ run.
struct Compiled
{
    bool ok = false;
    QString preprocessed;
    ElfSymbols symbols;
};

Compiled compileLikeTheCpuBackend(const QString &source)
{
    Compiled result;
    QTemporaryDir dir;
    QFile file(dir.filePath(QStringLiteral("cand.cpp")));
    if (!file.open(QIODevice::WriteOnly))
        return result;
    file.write(source.toUtf8());
    file.close();
    QProcess compiler;
    compiler.setWorkingDirectory(dir.path());
    compiler.start(QStringLiteral("g++"),
                   {QStringLiteral("-std=c++17"), QStringLiteral("-O2"), QStringLiteral("-fopenmp"),
                    QStringLiteral("-fPIC"), QStringLiteral("-march=native"),
                    QStringLiteral("-save-temps=obj"), QStringLiteral("-c"),
                    QStringLiteral("cand.cpp")});
    if (!compiler.waitForFinished(60000) || compiler.exitCode() != 0)
        return result;
    QFile ii(dir.filePath(QStringLiteral("cand.ii")));
    QFile object(dir.filePath(QStringLiteral("cand.o")));
    if (!ii.open(QIODevice::ReadOnly) || !object.open(QIODevice::ReadOnly))
        return result;
    result.preprocessed = QString::fromUtf8(ii.readAll());
    result.symbols = ElfSymbols::read(object.readAll());
    result.ok = result.symbols.valid;
    return result;
}

} // namespace

class TestScreenEvasion : public QObject
{
    Q_OBJECT

private:
    Task m_vectorAdd;

    static void addTokenRows();
    static void addAsmRows();
    static void addRawRows();

private slots:
    void initTestCase()
    {
        m_vectorAdd = loadTask(QStringLiteral("vector_add"));
        QVERIFY(!m_vectorAdd.name.isEmpty());
    }

    // The text the preprocessor reads keeps every line where it was.
    void preparedTextKeepsLines()
    {
        const QString source = QStringLiteral("#include \"/etc/passwd\"\n"
                                              "#define CAT(a, b) a##b\n"
                                              "#if 0\n"
                                              "#define HIDE(x) CAT(mpro, tect)(x)\n"
                                              "#else\n"
                                              "#define HIDE(x) (x)\n"
                                              "#endif\n"
                                              "#line 90 \"x.h\"\n"
                                              "int v = HIDE(1);\n");
        const QString prepared = MacroExpander::prepared(source);
        QVERIFY(!prepared.contains(QLatin1String("include")));
        QVERIFY(!prepared.contains(QLatin1String("#if")));
        QVERIFY(!prepared.contains(QLatin1String("#else")));
        QVERIFY(!prepared.contains(QLatin1String("x.h")));
        // Each definition is used once where it stands, with placeholder arguments, then the
        // numbering resumes.
        QVERIFY2(prepared.contains(QLatin1String("#line 4\nHIDE(kiln_argument_0)\n#line 5\n")),
                 qPrintable(prepared));
        QVERIFY2(prepared.contains(
                     QLatin1String("#line 2\nCAT(kiln_argument_0, kiln_argument_1)\n#line 3\n")),
                 qPrintable(prepared));
        if (MacroExpander::preprocessor().isEmpty())
            QSKIP("no host preprocessor");
        const MacroExpander::Result expanded =
            MacroExpander::expand(source, QStringLiteral("cand.cu"));
        QCOMPARE(expanded.status, MacroExpander::Status::Expanded);
        const QList<StaticScreen::Token> tokens =
            StaticScreen::candidateTokens(expanded.text, QStringLiteral("cand.cu"));
        // The definition the compiler skips still shows its pasted name on its own line; the
        // code keeps its line.
        QStringList seen;
        for (const StaticScreen::Token &token : tokens)
            seen << QStringLiteral("%1@%2").arg(token.text).arg(token.line);
        QVERIFY2(seen.contains(QLatin1String("mprotect@4")),
                 qPrintable(seen.join(QLatin1Char(' '))));
        QVERIFY2(seen.contains(QLatin1String("v@9")), qPrintable(seen.join(QLatin1Char(' '))));
    }

    // A macro that expands without end is a blocking finding, not a hang.
    void macroBombIsBounded()
    {
        if (MacroExpander::preprocessor().isEmpty())
            QSKIP("no host preprocessor");
        QString source;
        source += QStringLiteral("#define A0 x x x x\n");
        for (int k = 1; k < 24; ++k)
            source += QStringLiteral("#define A%1 A%2 A%2 A%2 A%2\n").arg(k).arg(k - 1);
        source += QStringLiteral("__global__ void k(float *y) { y[0] = 1; }\n");
        QElapsedTimer timer;
        timer.start();
        const QList<CheatFlag> flags = StaticScreen::screen(
            m_vectorAdd, Backend::Cuda, source, QStringLiteral("cand.cu"), ElfSymbols());
        QVERIFY(timer.elapsed() < MacroExpander::kTimeoutMs + 5000);
        const CheatFlag found = flagOf(flags, QStringLiteral("unscreenable_source"));
        QVERIFY2(found.blocking, qPrintable(describe(flags)));
    }

    // Rules on the preprocessed tokens (CPU; the same on CUDA): flag and line, or nothing
    // blocking for an honest twin.
    void tokenRules_data()
    {
        QTest::addColumn<QString>("body");
        QTest::addColumn<QString>("flag"); // empty: nothing blocking
        QTest::addColumn<int>("line");
        addTokenRows();
        addAsmRows();
    }

    void tokenRules()
    {
        QFETCH(QString, body);
        QFETCH(QString, flag);
        QFETCH(int, line);
        const QList<CheatFlag> flags =
            StaticScreen::screen(m_vectorAdd, preprocessed(body), QStringLiteral("cand.cpp"), {});
        if (flag.isEmpty()) {
            QVERIFY2(!anyBlocking(flags), qPrintable(describe(flags)));
            return;
        }
        const CheatFlag found = flagOf(flags, flag);
        QVERIFY2(found.blocking && found.lines.contains(line), qPrintable(describe(flags)));
    }

    // Raw sources (NVRTC's device code, load_inline's C++): screened as written and with their
    // macros expanded; a finding only the expansion shows says so.
    void rawSources_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("flag"); // empty: nothing blocking
        QTest::addColumn<int>("line");
        QTest::addColumn<bool>("expansionOnly");
        addRawRows();
    }

    void rawSources()
    {
        QFETCH(QString, source);
        QFETCH(QString, flag);
        QFETCH(int, line);
        QFETCH(bool, expansionOnly);
        if (expansionOnly && MacroExpander::preprocessor().isEmpty())
            QSKIP("no host preprocessor");
        const QList<CheatFlag> flags =
            StaticScreen::screen(m_vectorAdd, Backend::Cuda, source, QStringLiteral("cand.cu"), {});
        if (flag.isEmpty()) {
            QVERIFY2(!anyBlocking(flags), qPrintable(describe(flags)));
            return;
        }
        const CheatFlag found = flagOf(flags, flag);
        QVERIFY2(found.blocking && found.lines.contains(line), qPrintable(describe(flags)));
        QCOMPARE(found.message.contains(QLatin1String("after macro expansion")), expansionOnly);
    }

    // Every candidate of the corpus, screened as its backend screens it: a `flagged` one whose
    // flag is the screen's raises it, blocking; a `pass` raises nothing blocking.
    void corpus_data()
    {
        QTest::addColumn<QString>("path");
        const QString root = QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/");
        for (const QString &folder : {QStringLiteral("cpu"), QStringLiteral("hostile")}) {
            const QDir dir(root + folder);
            for (const QString &name : dir.entryList({QStringLiteral("*.cpp")}, QDir::Files))
                QTest::newRow(qPrintable(folder + QLatin1Char('/') + name)) << dir.filePath(name);
        }
        // CUDA files as NVRTC would get them: the raw text (nvcc's own passes are read by
        // tst_staticscreen where nvcc is installed).
        const QDir cuda(root + QStringLiteral("cuda"));
        for (const QString &name : cuda.entryList({QStringLiteral("*.cu")}, QDir::Files))
            QTest::newRow(qPrintable(QStringLiteral("cuda/") + name)) << cuda.filePath(name);
    }

    void corpus()
    {
        QFETCH(QString, path);
        const testing::Expectation expectation = testing::readExpectation(path);
        const Task task = loadTask(expectation.task);
        QVERIFY2(!task.name.isEmpty(), qPrintable(expectation.task));
        const QString source = testing::readFile(path);
        const bool cuda = path.endsWith(QLatin1String(".cu"));
        QList<CheatFlag> flags;
        if (cuda) {
            flags =
                StaticScreen::screen(task, Backend::Cuda, source, QStringLiteral("cand.cu"), {});
        } else {
            const Compiled compiled = compileLikeTheCpuBackend(source);
            if (!compiled.ok)
                QVERIFY2(expectation.verdict == QLatin1String("compile_error"), "g++ failed");
            flags = StaticScreen::screen(task, compiled.preprocessed, QStringLiteral("cand.cpp"),
                                         compiled.symbols);
            // As the CPU evaluation adds it: line markers written in the source.
            if (!StaticScreen::lineDirectiveLines(source).isEmpty())
                flags.append(FlagCatalog::make(QStringLiteral("line_directive")));
        }
        const FlagInfo *info = FlagCatalog::find(expectation.flag);
        const bool screenFlag = info && info->stage == QLatin1String("screen");
        const bool deviceOnly = source.contains(QLatin1String("kiln-launch:"));
        if (expectation.verdict == QLatin1String("flagged") && screenFlag && (!cuda || deviceOnly))
            QVERIFY2(
                flagOf(flags, expectation.flag).blocking,
                qPrintable(
                    QStringLiteral("expected %1, got %2").arg(expectation.flag, describe(flags))));
        if (expectation.verdict == QLatin1String("pass"))
            QVERIFY2(!anyBlocking(flags), qPrintable(describe(flags)));
    }
};

void TestScreenEvasion::addTokenRows()
{
    auto row = [](const char *name, const char *body, const char *flag, int line) {
        QTest::newRow(name) << QString::fromUtf8(body) << QString::fromLatin1(flag) << line;
    };
    // Forbidden functions named without a call.
    row("address of mprotect", "void f() {\n  auto p = &mprotect;\n  p(0, 0, 0);\n}\n",
        "memory_protection", 2);
    row("alias through using/decltype",
        "using F = decltype(mprotect);\nF *g = mprotect;\nvoid f() { g(0, 0, 7); }\n",
        "memory_protection", 1);
    row("reference to a function", "int (&r)(void *, unsigned long, int) = ::mprotect;\n",
        "memory_protection", 1);
    row("constexpr table of pointers",
        "constexpr void *table[] = {\n  (void *)&puts,\n  (void *)&std::exit};\n", "process_exit",
        3);
    row("parenthesised call", "void f() {\n  (syscall)(39);\n}\n", "raw_system_calls", 2);
    row("address of clock_gettime", "void f() {\n  auto clk = &clock_gettime;\n  (void)clk;\n}\n",
        "timer_tampering", 2);
    row("address of steady_clock::now",
        "auto f() {\n  return &std::chrono::steady_clock::now;\n}\n", "timer_tampering", 2);
    // The C library's other names for the same functions.
    row("__mprotect",
        "extern \"C\" int __mprotect(void *, unsigned long, int);\nvoid f() {\n"
        "  __mprotect(0, 0, 7);\n}\n",
        "memory_protection", 3);
    row("__libc_dlsym", "void f() {\n  __libc_dlsym(0, 0);\n}\n", "dynamic_loading", 2);
    row("__write_nocancel", "void f() {\n  __write_nocancel(1, 0, 0);\n}\n", "raw_system_calls", 2);
    row("__builtin__exit", "void f() {\n  __builtin__exit(0);\n}\n", "process_exit", 2);
    row("dl_iterate_phdr", "void f() {\n  dl_iterate_phdr(0, 0);\n}\n", "dynamic_loading", 2);
    row("return address", "void *f() {\n  return __builtin_return_address(0);\n}\n",
        "process_inspection", 2);
    row("getauxval", "unsigned long f() {\n  return getauxval(3);\n}\n", "process_inspection", 2);
    // Names spelled in strings.
    row("dlsym of a pasted string", "void f(void *h) {\n  dlsym(h, \"mpro\" \"tect\");\n}\n",
        "memory_protection", 2);
    row("asm label",
        "extern \"C\" int hidden(void *, unsigned long, int)\n"
        "    __asm__(\"mprotect\");\n",
        "memory_protection", 2);
    row("weakref", "static int w(int) __attribute__((weakref(\"syscall\")));\n", "raw_system_calls",
        1);
    row("escaped string", "const char *n = \"\\x6dprotect\";\n", "memory_protection", 1);
    // Code reached through a cast to a function pointer.
    row("integer to function pointer",
        "void f(unsigned long a) {\n  reinterpret_cast<void (*)()>(a)();\n}\n", "dynamic_loading",
        2);
    row("C cast to a function pointer", "void f(long a) {\n  ((int (*)(int))a)(39);\n}\n",
        "dynamic_loading", 2);
    row("cast to a typedef'd pointer",
        "typedef long (*Raw)(long);\nlong f(long a) {\n  Raw r = (Raw)a;\n  return r(39);\n}\n",
        "dynamic_loading", 3);
    row("bit_cast to a using alias",
        "using Fn = void (*)();\nvoid f(unsigned long a) {\n  std::bit_cast<Fn>(a)();\n}\n",
        "dynamic_loading", 3);

    // Honest twins.
    row("variables named like libc functions",
        "float f(float time, int signal) {\n  int write = 2, open = 1;\n"
        "  return time * signal + write + open;\n}\n",
        "", 0);
    row("members named like libc functions",
        "struct Io { int (*close)(int); int read; };\nint f(Io io) {\n  return io.read + "
        "io.close(0);\n}\n",
        "", 0);
    row("table of own functions",
        "static float add(float a, float b) { return a + b; }\n"
        "static float mul(float a, float b) { return a * b; }\n"
        "using Op = float (*)(float, float);\nconstexpr Op ops[] = {&add, mul};\n"
        "float f(int k) {\n  return ops[k](1.0f, 2.0f);\n}\n",
        "", 0);
    row("own function cast for a thread",
        "static void *work(void *p) { return p; }\nvoid f() {\n"
        "  auto w = reinterpret_cast<void *(*)(void *)>(&work);\n  w(0);\n}\n",
        "", 0);
    row("sizeof a function pointer type",
        "unsigned long f() {\n  return sizeof(void (*)(int));\n}\n", "", 0);
    row("std::remove_if and std::time-free code",
        "#include <algorithm>\nint f(int *p, int n) {\n"
        "  return std::remove_if(p, p + n, [](int x) { return x < 0; }) - p;\n}\n",
        "", 0);
    row("struct named link",
        "struct link { link *next; };\nint f(link *l) {\n"
        "  return l->next == (link *)0;\n}\n",
        "", 0);
    row("enumerators named like libc functions",
        "enum class Mode { read, write };\nint f(Mode m) {\n  return m == Mode::write;\n}\n"
        "enum Io { open = 1, close };\nint g() {\n  return open + close;\n}\n",
        "", 0);
    row("structured binding",
        "#include <utility>\nint f(std::pair<int, int> p) {\n  auto [read, write] = p;\n"
        "  return read + write;\n}\n",
        "", 0);
    row("device helpers named read and write",
        "__device__ float read(const float *p, int i) { return p[i]; }\n"
        "__device__ void write(float *p, int i, float v) { p[i] = v; }\n"
        "__global__ void k(const float *x, float *y) {\n  write(y, 0, read(x, 0));\n}\n",
        "", 0);
    row("strings that are words",
        "const char *m = \"open the file\";\nconst char *c = \"clock\";\n", "", 0);
}

void TestScreenEvasion::addAsmRows()
{
    auto row = [](const char *name, const char *body, const char *flag, int line) {
        QTest::newRow(name) << QString::fromUtf8(body) << QString::fromLatin1(flag) << line;
    };
    row("syscall past twelve tokens",
        "void f() {\n  asm volatile(\"nop\\n\" \"nop\\n\" \"nop\\n\" \"nop\\n\" \"nop\\n\"\n"
        "               \"nop\\n\" \"nop\\n\" \"nop\\n\" \"nop\\n\" \"nop\\n\" \"nop\\n\"\n"
        "               \"nop\\n\" \"nop\\n\"\n               \"syscall\");\n}\n",
        "raw_system_calls", 5);
    row("syscall split over two strings", "void f() {\n  asm volatile(\"sys\" \"call\");\n}\n",
        "raw_system_calls", 2);
    row("syscall with a hex escape", "void f() {\n  __asm__(\"\\x73yscall\");\n}\n",
        "raw_system_calls", 2);
    row("upper-case SYSCALL", "void f() {\n  asm(\"SYSCALL\" ::: \"rcx\", \"r11\");\n}\n",
        "raw_system_calls", 2);
    row("int $0x80", "void f() {\n  asm volatile(\"int $0x80\" : : \"a\"(20));\n}\n",
        "raw_system_calls", 2);
    row("int 80h (Intel)", "void f() {\n  asm(\".intel_syntax noprefix\\n int 80h\");\n}\n",
        "raw_system_calls", 2);
    row("svc #0", "void f() {\n  asm volatile(\"mov x8, #172\\n\\tsvc #0\");\n}\n",
        "raw_system_calls", 2);
    row(".byte 0x0f, 0x05", "void f() {\n  asm volatile(\".byte 0x0f, 0x05\");\n}\n",
        "raw_system_calls", 2);
    row(".word", "void f() {\n  asm volatile(\".word 0x050f\");\n}\n", "raw_system_calls", 2);
    row(".inst", "void f() {\n  asm volatile(\".inst 0xd4000001\");\n}\n", "raw_system_calls", 2);
    row("assembler macro pasting a mnemonic",
        "void f() {\n  asm(\".macro m a\\n \\\\a\\\\()call\\n.endm\\n m sys\");\n}\n",
        "raw_system_calls", 2);
    row("indirect call from asm",
        "void f(void *p) {\n  asm volatile(\"call *%0\" :: \"r\"(p));\n}\n", "dynamic_loading", 2);
    row("call of a forbidden function from asm",
        "void f() {\n  asm volatile(\"call mprotect@PLT\");\n}\n", "memory_protection", 2);
    row("top-level asm", "asm(\".globl g\\ng: .byte 0x0f, 0x05\\n ret\");\n", "raw_system_calls",
        1);

    // Honest assembly stays advice.
    row("SSE add in asm",
        "void f(float *a, const float *b) {\n"
        "  asm volatile(\"movups (%0), %%xmm0\\n\\t\"\n"
        "               \"movups (%1), %%xmm1\\n\\t\"\n"
        "               \"addps %%xmm1, %%xmm0\\n\\t\"\n"
        "               \"movups %%xmm0, (%0)\" : : \"r\"(a), \"r\"(b) : \"xmm0\", \"xmm1\", "
        "\"memory\");\n}\n",
        "", 0);
    row("pause and a compiler barrier",
        "void f() {\n  asm volatile(\"pause\" ::: \"memory\");\n  asm volatile(\"\" ::: "
        "\"memory\");\n}\n",
        "", 0);
    row("rdtsc is advice",
        "unsigned long f() {\n  unsigned lo, hi;\n"
        "  asm volatile(\"rdtsc\" : \"=a\"(lo), \"=d\"(hi));\n"
        "  return lo | (unsigned long)hi << 32;\n}\n",
        "", 0);
    row("PTX with .reg, .b32 and %clock",
        "__device__ unsigned f(unsigned x) {\n  unsigned r;\n"
        "  asm(\"{\\n .reg .b32 t;\\n mov.u32 t, %%clock;\\n add.u32 %0, %1, t;\\n}\" "
        ": \"=r\"(r) : \"r\"(x));\n  return r;\n}\n",
        "", 0);
}

void TestScreenEvasion::addRawRows()
{
    auto row = [](const char *name, const char *source, const char *flag, int line,
                  bool expansionOnly) {
        QTest::newRow(name) << QString::fromUtf8(source) << QString::fromLatin1(flag) << line
                            << expansionOnly;
    };
    row("pasted __half",
        "#define CAT(a, b) a##b\n__global__ void k(float *y) {\n"
        "  CAT(__ha, lf) h;\n  y[0] = 0;\n}\n",
        "precision_downgrade", 3, true);
    row("pasted name behind a helper macro",
        "#define P(a, b) a##b\n#define J(a, b) P(a, b)\n#define PROTECT J(mpro, tect)\n"
        "void f() { PROTECT(0, 0, 7); }\n",
        "memory_protection", 4, true);
    row("alias macro called", "#define E exit\nvoid f() {\n  E(0);\n}\n", "process_exit", 3, true);
    row("stringized asm",
        "#define S(x) #x\n#define SC(a, b) S(a##b)\nvoid f() {\n  asm volatile(SC(sys, "
        "call));\n}\n",
        "raw_system_calls", 4, true);
    row("asm string from a macro", "#define SYS \"sys\"\nvoid f() {\n  asm(SYS \"call\");\n}\n",
        "raw_system_calls", 3, true);
    row("definition under a macro only the real compiler defines",
        "#ifdef __CUDACC_RTC__\n#define H CAT(__ha, lf)\n#endif\n#define CAT(a, b) a##b\n"
        "__global__ void k(float *y) {\n  H v;\n}\n",
        "precision_downgrade", 6, true);
    row("an unused definition is screened like code",
        "#define CAT(a, b) a##b\n#define T CAT(__nv_bf, loat16)\n#undef T\n#define T float\n"
        "__global__ void k(T *y) { y[0] = 0; }\n",
        "precision_downgrade", 2, true);
    row("PTX type split over two strings",
        "__global__ void k(float *y, unsigned short h) {\n"
        "  asm(\"cvt.f32.f\" \"16 %0, %1;\" : \"=f\"(y[0]) : \"h\"(h));\n}\n",
        "precision_downgrade", 2, false);
    row("PTX type stringized from a paste",
        "#define P(a, b) a##b\n#define T(x) #x\n#define S(x) T(x)\n"
        "__global__ void k(float *y, unsigned short h) {\n"
        "  asm(\"cvt.f32.\" S(P(f, 16)) \" %0, %1;\" : \"=f\"(y[0]) : \"h\"(h));\n}\n",
        "precision_downgrade", 5, true);
    row("raw asm without macros", "__device__ void f() {\n  asm(\".byte 0x0f, 0x05\");\n}\n",
        "raw_system_calls", 2, false);

    // Honest macro-heavy device code.
    row("honest macros",
        "#define BLOCK 256\n#define IDX(i, j, n) ((i) * (n) + (j))\n"
        "#define CAT(a, b) a##b\n#define KERNEL(name) __global__ void CAT(name, _kernel)\n"
        "#define STR(x) #x\n"
        "#if __CUDA_ARCH__ >= 800\n#define LOAD(p) __ldg(p)\n#else\n#define LOAD(p) (*(p))\n"
        "#endif\n"
        "KERNEL(add)(const float *a, const float *b, float *c, int n) {\n"
        "  const int i = blockIdx.x * BLOCK + threadIdx.x;\n"
        "  if (i < n) c[IDX(0, i, n)] = LOAD(a + i) + LOAD(b + i);\n}\n"
        "static const char *name = STR(add_kernel);\n",
        "", 0, false);
    row("macro parameters named like libc functions",
        "#define AT(p, time) (p)[time]\n#define PICK(read, write) ((read) + (write))\n"
        "__global__ void k(float *y, const float *x) {\n  y[0] = PICK(AT(x, 0), AT(x, 1));\n}\n",
        "", 0, false);
    row("honest include and pragma",
        "#include <cuda_fp16.h>\n#pragma unroll 4\n__global__ void k(float *y) { y[0] = 1; }\n", "",
        0, false);
}

QTEST_GUILESS_MAIN(TestScreenEvasion)
#include "tst_screenevasion.moc"
