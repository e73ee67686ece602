#include "templateengine.h"

#include <QList>
#include <memory>

namespace kiln {

namespace {

struct Node;
using NodeList = QList<std::shared_ptr<Node>>;

struct Branch
{
    QString condition; // empty: else
    int line = 0;
    NodeList body;
};

struct Node
{
    enum class Kind
    {
        Text,
        Variable,
        If
    };
    Kind kind = Kind::Text;
    QString text; // text or variable name
    int line = 0;
    QList<Branch> branches;
};

struct ParseError
{
    QString message;
    int line = 0;
};

bool isBlockTag(const QString &tag)
{
    return tag.startsWith(QLatin1Char('#')) || tag.startsWith(QLatin1Char('/')) ||
           tag.startsWith(QLatin1Char('!')) || tag == QLatin1String("else");
}

int lineAt(const QString &source, qsizetype position)
{
    return 1 + static_cast<int>(QStringView(source).left(position).count(QLatin1Char('\n')));
}

// The tree being built: the node list text goes to now (the innermost open branch) and the
// conditionals still open. The stack points into the state itself, so it is never copied.
struct ParseState
{
    ParseState() = default;
    ParseState(const ParseState &) = delete;
    ParseState &operator=(const ParseState &) = delete;

    NodeList root;
    QList<NodeList *> stack{&root};
    QList<std::shared_ptr<Node>> openIfs;
};

void appendText(ParseState &state, const QString &text)
{
    if (text.isEmpty())
        return;
    auto node = std::make_shared<Node>();
    node->kind = Node::Kind::Text;
    node->text = text;
    state.stack.last()->append(node);
}

// The text before a tag ends at `textEnd`; parsing goes on at `next`.
struct TagSpan
{
    qsizetype textEnd = 0;
    qsizetype next = 0;
};

// A block tag alone on its line takes the whole line with it.
TagSpan blockTagSpan(const QString &source, qsizetype position, qsizetype open, qsizetype close)
{
    TagSpan span{open, close + 2};
    qsizetype lineStart = open;
    while (lineStart > position && (source.at(lineStart - 1) == QLatin1Char(' ') ||
                                    source.at(lineStart - 1) == QLatin1Char('\t')))
        --lineStart;
    const bool atLineStart = lineStart == 0 || source.at(lineStart - 1) == QLatin1Char('\n');
    qsizetype lineEnd = span.next;
    while (lineEnd < source.size() &&
           (source.at(lineEnd) == QLatin1Char(' ') || source.at(lineEnd) == QLatin1Char('\t')))
        ++lineEnd;
    const bool atLineEnd = lineEnd == source.size() || source.at(lineEnd) == QLatin1Char('\n');
    if (atLineStart && atLineEnd &&
        (lineStart > position || lineStart == 0 || source.at(lineStart - 1) == QLatin1Char('\n'))) {
        span.textEnd = lineStart;
        span.next = lineEnd < source.size() ? lineEnd + 1 : lineEnd;
    }
    return span;
}

// `{{#elif COND}}` or `{{else}}`: the next branch of the innermost open conditional.
bool openNextBranch(const QString &tag, int line, ParseState &state, ParseError *error)
{
    if (state.openIfs.isEmpty()) {
        *error = {QStringLiteral("'%1' without '{{#if}}'").arg(tag), line};
        return false;
    }
    auto &branches = state.openIfs.last()->branches;
    if (branches.last().condition.isEmpty()) {
        *error = {QStringLiteral("'%1' after '{{else}}'").arg(tag), line};
        return false;
    }
    const QString condition = tag == QLatin1String("else") ? QString() : tag.mid(6).trimmed();
    if (tag != QLatin1String("else") && condition.isEmpty()) {
        *error = {QStringLiteral("'{{#elif}}' without a condition"), line};
        return false;
    }
    branches.append({condition, line, {}});
    state.stack.last() = &branches.last().body;
    return true;
}

// Adds what a tag (its text between the braces) stands for to the tree; false on an error.
bool applyTag(const QString &tag, int line, ParseState &state, ParseError *error)
{
    if (tag.startsWith(QLatin1Char('!')))
        return true;
    if (tag.startsWith(QLatin1String("#if "))) {
        auto node = std::make_shared<Node>();
        node->kind = Node::Kind::If;
        node->line = line;
        node->branches.append({tag.mid(4).trimmed(), line, {}});
        state.stack.last()->append(node);
        state.openIfs.append(node);
        state.stack.append(&node->branches.last().body);
    } else if (tag.startsWith(QLatin1String("#elif ")) || tag == QLatin1String("else")) {
        return openNextBranch(tag, line, state, error);
    } else if (tag == QLatin1String("/if")) {
        if (state.openIfs.isEmpty()) {
            *error = {QStringLiteral("'{{/if}}' without '{{#if}}'"), line};
            return false;
        }
        state.openIfs.removeLast();
        state.stack.removeLast();
    } else if (tag.startsWith(QLatin1Char('#')) || tag.startsWith(QLatin1Char('/'))) {
        *error = {QStringLiteral("unknown block tag '%1'").arg(tag), line};
        return false;
    } else {
        auto node = std::make_shared<Node>();
        node->kind = Node::Kind::Variable;
        node->text = tag;
        node->line = line;
        state.stack.last()->append(node);
    }
    return true;
}

// Splits the template into a tree. Standalone block-tag lines are swallowed whole.
NodeList parse(const QString &source, ParseError *error)
{
    ParseState state;
    qsizetype position = 0;
    while (position < source.size()) {
        const qsizetype open = source.indexOf(QLatin1String("{{"), position);
        if (open < 0) {
            appendText(state, source.mid(position));
            break;
        }
        const qsizetype close = source.indexOf(QLatin1String("}}"), open + 2);
        const int line = lineAt(source, open);
        if (close < 0) {
            *error = {QStringLiteral("unterminated '{{'"), line};
            return {};
        }
        const QString tag = source.mid(open + 2, close - open - 2).trimmed();
        const TagSpan span = isBlockTag(tag) ? blockTagSpan(source, position, open, close)
                                             : TagSpan{open, close + 2};
        appendText(state, source.mid(position, span.textEnd - position));
        position = span.next;
        if (!applyTag(tag, line, state, error))
            return {};
    }
    if (!state.openIfs.isEmpty()) {
        *error = {QStringLiteral("'{{#if}}' is never closed"), state.openIfs.last()->line};
        return {};
    }
    return state.root;
}

// Recursive-descent evaluation of a condition over the variables.
class Condition
{
public:
    Condition(const QString &text, const QMap<QString, QString> &variables, QStringList *used)
        : m_variables(variables), m_used(used)
    {
        tokenize(text);
    }

