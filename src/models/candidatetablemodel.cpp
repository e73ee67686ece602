#include "candidatetablemodel.h"

#include "rundocument.h"
#include "verdictstyle.h"

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

QVariant CandidateTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return QVariant();
    const CandidateSummary &c = m_document->at(index.row());
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
        return c.speedup ? QVariant(*c.speedup) : QVariant();
    case FlagsRole:
        return c.flagIds;
    case PlaceholderRole:
        return c.placeholder;
    default:
        break;
    }

    const int column = index.column();
    if (role == Qt::DisplayRole) {
        switch (column) {
        case IdColumn:
            return QStringLiteral("#%1").arg(c.id);
        case VerdictColumn:
            return VerdictStyle::label(c);
        case SpeedupColumn:
            return c.speedup ? QStringLiteral("%1×").arg(*c.speedup, 0, 'f', 2) : QString();
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
    } else if (role == SortRole) {
        switch (column) {
        case IdColumn:
            return c.id;
        case VerdictColumn:
            return c.evaluated ? int(c.verdict) : 99;
        case SpeedupColumn:
            return c.speedup.value_or(-1.0);
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
    } else if (role == Qt::DecorationRole && column == VerdictColumn) {
        return VerdictStyle::color(c);
    } else if (role == Qt::ToolTipRole) {
        if (column == FlagsColumn && !c.firstFlag.isEmpty())
            return c.firstFlag;
        if (column == VerdictColumn && !c.summary.isEmpty())
            return c.summary;
    } else if (role == Qt::TextAlignmentRole) {
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
    } else if (role == Qt::ForegroundRole && c.ghost) {
        return QColor(0x80, 0x80, 0x80);
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
                                           "Baseline time / candidate time",
                                           "How the candidate was produced",
                                           "Parent candidate(s); crossover has two",
                                           "Island (evolution) the candidate belongs to",
                                           "Generation (or refinement turn)",
                                           "Prompt + completion + reasoning tokens",
                                           "Anti-cheat flags raised by the verifier",
                                           "Total time of the verifier stages"};
        return QString::fromLatin1(tips[section]);
    }
    return QAbstractTableModel::headerData(section, orientation, role);
}

} // namespace kiln
