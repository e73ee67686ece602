#include "sidebysidediff.h"

#include <dtl/dtl.hpp>

#include <algorithm>
#include <vector>

namespace kiln {

QStringList SideBySideDiff::splitLines(const QString &text)
{
    if (text.isEmpty())
        return {};
    QString normalized = text;
    normalized.replace(QStringLiteral("\r\n"), QStringLiteral("\n"));
    QStringList lines = normalized.split(QLatin1Char('\n'));
    if (lines.size() > 1 && lines.last().isEmpty())
        lines.removeLast(); // a final newline does not make an extra line
    return lines;
}

void SideBySideDiff::compute(const QString &left, const QString &right)
{
    m_left = splitLines(left);
    m_right = splitLines(right);
    m_rows.clear();
    m_hunks.clear();
    m_added = 0;
    m_removed = 0;

    const std::vector<QString> a(m_left.cbegin(), m_left.cend());
    const std::vector<QString> b(m_right.cbegin(), m_right.cend());
    dtl::Diff<QString, std::vector<QString>> diff(a, b, true);
    diff.onHuge();
    diff.compose();
    const auto ses = diff.getSes().getSequence();

    int li = 0;
    int ri = 0;
    QVector<int> deleted;
    QVector<int> added;
    auto flush = [&] {
        if (deleted.isEmpty() && added.isEmpty())
            return;
        m_hunks.append(int(m_rows.size()));
        m_removed += int(deleted.size());
        m_added += int(added.size());
        const int paired = int(std::min(deleted.size(), added.size()));
        for (int k = 0; k < paired; ++k) {
            Row row;
            row.kind = Kind::Changed;
            row.leftLine = deleted[k];
            row.rightLine = added[k];
            intraLine(row);
            m_rows.append(row);
        }
        for (int k = paired; k < deleted.size(); ++k)
            m_rows.append(Row{Kind::Removed, deleted[k], -1, {}, {}});
        for (int k = paired; k < added.size(); ++k)
            m_rows.append(Row{Kind::Added, -1, added[k], {}, {}});
        deleted.clear();
        added.clear();
    };
    for (const auto &entry : ses) {
        switch (entry.second.type) {
        case dtl::SES_COMMON:
            flush();
            m_rows.append(Row{Kind::Same, li++, ri++, {}, {}});
            break;
        case dtl::SES_DELETE:
            deleted.append(li++);
            break;
        case dtl::SES_ADD:
            added.append(ri++);
            break;
        }
    }
    flush();
}

void SideBySideDiff::intraLine(Row &row) const
{
    const QString &l = m_left.at(row.leftLine);
    const QString &r = m_right.at(row.rightLine);
    const std::vector<QChar> a(l.cbegin(), l.cend());
    const std::vector<QChar> b(r.cbegin(), r.cend());
    dtl::Diff<QChar, std::vector<QChar>> diff(a, b, true);
    diff.compose();
    const auto ses = diff.getSes().getSequence();

    int common = 0;
    int li = 0;
    int ri = 0;
    auto extend = [](QVector<Span> &spans, int at) {
        if (!spans.isEmpty() && spans.last().start + spans.last().length == at)
            ++spans.last().length;
        else
            spans.append(Span{at, 1});
    };
    for (const auto &entry : ses) {
        switch (entry.second.type) {
        case dtl::SES_COMMON:
            ++common;
            ++li;
            ++ri;
            break;
        case dtl::SES_DELETE:
            extend(row.leftSpans, li++);
            break;
        case dtl::SES_ADD:
            extend(row.rightSpans, ri++);
            break;
        }
    }
    // Lines that share little are rewritten, not edited: one span each reads better than
    // confetti.
    const int longest = int(std::max(l.size(), r.size()));
    if (longest > 0 && common * 2 < longest) {
        row.leftSpans = l.isEmpty() ? QVector<Span>() : QVector<Span>{Span{0, int(l.size())}};
        row.rightSpans = r.isEmpty() ? QVector<Span>() : QVector<Span>{Span{0, int(r.size())}};
    }
}

int SideBySideDiff::nextHunk(int row) const
{
    for (int h : m_hunks) {
        if (h > row)
            return h;
    }
    return -1;
}

int SideBySideDiff::previousHunk(int row) const
{
    for (auto it = m_hunks.crbegin(); it != m_hunks.crend(); ++it) {
        if (*it < row)
            return *it;
    }
    return -1;
}

} // namespace kiln
