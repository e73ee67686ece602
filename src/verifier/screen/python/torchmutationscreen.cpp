#include "verifier/screen/python/torchmutationscreen.h"

using namespace Qt::StringLiterals;

namespace kiln {

namespace {

using Token = PythonSource::Token;

const QString kMonkeyPatch = u"torch_monkey_patch"_s;
const QString kState = u"torch_state_between_calls"_s;

// Methods that change the object they are called on.
const QSet<QString> &mutators()
{
    static const QSet<QString> names = {
        u"update"_s,      u"setdefault"_s,  u"pop"_s,         u"popitem"_s,    u"clear"_s,
        u"append"_s,      u"extend"_s,      u"insert"_s,      u"remove"_s,     u"discard"_s,
        u"__setitem__"_s, u"__delitem__"_s, u"__setattr__"_s, u"__delattr__"_s};
    return names;
}

bool isInitializer(const QString &function)
{
    return function == u"__init__" || function == u"__new__" || function == u"__post_init__" ||
           function == u"__setstate__";
}

// Depth-0 positions of a token text in [first, last).
QList<int> topLevel(const PythonSource &source, int first, int last, QStringView text)
{
    QList<int> positions;
    int depth = 0;
    for (int k = first; k < last; ++k) {
        const Token &token = source.tokens()[k];
        if (token.kind == Token::Kind::String)
            continue;
        if (token.text == u"(" || token.text == u"[" || token.text == u"{")
            ++depth;
        else if (token.text == u")" || token.text == u"]" || token.text == u"}")
            --depth;
        else if (depth == 0 && token.text == text)
            positions.append(k);
    }
    return positions;
}

bool isAugmented(const QString &op)
{
    static const QSet<QString> ops = {u"+="_s, u"-="_s,  u"*="_s,  u"/="_s,  u"//="_s,
                                      u"%="_s, u"**="_s, u">>="_s, u"<<="_s, u"&="_s,
                                      u"|="_s, u"^="_s,  u"@="_s};
    return ops.contains(op);
}

} // namespace

TorchMutationScreen::TorchMutationScreen(const PythonSource &source, const PythonNames &names,
                                         ScreenFlags *flags)
    : m_source(source), m_names(names), m_flags(flags)
{
    for (const PythonSource::ClassDef &cls : source.classes())
        m_classNames.insert(cls.name);
}

void TorchMutationScreen::run()
{
    readCreatedNames();
    for (int s = 0; s < m_source.statements().size(); ++s)
        screenStatement(s);
    screenCalls();
    screenDefaults();
}

QString TorchMutationScreen::scopeName(int token) const
{
    const int f = m_source.functionAt(token);
    return f < 0 ? u"module level"_s : m_source.functions()[f].name + u"()"_s;
}

// A value the candidate makes itself: a literal, a display, a lambda or a call's result.
bool TorchMutationScreen::isFresh(int first, int last) const
{
    if (first >= last)
        return false;
    const Token &token = m_source.tokens()[first];
    if (token.kind == Token::Kind::String || token.kind == Token::Kind::Number ||
        m_source.is(first, u"[") || m_source.is(first, u"{") || m_source.is(first, u"lambda"))
        return true;
    if (m_source.is(first, u"(") && m_source.matchingClose(first, last) == last - 1) {
        const QList<QPair<int, int>> items = m_source.splitItems(first + 1, last - 1);
        if (items.size() != 1 || m_source.is(last - 2, u","))
            return true;
        return isFresh(first + 1, last - 1);
    }
    const int r = m_names.referenceAt(first);
    if (r < 0 || !m_names.references()[r].called)
        return false;
    const QString q = m_names.references()[r].qualified;
    static const QSet<QString> lookups = {u"getattr"_s, u"type"_s,   u"vars"_s,
                                          u"globals"_s, u"locals"_s, u"__import__"_s};
    return !lookups.contains(q) && !q.startsWith(u"importlib.") && !q.startsWith(u"sys.") &&
           !q.startsWith(u"builtins.");
}

void TorchMutationScreen::readCreatedNames()
{
    for (const PythonSource::Function &function : m_source.functions()) {
        const int scope = int(&function - m_source.functions().data());
        for (const QString &parameter : function.parameters)
            m_assigned[scope].insert(parameter);
    }
    for (const PythonSource::Statement &statement : m_source.statements()) {
        const int scope = m_source.functionAt(statement.first);
        if (statement.compound) {
            // for/with targets are bound, not created.
            for (int k = statement.first; k < statement.last; ++k) {
                if (m_source.tokens()[k].kind == Token::Kind::Name &&
                    (m_source.is(k - 1, u"for") || m_source.is(k - 1, u"as") ||
                     m_source.is(k - 1, u",")))
                    m_assigned[scope].insert(m_source.tokens()[k].text);
            }
            continue;
        }
        const QList<int> equals = topLevel(m_source, statement.first, statement.last, u"=");
        if (equals.isEmpty())
            continue;
        const bool fresh = isFresh(equals.last() + 1, statement.last);
        int start = statement.first;
        for (int e : equals) {
            for (const auto &[first, last] : m_source.splitItems(start, e)) {
                if (last != first + 1 || m_source.tokens()[first].kind != Token::Kind::Name)
                    continue;
                m_assigned[scope].insert(m_source.tokens()[first].text);
                if (fresh)
                    m_created[scope].insert(m_source.tokens()[first].text);
            }
            start = e + 1;
        }
    }
}

void TorchMutationScreen::screenStatement(int index)
{
    const PythonSource::Statement &statement = m_source.statements()[index];
    const int first = statement.first;
    const int last = statement.last;
    screenComprehensions(first, last);
    if (statement.compound) {
        const int keyword = m_source.is(first, u"async") ? first + 1 : first;
        if (m_source.is(keyword, u"for")) {
            const QList<int> in = topLevel(m_source, keyword + 1, last, u"in");
            if (!in.isEmpty())
                screenTarget(keyword + 1, in.first());
        } else if (m_source.is(keyword, u"with")) {
            for (int as : topLevel(m_source, keyword + 1, last - 1, u"as")) {
                int end = as + 1;
                while (end < last - 1 && !m_source.is(end, u",")) {
                    const bool open = m_source.is(end, u"(") || m_source.is(end, u"[");
                    end = open ? m_source.matchingClose(end, last) + 1 : end + 1;
                }
                screenTarget(as + 1, end);
            }
        }
        return;
    }
    if (m_source.is(first, u"del")) {
        screenTarget(first + 1, last);
        return;
    }
    screenAssignmentTargets(first, last);
}

void TorchMutationScreen::screenAssignmentTargets(int first, int last)
{
    int depth = 0;
    for (int k = first; k < last; ++k) {
        const Token &token = m_source.tokens()[k];
        if (token.kind != Token::Kind::Operator)
            continue;
        if (token.text == u"(" || token.text == u"[" || token.text == u"{")
            ++depth;
        else if (token.text == u")" || token.text == u"]" || token.text == u"}")
            --depth;
        else if (depth == 0 && isAugmented(token.text)) {
            screenTarget(first, k);
            return;
        }
    }
    const QList<int> equals = topLevel(m_source, first, last, u"=");
    int start = first;
    for (int e : equals) {
        const QList<int> colon = topLevel(m_source, start, e, u":"); // x.y: int = ...
        screenTarget(start, colon.isEmpty() ? e : colon.first());
        start = e + 1;
    }
}

// Targets of comprehensions: `[0 for torch.cuda.Event in [fake]]` assigns too.
void TorchMutationScreen::screenComprehensions(int first, int last)
{
    QList<int> depthOf(last - first, 0);
    int depth = 0;
    for (int k = first; k < last; ++k) {
        const QString &t = m_source.tokens()[k].text;
        if (m_source.tokens()[k].kind == Token::Kind::Operator &&
            (t == u")" || t == u"]" || t == u"}"))
            --depth;
        depthOf[k - first] = depth;
        if (m_source.tokens()[k].kind == Token::Kind::Operator &&
            (t == u"(" || t == u"[" || t == u"{"))
            ++depth;
    }
    for (int k = first; k < last; ++k) {
        if (!m_source.is(k, u"for") || depthOf[k - first] == 0)
            continue;
        for (int e = k + 1; e < last; ++e) {
            if (m_source.is(e, u"in") && depthOf[e - first] == depthOf[k - first]) {
                screenTarget(k + 1, e);
                break;
            }
        }
    }
}

void TorchMutationScreen::screenTarget(int first, int last)
{
    while (first < last && (m_source.is(first, u"(") || m_source.is(first, u"[")) &&
           m_source.matchingClose(first, last) == last - 1) {
        ++first;
        --last;
    }
    const QList<QPair<int, int>> items = m_source.splitItems(first, last);
    if (items.size() > 1) {
        for (const auto &[itemFirst, itemLast] : items)
            screenTarget(itemFirst, itemLast);
        return;
    }
    if (m_source.is(first, u"*"))
        ++first;
    if (m_source.is(first, u"(") && m_source.matchingClose(first, last) < last - 1) {
        // (expression).attr = ...: what is written to is computed.
        m_flags->add(kMonkeyPatch, m_source.tokens()[first].line,
                     u"writes through a computed object"_s);
        return;
    }
    QList<Trailer> trailers;
    QString dotted;
    if (parseChain(first, last, &trailers, &dotted) && !trailers.isEmpty())
        screenChain(first, trailers, dotted, m_source.tokens()[first].line);
}

// name(.attr | [item] | (call))* over [first, last); dotted: the name and its leading attributes.
bool TorchMutationScreen::parseChain(int first, int last, QList<Trailer> *trailers,
                                     QString *dotted) const
{
    if (first >= last || m_source.tokens()[first].kind != Token::Kind::Name)
        return false;
    *dotted = m_names.headName(first);
    for (int k = first + 1; k < last;) {
        if (m_source.is(k, u".") && k + 1 < last) {
            if (trailers->isEmpty() || trailers->last() == Trailer::Attribute)
                *dotted += u'.' + m_source.tokens()[k + 1].text;
            trailers->append(Trailer::Attribute);
            k += 2;
        } else if (m_source.is(k, u"[") || m_source.is(k, u"(")) {
            trailers->append(m_source.is(k, u"[") ? Trailer::Subscript : Trailer::Call);
            k = m_source.matchingClose(k, last) + 1;
        } else {
            ++k;
        }
    }
    return true;
}

void TorchMutationScreen::screenChain(int head, const QList<Trailer> &trailers,
                                      const QString &dotted, int line)
{
    const int scope = m_source.functionAt(head);
    const QString headText = m_names.headName(head);
    const QString qualified = m_names.resolve(dotted);
    bool itemThenMore = false;
    for (int k = 0; k + 1 < trailers.size(); ++k)
        itemThenMore = itemThenMore || trailers[k] == Trailer::Subscript;
    const QString where = scopeName(head);
    if (trailers.contains(Trailer::Call)) {
        m_flags->add(kMonkeyPatch, line, u"writes to the result of a call: "_s + dotted);
    } else if (headText == u"self") {
        if (itemThenMore)
            m_flags->add(kMonkeyPatch, line, u"writes through an item of "_s + dotted);
        else if (scope >= 0 && !isInitializer(m_source.functions()[scope].name))
            m_flags->add(kState, line, dotted + u" written in "_s + where);
    } else if (m_names.isModuleRooted(qualified) || headText == u"__builtins__") {
        m_flags->add(kMonkeyPatch, line, qualified);
    } else if (m_classNames.contains(headText)) {
        m_flags->add(kMonkeyPatch, line, u"class attribute "_s + dotted);
    } else if (m_created.value(scope).contains(headText)) {
        if (itemThenMore)
            m_flags->add(kMonkeyPatch, line, u"writes through an item of "_s + dotted);
    } else if (scope >= 0 && !m_assigned.value(scope).contains(headText) &&
               m_created.value(-1).contains(headText)) {
        m_flags->add(kState, line, u"module-level "_s + headText + u" changed in "_s + where);
    } else {
        m_flags->add(kMonkeyPatch, line, dotted + u", an object the candidate did not create"_s);
    }
}

// setattr/delattr, and methods that change their object (d.update, self.buf.copy_).
void TorchMutationScreen::screenCalls()
{
    for (const PythonNames::Reference &reference : m_names.references()) {
        if (!reference.called || reference.qualified.startsWith(u'?'))
            continue;
        const QString q = reference.qualified;
        const bool setter = q == u"setattr" || q == u"delattr" || q == u"builtins.setattr" ||
                            q == u"builtins.delattr";
        if (setter) {
            const QList<QPair<int, int>> args =
                m_source.splitItems(reference.callOpen + 1, reference.callClose);
            if (args.isEmpty())
                continue;
            const int r = m_names.referenceAt(args[0].first);
            if (r >= 0 && m_names.references()[r].end == args[0].second &&
                m_names.isModuleRooted(m_names.references()[r].qualified)) {
                m_flags->add(kMonkeyPatch, reference.line, m_names.references()[r].qualified);
                continue;
            }
            // As if it were written `obj.name = value`.
            QList<Trailer> trailers;
            QString dotted;
            if (parseChain(args[0].first, args[0].second, &trailers, &dotted)) {
                trailers.append(Trailer::Attribute);
                screenChain(args[0].first, trailers, dotted, reference.line);
            } else {
                m_flags->add(kMonkeyPatch, reference.line, u"setattr on a computed object"_s);
            }
            continue;
        }
        const QStringList parts = reference.dotted.split(u'.');
        if (parts.size() < 2 || parts.first() == u"@ext")
            continue;
        const QString method = parts.last();
        const bool inPlace = method.endsWith(u'_') && !method.startsWith(u"__");
        const QString receiver = parts.mid(0, parts.size() - 1).join(u'.');
        const bool moduleRooted = m_names.isModuleRooted(m_names.resolve(receiver));
        if (!mutators().contains(method) && !inPlace)
            continue;
        if (inPlace && parts.first() != u"self" && !moduleRooted)
            continue; // an input written in place is caught when inputs are compared
        QList<Trailer> trailers(parts.size() - 2, Trailer::Attribute);
        trailers.append(Trailer::Subscript);
        screenChain(reference.first, trailers, receiver, reference.line);
    }
}

void TorchMutationScreen::screenDefaults()
{
    for (const PythonSource::Function &function : m_source.functions()) {
        for (const auto &[first, last] : function.defaults) {
            const int r = m_names.referenceAt(first);
            const QString q = r >= 0 ? m_names.references()[r].qualified : QString();
            const bool container =
                q == u"dict" || q == u"list" || q == u"set" || q.startsWith(u"collections.");
            if (m_source.is(first, u"[") || m_source.is(first, u"{") ||
                (container && m_names.references()[r].called))
                m_flags->add(kState, m_source.tokens()[first].line,
                             u"mutable default argument of "_s + function.name + u"()"_s);
        }
    }
}

} // namespace kiln
