#include "verifier/screen/native/indirectcallrules.h"

#include "verifier/screen/native/forbiddencalls.h"

#include <QRegularExpression>

namespace kiln {

namespace {

// Tokens after which a name is a value, not a declaration or a label: `= f`, `(f)`, `&f`,
// `{f, g}`, `return f`, `c ? f : g`, `<&f>`, a cast `(T)f`.
bool isValueContext(const QString &previous)
{
    static const QSet<QString> tokens = {
        QStringLiteral("="), QStringLiteral("("), QStringLiteral(","),     QStringLiteral("{"),
        QStringLiteral("?"), QStringLiteral(":"), QStringLiteral("["),     QStringLiteral("<"),
        QStringLiteral(")"), QStringLiteral("&"), QStringLiteral("*"),     QStringLiteral("+"),
        QStringLiteral("|"), QStringLiteral("!"), QStringLiteral("return")};
    return tokens.contains(previous);
}

bool isCastKeyword(const QString &name)
{
    return name == QLatin1String("reinterpret_cast") || name == QLatin1String("static_cast") ||
           name == QLatin1String("bit_cast") || name == QLatin1String("const_cast");
}

} // namespace

IndirectCallRules::IndirectCallRules(const CandidateCode &code) : m_code(code)
{
    collectOwnNames();
}

// Names the candidate gives to types (`struct link`, `using F = ...`), enumerators
// (`enum Mode { read, write }`) and structured bindings (`auto [open, close] = ...`), and which
// of its aliases name function types: `typedef int (*F)(void *)`, `using F = int (*)(void *)`,
// `typedef int F(void *)`, `using F = decltype(&f)`.
void IndirectCallRules::collectOwnNames()
{
    static const QSet<QString> tags = {QStringLiteral("struct"), QStringLiteral("class"),
                                       QStringLiteral("union"), QStringLiteral("enum")};
    for (int k = 0; k + 1 < m_code.size(); ++k) {
        const QString word = m_code.text(k);
        if (tags.contains(word) && m_code.isIdentifier(k + 1))
            m_ownNames.insert(m_code.text(k + 1));
        if (word == QLatin1String("enum") || word == QLatin1String("auto"))
            collectListedNames(k, word == QLatin1String("enum") ? QStringLiteral("{")
                                                                : QStringLiteral("["));
        if (word == QLatin1String("using") && m_code.isIdentifier(k + 1) &&
            m_code.text(k + 2) == QLatin1String("=")) {
            int end = k + 3;
            while (end < m_code.size() && m_code.text(end) != QLatin1String(";"))
                ++end;
            m_ownNames.insert(m_code.text(k + 1));
            // R(args) itself is a function type: using F = void(int);
            const bool bareFunction = m_code.isIdentifier(k + 3) &&
                                      m_code.text(k + 3) != QLatin1String("decltype") &&
                                      m_code.text(end - 1) == QLatin1String(")") &&
                                      m_code.matchingClose(k + 4) == end - 1;
            if (bareFunction || isFunctionType(k + 3, end))
                m_functionTypes.insert(m_code.text(k + 1));
        }
        if (word != QLatin1String("typedef"))
            continue;
        int end = k + 1;
        while (end < m_code.size() && m_code.text(end) != QLatin1String(";") &&
               m_code.text(end) != QLatin1String("{"))
            ++end;
        for (int n = k + 1; n < end; ++n) {
            if (!m_code.isIdentifier(n))
                continue;
            const QString before = m_code.text(n - 1);
            const bool pointerName =
                (before == QLatin1String("*") || before == QLatin1String("&")) &&
                m_code.text(n - 2) == QLatin1String("(") &&
                m_code.text(n + 1) == QLatin1String(")") &&
                m_code.text(n + 2) == QLatin1String("(");
            const bool functionName = m_code.text(n + 1) == QLatin1String("(") && n > k + 1 &&
                                      (m_code.isIdentifier(n - 1) || before == QLatin1String("*"));
            if (pointerName || functionName)
                m_functionTypes.insert(m_code.text(n));
            if (pointerName || functionName || m_code.text(n + 1) == QLatin1String(";"))
                m_ownNames.insert(m_code.text(n));
        }
    }
}

// The names listed after `keyword` in the first `open` bracket within a few tokens: the
// enumerators of an enum, the names of a structured binding.
void IndirectCallRules::collectListedNames(int keyword, const QString &open)
{
    int first = keyword + 1;
    while (first < m_code.size() && first < keyword + 8 && m_code.text(first) != open &&
           m_code.text(first) != QLatin1String(";") && m_code.text(first) != QLatin1String("("))
        ++first;
    if (m_code.text(first) != open)
        return;
    const int close = m_code.matchingClose(first);
    for (int k = first + 1; k < close; ++k) {
        const QString before = m_code.text(k - 1);
        if (m_code.isIdentifier(k) && (k == first + 1 || before == QLatin1String(",")))
            m_ownNames.insert(m_code.text(k));
    }
}

void IndirectCallRules::screenTokens(ScreenFlags &flags) const
{
    for (int k = 0; k < m_code.size(); ++k) {
        const SourceToken &token = m_code.token(k);
        if (token.kind == SourceToken::Kind::String) {
            int end = k + 1;
            screenString(k, m_code.stringValue(k, &end), flags);
            k = end - 1;
        } else if (token.kind == SourceToken::Kind::Identifier) {
            screenNamedFunction(k, flags);
            if (isCastKeyword(token.text))
                screenNamedCast(k, flags);
        } else if (token.text == QLatin1String("(")) {
            screenParenthesisedCast(k, flags);
        }
    }
}

// A forbidden or clock function named where it is not called: f = mprotect, &clock_gettime,
// {&mprotect}, decltype(&mprotect), (mprotect)(...), std::chrono::steady_clock::now as a value.
void IndirectCallRules::screenNamedFunction(int i, ScreenFlags &flags) const
{
    const QString name = m_code.text(i);
    const QString flag = ForbiddenCalls::flagOf(name);
    const bool chronoNow = name == QLatin1String("now") &&
                           m_code.text(i - 1) == QLatin1String("::") &&
                           m_code.text(i - 2).endsWith(QLatin1String("_clock"));
    const bool timer = ForbiddenCalls::isTimerFunction(name) || chronoNow;
    if (flag.isEmpty() && !timer)
        return;
    const QString before = m_code.text(i - 1);
    const QString after = m_code.text(i + 1);
    if (before == QLatin1String(".") || before == QLatin1String("->") ||
        after == QLatin1String("(") || after == QLatin1String("::"))
        return; // a member, a call (HostRules' rule) or a scope
    int start = i;
    if (before == QLatin1String("::")) {
        // Qualified: only std:: (std::chrono:: for clocks) or the global scope name the C
        // library's function; another scope is the candidate's own.
        start = i - 1;
        while (m_code.isIdentifier(start - 1) && m_code.text(start - 2) == QLatin1String("::"))
            start -= 2;
        if (m_code.isIdentifier(start - 1)) {
            if (m_code.text(start - 1) != QLatin1String("std"))
                return;
            --start;
        }
    } else if (declaresVariable(name) || m_code.definesFunction(name) ||
               m_ownNames.contains(name)) {
        return; // the candidate's own variable, function or type of that name
    }
    if (!isValueContext(m_code.text(start - 1)))
        return;
    flags.add(flag.isEmpty() ? QStringLiteral("timer_tampering") : flag, m_code.token(i).line,
              name + QStringLiteral(" used as a value, not called"));
}

// "mprotect" in dlsym(h, "mprotect"), asm("mprotect"), __attribute__((weakref("mprotect"))).
void IndirectCallRules::screenString(int k, const QString &value, ScreenFlags &flags) const
{
    static const QRegularExpression identifier(QStringLiteral("^[A-Za-z_]\\w*$"));
    if (!identifier.match(value).hasMatch())
        return;
    const QString flag = ForbiddenCalls::flagOf(value);
    // "clock" and "time" are words too; the other clock names are only names.
    const bool timer = ForbiddenCalls::isTimerFunction(value) && value != QLatin1String("clock") &&
                       value != QLatin1String("time");
    if (!flag.isEmpty() || timer)
        flags.add(flag.isEmpty() ? QStringLiteral("timer_tampering") : flag, m_code.token(k).line,
                  QLatin1Char('"') + value + QStringLiteral("\" named in a string"));
}

// reinterpret_cast<int (*)(void *)>(address), std::bit_cast<F>(word).
void IndirectCallRules::screenNamedCast(int i, ScreenFlags &flags) const
{
    if (m_code.text(i + 1) != QLatin1String("<"))
        return;
    int depth = 0;
    int close = i + 1;
    for (; close < m_code.size(); ++close) {
        const QString t = m_code.text(close);
        if (t == QLatin1String("<") || t == QLatin1String("("))
            ++depth;
        else if ((t == QLatin1String(">") || t == QLatin1String(")")) && --depth == 0)
            break;
    }
    if (close >= m_code.size() || !isFunctionType(i + 2, close) || isOwnFunction(close + 2))
        return;
    flags.add(QStringLiteral("dynamic_loading"), m_code.token(i).line,
              m_code.text(i) + QStringLiteral(" to a function pointer"));
}

// (int (*)(void *))address, (F)word where F names a function pointer type.
void IndirectCallRules::screenParenthesisedCast(int open, ScreenFlags &flags) const
{
    // After a name, f(T) is a call or a declaration and sizeof(T) a size; only a statement
    // keyword (return (T)x) or __builtin_bit_cast(T, v) leaves a cast.
    static const QSet<QString> statementWords = {
        QStringLiteral("return"),   QStringLiteral("throw"),
        QStringLiteral("case"),     QStringLiteral("else"),
        QStringLiteral("do"),       QStringLiteral("co_return"),
        QStringLiteral("co_yield"), QStringLiteral("__builtin_bit_cast")};
    const QString before = m_code.text(open - 1);
    if (m_code.isIdentifier(open - 1) && !statementWords.contains(before))
        return;
    const int close = m_code.matchingClose(open);
    if (close < 0)
        return;
    int typeEnd = close;
    if (before == QLatin1String("__builtin_bit_cast")) {
        typeEnd = open + 1;
        while (typeEnd < close && m_code.text(typeEnd) != QLatin1String(","))
            ++typeEnd;
    } else {
        const SourceToken::Kind next =
            close + 1 < m_code.size() ? m_code.token(close + 1).kind : SourceToken::Kind::String;
        const QString nextText = m_code.text(close + 1);
        const bool operand = next == SourceToken::Kind::Identifier ||
                             next == SourceToken::Kind::Number || nextText == QLatin1String("(") ||
                             nextText == QLatin1String("&") || nextText == QLatin1String("*");
        if (!operand || isOwnFunction(close + 1))
            return;
    }
    if (!isFunctionType(open + 1, typeEnd))
        return;
    flags.add(QStringLiteral("dynamic_loading"), m_code.token(open).line,
              QStringLiteral("cast to a function pointer"));
}

bool IndirectCallRules::isFunctionType(int first, int last) const
{
    if (first >= last)
        return false;
    for (int k = first; k + 1 < last; ++k) {
        const QString t = m_code.text(k);
        // R (*)(...), R (&)(...), R (*name)(...), R (Scope::*)(...)
        if (t == QLatin1String("(") &&
            (m_code.text(k + 1) == QLatin1String("*") || m_code.text(k + 1) == QLatin1String("&") ||
             m_code.text(k + 2) == QLatin1String("::"))) {
            const int close = m_code.matchingClose(k);
            if (close > 0 && close + 1 < last && m_code.text(close + 1) == QLatin1String("("))
                return true;
        }
        // decltype(&f) of a function
        if (t == QLatin1String("decltype") && m_code.text(k + 1) == QLatin1String("(")) {
            const int name = m_code.text(k + 2) == QLatin1String("&") ? k + 3 : k + 2;
            if (m_code.definesFunction(m_code.text(name)) ||
                !ForbiddenCalls::flagOf(m_code.text(name)).isEmpty())
                return true;
        }
    }
    // An alias of a function or function pointer type.
    for (int k = first; k < last; ++k) {
        if (m_code.isIdentifier(k) && m_functionTypes.contains(m_code.text(k)))
            return true;
    }
    return false;
}

// A variable, parameter or member of that name: `float time`, `int *open`, `int (*close)(int)`,
// the later names of a list (`int a = 1, write = 2;`). `&name` and `(*name)(...)` after an
// operator are uses, not declarations.
bool IndirectCallRules::declaresVariable(const QString &name) const
{
    static const QSet<QString> after = {
        QStringLiteral("="), QStringLiteral(";"), QStringLiteral(","), QStringLiteral(")"),
        QStringLiteral("["), QStringLiteral("{"), QStringLiteral(":")};
    static const QSet<QString> notTypes = {QStringLiteral("return"), QStringLiteral("case"),
                                           QStringLiteral("throw"),  QStringLiteral("else"),
                                           QStringLiteral("do"),     QStringLiteral("goto")};
    auto isType = [&](int k) {
        return (m_code.isIdentifier(k) && !notTypes.contains(m_code.text(k))) ||
               m_code.text(k) == QLatin1String(">");
    };
    for (int k = 1; k + 1 < m_code.size(); ++k) {
        if (m_code.text(k) != name || !after.contains(m_code.text(k + 1)))
            continue;
        int q = k - 1;
        while (m_code.text(q) == QLatin1String("*") || m_code.text(q) == QLatin1String("&"))
            --q;
        const bool declarator = q < k - 1;
        if (isType(q) || (declarator && m_code.text(q) == QLatin1String("(") && isType(q - 1)))
            return true;
        if (!declarator && m_code.text(q) == QLatin1String(",") &&
            m_code.text(k + 1) != QLatin1String(",") && m_code.text(k + 1) != QLatin1String(")"))
            return true;
    }
    return false;
}

bool IndirectCallRules::isOwnFunction(int k) const
{
    if (m_code.text(k) == QLatin1String("("))
        ++k;
    if (m_code.text(k) == QLatin1String("&"))
        ++k;
    return m_code.isIdentifier(k) && m_code.definesFunction(m_code.text(k));
}

} // namespace kiln
