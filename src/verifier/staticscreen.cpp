#include "staticscreen.h"

#include "flagcatalog.h"

#include <QMap>
#include <QSet>
#include <dlfcn.h>

namespace kiln {

namespace {

using Token = StaticScreen::Token;

// Calls that matter when they appear as `name (` in the candidate's own code, and as imports.
struct CallRule
{
    const char *flag;
    QList<const char *> names;
};

const QList<CallRule> &callRules()
{
    static const QList<CallRule> rules = {
        {"dynamic_loading", {"dlopen", "dlsym", "dlvsym", "dlmopen", "dladdr", "dlinfo"}},
        {"memory_protection", {"mprotect", "pkey_mprotect"}},
        {"process_inspection", {"ptrace", "process_vm_readv", "process_vm_writev"}},
        {"process_exit", {"exit", "_exit", "_Exit", "quick_exit", "abort", "terminate"}},
        {"signals",
         {"raise", "kill", "signal", "sigaction", "alarm", "setitimer", "pthread_kill", "tgkill",
          "sigqueue", "ualarm", "timer_create"}},
        {"process_spawn",
         {"fork", "vfork", "execve", "execv", "execvp", "execvpe", "execl", "execlp", "execle",
          "system", "popen", "posix_spawn", "posix_spawnp", "clone", "daemon"}},
        {"file_access",
         {"fopen",    "fopen64", "freopen",  "open",   "open64",  "openat",   "openat64", "creat",
          "creat64",  "unlink",  "unlinkat", "remove", "rename",  "renameat", "mkdir",    "rmdir",
          "truncate", "symlink", "link",     "chmod",  "mkstemp", "tmpfile"}},
        {"network",
         {"socket", "connect", "bind", "listen", "accept", "sendto", "recvfrom", "getaddrinfo",
          "gethostbyname"}},
        {"threads_detached", {"pthread_detach"}},
        // Raw descriptors and system calls reach the sandbox's own channels (its reply pipe)
        // and bypass every name screened above.
        {"raw_system_calls",
         {"syscall", "write", "writev", "pwrite", "pwrite64", "dup", "dup2", "dup3", "close",
          "close_range", "fcntl", "ioctl", "prctl", "seccomp"}},
    };
    return rules;
}

// Imports that count even though the source never spells them (libstdc++ wrappers).
const QList<QPair<const char *, const char *>> &importPrefixes()
{
    static const QList<QPair<const char *, const char *>> prefixes = {
        {"threads_detached", "_ZNSt6thread6detachEv"}, {"file_access", "_ZNSt14basic_ofstream"},
        {"file_access", "_ZNSt14basic_ifstream"},      {"file_access", "_ZNSt13basic_fstream"},
        {"file_access", "_ZNSt13basic_filebuf"},       {"process_exit", "_ZSt4exit"},
        {"precision_downgrade", "__extendhfsf2"},      {"precision_downgrade", "__truncsfhf2"},
        {"precision_downgrade", "__truncsfbf2"},       {"precision_downgrade", "__extendbfsf2"},
    };
    return prefixes;
}

// Library prefixes per forbidden-library name of task.json.
const QMap<QString, QStringList> &libraryPrefixes()
{
    static const QMap<QString, QStringList> prefixes = {
        {QStringLiteral("blas"),
         {QStringLiteral("cblas_"), QStringLiteral("sgemm_"), QStringLiteral("dgemm_"),
          QStringLiteral("sgemv_"), QStringLiteral("saxpy_"), QStringLiteral("sdot_"),
          QStringLiteral("openblas_"), QStringLiteral("blis_"), QStringLiteral("bli_")}},
        {QStringLiteral("mkl"), {QStringLiteral("mkl_"), QStringLiteral("MKL_")}},
        {QStringLiteral("eigen"), {QStringLiteral("_ZN5Eigen"), QStringLiteral("Eigen")}},
    };
    return prefixes;
}

const QSet<QString> &timerSymbols()
{
    static const QSet<QString> names = {
        QStringLiteral("clock_gettime"),
        QStringLiteral("__clock_gettime"),
        QStringLiteral("gettimeofday"),
        QStringLiteral("clock"),
        QStringLiteral("time"),
        QStringLiteral("clock_getres"),
        QStringLiteral("timespec_get"),
        QStringLiteral("__vdso_clock_gettime"),
        QStringLiteral("omp_get_wtime"),
        QStringLiteral("_ZNSt6chrono3_V212steady_clock3nowEv"),
        QStringLiteral("_ZNSt6chrono3_V212system_clock3nowEv"),
        QStringLiteral("_ZNSt6chrono12system_clock3nowEv"),
        QStringLiteral("_ZNSt6chrono3_V214high_resolution_clock3nowEv")};
    return names;
}

// Runtime prefixes that are interposition even when the engine has not loaded that runtime.
const QStringList &runtimePrefixes()
{
    static const QStringList prefixes = {QStringLiteral("GOMP_"),    QStringLiteral("omp_"),
                                         QStringLiteral("pthread_"), QStringLiteral("__libc_"),
                                         QStringLiteral("_dl_"),     QStringLiteral("__cxa_")};
    return prefixes;
}

// The readable name inside a mangled symbol, for finding its lines: "_ZZ3fooE5cache" -> cache.
QString plainName(const QString &symbol)
{
    if (!symbol.startsWith(QLatin1String("_Z")))
        return symbol;
    QString last;
    for (int i = 2; i < symbol.size();) {
        if (!symbol[i].isDigit()) {
            ++i;
            continue;
        }
        int length = 0;
        while (i < symbol.size() && symbol[i].isDigit())
            length = length * 10 + symbol[i++].digitValue();
        last = symbol.mid(i, length);
        i += length;
    }
    return last.isEmpty() ? symbol : last;
}

class FlagCollector
{
public:
    void add(const QString &id, int line, const QString &detail = {})
    {
        Entry &entry = m_entries[id];
        if (line > 0 && !entry.lines.contains(line))
            entry.lines.append(line);
        if (!detail.isEmpty() && !entry.details.contains(detail))
            entry.details.append(detail);
        if (!m_order.contains(id))
            m_order.append(id);
    }
    void addLines(const QString &id, const QList<int> &lines, const QString &detail)
    {
        if (lines.isEmpty())
            add(id, 0, detail);
        for (int line : lines)
            add(id, line, detail);
    }
    QList<CheatFlag> flags() const
    {
        QList<CheatFlag> result;
        for (const QString &id : m_order) {
            Entry entry = m_entries.value(id);
            std::sort(entry.lines.begin(), entry.lines.end());
            result.append(FlagCatalog::make(id, entry.lines,
                                            entry.details.mid(0, 4).join(QStringLiteral(", "))));
        }
        return result;
    }

private:
    struct Entry
    {
        QList<int> lines;
        QStringList details;
    };
    QMap<QString, Entry> m_entries;
    QStringList m_order;
};

bool isIdentifierStart(QChar c)
{
    return c.isLetter() || c == QLatin1Char('_');
}

bool isIdentifierPart(QChar c)
{
    return c.isLetterOrNumber() || c == QLatin1Char('_');
}

} // namespace

QList<Token> StaticScreen::candidateTokens(const QString &preprocessed,
                                           const QString &candidateFile)
{
    QList<Token> tokens;
    bool inCandidate = false;
    int line = 1;
    const qsizetype n = preprocessed.size();
    qsizetype i = 0;
    bool atLineStart = true;
    while (i < n) {
        const QChar c = preprocessed[i];
        if (c == QLatin1Char('\n')) {
            ++line;
            ++i;
            atLineStart = true;
            continue;
        }
        if (c.isSpace()) {
            ++i;
            continue;
        }
        if (atLineStart && c == QLatin1Char('#')) {
            // Line marker: # <line> "<file>" [flags]  (or a surviving #pragma).
            const qsizetype end = preprocessed.indexOf(QLatin1Char('\n'), i);
            const QString directive =
                preprocessed.mid(i + 1, (end < 0 ? n : end) - i - 1).trimmed();
            const QStringList parts = directive.split(QLatin1Char(' '), Qt::SkipEmptyParts);
            bool isNumber = false;
            const int markerLine = parts.value(0).toInt(&isNumber);
            if (isNumber && parts.size() >= 2) {
                QString file = parts[1];
                file.remove(QLatin1Char('"'));
                inCandidate =
                    file == candidateFile || file.endsWith(QLatin1Char('/') + candidateFile);
                line = markerLine - 1; // the newline ending the marker moves to markerLine
            } else if (inCandidate && directive.startsWith(QLatin1String("pragma"))) {
                tokens.append({Token::Kind::Identifier, QStringLiteral("#pragma"), line});
                const QStringList words =
                    directive.mid(6).split(QLatin1Char(' '), Qt::SkipEmptyParts);
                for (const QString &word : words)
                    tokens.append({Token::Kind::Identifier, word, line});
            }
            i = end < 0 ? n : end;
            continue;
        }
        atLineStart = false;
        Token token;
        token.line = line;
        const qsizetype start = i;
        if (isIdentifierStart(c)) {
            while (i < n && isIdentifierPart(preprocessed[i]))
                ++i;
            // Raw string literal: R"delim( ... )delim"
            if (i < n && preprocessed[i] == QLatin1Char('"') &&
                preprocessed.mid(start, i - start).endsWith(QLatin1Char('R'))) {
                const qsizetype open = preprocessed.indexOf(QLatin1Char('('), i);
                const QString delimiter = preprocessed.mid(i + 1, open - i - 1);
                const QString close = QLatin1Char(')') + delimiter + QLatin1Char('"');
                const qsizetype stop = preprocessed.indexOf(close, open);
                const qsizetype end = stop < 0 ? n : stop + close.size();
                token.kind = Token::Kind::String;
                token.text = preprocessed.mid(open + 1, (stop < 0 ? n : stop) - open - 1);
                line += int(preprocessed.mid(start, end - start).count(QLatin1Char('\n')));
                i = end;
            } else {
                token.kind = Token::Kind::Identifier;
                token.text = preprocessed.mid(start, i - start);
            }
        } else if (c.isDigit() ||
                   (c == QLatin1Char('.') && i + 1 < n && preprocessed[i + 1].isDigit())) {
            while (i < n &&
                   (isIdentifierPart(preprocessed[i]) || preprocessed[i] == QLatin1Char('.') ||
                    ((preprocessed[i] == QLatin1Char('+') || preprocessed[i] == QLatin1Char('-')) &&
                     QStringLiteral("eEpP").contains(preprocessed[i - 1]))))
                ++i;
            token.kind = Token::Kind::Number;
            token.text = preprocessed.mid(start, i - start);
        } else if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
            ++i;
            while (i < n && preprocessed[i] != c && preprocessed[i] != QLatin1Char('\n')) {
                if (preprocessed[i] == QLatin1Char('\\'))
                    ++i;
                ++i;
            }
            ++i;
            token.kind = c == QLatin1Char('"') ? Token::Kind::String : Token::Kind::Number;
            token.text = preprocessed.mid(start + 1, qMax<qsizetype>(0, i - start - 2));
        } else {
            static const QStringList pairs = {QStringLiteral("::"), QStringLiteral("->")};
            const QString two = preprocessed.mid(i, 2);
            token.kind = Token::Kind::Punctuation;
            token.text = pairs.contains(two) ? two : QString(c);
            i += token.text.size();
        }
        if (inCandidate)
            tokens.append(token);
    }
    return tokens;
}

