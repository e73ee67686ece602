#include "verifier/screen/python/pythonnames.h"

using namespace Qt::StringLiterals;

namespace kiln {

namespace {

using Token = PythonSource::Token;

const QSet<QString> &pythonBuiltins()
{
    static const QSet<QString> names = {
        u"abs"_s,        u"all"_s,         u"any"_s,          u"ascii"_s,      u"bin"_s,
        u"bool"_s,       u"breakpoint"_s,  u"bytearray"_s,    u"bytes"_s,      u"callable"_s,
        u"chr"_s,        u"classmethod"_s, u"compile"_s,      u"complex"_s,    u"delattr"_s,
        u"dict"_s,       u"dir"_s,         u"divmod"_s,       u"enumerate"_s,  u"eval"_s,
        u"exec"_s,       u"exit"_s,        u"filter"_s,       u"float"_s,      u"format"_s,
        u"frozenset"_s,  u"getattr"_s,     u"globals"_s,      u"hasattr"_s,    u"hash"_s,
        u"help"_s,       u"hex"_s,         u"id"_s,           u"input"_s,      u"int"_s,
        u"isinstance"_s, u"issubclass"_s,  u"iter"_s,         u"len"_s,        u"list"_s,
        u"locals"_s,     u"map"_s,         u"max"_s,          u"memoryview"_s, u"min"_s,
        u"next"_s,       u"object"_s,      u"oct"_s,          u"open"_s,       u"ord"_s,
        u"pow"_s,        u"print"_s,       u"property"_s,     u"quit"_s,       u"range"_s,
        u"repr"_s,       u"reversed"_s,    u"round"_s,        u"set"_s,        u"setattr"_s,
        u"slice"_s,      u"sorted"_s,      u"staticmethod"_s, u"str"_s,        u"sum"_s,
        u"super"_s,      u"tuple"_s,       u"type"_s,         u"vars"_s,       u"zip"_s,
        u"__import__"_s, u"None"_s,        u"True"_s,         u"False"_s,      u"NotImplemented"_s,
        u"Ellipsis"_s,   u"__name__"_s,    u"__file__"_s,     u"__doc__"_s};
    return names;
}

bool isBuilderName(const QString &qualified)
{
    return qualified.endsWith(u"cpp_extension.load_inline") ||
           qualified.endsWith(u"cpp_extension.load") || qualified == u"load_inline";
}

} // namespace

bool PythonNames::isKeyword(const QString &word)
{
    static const QSet<QString> keywords = {
        u"False"_s,  u"None"_s,     u"True"_s,  u"and"_s,    u"as"_s,       u"assert"_s,
        u"async"_s,  u"await"_s,    u"break"_s, u"class"_s,  u"continue"_s, u"def"_s,
        u"del"_s,    u"elif"_s,     u"else"_s,  u"except"_s, u"finally"_s,  u"for"_s,
        u"from"_s,   u"global"_s,   u"if"_s,    u"import"_s, u"in"_s,       u"is"_s,
        u"lambda"_s, u"nonlocal"_s, u"not"_s,   u"or"_s,     u"pass"_s,     u"raise"_s,
        u"return"_s, u"try"_s,      u"while"_s, u"with"_s,   u"yield"_s};
    return keywords.contains(word);
}

PythonNames::PythonNames(const PythonSource &source) : m_source(source)
{
    readImports();
    collectBoundNames();
    // Aliases of aliases and providers of extensions settle in a few rounds.
    for (int round = 0; round < 4; ++round) {
        readAliases();
        readProviders();
    }
    readReferences();
}

QString PythonNames::headName(int token) const
{
    const QString &name = m_source.tokens()[token].text;
    const int f = m_source.functionAt(token);
    if (f < 0)
        return name;
    const PythonSource::Function &function = m_source.functions()[f];
    if (function.owner >= 0 && !function.parameters.isEmpty() &&
        function.parameters.first() == name && !function.decorators.contains(u"staticmethod"_s))
        return u"self"_s;
    return name;
}

bool PythonNames::literalString(int first, int last, QString *value) const
{
    if (first >= last)
        return false;
    QString text;
    for (int k = first; k < last; ++k) {
        const Token &token = m_source.tokens()[k];
        if (token.kind != Token::Kind::String || token.formatted || token.opaque)
            return false;
        text += token.value;
    }
    if (value)
        *value = text;
    return true;
}

bool PythonNames::isBuiltinCall(int token, const QString &builtin) const
{
    const QList<Token> &tokens = m_source.tokens();
    if (token < 0 || token >= tokens.size() || tokens[token].kind != Token::Kind::Name ||
        !m_source.is(token + 1, u"("))
        return false;
    const QString resolved = resolve(tokens[token].text);
    return resolved == builtin || resolved == u"builtins."_s + builtin;
}

// Name(.Name)*, or getattr(chain, "literal")(.Name)*.
bool PythonNames::chainAt(int token, Chain *chain) const
{
    const QList<Token> &tokens = m_source.tokens();
    if (token < 0 || token >= tokens.size() || tokens[token].kind != Token::Kind::Name ||
        isKeyword(tokens[token].text))
        return false;
    int pos = token;
    chain->dotted = headName(token);
    if (isBuiltinCall(token, u"getattr"_s)) {
        const int close = m_source.matchingClose(token + 1, int(tokens.size()));
        const QList<QPair<int, int>> items = m_source.splitItems(token + 2, close);
        Chain inner;
        QString name;
        if (items.size() >= 2 && literalString(items[1].first, items[1].second, &name)) {
            // The attribute of whatever the first argument is ("?" when it is no name).
            const bool named = chainAt(items[0].first, &inner) && inner.end == items[0].second;
            chain->dotted = (named ? inner.dotted : u"?"_s) + u'.' + name;
            pos = close;
        }
    }
    while (m_source.is(pos + 1, u".") && pos + 2 < tokens.size() &&
           tokens[pos + 2].kind == Token::Kind::Name) {
        chain->dotted += u'.' + tokens[pos + 2].text;
        pos += 2;
    }
    chain->end = pos + 1;
    return true;
}

QString PythonNames::resolve(const QString &dotted) const
{
    QString current = dotted;
    for (int depth = 0; depth < 8; ++depth) {
        const QStringList parts = current.split(u'.');
        bool replaced = false;
        for (qsizetype k = parts.size(); k >= 1 && !replaced; --k) {
            const QString prefix = parts.mid(0, k).join(u'.');
            const QString target = m_alias.value(prefix);
            if (target.isEmpty() || target == prefix)
                continue;
            const QStringList rest = parts.mid(k);
            current = rest.isEmpty() ? target : target + u'.' + rest.join(u'.');
            replaced = true;
        }
        if (!replaced)
            break;
    }
    // `from x import *` binds every name it did not see.
    const QString head = current.section(u'.', 0, 0);
    if (!m_starModules.isEmpty() && !m_alias.contains(head) && !m_boundNames.contains(head) &&
        !pythonBuiltins().contains(head) && head != u"self" && head != u"?" && head != u"@ext")
        return m_starModules.last() + u'.' + current;
    return current;
}

bool PythonNames::isModuleRooted(const QString &qualified) const
{
    if (qualified.startsWith(u'.'))
        return true; // a relative import
    const QString root = qualified.section(u'.', 0, 0);
    return m_importRoots.contains(root) || root == u"builtins" || root == u"__builtins__";
}

void PythonNames::readImports()
{
    const QList<PythonSource::Statement> &statements = m_source.statements();
    for (const PythonSource::Statement &statement : statements) {
        if (m_source.is(statement.first, u"import") || m_source.is(statement.first, u"from")) {
            for (int k = statement.first; k < statement.last; ++k)
                m_importTokens.insert(k);
            readImport(statement.first, statement.last);
        }
    }
}

void PythonNames::readImport(int first, int last)
{
    const QList<Token> &tokens = m_source.tokens();
    auto dottedName = [&](int &k) {
        QString name;
        while (k < last &&
               (tokens[k].kind == Token::Kind::Name || m_source.is(k, u".") ||
                m_source.is(k, u"...")) &&
               !m_source.is(k, u"import") && !m_source.is(k, u"as")) {
            name += tokens[k].text;
            ++k;
        }
        return name;
    };
    const int line = tokens[first].line;
    if (m_source.is(first, u"import")) {
        for (const auto &[itemFirst, itemLast] : m_source.splitItems(first + 1, last)) {
            int k = itemFirst;
            const QString module = dottedName(k);
            const QString alias =
                m_source.is(k, u"as") ? tokens.value(k + 1).text : module.section(u'.', 0, 0);
            m_alias.insert(alias, m_source.is(k, u"as") ? module : alias);
            m_moduleNames.insert(alias);
            m_importRoots.insert(module.section(u'.', 0, 0));
            m_imports.append({module, alias, line, true, false});
        }
        return;
    }
    int k = first + 1;
    QString module = dottedName(k);
    if (module.startsWith(u'.'))
        module = u"."_s; // relative: a file beside the candidate
    m_importRoots.insert(module.section(u'.', 0, 0).isEmpty() ? u"."_s
                                                              : module.section(u'.', 0, 0));
    if (!m_source.is(k, u"import"))
        return;
    ++k;
    if (m_source.is(k, u"("))
        ++k;
    for (const auto &[itemFirst, itemLast] : m_source.splitItems(k, last)) {
        if (m_source.is(itemFirst, u"*")) {
            m_starModules.append(module);
            m_imports.append({module, QString(), line, false, true});
            continue;
        }
        if (tokens[itemFirst].kind != Token::Kind::Name)
            continue;
        const QString name = tokens[itemFirst].text;
        const QString alias =
            m_source.is(itemFirst + 1, u"as") ? tokens.value(itemFirst + 2).text : name;
        const QString path = module == u"." ? module + name : module + u'.' + name;
        m_alias.insert(alias, path);
        m_imports.append({path, alias, line, false, false});
    }
}

void PythonNames::collectBoundNames()
{
    const QList<Token> &tokens = m_source.tokens();
    static const QSet<QString> binders = {u"def"_s,      u"class"_s,  u"as"_s,  u"global"_s,
                                          u"nonlocal"_s, u"import"_s, u"for"_s, u"lambda"_s};
    for (int k = 0; k < tokens.size(); ++k) {
        if (tokens[k].kind != Token::Kind::Name)
            continue;
        const QString next = tokens.value(k + 1).text;
        const bool assigned = next == u"=" || next == u":=" || next == u"," ||
                              (next.endsWith(u'=') && next.size() == 2 && next != u"==" &&
                               next != u"!=" && next != u"<=" && next != u">=");
        if (assigned || (k > 0 && binders.contains(tokens[k - 1].text)))
            m_boundNames.insert(tokens[k].text);
    }
    for (const PythonSource::Function &function : m_source.functions()) {
        for (const QString &parameter : function.parameters)
            m_boundNames.insert(parameter);
    }
}

QString PythonNames::valueOf(int first, int last) const
{
    if (first >= last)
        return {};
    if (m_source.is(first, u"(") && m_source.matchingClose(first, last) == last - 1)
        return valueOf(first + 1, last - 1);
    Chain chain;
    if (!chainAt(first, &chain))
        return {};
    const QString callee = resolve(chain.dotted);
    if (chain.end == last)
        return callee;
    if (m_source.is(chain.end, u"(") && m_source.matchingClose(chain.end, last) == last - 1 &&
        (isBuilderName(callee) || m_providers.contains(callee)))
        return u"@ext"_s;
    return {};
}

void PythonNames::bindTarget(int targetFirst, int targetLast, int valueFirst, int valueLast)
{
    Chain target;
    if (!chainAt(targetFirst, &target) || target.end != targetLast)
        return;
    // Only names and self.<name> are bound; `torch.cuda.Event = X` patches, it binds nothing.
    const QStringList parts = target.dotted.split(u'.');
    if (parts.size() > 2 || (parts.size() == 2 && parts.first() != u"self"))
        return;
    const QString value = valueOf(valueFirst, valueLast);
    if (value.isEmpty() || value == target.dotted)
        return;
    // A class attribute is also what self.<name> reads in its methods.
    if (parts.size() == 1 && m_source.classAt(targetFirst) >= 0 &&
        m_source.functionAt(targetFirst) < 0)
        bindName(u"self."_s + target.dotted, value);
    bindName(target.dotted, value);
}

void PythonNames::bindName(const QString &name, const QString &value)
{
    // Keep the binding that matters to the screen when a name is assigned several times.
    const QString existing = m_alias.value(name);
    if (!existing.isEmpty() && (isModuleRooted(existing) || existing.startsWith(u"@ext")) &&
        !isModuleRooted(value) && !value.startsWith(u"@ext"))
        return;
    m_alias.insert(name, value);
}

void PythonNames::bindTargets(int targetFirst, int targetLast, int valueFirst, int valueLast)
{
    const QList<QPair<int, int>> targets = m_source.splitItems(targetFirst, targetLast);
    const QList<QPair<int, int>> values = m_source.splitItems(valueFirst, valueLast);
    if (targets.size() > 1 && targets.size() == values.size()) {
        for (int k = 0; k < targets.size(); ++k)
            bindTarget(targets[k].first, targets[k].second, values[k].first, values[k].second);
    } else if (targets.size() == 1) {
        bindTarget(targetFirst, targetLast, valueFirst, valueLast);
    }
}

// target = [target = ...] value, annotated targets included.
void PythonNames::readAssignment(int first, int last)
{
    QList<int> equals;
    int depth = 0;
    for (int k = first; k < last; ++k) {
        const QString &t = m_source.tokens()[k].text;
        if (m_source.tokens()[k].kind != Token::Kind::Operator)
            continue;
        if (t == u"(" || t == u"[" || t == u"{")
            ++depth;
        else if (t == u")" || t == u"]" || t == u"}")
            --depth;
        else if (t == u"=" && depth == 0)
            equals.append(k);
    }
    if (equals.isEmpty())
        return;
    int start = first;
    for (int e : equals) {
        int targetLast = e;
        for (int k = start; k < e; ++k) {
            if (m_source.is(k, u":"))
                targetLast = qMin(targetLast, k); // annotation
        }
        bindTargets(start, targetLast, equals.last() + 1, last);
        start = e + 1;
    }
}

void PythonNames::readAliases()
{
    for (const PythonSource::Statement &statement : m_source.statements()) {
        if (!statement.compound)
            readAssignment(statement.first, statement.last);
    }
    // (name := value), wherever it is written.
    const QList<Token> &tokens = m_source.tokens();
    for (int k = 1; k + 1 < tokens.size(); ++k) {
        if (!m_source.is(k, u":=") || tokens[k - 1].kind != Token::Kind::Name)
            continue;
        int end = k + 1;
        int depth = 0;
        for (; end < tokens.size(); ++end) {
            const QString &t = tokens[end].text;
            if (tokens[end].kind == Token::Kind::String)
                continue;
            if (t == u"(" || t == u"[" || t == u"{")
                ++depth;
            else if ((t == u")" || t == u"]" || t == u"}" || t == u",") && depth == 0)
                break;
            else if (t == u")" || t == u"]" || t == u"}")
                --depth;
        }
        bindTarget(k - 1, k, k + 1, end);
    }
}

void PythonNames::readProviders()
{
    const QList<PythonSource::Statement> &statements = m_source.statements();
    for (const PythonSource::Function &function : m_source.functions()) {
        for (int s = function.header + 1; s < function.bodyEnd; ++s) {
            const PythonSource::Statement &statement = statements[s];
            if (m_source.is(statement.first, u"return") &&
                valueOf(statement.first + 1, statement.last) == u"@ext")
                m_providers.insert(function.name);
        }
    }
}

// getattr, setattr or delattr itself as a value (functools.partial(getattr, x), map(getattr,
// ...), f(getattr)): every call through it names its attribute at run time. A plain alias
// (`g = getattr`) is followed instead: calls of g are judged like calls of getattr.
bool PythonNames::isAttributeLookupValue(const Reference &reference, int token) const
{
    static const QSet<QString> lookups = {u"getattr"_s,          u"setattr"_s,
                                          u"delattr"_s,          u"builtins.getattr"_s,
                                          u"builtins.setattr"_s, u"builtins.delattr"_s};
    if (!lookups.contains(reference.qualified))
        return false;
    if (!m_source.is(token - 1, u"="))
        return true;
    for (const PythonSource::Statement &statement : m_source.statements()) {
        if (statement.first <= token && token < statement.last)
            return reference.end != statement.last;
    }
    return true;
}

void PythonNames::readReferences()
{
    const QList<Token> &tokens = m_source.tokens();
    QHash<int, int> calls; // closing parenthesis -> the reference called
    for (int k = 0; k < tokens.size(); ++k) {
        if (m_importTokens.contains(k))
            continue;
        Reference reference;
        Chain chain;
        const bool afterDot = m_source.is(k - 1, u".");
        const bool afterDefinition = m_source.is(k - 1, u"def") || m_source.is(k - 1, u"class");
        if (tokens[k].kind == Token::Kind::Name && !afterDot && !afterDefinition &&
            chainAt(k, &chain)) {
            reference.dotted = chain.dotted;
            reference.qualified = resolve(chain.dotted);
            reference.first = k;
            reference.end = chain.end;
            const QString resolvedHead = resolve(tokens[k].text);
            if ((resolvedHead.endsWith(u"getattr") || resolvedHead.endsWith(u"setattr") ||
                 resolvedHead.endsWith(u"delattr")) &&
                m_source.is(k + 1, u"(") && chain.dotted == tokens[k].text) {
                const int close = m_source.matchingClose(k + 1, int(tokens.size()));
                const QList<QPair<int, int>> items = m_source.splitItems(k + 2, close);
                if (items.size() < 2 || !literalString(items[1].first, items[1].second, nullptr))
                    m_computedAttributeLines.append(tokens[k].line);
            }
        } else if (m_source.is(k, u".") && k + 1 < tokens.size() &&
                   tokens[k + 1].kind == Token::Kind::Name && k > 0 &&
                   (tokens[k - 1].kind == Token::Kind::String ||
                    tokens[k - 1].kind == Token::Kind::Number || m_source.is(k - 1, u")") ||
                    m_source.is(k - 1, u"]") || m_source.is(k - 1, u"}"))) {
            // An attribute of a value: f(x).sum, "".join; a provider's result is the extension.
            const int callee = calls.value(k - 1, -1);
            const bool extension =
                callee >= 0 && (m_providers.contains(m_references[callee].qualified) ||
                                m_references[callee].qualified == u"@ext");
            int pos = k + 1;
            reference.dotted = (extension ? u"@ext."_s : u"?."_s) + tokens[pos].text;
            while (m_source.is(pos + 1, u".") && pos + 2 < tokens.size() &&
                   tokens[pos + 2].kind == Token::Kind::Name) {
                reference.dotted += u'.' + tokens[pos + 2].text;
                pos += 2;
            }
            reference.qualified = reference.dotted;
            reference.first = k;
            reference.end = pos + 1;
        } else {
            continue;
        }
        reference.line = tokens[k].line;
        reference.called = m_source.is(reference.end, u"(");
        if (reference.called) {
            reference.callOpen = reference.end;
            reference.callClose = m_source.matchingClose(reference.end, int(tokens.size()));
            calls.insert(reference.callClose, int(m_references.size()));
        }
        if (!reference.called && isAttributeLookupValue(reference, k))
            m_computedAttributeLines.append(reference.line);
        m_referenceAt.insert(k, int(m_references.size()));
        m_references.append(reference);
        // A getattr chain covers its arguments; the names inside are not separate uses.
        if (!reference.dotted.startsWith(u"?") && reference.dotted != tokens[k].text &&
            isBuiltinCall(k, u"getattr"_s))
            k = reference.end - 1;
    }
}

} // namespace kiln
