#include "tasks/sizeexpression.h"

#include <cmath>
#include <utility>

namespace kiln {

namespace {

// Deep enough for any real formula, shallow enough that "((((..." cannot exhaust the stack;
// the length cap bounds the left-leaning chains "1+1+...+1" that evaluation recurses through.
constexpr int kMaxDepth = 64;
constexpr int kMaxLength = 1000;

bool isIdentifierStart(QChar c)
{
    return c.isLetter() || c == QLatin1Char('_');
}

bool isIdentifierPart(QChar c)
{
    return c.isLetterOrNumber() || c == QLatin1Char('_');
}

} // namespace

// Recursive descent over the text; nodes are appended to the expression's flat node list.
class SizeExpression::Parser
{
public:
    Parser(const QString &text, std::vector<Node> &nodes) : m_text(text), m_nodes(nodes) {}

    int parse()
    {
        if (m_text.size() > kMaxLength)
            return fail(QStringLiteral("expression longer than %1 characters").arg(kMaxLength));
        skipSpace();
        if (m_position >= m_text.size())
            return fail(QStringLiteral("empty expression"));
        const int root = parseSum(0);
        if (root < 0)
            return -1;
        skipSpace();
        if (m_position < m_text.size())
            return fail(QStringLiteral("unexpected '%1' at position %2")
                            .arg(m_text.at(m_position))
                            .arg(m_position + 1));
        return root;
    }

    QString error() const { return m_error; }

private:
    int fail(const QString &message)
    {
        if (m_error.isEmpty())
            m_error = message;
        return -1;
    }

    void skipSpace()
    {
        while (m_position < m_text.size() && m_text.at(m_position).isSpace())
            ++m_position;
    }

    int add(Node node)
    {
        m_nodes.push_back(std::move(node));
        return int(m_nodes.size()) - 1;
    }

    int binary(Node::Kind kind, int left, int right)
    {
        Node node;
        node.kind = kind;
        node.left = left;
        node.right = right;
        return add(node);
    }

    int parseSum(int depth)
    {
        return parseChain(depth, {QLatin1Char('+'), Node::Kind::Add},
                          {QLatin1Char('-'), Node::Kind::Subtract}, &Parser::parseProduct);
    }

    int parseProduct(int depth)
    {
        return parseChain(depth, {QLatin1Char('*'), Node::Kind::Multiply},
                          {QLatin1Char('/'), Node::Kind::Divide}, &Parser::parseUnary);
    }

    // One precedence level: operands joined left to right by either of its two operators.
    int parseChain(int depth, std::pair<QChar, Node::Kind> first,
                   std::pair<QChar, Node::Kind> second, int (Parser::*operand)(int))
    {
        int left = (this->*operand)(depth);
        while (left >= 0) {
            skipSpace();
            if (m_position >= m_text.size())
                break;
            const QChar op = m_text.at(m_position);
            if (op != first.first && op != second.first)
                break;
            ++m_position;
            const int right = (this->*operand)(depth);
            if (right < 0)
                return -1;
            left = binary(op == first.first ? first.second : second.second, left, right);
        }
        return left;
    }

    int parseUnary(int depth)
    {
        if (depth > kMaxDepth)
            return fail(QStringLiteral("expression nested deeper than %1 levels").arg(kMaxDepth));
        skipSpace();
        if (m_position < m_text.size() && m_text.at(m_position) == QLatin1Char('-')) {
            ++m_position;
            const int operand = parseUnary(depth + 1);
            if (operand < 0)
                return -1;
            Node node;
            node.kind = Node::Kind::Negate;
            node.left = operand;
            return add(node);
        }
        if (m_position < m_text.size() && m_text.at(m_position) == QLatin1Char('+')) {
            ++m_position;
            return parseUnary(depth + 1);
        }
        return parsePrimary(depth);
    }

    int parsePrimary(int depth)
    {
        skipSpace();
        if (m_position >= m_text.size())
            return fail(QStringLiteral("unexpected end of expression"));
        const QChar c = m_text.at(m_position);
        if (c == QLatin1Char('(')) {
            const int open = m_position;
            ++m_position;
            const int inner = parseSum(depth + 1);
            if (inner < 0)
                return -1;
            skipSpace();
            if (m_position >= m_text.size() || m_text.at(m_position) != QLatin1Char(')'))
                return fail(QStringLiteral("unbalanced '(' at position %1").arg(open + 1));
            ++m_position;
            return inner;
        }
        if (c.isDigit() || c == QLatin1Char('.'))
            return parseNumber();
        if (isIdentifierStart(c)) {
            const int start = m_position;
            while (m_position < m_text.size() && isIdentifierPart(m_text.at(m_position)))
                ++m_position;
            Node node;
            node.kind = Node::Kind::Name;
            node.name = m_text.mid(start, m_position - start);
            return add(node);
        }
        return fail(QStringLiteral("unexpected '%1' at position %2").arg(c).arg(m_position + 1));
    }

