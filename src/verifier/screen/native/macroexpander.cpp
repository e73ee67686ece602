#include "verifier/screen/native/macroexpander.h"

#include "verifier/screen/native/sourcetokenizer.h"

#include <QElapsedTimer>
#include <QFile>
#include <QMap>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QStringList>
#include <QTemporaryDir>
#include <sys/resource.h>

namespace kiln {

namespace {

// Directives blanked before expanding: file inclusion, line numbering, conditionals.
bool isBlanked(const QString &directive)
{
    static const QSet<QString> names = {
        QStringLiteral("include"), QStringLiteral("include_next"), QStringLiteral("import"),
        QStringLiteral("embed"),   QStringLiteral("line"),         QStringLiteral("if"),
        QStringLiteral("ifdef"),   QStringLiteral("ifndef"),       QStringLiteral("elif"),
        QStringLiteral("elifdef"), QStringLiteral("elifndef"),     QStringLiteral("else"),
        QStringLiteral("endif")};
    return names.contains(directive);
}

// A use of the macro a #define body defines: NAME, or NAME(...) with placeholder arguments, so
// what the body builds by itself shows and its parameters' names (`time`, `read`) do not.
// Empty when the body names no macro.
QString probeOf(const QString &body)
{
    static const QRegularExpression head(QStringLiteral("^([A-Za-z_]\\w*)(\\(([^()]*)\\))?"));
    const QRegularExpressionMatch match = head.match(body);
    if (!match.hasMatch() || match.captured(1) == QLatin1String("defined"))
        return {};
    if (match.captured(2).isEmpty())
        return match.captured(1);
    QStringList arguments;
    const QStringList parameters = match.captured(3).split(QLatin1Char(','));
    if (!match.captured(3).trimmed().isEmpty()) {
        for (qsizetype k = 0; k < parameters.size(); ++k)
            arguments << QStringLiteral("kiln_argument_%1").arg(k);
    }
    return match.captured(1) + QLatin1Char('(') + arguments.join(QStringLiteral(", ")) +
           QLatin1Char(')');
}

// Environment variables that make the preprocessor read or write files of their own.
QProcessEnvironment preprocessorEnvironment()
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const char *name : {"DEPENDENCIES_OUTPUT", "SUNPRO_DEPENDENCIES", "CPATH",
                             "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH"})
        environment.remove(QString::fromLatin1(name));
    environment.insert(QStringLiteral("LC_ALL"), QStringLiteral("C"));
    return environment;
}

} // namespace

QString MacroExpander::preprocessor()
{
    static const QString found = [] {
        for (const char *name : {"g++", "c++", "clang++", "cpp"}) {
            const QString path = QStandardPaths::findExecutable(QString::fromLatin1(name));
            if (!path.isEmpty())
                return path;
        }
        return QString();
    }();
    return found;
}

QString MacroExpander::prepared(const QString &source)
{
    QStringList lines = SourceTokenizer::withoutComments(source).split(QLatin1Char('\n'));
    QMap<int, QString> probes; // after this 1-based line
    for (const SourceTokenizer::Directive &directive : SourceTokenizer::directives(source)) {
        if (isBlanked(directive.name)) {
            for (int line = directive.firstLine; line <= directive.lastLine; ++line)
                lines[line - 1].clear();
        } else if (directive.name == QLatin1String("define")) {
            const QString probe = probeOf(directive.body);
            if (!probe.isEmpty())
                probes.insert(directive.lastLine, QStringLiteral("#line %1\n%2\n#line %3\n")
                                                      .arg(directive.firstLine)
                                                      .arg(probe)
                                                      .arg(directive.lastLine + 1));
        }
    }
    QString text;
    for (int k = 0; k < lines.size(); ++k) {
        text += lines[k] + QLatin1Char('\n');
        text += probes.value(k + 1);
    }
    return text;
}

MacroExpander::Result MacroExpander::expand(const QString &source, const QString &fileName)
{
    Result result;
    const QString compiler = preprocessor();
    QTemporaryDir dir;
    QFile file(dir.filePath(fileName));
    if (compiler.isEmpty() || !dir.isValid() || !file.open(QIODevice::WriteOnly) ||
        file.write(prepared(source).toUtf8()) < 0)
        return result;
    file.close();
    QProcess process;
    process.setWorkingDirectory(dir.path());
    process.setProcessEnvironment(preprocessorEnvironment());
    process.setStandardInputFile(QProcess::nullDevice());
    process.setChildProcessModifier([] {
        const rlimit memory{rlim_t(1) << 30, rlim_t(1) << 30};
        const rlimit cpu{kTimeoutMs / 1000, kTimeoutMs / 1000};
        ::setrlimit(RLIMIT_AS, &memory);
        ::setrlimit(RLIMIT_CPU, &cpu);
    });
    process.start(compiler,
                  {QStringLiteral("-E"), QStringLiteral("-x"), QStringLiteral("c++"),
                   QStringLiteral("-std=gnu++17"), QStringLiteral("-nostdinc"),
                   QStringLiteral("-w"), QStringLiteral("-ftrack-macro-expansion=0"), fileName});
    if (!process.waitForStarted(5000))
        return result;
    QByteArray output;
    QByteArray errors;
    QElapsedTimer timer;
    timer.start();
    while (process.state() != QProcess::NotRunning) {
        process.waitForReadyRead(100);
        output += process.readAllStandardOutput();
        errors += process.readAllStandardError().left(qMax<qsizetype>(0, 4096 - errors.size()));
        const bool tooLong = timer.elapsed() > kTimeoutMs;
        if (output.size() > kMaxOutputBytes || tooLong) {
            process.kill();
            process.waitForFinished(2000);
            result.status = Status::TooLarge;
            result.detail =
                tooLong ? QStringLiteral("macro expansion took over %1 s").arg(kTimeoutMs / 1000)
                        : QStringLiteral("macros expand to over %1 MiB").arg(kMaxOutputBytes >> 20);
            return result;
        }
    }
    output += process.readAllStandardOutput();
    errors += process.readAllStandardError().left(qMax<qsizetype>(0, 4096 - errors.size()));
    if (process.exitStatus() == QProcess::CrashExit || errors.contains("memory exhausted") ||
        errors.contains("out of memory")) {
        result.status = Status::TooLarge;
        result.detail = QStringLiteral("macro expansion ran out of memory or time");
        return result;
    }
    // Errors in the source (a stray #error, an unbalanced macro call) still leave the text.
    result.status = Status::Expanded;
    result.text = QString::fromUtf8(output);
    return result;
}

} // namespace kiln
