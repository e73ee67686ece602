#include "manualedittab.h"

#include "codeeditor.h"

#include "models/verdictstyle.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace kiln {

ManualEditTab::ManualEditTab(const CandidateRecord &original, const QString &database,
                             QWidget *parent)
    : QWidget(parent), m_database(database), m_runId(original.runId), m_parentId(original.id),
      m_task(original.task), m_editor(new CodeEditor(this)), m_submit(new QPushButton(this)),
      m_show(new QPushButton(tr("Show in tree"), this)), m_status(new QLabel(this))
{
    setObjectName(QStringLiteral("manualEditTab"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto *bar = new QWidget(this);
    bar->setObjectName(QStringLiteral("manualEditBar"));
    bar->setStyleSheet(QStringLiteral(
        "QWidget#manualEditBar { background: #f6f7f9; border-bottom: 1px solid #e1e4e8; }"));
    auto *row = new QHBoxLayout(bar);
    row->setContentsMargins(8, 4, 8, 4);
    m_submit->setText(tr("Submit as child of #%1").arg(m_parentId));
    m_submit->setToolTip(tr("Verify this source on the run's own inputs and add it to the tree "
                            "as a manual node under #%1 of run #%2 in %3")
                             .arg(m_parentId)
                             .arg(m_runId)
                             .arg(QFileInfo(m_database).fileName()));
    m_status->setTextFormat(Qt::RichText);
    m_status->setText(tr("An editable copy of #%1. Change it, then submit it.").arg(m_parentId));
    m_show->setEnabled(false);
    row->addWidget(m_submit);
    row->addWidget(m_status, 1);
    row->addWidget(m_show);
    layout->addWidget(bar);
    layout->addWidget(m_editor, 1);
    m_editor->setReadOnly(false);
    m_editor->setText(original.source);
    connect(m_submit, &QPushButton::clicked, this, [this] { emit submitRequested(this); });
    connect(m_show, &QPushButton::clicked, this, [this] {
        if (m_lastCandidate)
            emit candidateRequested(m_lastCandidate);
    });
    connect(m_editor, &QsciScintilla::textChanged, m_editor, &CodeEditor::clearLineNotes);
}

QString ManualEditTab::source() const
{
    return m_editor->text();
}

QString ManualEditTab::title() const
{
    return tr("copy of #%1").arg(m_parentId);
}

QString ManualEditTab::statusText() const
{
    return m_status->text();
}

void ManualEditTab::setSubmitted(int ticket)
{
    m_ticket = ticket;
    m_submit->setEnabled(false);
    m_status->setText(tr("<i>Verifying…</i>"));
}

void ManualEditTab::setStored(qint64 candidateId)
{
    m_lastCandidate = candidateId;
    m_show->setEnabled(true);
    m_status->setText(tr("<i>Stored as #%1; verifying…</i>").arg(candidateId));
}

void ManualEditTab::setResult(bool ok, qint64 candidateId, const EvaluationResult &result,
                              const QString &error)
{
    m_ticket = 0;
    m_submit->setEnabled(true);
    if (!ok) {
        m_status->setText(tr("<span style=\"color:#b3261e;\">Not submitted: %1</span>")
                              .arg(error.toHtmlEscaped()));
        return;
    }
    m_lastCandidate = candidateId;
    m_show->setEnabled(true);
    QString text =
        tr("#%1 &nbsp;<span style=\"background-color:%2; color:white;\">&nbsp;%3"
           "&nbsp;</span>")
            .arg(candidateId)
            .arg(VerdictStyle::color(result.verdict).name(), VerdictStyle::label(result.verdict));
    if (result.speedup)
        text += tr(" <b>%1×</b>").arg(*result.speedup, 0, 'f', 2);
    if (!result.summary.isEmpty())
        text += QStringLiteral(" &nbsp;") + result.summary.toHtmlEscaped();
    m_status->setText(text);
    QList<CodeEditor::LineNote> notes;
    for (const CheatFlag &flag : result.flags)
        for (int line : flag.lines)
            notes.append(CodeEditor::flagNote(flag, line));
    m_editor->setLineNotes(notes);
}

} // namespace kiln
