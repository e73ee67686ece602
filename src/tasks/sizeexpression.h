#pragma once

#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace kiln {

// Arithmetic over a task's named sizes, as written in task.json: numbers (1, 4, 1e-5, .5),
// identifiers, + - * /, unary minus and parentheses, e.g. "4 * (M * K + K * N)". Evaluated in
// double precision; malformed text and failed evaluations report an error, never crash.
class SizeExpression
{
public:
    explicit SizeExpression(const QString &text = QString());

    bool isValid() const { return m_error.isEmpty(); }
    QString error() const { return m_error; } // empty when valid
    QString text() const { return m_text; }
    QStringList identifiers() const; // each name once, in order of first use

    std::optional<double> evaluate(const QMap<QString, qint64> &sizes,
                                   QString *error = nullptr) const;
    // Convenience for one-shot use.
    static std::optional<double> evaluate(const QString &text, const QMap<QString, qint64> &sizes,
                                          QString *error = nullptr);

private:
    struct Node
    {
        enum class Kind
        {
            Number,
            Name,
            Negate,
            Add,
            Subtract,
            Multiply,
            Divide
        };
        Kind kind = Kind::Number;
        double number = 0.0;
        QString name;
        int left = -1;
        int right = -1;
    };
    class Parser;

    std::optional<double> evaluateNode(int index, const QMap<QString, qint64> &sizes,
                                       QString *error) const;

    QString m_text;
    QString m_error;
    std::vector<Node> m_nodes;
    int m_root = -1;
};

} // namespace kiln
