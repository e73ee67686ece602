#include "candidatetablemodel.h"

#include "candidatehighlight.h"

#include "verifier/screen/native/symbolnames.h"

#include "rundocument.h"
#include "speedupnotes.h"
#include "verdictstyle.h"

#include <QFont>
#include <QLocale>

namespace kiln {

CandidateTableModel::CandidateTableModel(RunDocument *document, QObject *parent)
    : QAbstractTableModel(parent), m_document(document)
{
    connect(document, &RunDocument::runAboutToLoad, this, [this] { beginResetModel(); });
    connect(document, &RunDocument::runLoaded, this, [this] { endResetModel(); });
    connect(document, &RunDocument::candidatesAboutToBeAppended, this,
            [this](int first, int last) { beginInsertRows(QModelIndex(), first, last); });
    connect(document, &RunDocument::candidatesAppended, this, [this] { endInsertRows(); });
    connect(document, &RunDocument::candidateChanged, this,
            [this](int row) { emit dataChanged(index(row, 0), index(row, ColumnCount - 1)); });
}

int CandidateTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_document->count();
}

int CandidateTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

void CandidateTableModel::setHighlight(CandidateHighlight *highlight)
{
    m_highlight = highlight;
    connect(highlight, &CandidateHighlight::changed, this, [this] {
        if (rowCount() > 0)
            emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1),
                             {Qt::BackgroundRole});
    });
}

QVariant CandidateTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return QVariant();
    const CandidateSummary &c = m_document->at(index.row());
    if (role == SortRole)
        return sortData(c, index.column());
    if (role >= Qt::UserRole)
        return roleData(c, role);
    switch (role) {
    case Qt::DisplayRole:
        return displayData(c, index.column());
    case Qt::ToolTipRole:
        return toolTipData(c, index.column());
    default:
        return styleData(c, index.column(), role);
    }
}

QVariant CandidateTableModel::roleData(const CandidateSummary &c, int role) const
{
    const auto optional = [](const auto &value) {
        return value ? QVariant::fromValue(*value) : QVariant();
    };
    switch (role) {
    case IdRole:
        return c.id;
    case VerdictRole:
        return c.evaluated ? int(c.verdict) : -1;
    case OperationRole:
        return int(c.operation);
    case IslandRole:
        return c.island;
    case GenerationRole:
        return c.generation;
    case SpeedupRole:
        return optional(c.speedup);
    case FlagsRole:
        return c.flagIds;
    case PlaceholderRole:
        return c.placeholder;
    case SpeedupLowRole:
        return optional(c.speedupLow);
    case SpeedupHighRole:
        return optional(c.speedupHigh);
    case ConfirmedRole:
        return c.confirmed;
    case DuplicateOfRole:
        return optional(c.duplicateOf);
    }
    return QVariant();
}

QVariant CandidateTableModel::displayData(const CandidateSummary &c, int column) const
{
    switch (column) {
    case IdColumn:
        return QStringLiteral("#%1").arg(c.id);
    case VerdictColumn:
        // The verdict is the original's: say whose.
        return c.duplicateOf
                   ? QStringLiteral("%1 (%2)").arg(VerdictStyle::label(c),
                                                   SpeedupNotes::duplicateMark(*c.duplicateOf))
                   : VerdictStyle::label(c);
    case SpeedupColumn:
        return SpeedupNotes::cellText(c);
    case OperationColumn:
        return c.placeholder ? QString() : operationName(c.operation);
    case ParentColumn: {
        QString text = c.parent ? QStringLiteral("#%1").arg(*c.parent) : QString();
        if (c.secondParent)
            text += QStringLiteral(" + #%1").arg(*c.secondParent);
        return text;
    }
    case IslandColumn:
        return c.island;
    case GenerationColumn:
        return c.generation;
    case TokensColumn:
        return QLocale().toString(c.totalTokens());
    case FlagsColumn:
        return c.flagIds.join(QStringLiteral(", "));
    case EvalTimeColumn:
        return c.evaluated ? QStringLiteral("%1 ms").arg(c.evaluationMs, 0, 'f', 0) : QString();
    }
    return QVariant();
}