    bool evaluate(QString *error)
    {
        const bool value = parseOr();
        if (m_error.isEmpty() && m_position < m_tokens.size())
            m_error = QStringLiteral("unexpected '%1'").arg(m_tokens.at(m_position));
        *error = m_error;
        return value;
    }

private:
    void tokenize(const QString &text)
    {
        qsizetype i = 0;
        while (i < text.size()) {
            const QChar c = text.at(i);
            if (c.isSpace()) {
                ++i;
                continue;
            }
            const QString two = text.mid(i, 2);
            if (two == QLatin1String("==") || two == QLatin1String("!=") ||
                two == QLatin1String("<=") || two == QLatin1String(">=") ||
                two == QLatin1String("&&") || two == QLatin1String("||")) {
                m_tokens.append(two);
                i += 2;
            } else if (c == QLatin1Char('<') || c == QLatin1Char('>') || c == QLatin1Char('!') ||
                       c == QLatin1Char('(') || c == QLatin1Char(')')) {
                m_tokens.append(QString(c));
                ++i;
            } else if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
                const qsizetype end = text.indexOf(c, i + 1);
                if (end < 0) {
                    m_error = QStringLiteral("unterminated string");
                    return;
                }
                m_tokens.append(QLatin1Char('"') + text.mid(i + 1, end - i - 1));
                i = end + 1;
            } else {
                qsizetype j = i;
                while (j < text.size() &&
                       (text.at(j).isLetterOrNumber() || text.at(j) == QLatin1Char('_') ||
                        text.at(j) == QLatin1Char('.') ||
                        (j == i && text.at(j) == QLatin1Char('-'))))
                    ++j;
                if (j == i) {
                    m_error = QStringLiteral("unexpected character '%1'").arg(c);
                    return;
                }
                m_tokens.append(text.mid(i, j - i));
                i = j;
            }
        }
    }

    QString peek() const
    {
        return m_position < m_tokens.size() ? m_tokens.at(m_position) : QString();
    }

    bool parseOr()
    {
        bool value = parseAnd();
        while (m_error.isEmpty() && peek() == QLatin1String("||")) {
            ++m_position;
            const bool rhs = parseAnd();
            value = value || rhs;
        }
        return value;
    }

    bool parseAnd()
    {
        bool value = parseUnary();
        while (m_error.isEmpty() && peek() == QLatin1String("&&")) {
            ++m_position;
            const bool rhs = parseUnary();
            value = value && rhs;
        }
        return value;
    }

    bool parseUnary()
    {
        if (!m_error.isEmpty())
            return false;
        const QString token = peek();
        if (token == QLatin1String("!")) {
            ++m_position;
            return !parseUnary();
        }
        if (token == QLatin1String("(")) {
            ++m_position;
            const bool value = parseOr();
            if (peek() != QLatin1String(")")) {
                m_error = QStringLiteral("missing ')'");
                return false;
            }
            ++m_position;
            return value;
        }
        return parseComparison();
    }

