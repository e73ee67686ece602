#include "tasks/taskloader.h"
#include "verifier/elfsymbols.h"
#include "verifier/flagcatalog.h"
#include "verifier/staticscreen.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;

namespace {

// Preprocessed text as g++ -E writes it: header lines, then the candidate with line markers.
QString preprocessed(const QString &body, int firstLine = 1)
{
    return QStringLiteral(
               "# 1 \"cand.cpp\"\n# 1 \"<built-in>\"\n# 1 \"/usr/include/stdlib.h\" 1 3\n"
               "extern \"C\" void exit(int);\nextern \"C\" void *dlopen(const char*, int);\n"
               "# %1 \"cand.cpp\" 2\n")
               .arg(firstLine) +
           body;
}

QStringList ids(const QList<CheatFlag> &flags)
{
    QStringList result;
    for (const CheatFlag &flag : flags)
        result << flag.id;
    return result;
}

} // namespace

class TestStaticScreen : public QObject
{
    Q_OBJECT

private:
    Task m_task;

private slots:
    void initTestCase()
    {
        const TaskLoader::Result loaded =
            TaskLoader::load(QStringLiteral(KILN_SOURCE_DIR "/tasks/matmul"));
        QVERIFY2(loaded.ok(), qPrintable(loaded.errorStrings().join(QLatin1Char('\n'))));
        m_task = *loaded.task;
    }

    void tokensKeepCandidateLines()
    {
        const QList<StaticScreen::Token> tokens = StaticScreen::candidateTokens(
            preprocessed(QStringLiteral("int a;\n\nconst char *s = \"/proc/self\";\n"), 10),
            QStringLiteral("cand.cpp"));
        // Header declarations (exit, dlopen) are not the candidate's.
        QCOMPARE(tokens.first().text, QStringLiteral("int"));
        QCOMPARE(tokens.first().line, 10);
        QCOMPARE(tokens.last().text, QStringLiteral(";"));
        QCOMPARE(tokens.last().line, 12);
        bool sawString = false;
        for (const StaticScreen::Token &token : tokens)
            sawString = sawString || (token.kind == StaticScreen::Token::Kind::String &&
                                      token.text == QLatin1String("/proc/self"));
        QVERIFY(sawString);
    }

    void tokenFlags_data()
    {
        QTest::addColumn<QString>("body");
        QTest::addColumn<QString>("flag"); // empty: no flag expected
        QTest::addColumn<int>("line");
        QTest::newRow("dlopen call") << "void f() {\n  dlopen(0, 0);\n}\n"
                                     << "dynamic_loading" << 2;
        QTest::newRow("member named exit is fine")
            << "struct S { int exit; };\nint g(S s) { return s.exit; }\n"
            << "" << 0;
        QTest::newRow("exit call") << "void f() {\n  std::exit(0);\n}\n"
                                   << "process_exit" << 2;
        QTest::newRow("variable named half")
            << "int f(int n) {\n  int half = n / 2;\n  return half;\n}\n"
            << "" << 0;
        QTest::newRow("half as a type") << "void f() {\n  half h;\n}\n"
                                        << "precision_downgrade" << 2;
        QTest::newRow("_Float16") << "_Float16 x;\n"
                                  << "precision_downgrade" << 1;
        QTest::newRow("detach member") << "void f(T t) {\n  t.detach();\n}\n"
                                       << "threads_detached" << 2;
        QTest::newRow("proc path") << "const char *p =\n  \"/proc/self/maps\";\n"
                                   << "proc_access" << 2;
        QTest::newRow("cblas") << "void f() {\n cblas_sgemm(1);\n}\n"
                               << "forbidden_library" << 2;
        QTest::newRow("constructor attribute") << "__attribute__((constructor)) void init() {}\n"
                                               << "load_time_code" << 1;
        QTest::newRow("inline asm") << "void f() { asm volatile(\"\"); }\n"
                                    << "inline_asm" << 1;
        QTest::newRow("raw syscall") << "void f() {\n  syscall(39);\n}\n"
                                     << "raw_system_calls" << 2;
        QTest::newRow("asm syscall") << "void f() {\n  asm volatile(\"syscall\");\n}\n"
                                     << "raw_system_calls" << 2;
        QTest::newRow("write to a descriptor") << "void f() {\n  write(501, \"x\", 1);\n}\n"
                                               << "raw_system_calls" << 2;
        QTest::newRow("fork") << "void f() {\n\n  fork();\n}\n"
                              << "process_spawn" << 3;
        QTest::newRow("honest openmp")
            << "#pragma omp parallel for\nfor (int i = 0; i < n; ++i) c[i] = a[i];\n"
            << "" << 0;
    }

    void tokenFlags()
    {
        QFETCH(QString, body);
        QFETCH(QString, flag);
        QFETCH(int, line);
        const QList<CheatFlag> flags = StaticScreen::screen(
            m_task, preprocessed(body), QStringLiteral("cand.cpp"), ElfSymbols());
        if (flag.isEmpty()) {
            QVERIFY2(flags.isEmpty(), qPrintable(ids(flags).join(QLatin1Char(' '))));
            return;
        }
        QVERIFY2(ids(flags).contains(flag), qPrintable(ids(flags).join(QLatin1Char(' '))));
        for (const CheatFlag &f : flags) {
            if (f.id == flag) {
                QVERIFY(f.lines.contains(line));
                QCOMPARE(f.blocking, FlagCatalog::find(flag)->blocking);
            }
        }
    }