    int parseNumber()
    {
        const int start = m_position;
        auto digits = [this] {
            int count = 0;
            while (m_position < m_text.size() && m_text.at(m_position).isDigit()) {
                ++m_position;
                ++count;
            }
            return count;
        };
        int mantissaDigits = digits();
        if (m_position < m_text.size() && m_text.at(m_position) == QLatin1Char('.')) {
            ++m_position;
            mantissaDigits += digits();
        }
        if (mantissaDigits == 0)
            return fail(QStringLiteral("malformed number at position %1").arg(start + 1));
        if (m_position < m_text.size() && (m_text.at(m_position) == QLatin1Char('e') ||
                                           m_text.at(m_position) == QLatin1Char('E'))) {
            ++m_position;
            if (m_position < m_text.size() && (m_text.at(m_position) == QLatin1Char('+') ||
                                               m_text.at(m_position) == QLatin1Char('-')))
                ++m_position;
            if (digits() == 0)
                return fail(QStringLiteral("malformed exponent at position %1").arg(start + 1));
        }
        // "2x" is a typo, not 2 times x.
        if (m_position < m_text.size() && isIdentifierPart(m_text.at(m_position)))
            return fail(QStringLiteral("malformed number at position %1").arg(start + 1));
        bool ok = false;
        const double value = m_text.mid(start, m_position - start).toDouble(&ok);
        if (!ok || !std::isfinite(value))
            return fail(QStringLiteral("malformed number at position %1").arg(start + 1));
        Node node;
        node.kind = Node::Kind::Number;
        node.number = value;
        return add(node);
    }

    const QString &m_text;
    std::vector<Node> &m_nodes;
    int m_position = 0;
    QString m_error;
};

SizeExpression::SizeExpression(const QString &text) : m_text(text)
{
    Parser parser(m_text, m_nodes);
    m_root = parser.parse();
    if (m_root < 0) {
        m_error = parser.error();
        m_nodes.clear();
    }
}

QStringList SizeExpression::identifiers() const
{
    QStringList names;
    for (const Node &node : m_nodes) {
        if (node.kind == Node::Kind::Name && !names.contains(node.name))
            names.append(node.name);
    }
    return names;
}

std::optional<double> SizeExpression::evaluate(const QMap<QString, qint64> &sizes,
                                               QString *error) const
{
    if (!isValid()) {
        if (error)
            *error = m_error;
        return std::nullopt;
    }
    return evaluateNode(m_root, sizes, error);
}

std::optional<double> SizeExpression::evaluate(const QString &text,
                                               const QMap<QString, qint64> &sizes, QString *error)
{
    return SizeExpression(text).evaluate(sizes, error);
}

std::optional<double> SizeExpression::evaluateNode(int index, const QMap<QString, qint64> &sizes,
                                                   QString *error) const
{
    const Node &node = m_nodes[size_t(index)];
    auto failed = [error](const QString &message) -> std::optional<double> {
        if (error)
            *error = message;
        return std::nullopt;
    };
    switch (node.kind) {
    case Node::Kind::Number:
        return node.number;
    case Node::Kind::Name: {
        const auto it = sizes.constFind(node.name);
        if (it == sizes.constEnd())
            return failed(QStringLiteral("unknown size '%1'").arg(node.name));
        return double(it.value());
    }
    case Node::Kind::Negate: {
        const auto operand = evaluateNode(node.left, sizes, error);
        if (!operand)
            return std::nullopt;
        return -*operand;
    }
    default:
        break;
    }
    const auto left = evaluateNode(node.left, sizes, error);
    if (!left)
        return std::nullopt;
    const auto right = evaluateNode(node.right, sizes, error);
    if (!right)
        return std::nullopt;
    double result = 0.0;
    switch (node.kind) {
    case Node::Kind::Add:
        result = *left + *right;
        break;
    case Node::Kind::Subtract:
        result = *left - *right;
        break;
    case Node::Kind::Multiply:
        result = *left * *right;
        break;
    case Node::Kind::Divide:
        if (*right == 0.0)
            return failed(QStringLiteral("division by zero"));
        result = *left / *right;
        break;
    default:
        break;
    }
    if (!std::isfinite(result))
        return failed(QStringLiteral("result is not finite"));
    return result;
}

} // namespace kiln