    bool parseComparison()
    {
        const QString name = peek();
        if (name.isEmpty() || name.startsWith(QLatin1Char('"')) || isOperator(name)) {
            m_error = name.isEmpty() ? QStringLiteral("condition ends early")
                                     : QStringLiteral("expected a variable, got '%1'").arg(name);
            return false;
        }
        ++m_position;
        if (m_used && !m_used->contains(name))
            m_used->append(name);
        // While only collecting names (m_used set), undefined variables are not an error.
        if (!m_variables.contains(name) && !m_used) {
            m_error = QStringLiteral("undefined variable '%1'").arg(name);
            return false;
        }
        const QString value = m_variables.value(name);
        const QString op = peek();
        static const QStringList comparisons{QStringLiteral("=="), QStringLiteral("!="),
                                             QStringLiteral("<"),  QStringLiteral("<="),
                                             QStringLiteral(">"),  QStringLiteral(">=")};
        if (!comparisons.contains(op)) {
            static const QStringList falsy{QString(),
                                           QStringLiteral("0"),
                                           QStringLiteral("false"),
                                           QStringLiteral("off"),
                                           QStringLiteral("no"),
                                           QStringLiteral("none")};
            return !falsy.contains(value.toLower());
        }
        ++m_position;
        QString literal = peek();
        if (literal.isEmpty() || isOperator(literal)) {
            m_error = QStringLiteral("missing value after '%1'").arg(op);
            return false;
        }
        ++m_position;
        if (literal.startsWith(QLatin1Char('"')))
            literal = literal.mid(1);
        if (op == QLatin1String("=="))
            return value == literal;
        if (op == QLatin1String("!="))
            return value != literal;
        bool leftOk = false;
        bool rightOk = false;
        const double left = value.toDouble(&leftOk);
        const double right = literal.toDouble(&rightOk);
        if (!leftOk || !rightOk) {
            if (m_used)
                return false;
            m_error =
                QStringLiteral("'%1' compares numbers, got '%2' and '%3'").arg(op, value, literal);
            return false;
        }
        if (op == QLatin1String("<"))
            return left < right;
        if (op == QLatin1String("<="))
            return left <= right;
        if (op == QLatin1String(">"))
            return left > right;
        return left >= right;
    }

    static bool isOperator(const QString &token)
    {
        static const QStringList operators{
            QStringLiteral("=="), QStringLiteral("!="), QStringLiteral("<"),  QStringLiteral("<="),
            QStringLiteral(">"),  QStringLiteral(">="), QStringLiteral("&&"), QStringLiteral("||"),
            QStringLiteral("!"),  QStringLiteral("("),  QStringLiteral(")")};
        return operators.contains(token);
    }

    const QMap<QString, QString> &m_variables;
    QStringList *m_used = nullptr;
    QStringList m_tokens;
    qsizetype m_position = 0;
    QString m_error;
};

bool renderNodes(const NodeList &nodes, const QMap<QString, QString> &variables, QString *out,
                 ParseError *error)
{
    for (const auto &node : nodes) {
        switch (node->kind) {
        case Node::Kind::Text:
            out->append(node->text);
            break;
        case Node::Kind::Variable: {
            const auto it = variables.constFind(node->text);
            if (it == variables.constEnd()) {
                *error = {QStringLiteral("undefined variable '%1'").arg(node->text), node->line};
                return false;
            }
            out->append(it.value());
            break;
        }
        case Node::Kind::If:
            for (const Branch &branch : node->branches) {
                bool taken = true;
                if (!branch.condition.isEmpty()) {
                    QString conditionError;
                    taken =
                        Condition(branch.condition, variables, nullptr).evaluate(&conditionError);
                    if (!conditionError.isEmpty()) {
                        *error = {conditionError, branch.line};
                        return false;
                    }
                }
                if (taken) {
                    if (!renderNodes(branch.body, variables, out, error))
                        return false;
                    break;
                }
            }
            break;
        }
    }
    return true;
}

void collectVariables(const NodeList &nodes, QStringList *names)
{
    for (const auto &node : nodes) {
        if (node->kind == Node::Kind::Variable && !names->contains(node->text))
            names->append(node->text);
        for (const Branch &branch : node->branches) {
            if (!branch.condition.isEmpty()) {
                // Evaluate against an empty map only to learn the names; errors are expected.
                QString ignored;
                QStringList used;
                const QMap<QString, QString> none;
                Condition(branch.condition, none, &used).evaluate(&ignored);
                for (const QString &name : std::as_const(used))
                    if (!names->contains(name))
                        names->append(name);
            }
            collectVariables(branch.body, names);
        }
    }
}

} // namespace

TemplateEngine::Result TemplateEngine::render(const QString &source,
                                              const QMap<QString, QString> &variables)
{
    Result result;
    ParseError error;
    const NodeList nodes = parse(source, &error);
    if (!error.message.isEmpty()) {
        result.error = error.message;
        result.errorLine = error.line;
        return result;
    }
    if (!renderNodes(nodes, variables, &result.text, &error)) {
        result.text.clear();
        result.error = error.message;
        result.errorLine = error.line;
        return result;
    }
    result.ok = true;
    return result;
}

QStringList TemplateEngine::referencedVariables(const QString &source)
{
    ParseError error;
    const NodeList nodes = parse(source, &error);
    QStringList names;
    collectVariables(nodes, &names);
    return names;
}

} // namespace kiln