    void symbolFlags_data()
    {
        QTest::addColumn<QStringList>("undefined");
        QTest::addColumn<QStringList>("defined");
        QTest::addColumn<QStringList>("objects");
        QTest::addColumn<QString>("flag");
        QTest::newRow("imported dlsym") << QStringList{QStringLiteral("dlsym")} << QStringList{}
                                        << QStringList{} << "dynamic_loading";
        QTest::newRow("imported sgemm") << QStringList{QStringLiteral("cblas_sgemm")}
                                        << QStringList{} << QStringList{} << "forbidden_library";
        QTest::newRow("thread detach") << QStringList{QStringLiteral("_ZNSt6thread6detachEv")}
                                       << QStringList{} << QStringList{} << "threads_detached";
        QTest::newRow("ofstream")
            << QStringList{QStringLiteral(
                   "_ZNSt14basic_ofstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode")}
            << QStringList{} << QStringList{} << "file_access";
        QTest::newRow("defines clock_gettime")
            << QStringList{} << QStringList{QStringLiteral("clock_gettime")} << QStringList{}
            << "timer_tampering";
        QTest::newRow("defines steady_clock::now")
            << QStringList{} << QStringList{QStringLiteral("_ZNSt6chrono3_V212steady_clock3nowEv")}
            << QStringList{} << "timer_tampering";
        QTest::newRow("defines memcpy") << QStringList{} << QStringList{QStringLiteral("memcpy")}
                                        << QStringList{} << "symbol_interposition";
        QTest::newRow("defines GOMP_parallel")
            << QStringList{} << QStringList{QStringLiteral("GOMP_parallel")} << QStringList{}
            << "symbol_interposition";
        QTest::newRow("static state")
            << QStringList{} << QStringList{} << QStringList{QStringLiteral("_ZZ6matmulE5cache")}
            << "static_state";
    }

    void symbolFlags()
    {
        QFETCH(QStringList, undefined);
        QFETCH(QStringList, defined);
        QFETCH(QStringList, objects);
        QFETCH(QString, flag);
        ElfSymbols symbols;
        symbols.valid = true;
        symbols.undefined = undefined;
        symbols.defined = defined + QStringList{QStringLiteral("matmul")};
        symbols.mutableObjects = objects;
        const QList<CheatFlag> flags =
            StaticScreen::screen(m_task, preprocessed(QStringLiteral("static float cache;\n")),
                                 QStringLiteral("cand.cpp"), symbols);
        QVERIFY2(ids(flags).contains(flag), qPrintable(ids(flags).join(QLatin1Char(' '))));
    }

    void honestSymbolsAreQuiet()
    {
        ElfSymbols symbols;
        symbols.valid = true;
        symbols.undefined = {QStringLiteral("GOMP_parallel"), QStringLiteral("omp_get_thread_num"),
                             QStringLiteral("expf"), QStringLiteral("_ZSt9terminatev"),
                             QStringLiteral("pthread_create")};
        symbols.defined = {QStringLiteral("matmul"), QStringLiteral("_Z6helperPKfi")};
        symbols.mutableObjects = {QStringLiteral("_ZGVZ6matmulE5table"),
                                  QStringLiteral("DW.ref.__gxx_personality_v0")};
        QVERIFY(StaticScreen::screen(m_task, preprocessed(QString()), QStringLiteral("cand.cpp"),
                                     symbols)
                    .isEmpty());
    }

    // The real thing: g++ output read back by ElfSymbols.
    void readsARealObject()
    {
        QTemporaryDir dir;
        QFile source(dir.filePath(QStringLiteral("cand.cpp")));
        QVERIFY(source.open(QIODevice::WriteOnly));
        source.write(
            "#include <dlfcn.h>\n"
            "static int calls;\n"
            "extern \"C\" int clock_gettime(int, void *) { return 0; }\n"
            "extern \"C\" void matmul(const float *, const float *, float *C, int, int, int)\n"
            "{ ++calls; C[0] = dlsym(0, \"x\") ? 1.0f : 0.0f; }\n");
        source.close();
        QProcess compiler;
        compiler.setWorkingDirectory(dir.path());
        compiler.start(QStringLiteral("g++"), {QStringLiteral("-O2"), QStringLiteral("-fPIC"),
                                               QStringLiteral("-c"), QStringLiteral("cand.cpp")});
        QVERIFY(compiler.waitForFinished(60000));
        QCOMPARE(compiler.exitCode(), 0);
        QFile object(dir.filePath(QStringLiteral("cand.o")));
        QVERIFY(object.open(QIODevice::ReadOnly));
        const ElfSymbols symbols = ElfSymbols::read(object.readAll());
        QVERIFY(symbols.valid);
        QVERIFY(symbols.undefined.contains(QStringLiteral("dlsym")));
        QVERIFY(symbols.defined.contains(QStringLiteral("matmul")));
        QVERIFY(symbols.defined.contains(QStringLiteral("clock_gettime")));
        QVERIFY(symbols.mutableObjects.contains(QStringLiteral("_ZL5calls")));
        QVERIFY(!ElfSymbols::read(QByteArray("not an elf file")).valid);
    }

    void catalogIsComplete()
    {
        QSet<QString> seen;
        for (const FlagInfo &info : FlagCatalog::all()) {
            QVERIFY(!seen.contains(info.id));
            seen.insert(info.id);
            QVERIFY(!info.message.isEmpty());
            QVERIFY(!info.message.contains(QLatin1Char('\n')));
        }
        const CheatFlag made =
            FlagCatalog::make(QStringLiteral("dynamic_loading"), {3}, QStringLiteral("dlsym"));
        QVERIFY(made.blocking);
        QVERIFY(made.message.endsWith(QStringLiteral("(dlsym)")));
        QCOMPARE(made.lines, QList<int>{3});
    }
};

QTEST_GUILESS_MAIN(TestStaticScreen)
#include "tst_staticscreen.moc"
