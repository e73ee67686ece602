#include "codepanel.h"

#include "codeeditor.h"

#include "models/reportformatter.h"
#include "models/speedupnotes.h"
#include "models/verdictstyle.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

namespace kiln {

// Flags found by running the kernel point at no line: named under the headline, or the code
// view would show nothing of them.
QString lineFreeFlags(const std::optional<EvaluationResult> &result)
{
    QStringList names;
    for (const CheatFlag &flag : result ? result->flags : QList<CheatFlag>())
        if (flag.lines.isEmpty())
            names << QStringLiteral("<span style=\"color:%1;\">⚑ %2</span>")
                         .arg(VerdictStyle::flagTierColor(flag.effectiveTier()).name(),
                              flag.label().toHtmlEscaped());
    if (names.isEmpty())
        return {};
    return QStringLiteral("<br>") + names.join(QStringLiteral(" &nbsp;")) +
           QStringLiteral(" &nbsp;<i>found by running it, on no line (the Verifier report "
                          "explains them)</i>");
}

QString candidateHeadline(const CandidateRecord &record,
                          const std::optional<EvaluationResult> &result)
{
    QString origin = operationName(record.operation);
    if (record.parent)
        origin += QStringLiteral(" of #%1").arg(*record.parent);
    if (record.secondParent)
        origin += QStringLiteral(" × #%1").arg(*record.secondParent);
    QString text = QStringLiteral("<b>#%1</b> &nbsp;%2 · %3 · gen %4 · island %5")
                       .arg(record.id)
                       .arg(record.task.toHtmlEscaped(), origin.toHtmlEscaped())
                       .arg(record.generation)
                       .arg(record.island);
    if (result) {
        text += QStringLiteral(" &nbsp;<span style=\"background-color:%1; color:white;\">"
                               "&nbsp;%2&nbsp;</span>")
                    .arg(VerdictStyle::color(result->verdict).name(),
                         VerdictStyle::label(result->verdict));
        if (result->speedup)
            text += QStringLiteral(" <b>%1</b>%2")
                        .arg(SpeedupNotes::speedupText(result->speedup, result->speedupInterval)
                                 .toHtmlEscaped(),
                             result->confirmed ? QStringLiteral(" ✓") : QString());
        if (result->duplicateOf)
            text += QStringLiteral(" · <i>%1</i>")
                        .arg(SpeedupNotes::duplicateMark(*result->duplicateOf).toHtmlEscaped());
    } else {
        text += QStringLiteral(" &nbsp;<i>not verified yet</i>");
    }
    return text + lineFreeFlags(result);
}

CodePanel::CodePanel(QWidget *parent)
    : QWidget(parent), m_header(new QLabel), m_editCopy(new QToolButton),
      m_editor(new CodeEditor(this))
{
    setObjectName(QStringLiteral("codePanel"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto *bar = new QWidget(this);
    bar->setObjectName(QStringLiteral("codeHeader"));
    bar->setStyleSheet(QStringLiteral(
        "QWidget#codeHeader { background: #f6f7f9; border-bottom: 1px solid #e1e4e8; }"));
    auto *row = new QHBoxLayout(bar);
    row->setContentsMargins(8, 3, 6, 3);
    m_header->setTextFormat(Qt::RichText);
    m_editCopy->setText(tr("Edit a copy"));
    m_editCopy->setToolTip(tr("Open an editable copy to submit as this candidate's child "
                              "(Ctrl+E)"));
    m_editCopy->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_editCopy->setEnabled(false);
    connect(m_editCopy, &QToolButton::clicked, this, &CodePanel::editCopyRequested);
    row->addWidget(m_header, 1);
    row->addWidget(m_editCopy);
    layout->addWidget(bar);
    layout->addWidget(m_editor, 1);
    clear(tr("Select a candidate in the tree or the table."));
}

QString CodePanel::headerText() const
{
    return m_header->text();
}

void CodePanel::setEditCopyEnabled(bool enabled)
{
    m_editCopy->setEnabled(enabled);
}

void CodePanel::clear(const QString &why)
{
    m_editor->clearLineNotes();
    m_editor->setText(QString());
    m_header->setText(
        QStringLiteral("<span style=\"color:#777;\">%1</span>").arg(why.toHtmlEscaped()));
}

void CodePanel::showCandidate(const CandidateRecord &record,
                              const std::optional<EvaluationResult> &result)
{
    m_header->setText(candidateHeadline(record, result));
    m_editor->clearLineNotes();
    m_editor->setText(record.source);
    QList<CodeEditor::LineNote> notes;
    if (result) {
        for (const CheatFlag &flag : result->flags) {
            for (int line : flag.lines)
                notes.append(CodeEditor::flagNote(flag, line));
        }
        for (const ReportFormatter::Diagnostic &d : ReportFormatter::compileDiagnostics(*result)) {
            if (d.line <= 0)
                continue;
            notes.append({d.line,
                          d.severity == QStringLiteral("error") ? CodeEditor::NoteKind::Error
                                                                : CodeEditor::NoteKind::Warning,
                          QStringLiteral("%1: %2").arg(d.severity, d.message)});
        }
    }
    m_editor->setLineNotes(notes);
    if (!notes.isEmpty())
        m_editor->setFirstVisibleLine(std::max(0, notes.first().line - 6));
}

void CodePanel::goToLine(int line)
{
    m_editor->goToLine(line);
}

} // namespace kiln