QList<CheatFlag> StaticScreen::screen(const Task &task, const QString &preprocessed,
                                      const QString &candidateFile, const ElfSymbols &symbols)
{
    const QList<Token> tokens = candidateTokens(preprocessed, candidateFile);
    FlagCollector flags;
    QMap<QString, QList<int>> identifierLines;
    for (const Token &token : tokens) {
        if (token.kind == Token::Kind::Identifier &&
            !identifierLines.value(token.text).contains(token.line))
            identifierLines[token.text].append(token.line);
    }
    auto next = [&](int i) { return i + 1 < tokens.size() ? tokens[i + 1].text : QString(); };
    auto previous = [&](int i) { return i > 0 ? tokens[i - 1].text : QString(); };

    QMap<QString, QString> callFlag;
    for (const CallRule &rule : callRules()) {
        for (const char *name : rule.names)
            callFlag.insert(QString::fromLatin1(name), QString::fromLatin1(rule.flag));
    }
    bool fp32Task = true;
    for (const TaskParameter &parameter : task.parameters) {
        if (parameter.role != TaskParameter::Role::Scalar &&
            parameter.dtype != QLatin1String("f32"))
            fp32Task = false;
    }
    QStringList forbiddenPrefixes;
    for (const QString &library : task.forbiddenLibraries)
        forbiddenPrefixes += libraryPrefixes().value(library.toLower());

    for (int i = 0; i < tokens.size(); ++i) {
        const Token &token = tokens[i];
        if (token.kind == Token::Kind::String) {
            if (token.text.contains(QLatin1String("/proc/")) ||
                token.text == QLatin1String("/proc"))
                flags.add(QStringLiteral("proc_access"), token.line, token.text.left(40));
            continue;
        }
        if (token.kind != Token::Kind::Identifier)
            continue;
        const QString &name = token.text;
        const QString after = next(i);
        const QString before = previous(i);
        const bool member = before == QLatin1String(".") || before == QLatin1String("->");
        if (after == QLatin1String("(") && callFlag.contains(name) && !member)
            flags.add(callFlag.value(name), token.line, name);
        if (name == QLatin1String("detach") && member && after == QLatin1String("("))
            flags.add(QStringLiteral("threads_detached"), token.line, QStringLiteral("detach()"));
        if (name == QLatin1String("constructor") || name == QLatin1String("__constructor__")) {
            if (before == QLatin1String("(") || before == QLatin1String(","))
                flags.add(QStringLiteral("load_time_code"), token.line);
        }
        if (name == QLatin1String("asm") || name == QLatin1String("__asm__") ||
            name == QLatin1String("__asm")) {
            flags.add(QStringLiteral("inline_asm"), token.line);
            // System calls and the cycle counter straight from assembly.
            for (int k = i + 1; k < qMin(i + 12, int(tokens.size())); ++k) {
                const QString text = tokens[k].text;
                if (tokens[k].kind == Token::Kind::String &&
                    (text.contains(QLatin1String("syscall")) ||
                     text.contains(QLatin1String("sysenter")) ||
                     text.contains(QLatin1String("int $0x80")) ||
                     text.contains(QLatin1String("int 0x80")) ||
                     text.contains(QLatin1String("svc"))))
                    flags.add(QStringLiteral("raw_system_calls"), tokens[k].line,
                              QStringLiteral("asm"));
            }
        }
        if (fp32Task) {
            static const QSet<QString> halfTypes = {
                QStringLiteral("_Float16"),  QStringLiteral("__fp16"),
                QStringLiteral("__bf16"),    QStringLiteral("bfloat16"),
                QStringLiteral("__half"),    QStringLiteral("__nv_bfloat16"),
                QStringLiteral("float16_t"), QStringLiteral("bfloat16_t"),
                QStringLiteral("__m128bh"),  QStringLiteral("__m256bh"),
                QStringLiteral("__m512bh"),  QStringLiteral("__m512h"),
                QStringLiteral("__m256h"),   QStringLiteral("__m128h")};
            // "half" only where it is used as a type: followed by a name or a pointer.
            const bool halfAsType =
                name == QLatin1String("half") &&
                (after == QLatin1String("*") || (!after.isEmpty() && isIdentifierStart(after[0])));
            const bool conversion = name.startsWith(QLatin1String("_mm")) &&
                                    (name.contains(QLatin1String("cvtps_ph")) ||
                                     name.contains(QLatin1String("cvtneps_pbh")) ||
                                     name.contains(QLatin1String("_ph")));
            if (halfTypes.contains(name) || halfAsType || conversion)
                flags.add(QStringLiteral("precision_downgrade"), token.line, name);
        }
        for (const QString &prefix : forbiddenPrefixes) {
            if (name.startsWith(prefix) ||
                (prefix.endsWith(QLatin1Char('_')) && name == prefix.chopped(1)))
                flags.add(QStringLiteral("forbidden_library"), token.line, name);
        }
    }

    if (symbols.valid) {
        for (const QString &import : symbols.undefined) {
            const QList<int> lines = identifierLines.value(plainName(import));
            const QString flag = callFlag.value(import);
            if (!flag.isEmpty() && import != QLatin1String("terminate"))
                flags.addLines(flag, lines, import);
            for (const auto &[id, prefix] : importPrefixes()) {
                if (import.startsWith(QLatin1String(prefix)))
                    flags.addLines(QString::fromLatin1(id), lines, import);
            }
            for (const QString &prefix : forbiddenPrefixes) {
                if (import.startsWith(prefix))
                    flags.addLines(QStringLiteral("forbidden_library"), lines, import);
            }
        }
        QStringList definitions = symbols.defined;
        for (const QString &weak : symbols.weakDefined) {
            if (timerSymbols().contains(weak))
                definitions.append(weak);
        }
        for (const QString &symbol : definitions) {
            if (symbol == task.entry)
                continue;
            const QList<int> lines = identifierLines.value(plainName(symbol));
            if (timerSymbols().contains(symbol)) {
                flags.addLines(QStringLiteral("timer_tampering"), lines, symbol);
                continue;
            }
            bool runtime = false;
            for (const QString &prefix : runtimePrefixes())
                runtime = runtime || symbol.startsWith(prefix);
            // Anything the engine's own runtime (libc, libm, libstdc++) exports would be
            // interposed for the candidate's code.
            runtime = runtime || ::dlsym(RTLD_DEFAULT, symbol.toLatin1().constData()) != nullptr;
            if (runtime)
                flags.addLines(QStringLiteral("symbol_interposition"), lines, symbol);
        }
        for (const QString &object : symbols.mutableObjects) {
            // Guard variables of local statics and <iostream>'s initialiser are not state.
            if (object.startsWith(QLatin1String("_ZGV")) ||
                object.startsWith(QLatin1String("_ZStL")) ||
                object.startsWith(QLatin1String("DW.ref.")))
                continue;
            flags.addLines(QStringLiteral("static_state"),
                           identifierLines.value(plainName(object)).mid(0, 1), plainName(object));
        }
    }
    return flags.flags();
}

} // namespace kiln
