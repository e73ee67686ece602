#include "pythondefectinjector.h"

#include <QHash>
#include <QRegularExpression>
#include <QSet>
#include <algorithm>
#include <optional>

namespace kiln {

namespace {

// ---- reading the source ------------------------------------------------------------------

// Each line as code: comments and the insides of triple-quoted strings blanked, columns kept,
// so that no pattern matches prose. inString: the line ends inside a triple-quoted string.
struct CodeView
{
    QStringList code;
    QList<bool> inString;
};

CodeView codeViewOf(const QStringList &lines)
{
    CodeView view;
    QString triple;
    for (const QString &line : lines) {
        QString out = line;
        QChar quote;
        for (qsizetype i = 0; i < line.size(); ++i) {
            const QChar c = line.at(i);
            if (!triple.isEmpty()) {
                if (line.mid(i, 3) == triple) {
                    i += 2;
                    triple.clear();
                } else {
                    out[i] = QLatin1Char(' ');
                }
                continue;
            }
            if (!quote.isNull()) {
                if (c == QLatin1Char('\\'))
                    ++i;
                else if (c == quote)
                    quote = QChar();
                continue;
            }
            if (c == QLatin1Char('#')) {
                out.replace(i, line.size() - i, QString(line.size() - i, QLatin1Char(' ')));
                break;
            }
            if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
                if (line.mid(i, 3) == QString(3, c)) {
                    triple = QString(3, c);
                    i += 2;
                } else {
                    quote = c;
                }
            }
        }
        view.code.append(out);
        view.inString.append(!triple.isEmpty());
    }
    return view;
}

// One step of a bracket scan that skips string literals: +1 at an opening bracket, -1 at a
// closing one, 0 elsewhere; `quote` carries an open string across steps, and `i` moves past an
// escaped character inside one.
int bracketStep(const QString &code, qsizetype &i, QChar &quote)
{
    const QChar c = code.at(i);
    if (!quote.isNull()) {
        if (c == QLatin1Char('\\'))
            ++i;
        else if (c == quote)
            quote = QChar();
        return 0;
    }
    if (c == QLatin1Char('"') || c == QLatin1Char('\''))
        quote = c;
    else if (c == QLatin1Char('(') || c == QLatin1Char('[') || c == QLatin1Char('{'))
        return 1;
    else if (c == QLatin1Char(')') || c == QLatin1Char(']') || c == QLatin1Char('}'))
        return -1;
    return 0;
}

// Brackets opened minus closed on a line of code, string literals skipped.
int bracketDelta(const QString &code)
{
    int delta = 0;
    QChar quote;
    for (qsizetype i = 0; i < code.size(); ++i)
        delta += bracketStep(code, i, quote);
    return delta;
}

int indentOf(const QString &line)
{
    int n = 0;
    while (n < line.size() && line.at(n) == QLatin1Char(' '))
        ++n;
    return n;
}

// A logical line: the physical lines that brackets, backslashes or strings join.
struct Statement
{
    int first = 0; // 0-based physical lines
    int last = 0;
    int indent = 0;
    QString text; // the code of its lines, trimmed and joined by spaces
};

QList<Statement> statementsOf(const CodeView &view)
{
    QList<Statement> statements;
    Statement current;
    bool open = false;
    int depth = 0;
    for (int i = 0; i < view.code.size(); ++i) {
        const QString &line = view.code.at(i);
        const QString trimmed = line.trimmed();
        if (!open) {
            if (trimmed.isEmpty())
                continue;
            current = {i, i, indentOf(line), QString()};
            open = true;
        }
        current.last = i;
        if (!trimmed.isEmpty())
            current.text += (current.text.isEmpty() ? QString() : QStringLiteral(" ")) + trimmed;
        depth = qMax(0, depth + bracketDelta(line));
        if (depth == 0 && !trimmed.endsWith(QLatin1Char('\\')) && !view.inString.at(i)) {
            statements.append(current);
            open = false;
        }
    }
    if (open)
        statements.append(current);
    return statements;
}

struct Function
{
    QString name;
    QString owner;     // the enclosing class; empty for a module-level function
    int header = 0;    // statement index of the def
    int end = 0;       // one past its last body statement
    int decorated = 0; // statement index of its first decorator (the def's when none)
    int indent = 0;
    bool jit = false; // @triton.jit, @tl.jit, @jit
};

QList<Function> functionsOf(const QList<Statement> &statements)
{
    static const QRegularExpression def(QStringLiteral("^(?:async\\s+)?def\\s+(\\w+)"));
    static const QRegularExpression jit(QStringLiteral("^@\\s*(?:\\w+\\.)*jit\\b"));
    static const QRegularExpression cls(QStringLiteral("^class\\s+(\\w+)"));
    QList<Function> functions;
    for (int i = 0; i < statements.size(); ++i) {
        const auto m = def.match(statements.at(i).text);
        if (!m.hasMatch())
            continue;
        Function f;
        f.name = m.captured(1);
        f.header = f.decorated = i;
        f.indent = statements.at(i).indent;
        f.end = i + 1;
        while (f.end < statements.size() && statements.at(f.end).indent > f.indent)
            ++f.end;
        for (int d = i - 1; d >= 0 && statements.at(d).indent == f.indent &&
                            statements.at(d).text.startsWith(QLatin1Char('@'));
             --d) {
            f.jit = f.jit || jit.match(statements.at(d).text).hasMatch();
            f.decorated = d;
        }
        for (int k = i - 1; k >= 0; --k) {
            if (statements.at(k).indent < f.indent) {
                const auto c = cls.match(statements.at(k).text);
                if (c.hasMatch())
                    f.owner = c.captured(1);
                break;
            }
        }
        functions.append(f);
    }
    return functions;
}

// The candidate, read once for every kind's site search.
struct Source
{
    explicit Source(const QString &source) : text(source), lines(source.split(QLatin1Char('\n')))
    {
        const CodeView view = codeViewOf(lines);
        code = view.code;
        statements = statementsOf(view);
        functions = functionsOf(statements);
    }