QVariant CandidateTableModel::sortData(const CandidateSummary &c, int column) const
{
    switch (column) {
    case IdColumn:
        return c.id;
    case VerdictColumn:
        return c.evaluated ? int(c.verdict) : 99;
    case SpeedupColumn:
        return c.speedup.value_or(-1.0); // the estimate: an interval does not reorder
    case OperationColumn:
        return int(c.operation);
    case ParentColumn:
        return c.parent.value_or(0);
    case IslandColumn:
        return c.island;
    case GenerationColumn:
        return c.generation;
    case TokensColumn:
        return c.totalTokens();
    case FlagsColumn:
        return c.flagIds.join(QStringLiteral(","));
    case EvalTimeColumn:
        return c.evaluationMs;
    }
    return QVariant();
}

QVariant CandidateTableModel::toolTipData(const CandidateSummary &c, int column) const
{
    switch (column) {
    case FlagsColumn:
        // Rich text wraps in a tooltip; the symbol reads as written, not as mangled.
        return c.firstFlag.isEmpty()
                   ? QVariant()
                   : QVariant(QStringLiteral("<qt>%1</qt>")
                                  .arg(SymbolNames::readable(c.firstFlag).toHtmlEscaped()));
    case VerdictColumn: {
        QStringList lines;
        if (c.duplicateOf)
            lines << SpeedupNotes::duplicateExplanation(*c.duplicateOf);
        if (!c.summary.isEmpty())
            lines << c.summary;
        return lines.isEmpty() ? QVariant() : QVariant(lines.join(QLatin1Char('\n')));
    }
    case SpeedupColumn: {
        // Parents are looked up by id in the document: a hash lookup, only when a tip shows.
        QList<const CandidateSummary *> parents;
        for (const std::optional<qint64> &id : {c.parent, c.secondParent}) {
            const int row = id ? m_document->rowOf(*id) : -1;
            if (row >= 0)
                parents << &m_document->at(row);
        }
        const QString tip = SpeedupNotes::tooltip(c, parents);
        return tip.isEmpty() ? QVariant() : QVariant(tip);
    }
    default:
        return QVariant();
    }
}

QVariant CandidateTableModel::styleData(const CandidateSummary &c, int column, int role) const
{
    if (role == Qt::DecorationRole && column == VerdictColumn)
        return VerdictStyle::color(c);
    if (role == Qt::TextAlignmentRole) {
        switch (column) {
        case IdColumn:
        case SpeedupColumn:
        case IslandColumn:
        case GenerationColumn:
        case TokensColumn:
        case EvalTimeColumn:
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        default:
            return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
        }
    }
    if (role == Qt::BackgroundRole && m_highlight && m_highlight->contains(c.id)) {
        QColor tint = VerdictStyle::highlightColor();
        tint.setAlpha(70);
        return tint;
    }
    if (role == Qt::ForegroundRole && (c.ghost || (c.duplicateOf && column == VerdictColumn)))
        return QColor(0x80, 0x80, 0x80);
    if (role == Qt::FontRole && c.duplicateOf) { // nothing of it was measured: set it apart
        QFont font;
        font.setItalic(true);
        return font;
    }
    return QVariant();
}

QVariant CandidateTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::DisplayRole) {
        static const char *const titles[] = {"ID",     "Verdict",    "Speedup", "Operation",
                                             "Parent", "Island",     "Gen.",    "Tokens",
                                             "Flags",  "Verify time"};
        return QString::fromLatin1(titles[section]);
    }
    if (role == Qt::ToolTipRole) {
        static const char *const tips[] = {"Candidate id in the database",
                                           "Verifier verdict",
                                           "Baseline time / candidate time ± the 95 % interval; "
                                           "✓ confirmed",
                                           "How the candidate was produced",
                                           "Parent candidate(s); crossover has two",
                                           "Island (evolution) the candidate belongs to",
                                           "Generation (or refinement turn)",
                                           "Prompt + completion + reasoning tokens",
                                           "Anti-cheat flags raised by the verifier",
                                           "Total time of the verifier stages"};
        return QString::fromUtf8(tips[section]);
    }
    return QAbstractTableModel::headerData(section, orientation, role);
}

} // namespace kiln
