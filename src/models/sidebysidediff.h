#pragma once

#include <QPair>
#include <QString>
#include <QStringList>
#include <QVector>

namespace kiln {

// A side-by-side alignment of two texts computed with dtl (Wu–Manber–Myers O(NP) diff): one row
// per displayed line, with the line number on each side (-1 for a filler row) and, for a changed
// pair, the character spans that differ.
class SideBySideDiff
{
public:
    enum class Kind
    {
        Same,
        Removed, // only on the left
        Added,   // only on the right
        Changed  // a line replaced by another
    };
    struct Span
    {
        int start = 0;
        int length = 0;
        bool operator==(const Span &) const = default;
    };
    struct Row
    {
        Kind kind = Kind::Same;
        int leftLine = -1; // 0-based, -1 on a filler row
        int rightLine = -1;
        QVector<Span> leftSpans; // changed characters (Changed rows only)
        QVector<Span> rightSpans;
    };

    void compute(const QString &left, const QString &right);

    const QVector<Row> &rows() const { return m_rows; }
    const QStringList &leftLines() const { return m_left; }
    const QStringList &rightLines() const { return m_right; }
    // Row index where each block of changes starts, in order.
    const QVector<int> &hunks() const { return m_hunks; }
    int addedLines() const { return m_added; }
    int removedLines() const { return m_removed; }
    bool identical() const { return m_hunks.isEmpty(); }

    // The next / previous hunk start after / before row, or -1.
    int nextHunk(int row) const;
    int previousHunk(int row) const;

    static QStringList splitLines(const QString &text);

private:
    void intraLine(Row &row) const;

    QStringList m_left;
    QStringList m_right;
    QVector<Row> m_rows;
    QVector<int> m_hunks;
    int m_added = 0;
    int m_removed = 0;
};

} // namespace kiln