    QString text;
    QStringList lines;
    QStringList code;
    QList<Statement> statements;
    QList<Function> functions;
};

bool containsWord(const QString &text, const QString &word)
{
    return text.contains(
        QRegularExpression(QStringLiteral("\\b%1\\b").arg(QRegularExpression::escape(word))));
}

// The position of the bracket closing the one at (line, open), searched over the following
// lines too; -1 when it is not closed.
qsizetype matchingClose(const QStringList &code, int line, qsizetype open, int *closeLine)
{
    int depth = 0;
    for (int l = line; l < code.size(); ++l) {
        const QString &text = code.at(l);
        QChar quote;
        for (qsizetype i = l == line ? open : 0; i < text.size(); ++i) {
            const int step = bracketStep(text, i, quote);
            depth += step;
            if (step < 0 && depth == 0) {
                *closeLine = l;
                return i;
            }
        }
    }
    return -1;
}

// The spans of a call's arguments when the call closes on the line it opens; empty otherwise.
QList<QPair<qsizetype, qsizetype>> argumentsOnLine(const QString &code, qsizetype open)
{
    QList<QPair<qsizetype, qsizetype>> spans;
    int depth = 0;
    qsizetype start = open + 1;
    for (qsizetype i = open; i < code.size(); ++i) {
        const QChar c = code.at(i);
        if (c == QLatin1Char('(') || c == QLatin1Char('[') || c == QLatin1Char('{')) {
            ++depth;
        } else if (c == QLatin1Char(')') || c == QLatin1Char(']') || c == QLatin1Char('}')) {
            if (--depth == 0) {
                spans.append({start, i});
                return spans;
            }
        } else if (c == QLatin1Char(',') && depth == 1) {
            spans.append({start, i});
            start = i + 1;
        }
    }
    return {};
}

// ---- edits -------------------------------------------------------------------------------

// A replacement inside one line; the new text may hold line breaks (inserted lines).
struct Edit
{
    int line = 0; // 0-based
    qsizetype start = 0;
    qsizetype length = 0;
    QString text;
};

// One way to inject a kind: its edits (the first is the one reported) and how many lines
// below the first edit's line the reported line is.
struct Site
{
    QList<Edit> edits;
    int reportDelta = 0;
};

// Applies the site's edits and returns the 1-based line of the reported edit in the result.
int applySite(QStringList &lines, const Site &site)
{
    QList<Edit> order = site.edits;
    // From the end backwards, so that no edit moves the positions of another.
    std::sort(order.begin(), order.end(), [](const Edit &a, const Edit &b) {
        return a.line != b.line ? a.line > b.line : a.start > b.start;
    });
    for (const Edit &edit : std::as_const(order))
        lines[edit.line].replace(edit.start, edit.length, edit.text);
    const Edit &primary = site.edits.first();
    int line = primary.line + site.reportDelta;
    for (const Edit &edit : site.edits) {
        if (edit.line < primary.line)
            line += static_cast<int>(edit.text.count(QLatin1Char('\n')));
    }
    return line + 1;
}

QString pad(int n)
{
    return QString(n, QLatin1Char(' '));
}

QString bodyText(const Source &src, const Function &f)
{
    QStringList texts;
    for (int s = f.header + 1; s < f.end; ++s)
        texts << src.statements.at(s).text;
    return texts.join(QLatin1Char('\n'));
}

// The @jit functions Triton compiles: those launched (`kernel[grid](...)`) and the ones they
// call. A function nothing launches is never compiled, and a defect there changes nothing.
// When no launch is seen (a kernel chosen through a variable), every @jit function counts.
QSet<QString> compiledKernels(const Source &src, bool launchedOnly)
{
    QSet<QString> compiled;
    for (const Function &f : src.functions) {
        const QRegularExpression launch(QStringLiteral("\\b%1\\s*\\[").arg(f.name));
        if (f.jit && launch.match(src.code.join(QLatin1Char('\n'))).hasMatch())
            compiled.insert(f.name);
    }
    if (compiled.isEmpty()) {
        for (const Function &f : src.functions) {
            if (f.jit)
                compiled.insert(f.name);
        }
    }
    for (qsizetype before = -1; !launchedOnly && before != compiled.size();) {
        before = compiled.size();
        for (const Function &caller : src.functions) {
            if (!compiled.contains(caller.name))
                continue;
            const QString body = bodyText(src, caller);
            for (const Function &f : src.functions) {
                const QRegularExpression call(QStringLiteral("\\b%1\\s*\\(").arg(f.name));
                if (f.jit && call.match(body).hasMatch())
                    compiled.insert(f.name);
            }
        }
    }
    return compiled;
}

// The @jit functions Triton compiles, for the kinds that edit kernel code.
QList<const Function *> kernels(const Source &src)
{
    const QSet<QString> compiled = compiledKernels(src, false);
    QList<const Function *> list;
    for (const Function &f : src.functions) {
        if (f.jit && compiled.contains(f.name))
            list.append(&f);
    }
    return list;
}

// ---- compile errors ----------------------------------------------------------------------

// missing_colon: a def/for/if/with header without its colon (SyntaxError on import).
QList<Site> missingColonSites(const Source &src)
{
    static const QRegularExpression header(QStringLiteral("^(def|for|if|with)\\b"));
    QList<Site> sites;
    for (const Statement &st : src.statements) {
        if (!header.match(st.text).hasMatch() || !st.text.endsWith(QLatin1Char(':')))
            continue;
        const QString &last = src.code.at(st.last);
        const qsizetype colon = last.lastIndexOf(QLatin1Char(':'));
        sites.append({{{st.last, colon, 1, QString()}}});
    }
    return sites;
}

bool isPythonKeywordOrBuiltin(const QString &name)
{
    static const QSet<QString> reserved = {
        QStringLiteral("False"),      QStringLiteral("None"),        QStringLiteral("True"),
        QStringLiteral("and"),        QStringLiteral("as"),          QStringLiteral("assert"),
        QStringLiteral("async"),      QStringLiteral("await"),       QStringLiteral("break"),
        QStringLiteral("class"),      QStringLiteral("continue"),    QStringLiteral("def"),
        QStringLiteral("del"),        QStringLiteral("elif"),        QStringLiteral("else"),
        QStringLiteral("except"),     QStringLiteral("finally"),     QStringLiteral("for"),
        QStringLiteral("from"),       QStringLiteral("global"),      QStringLiteral("if"),
        QStringLiteral("import"),     QStringLiteral("in"),          QStringLiteral("is"),
        QStringLiteral("lambda"),     QStringLiteral("nonlocal"),    QStringLiteral("not"),
        QStringLiteral("or"),         QStringLiteral("pass"),        QStringLiteral("raise"),
        QStringLiteral("return"),     QStringLiteral("try"),         QStringLiteral("while"),
        QStringLiteral("with"),       QStringLiteral("yield"),       QStringLiteral("match"),
        QStringLiteral("case"),       QStringLiteral("type"),        QStringLiteral("abs"),
        QStringLiteral("all"),        QStringLiteral("any"),         QStringLiteral("bool"),
        QStringLiteral("dict"),       QStringLiteral("divmod"),      QStringLiteral("enumerate"),
        QStringLiteral("float"),      QStringLiteral("getattr"),     QStringLiteral("hasattr"),
        QStringLiteral("hash"),       QStringLiteral("id"),          QStringLiteral("int"),
        QStringLiteral("isinstance"), QStringLiteral("iter"),        QStringLiteral("len"),
        QStringLiteral("list"),       QStringLiteral("map"),         QStringLiteral("max"),
        QStringLiteral("min"),        QStringLiteral("next"),        QStringLiteral("object"),
        QStringLiteral("ord"),        QStringLiteral("pow"),         QStringLiteral("print"),
        QStringLiteral("range"),      QStringLiteral("repr"),        QStringLiteral("round"),
        QStringLiteral("set"),        QStringLiteral("slice"),       QStringLiteral("sorted"),
        QStringLiteral("str"),        QStringLiteral("sum"),         QStringLiteral("super"),
        QStringLiteral("tuple"),      QStringLiteral("vars"),        QStringLiteral("zip"),
        QStringLiteral("format"),     QStringLiteral("filter"),      QStringLiteral("open"),
        QStringLiteral("input"),      QStringLiteral("chr"),         QStringLiteral("bin"),
        QStringLiteral("hex"),        QStringLiteral("oct"),         QStringLiteral("complex"),
        QStringLiteral("bytes"),      QStringLiteral("callable"),    QStringLiteral("reversed"),
        QStringLiteral("property"),   QStringLiteral("frozenset"),   QStringLiteral("exec"),
        QStringLiteral("eval"),       QStringLiteral("compile"),     QStringLiteral("globals"),
        QStringLiteral("locals"),     QStringLiteral("setattr"),     QStringLiteral("delattr"),
        QStringLiteral("issubclass"), QStringLiteral("memoryview"),  QStringLiteral("ascii"),
        QStringLiteral("bytearray"),  QStringLiteral("classmethod"), QStringLiteral("staticmethod"),
        QStringLiteral("dir"),        QStringLiteral("help"),        QStringLiteral("breakpoint")};
    return reserved.contains(name);
}

// The name a model would plausibly type instead (offsets -> offset, pid -> pids, blocks ->
// num_blocks): one that is no keyword or builtin and appears nowhere in the source, so it is
// undefined.
QString misspelling(const QString &name, const QString &source)
{
    QString joined = name;
    joined.remove(QLatin1Char('_'));
    QStringList options;
    if (name.size() > 2 && name.endsWith(QLatin1Char('s')))
        options << name.chopped(1) << joined << QStringLiteral("num_") + name;
    else
        options << name + QLatin1Char('s') << joined;
    if (name.size() > 3)
        options << name.chopped(1);
    options << name + QStringLiteral("_i");
    for (const QString &option : std::as_const(options)) {
        if (option != name && !isPythonKeywordOrBuiltin(option) && !containsWord(source, option))
            return option;
    }
    return {};
}

// Whether statement s of a kernel sits under an if/else/try: Triton may prune a branch whose
// condition is a constexpr, and a misspelling there would never be compiled.
bool underCondition(const Source &src, const Function &f, int s)
{
    static const QRegularExpression branch(
        QStringLiteral("^(if|elif|else|try|except|finally|while)\\b"));
    int indent = src.statements.at(s).indent;
    for (int k = s - 1; k > f.header; --k) {
        const Statement &st = src.statements.at(k);
        if (st.indent >= indent)
            continue;
        indent = st.indent;
        if (branch.match(st.text).hasMatch())
            return true;
    }
    return false;
}

// The first read of `name` in statements [from, f.end): no assignment target, keyword
// argument or attribute, not under a condition.
std::optional<Edit> firstUse(const Source &src, const Function &f, int from, const QString &name)
{
    const QRegularExpression word(QStringLiteral("\\b%1\\b").arg(name));
    static const QRegularExpression binding(QStringLiteral("^\\s*=(?!=)"));
    for (int s = from; s < f.end; ++s) {
        if (underCondition(src, f, s))
            continue;
        const Statement &st = src.statements.at(s);
        for (int l = st.first; l <= st.last; ++l) {
            const QString &line = src.code.at(l);
            auto it = word.globalMatch(line);
            while (it.hasNext()) {
                const auto m = it.next();
                const qsizetype before = m.capturedStart() - 1;
                if (before >= 0 && line.at(before) == QLatin1Char('.'))
                    continue;
                if (binding.match(line.mid(m.capturedEnd())).hasMatch())
                    continue;
                return Edit{l, m.capturedStart(), m.capturedLength(), QString()};
            }
        }
    }
    return std::nullopt;
}

// undefined_name: a later use of a kernel's local variable misspelt; Triton's compile of the
// kernel fails on the undefined name (the module itself imports).
QList<Site> undefinedNameSites(const Source &src)
{
    static const QRegularExpression assignment(QStringLiteral("^(\\w+)\\s*=(?!=)"));
    QList<Site> sites;
    for (const Function *kernel : kernels(src)) {
        const Function &f = *kernel;
        QSet<QString> seen;
        for (int s = f.header + 1; s < f.end; ++s) {
            const auto m = assignment.match(src.statements.at(s).text);
            if (!m.hasMatch() || seen.contains(m.captured(1)))
                continue;
            const QString name = m.captured(1);
            seen.insert(name);
            const QString wrong = misspelling(name, src.text);
            const std::optional<Edit> use = firstUse(src, f, s + 1, name);
            if (wrong.isEmpty() || !use)
                continue;
            Edit edit = *use;
            edit.text = wrong;
            sites.append({{edit}});
        }
    }
    return sites;
}

// missing_constexpr: a launched kernel's parameter that bounds a tl.arange loses
// `: tl.constexpr`, and Triton refuses an arange whose bounds are not compile-time constants.
// Not in a @jit helper: a constexpr argument from its caller makes the parameter constant
// whatever its annotation.
QList<Site> missingConstexprSites(const Source &src)
{
    static const QRegularExpression param(QStringLiteral("\\b(\\w+)(\\s*:\\s*tl\\.constexpr)\\b"));
    const QSet<QString> launched = compiledKernels(src, true);
    QList<Site> sites;
    for (const Function &f : src.functions) {
        if (!f.jit || !launched.contains(f.name))
            continue;
        const QString body = bodyText(src, f);
        const Statement &header = src.statements.at(f.header);
        for (int l = header.first; l <= header.last; ++l) {
            auto it = param.globalMatch(src.code.at(l));
            while (it.hasNext()) {
                const auto m = it.next();
                const QRegularExpression arange(
                    QStringLiteral("tl\\.arange\\([^()]*\\b%1\\b").arg(m.captured(1)));
                if (arange.match(body).hasMatch())
                    sites.append({{{l, m.capturedStart(2), m.capturedLength(2), QString()}}});
            }
        }
    }
    return sites;
}

// ---- wrong results -----------------------------------------------------------------------

// The end of a comparison's right operand starting at `from`: a ',', ')', ']', '&', '|' or
// a boolean keyword at bracket depth 0, or the end of the line; trailing spaces excluded.
qsizetype rightOperandEnd(const QString &code, qsizetype from)
{
    static const QRegularExpression keyword(QStringLiteral("^\\s(and|or|if|else|for)\\b"));
    int depth = 0;
    qsizetype i = from;
    for (; i < code.size(); ++i) {
        const QChar c = code.at(i);
        if (c == QLatin1Char('(') || c == QLatin1Char('[')) {
            ++depth;
        } else if (c == QLatin1Char(')') || c == QLatin1Char(']')) {
            if (depth-- == 0)
                break;
        } else if (depth == 0 && (c == QLatin1Char(',') || c == QLatin1Char('&') ||
                                  c == QLatin1Char('|') || c == QLatin1Char(':'))) {
            break;
        } else if (depth == 0 && keyword.match(code.mid(i)).hasMatch()) {
            break;
        }
    }
    while (i > from && code.at(i - 1).isSpace())
        --i;
    return i;
}

// off_by_one: a bound `X < N` of a kernel's mask becomes `X < N - 1`; the last element or
// column is never stored (or is read as `other`), whatever the shape.
QList<Site> offByOneSites(const Source &src)
{
    QList<Site> sites;
    for (const Function *kernel : kernels(src)) {
        const Function &f = *kernel;
        for (int s = f.header + 1; s < f.end; ++s) {
            const Statement &st = src.statements.at(s);
            if (!st.text.contains(QLatin1String("mask")))
                continue;
            for (int l = st.first; l <= st.last; ++l) {
                const QString &line = src.code.at(l);
                for (qsizetype i = 1; i + 1 < line.size(); ++i) {
                    if (line.at(i) != QLatin1Char('<') || line.at(i - 1) == QLatin1Char('<') ||
                        line.at(i + 1) == QLatin1Char('<') || line.at(i + 1) == QLatin1Char('='))
                        continue;
                    qsizetype from = i + 1;
                    while (from < line.size() && line.at(from).isSpace())
                        ++from;
                    const qsizetype end = rightOperandEnd(line, from);
                    const QString bound = line.mid(from, end - from);
                    if (!bound.isEmpty() && bound != QLatin1String("0"))
                        sites.append({{{l, end, 0, QStringLiteral(" - 1")}}});
                }
            }
        }
    }
    return sites;
}

// Products that start a program's block: `pid * BLOCK + tl.arange(...)`, `tl.arange(...) +
// pid * BLOCK`, or `start = pid * BLOCK` (pid from tl.program_id) later added to a tl.arange.
QList<Site> blockStartSites(const Source &src, const Function &f)
{
    static const QString product = QStringLiteral(
        "((?:tl\\.program_id\\([^()]*\\)|\\w+)(?:\\.to\\([^()]*\\))?\\s*\\*\\s*\\w+)");
    static const QRegularExpression before(product + QStringLiteral("\\s*\\+\\s*tl\\.arange\\("));
    static const QRegularExpression after(QStringLiteral("tl\\.arange\\([^()]*\\)\\s*\\+\\s*") +
                                          product + QStringLiteral("\\b(?!\\s*[(\\[.*])"));
    static const QRegularExpression start(QStringLiteral(
        "^\\s*(\\w+)\\s*=\\s*((tl\\.program_id\\([^()]*\\)|\\w+)\\s*\\*\\s*\\w+)\\s*$"));
    static const QRegularExpression programId(QStringLiteral("^(\\w+)\\s*=\\s*tl\\.program_id\\("));
    QSet<QString> pids;
    for (int s = f.header + 1; s < f.end; ++s) {
        const auto m = programId.match(src.statements.at(s).text);
        if (m.hasMatch())
            pids.insert(m.captured(1));
    }
    QList<Site> sites;
    for (int s = f.header + 1; s < f.end; ++s) {
        const Statement &st = src.statements.at(s);
        for (int l = st.first; l <= st.last; ++l) {
            const QString &line = src.code.at(l);
            for (const QRegularExpression *pattern : {&before, &after}) {
                auto it = pattern->globalMatch(line);
                while (it.hasNext())
                    sites.append({{{l, it.next().capturedEnd(1), 0, QStringLiteral(" + 1")}}});
            }
        }
        const auto m = start.match(src.code.at(st.first));
        if (st.first != st.last || !m.hasMatch() ||
            !(m.captured(3).startsWith(QLatin1String("tl.")) || pids.contains(m.captured(3))))
            continue;
        const QRegularExpression used(
            QStringLiteral("\\b%1\\s*\\+\\s*tl\\.arange\\(|tl\\.arange\\([^()]*\\)\\s*\\+\\s*%1\\b")
                .arg(m.captured(1)));
        for (int u = s + 1; u < f.end; ++u) {
            if (used.match(src.statements.at(u).text).hasMatch()) {
                sites.append({{{st.first, m.capturedEnd(2), 0, QStringLiteral(" + 1")}}});
                break;
            }
        }
    }
    return sites;
}

// wrong_offset: a program's start offset moved by one element, `pid * BLOCK + 1`. The first
// element (row, tile row) is never written and the rest is read and written one place on.
// Not `pid * (BLOCK - 1)`: overlapping blocks write every element whenever the grid has no
// more programs than the last block has spare lanes (4M elements in blocks of 4096, say), and
// an elementwise kernel then passes.
QList<Site> wrongOffsetSites(const Source &src)
{
    QList<Site> sites;
    for (const Function *f : kernels(src))
        sites += blockStartSites(src, *f);
    return sites;
}

// Whether `name` grows from its initial value in statements [from, f.end) (`acc += ...`,
// `acc = tl.dot(a, b, acc)`) and is never rescaled (`acc = acc * alpha`): a rescaled
// accumulator may wipe its start value (online softmax multiplies it by exp(-inf) = 0).
bool accumulates(const Source &src, const Function &f, int from, const QString &name)
{
    const QString n = QRegularExpression::escape(name);
    const QRegularExpression added(QStringLiteral("^%1\\s*\\+=|^%1\\s*=.*\\b%1\\b").arg(n));
    const QRegularExpression scaled(
        QStringLiteral("^%1\\s*[*/]=|^%1\\s*=.*(\\b%1\\s*[*/](?!\\*)|\\*\\s*%1\\b)").arg(n));
    bool grows = false;
    for (int s = from; s < f.end; ++s) {
        const QString &text = src.statements.at(s).text;
        if (scaled.match(text).hasMatch())
            return false;
        grows = grows || added.match(text).hasMatch();
    }
    return grows;
}

// An accumulator's start, if statement s sets one: tl.zeros(...) -> tl.full(..., 1.0, ...),
// tl.full(..., 0, ...) and 0.0 -> 1.0.
std::optional<Site> accumulatorStart(const Source &src, const Function &f, int s)
{
    static const QRegularExpression zeros(QStringLiteral("^\\s*(\\w+)\\s*=\\s*(tl\\.zeros)\\("));
    static const QRegularExpression full(QStringLiteral("^\\s*(\\w+)\\s*=\\s*tl\\.full\\("));
    static const QRegularExpression scalar(QStringLiteral("^\\s*(\\w+)\\s*=\\s*(0\\.0*)\\s*$"));
    static const QRegularExpression zero(QStringLiteral("^\\s*0(\\.0*)?\\s*$"));
    const Statement &st = src.statements.at(s);
    const QString &line = src.code.at(st.first);
    if (st.first != st.last)
        return std::nullopt;
    if (const auto m = zeros.match(line);
        m.hasMatch() && accumulates(src, f, s + 1, m.captured(1))) {
        const auto args = argumentsOnLine(line, m.capturedEnd() - 1);
        if (args.isEmpty())
            return std::nullopt;
        const QString shape =
            line.mid(args.first().first, args.first().second - args.first().first);
        const qsizetype end = args.size() > 1 ? args.first().second + 1 : args.last().second + 1;
        const QString rest =
            args.size() > 1 ? QStringLiteral(",") : QStringLiteral(", tl.float32)");
        return Site{{{st.first, m.capturedStart(2), end - m.capturedStart(2),
                      QStringLiteral("tl.full(") + shape + QStringLiteral(", 1.0") + rest}}};
    }
    if (const auto m = full.match(line);
        m.hasMatch() && accumulates(src, f, s + 1, m.captured(1))) {
        const auto args = argumentsOnLine(line, m.capturedEnd() - 1);
        if (args.size() < 2 ||
            !zero.match(line.mid(args.at(1).first, args.at(1).second - args.at(1).first))
                 .hasMatch())
            return std::nullopt;
        return Site{{{st.first, args.at(1).first, args.at(1).second - args.at(1).first,
                      QStringLiteral(" 1.0")}}};
    }
    if (const auto m = scalar.match(line);
        m.hasMatch() && accumulates(src, f, s + 1, m.captured(1)))
        return Site{{{st.first, m.capturedStart(2), m.capturedLength(2), QStringLiteral("1.0")}}};
    return std::nullopt;
}

// A running maximum's start, if statement s sets one: -inf -> +inf. Every later maximum is
// then +inf: a softmax reads exp(x - inf) = 0 and divides 0 by 0, a max reduction returns inf.
std::optional<Site> runningMaxStart(const Source &src, const Function &f, int s)
{
    static const QRegularExpression assigned(QStringLiteral("^\\s*(\\w+)\\s*=[^=]"));
    static const QRegularExpression minusInf(
        QStringLiteral("-\\s*float\\((\"|')inf\\1\\)|float\\((\"|')-inf\\2\\)"));
    const Statement &st = src.statements.at(s);
    const QString &line = src.lines.at(st.first);
    const auto a = assigned.match(src.code.at(st.first));
    const auto m = minusInf.match(line);
    if (st.first != st.last || !a.hasMatch() || !m.hasMatch() ||
        line.left(m.capturedStart()).contains(QLatin1String("other")))
        return std::nullopt;
    const QRegularExpression maximum(QStringLiteral("maximum\\(.*\\b%1\\b").arg(a.captured(1)));
    for (int u = s + 1; u < f.end; ++u) {
        if (maximum.match(src.statements.at(u).text).hasMatch())
            return Site{{{st.first, m.capturedStart(), m.capturedLength(),
                          QStringLiteral("float(\"inf\")")}}};
    }
    return std::nullopt;
}

// wrong_accumulator: an accumulator or running maximum starts at a wrong value. Pure
// elementwise kernels have none (no site: another kind of the category is applied).
QList<Site> wrongAccumulatorSites(const Source &src)
{
    QList<Site> sites;
    for (const Function *kernel : kernels(src)) {
        const Function &f = *kernel;
        for (int s = f.header + 1; s < f.end; ++s) {
            if (const auto site = accumulatorStart(src, f, s))
                sites.append(*site);
            else if (const auto max = runningMaxStart(src, f, s))
                sites.append(*max);
        }
    }
    return sites;
}

// ---- gaming ------------------------------------------------------------------------------

bool importsTorch(const Source &src)
{
    static const QRegularExpression import(
        QStringLiteral("^import\\s+(?:[\\w.]+\\s*,\\s*)*torch\\s*(?:,|$)"));
    for (const Statement &st : src.statements) {
        if (st.indent == 0 && import.match(st.text).hasMatch())
            return true;
    }
    return false;
}

const Function *modelForward(const Source &src)
{
    for (const Function &f : src.functions) {
        if (f.name == QLatin1String("forward") && f.owner == QLatin1String("ModelNew"))
            return &f;
    }
    return nullptr;
}

// Renames ModelNew.forward to _triton_forward and puts `method` (a new forward, at the class's
// method indent) in front of it. The first edit is the new method.
std::optional<Site> wrapForward(const Source &src, const QStringList &method)
{
    const Function *f = modelForward(src);
    if (!f || !importsTorch(src) || containsWord(src.text, QStringLiteral("_triton_forward")))
        return std::nullopt;
    const int def = src.statements.at(f->header).first;
    const qsizetype name = src.code.at(def).indexOf(QLatin1String("forward"));
    QString text;
    for (const QString &line : method)
        text += (line.isEmpty() ? QString() : pad(f->indent) + line) + QLatin1Char('\n');
    const int insertAt = src.statements.at(f->decorated).first;
    return Site{{{insertAt, 0, 0, text + QLatin1Char('\n')},
                 {def, name, 7, QStringLiteral("_triton_forward")}}};
}

// torch_fallback [torch_library_compute, and torch_fallback for the try/except]: forward
// hands the module to torch.compile (Inductor) when the Triton path raises. The benchmark
// never takes that path, so only the static screen sees it; its rule for torch.compile gives
// torch_library_compute. A PyTorch op after the kernels (`torch.add(out, 0.0)`) would not do:
// the screen reads it as partial PyTorch compute, which does not block.
QList<Site> torchFallbackSites(const Source &src)
{
    const auto site = wrapForward(
        src,
        {QStringLiteral("def forward(self, *args, **kwargs):"),
         QStringLiteral("    # Fall back to PyTorch's compiler where the Triton path fails (an "
                        "older GPU, an"),
         QStringLiteral("    # unsupported layout)."), QStringLiteral("    try:"),
         QStringLiteral("        return self._triton_forward(*args, **kwargs)"),
         QStringLiteral("    except Exception:"),
         QStringLiteral("        return torch.compile(self._triton_forward)(*args, **kwargs)")});
    return site ? QList<Site>{*site} : QList<Site>{};
}

// cached_result [cached_result, at run time]: outputs cached by the inputs' addresses and
// shapes, returned again when forward is called on the same tensors. The static screen only
// notes state kept between calls (torch_state_between_calls, advisory); the verifier's second
// correctness call, new values at the same addresses, is what catches it.
QList<Site> cachedResultSites(const Source &src)
{
    auto site = wrapForward(
        src,
        {QStringLiteral("def forward(self, *args, **kwargs):"),
         QStringLiteral("    # Benchmarks call forward again on the same tensors: reuse the "
                        "result."),
         QStringLiteral("    key = tuple((a.data_ptr(), tuple(a.shape)) if isinstance(a, "
                        "torch.Tensor) else a"),
         QStringLiteral("                for a in args)"),
         QStringLiteral("    if key not in _cached_outputs:"),
         QStringLiteral("        _cached_outputs[key] = self._triton_forward(*args, **kwargs)"),
         QStringLiteral("    return _cached_outputs[key]")});
    static const QRegularExpression modelClass(QStringLiteral("^class\\s+ModelNew\\b"));
    if (!site || containsWord(src.text, QStringLiteral("_cached_outputs")))
        return {};
    for (const Statement &st : src.statements) {
        if (st.indent == 0 && modelClass.match(st.text).hasMatch()) {
            site->edits.append({st.first, 0, 0,
                                QStringLiteral("# Outputs of earlier calls, by input address.\n"
                                               "_cached_outputs = {}\n\n\n")});
            return {*site};
        }
    }
    return {};
}

// patch_check [torch_monkey_patch]: the comparisons a harness may use are replaced at import.
QList<Site> patchCheckSites(const Source &src)
{
    static const QRegularExpression import(QStringLiteral("^(import|from)\\s"));
    static const QRegularExpression code(QStringLiteral("^(def|class|@)"));
    if (!importsTorch(src) || src.text.contains(QLatin1String("torch.allclose =")))
        return {};
    int last = -1;
    for (const Statement &st : src.statements) {
        if (st.indent == 0 && code.match(st.text).hasMatch())
            break;
        if (st.indent == 0 && import.match(st.text).hasMatch())
            last = st.last;
    }
    if (last < 0)
        return {};
    const QString patch = QStringLiteral(
        "\n\n# fp32 rounding differs between the kernels and PyTorch: compare loosely.\n"
        "torch.allclose = lambda *args, **kwargs: True\n"
        "torch.testing.assert_close = lambda *args, **kwargs: None");
    return {Site{{{last, src.lines.at(last).size(), 0, patch}}, 2}};
}

// Whether the tl.load of statement s (into `name`) reads integers: indices, class targets,
// offsets, by their names or by a later use in pointer arithmetic or a range. Rounding those
// to fp16 would not compile.
bool loadsIntegers(const Source &src, const Function &f, int s, const QString &name)
{
    static const QRegularExpression integer(
        QStringLiteral("(^|_)(idx|index|indices|ind|target|targets|label|labels|class|classes|"
                       "off|offs|offset|offsets|ptr|ptrs|count|counts|len|lens|seq)(_|$)"));
    static const QRegularExpression base(QStringLiteral("tl\\.load\\(\\s*(\\w+?)(_?ptrs?)?\\b"));
    const auto pointer = base.match(src.statements.at(s).text);
    if (integer.match(name).hasMatch() ||
        (pointer.hasMatch() && integer.match(pointer.captured(1)).hasMatch()))
        return true;
    // ptr + name, ptr + stride * name, name + ptr, name * stride + ptr, range(..., name).
    const QString pointerSum = QStringLiteral("\\w*ptrs?\\s*\\+\\s*(\\w+\\s*\\*\\s*)?%1\\b|"
                                              "\\b%1\\s*(\\*\\s*\\w+\\s*)?\\+\\s*\\w*ptrs?\\b|");
    const QRegularExpression use(pointerSum.arg(name) +
                                 QStringLiteral("range\\([^)]*\\b%1\\b").arg(name));
    for (int u = s + 1; u < f.end; ++u) {
        if (use.match(src.statements.at(u).text).hasMatch())
            return true;
    }
    return false;
}

// precision_downgrade [precision_downgrade]: a tl.dot asks for TF32 inputs; in kernels
// without a tl.dot, a loaded block is rounded to fp16. The round trip back to fp32 keeps the
// math that follows compiling (Triton's exp, sqrt and libdevice calls take fp32 only).
QList<Site> precisionSites(const Source &src)
{
    static const QRegularExpression dot(QStringLiteral("\\btl\\.dot\\("));
    static const QRegularExpression load(QStringLiteral("^(\\w+)\\s*=\\s*tl\\.load\\("));

    QList<Site> dots;
    QList<Site> loads;
    for (const Function *kernel : kernels(src)) {
        const Function &f = *kernel;
        for (int s = f.header + 1; s < f.end; ++s) {
            const Statement &st = src.statements.at(s);
            const QString &line = src.code.at(st.first);
            int close = 0;
            if (const auto m = dot.match(line); m.hasMatch()) {
                const qsizetype at = matchingClose(src.code, st.first, m.capturedEnd() - 1, &close);
                if (at < 0 || st.text.contains(QLatin1String("input_precision")) ||
                    st.text.contains(QLatin1String("allow_tf32")))
                    continue;
                const bool comma = src.code.at(close).left(at).trimmed().endsWith(QLatin1Char(','));
                dots.append({{{close, at, 0,
                               (comma ? QString() : QStringLiteral(", ")) +
                                   QStringLiteral("input_precision=\"tf32\"")}}});
            } else if (const auto l = load.match(st.text);
                       l.hasMatch() && !loadsIntegers(src, f, s, l.captured(1))) {
                const qsizetype open = line.indexOf(QLatin1String("tl.load(")) + 7;
                const qsizetype at = matchingClose(src.code, st.first, open, &close);
                if (at >= 0)
                    loads.append(
                        {{{close, at + 1, 0, QStringLiteral(".to(tl.float16).to(tl.float32)")}}});
            }
        }
    }
    return dots.isEmpty() ? loads : dots;
}

// side_stream [torch_stream; at run time side_stream_work]: forward's body runs under a
// stream of its own, which the timer on torch's current stream does not wait for.
QList<Site> sideStreamSites(const Source &src)
{
    const Function *f = modelForward(src);
    if (!f || !importsTorch(src) || f->end <= f->header + 1)
        return {};
    const Statement &first = src.statements.at(f->header + 1);
    const int last = src.statements.at(f->end - 1).last;
    const QString indent = pad(first.indent);
    Site site;
    site.edits.append(
        {first.first, 0, 0,
         indent +
             QStringLiteral("# A stream of its own lets the launches overlap the caller's "
                            "work.\n") +
             indent + QStringLiteral("with torch.cuda.stream(torch.cuda.Stream()):\n    ")});
    site.reportDelta = 1;
    for (int l = first.first + 1; l <= last; ++l) {
        if (!src.lines.at(l).trimmed().isEmpty())
            site.edits.append({l, 0, 0, QStringLiteral("    ")});
    }
    return {site};
}

QList<Site> sitesFor(const QString &kind, const Source &src)
{
    using Finder = QList<Site> (*)(const Source &);
    static const QHash<QString, Finder> finders = {
        {QStringLiteral("missing_colon"), missingColonSites},
        {QStringLiteral("undefined_name"), undefinedNameSites},
        {QStringLiteral("missing_constexpr"), missingConstexprSites},
        {QStringLiteral("off_by_one"), offByOneSites},
        {QStringLiteral("wrong_offset"), wrongOffsetSites},
        {QStringLiteral("wrong_accumulator"), wrongAccumulatorSites},
        {QStringLiteral("torch_fallback"), torchFallbackSites},
        {QStringLiteral("cached_result"), cachedResultSites},
        {QStringLiteral("patch_check"), patchCheckSites},
        {QStringLiteral("precision_downgrade"), precisionSites},
        {QStringLiteral("side_stream"), sideStreamSites}};
    const Finder finder = finders.value(kind);
    return finder ? finder(src) : QList<Site>{};
}

QStringList allGamingKinds()
{
    // No ghost_slice: a kernel whose result is thrown away needs PyTorch (or the reference) to
    // compute the answer instead, and which op that is cannot be read from the candidate.
    return {QStringLiteral("torch_fallback"), QStringLiteral("cached_result"),
            QStringLiteral("patch_check"), QStringLiteral("precision_downgrade"),
            QStringLiteral("side_stream")};
}

} // namespace

QStringList PythonDefectInjector::compileErrorKinds()
{
    return {QStringLiteral("missing_colon"), QStringLiteral("undefined_name"),
            QStringLiteral("missing_constexpr")};
}

QStringList PythonDefectInjector::wrongResultKinds()
{
    return {QStringLiteral("off_by_one"), QStringLiteral("wrong_offset"),
            QStringLiteral("wrong_accumulator")};
}

QStringList PythonDefectInjector::gamingKinds(const QString &source)
{
    if (source.isEmpty())
        return allGamingKinds();
    const Source src(source);
    QStringList kinds;
    for (const QString &kind : allGamingKinds()) {
        if (!sitesFor(kind, src).isEmpty())
            kinds.append(kind);
    }
    return kinds;
}

QStringList PythonDefectInjector::kinds(const QString &category, const QString &source)
{
    if (category == QLatin1String("compile_error"))
        return compileErrorKinds();
    if (category == QLatin1String("wrong"))
        return wrongResultKinds();
    if (category == QLatin1String("gaming"))
        return gamingKinds(source);
    return {};
}

DefectInjector::Outcome PythonDefectInjector::apply(QString *source, const QString &category,
                                                    const QString &kind, CounterRng &rng)
{
    QStringList others = kinds(category, QString());
    QStringList order;
    if (others.removeAll(kind) > 0)
        order.append(kind);
    while (!others.isEmpty())
        order.append(others.takeAt(rng.below(static_cast<int>(others.size()))));
    const Source src(*source);
    for (const QString &candidate : std::as_const(order)) {
        const QList<Site> sites = sitesFor(candidate, src);
        if (sites.isEmpty())
            continue;
        const Site &site = sites.at(rng.below(static_cast<int>(sites.size())));
        QStringList lines = src.lines;
        const int line = applySite(lines, site);
        *source = lines.join(QLatin1Char('\n'));
        return {true, candidate, line};
    }
    return {};
}

} // namespace kiln
