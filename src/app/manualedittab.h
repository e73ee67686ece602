#pragma once

#include "core/candidaterecord.h"
#include "core/evaluationresult.h"

#include <QWidget>
#include <optional>

class QLabel;
class QPushButton;

namespace kiln {

class CodeEditor;

// One editable copy of a candidate ("can you beat the search?"): the source in an editable
// editor, and "Submit as child", which hands it to the verifier as a manual node under the
// candidate it was copied from. The verdict comes back here, with the flags on their lines.
class ManualEditTab : public QWidget
{
    Q_OBJECT

public:
    // `database`: the workspace the original belongs to; the copy is submitted there whatever
    // the window shows by then.
    ManualEditTab(const CandidateRecord &original, const QString &database,
                  QWidget *parent = nullptr);

    QString database() const { return m_database; }
    qint64 runId() const { return m_runId; }
    qint64 parentId() const { return m_parentId; }
    QString task() const { return m_task; }
    QString source() const;
    QString title() const;
    CodeEditor *editor() const { return m_editor; }
    QPushButton *submitButton() const { return m_submit; }
    QString statusText() const;

    // The submission in flight (its ticket), or 0 when none is.
    int ticket() const { return m_ticket; }
    void setSubmitted(int ticket);
    void setStored(qint64 candidateId);
    void setResult(bool ok, qint64 candidateId, const EvaluationResult &result,
                   const QString &error);

signals:
    void submitRequested(kiln::ManualEditTab *tab);
    void candidateRequested(qint64 candidateId); // "show it in the tree"

private:
    QString m_database;
    qint64 m_runId;
    qint64 m_parentId;
    QString m_task;
    int m_ticket = 0;
    qint64 m_lastCandidate = 0;
    CodeEditor *m_editor;
    QPushButton *m_submit;
    QPushButton *m_show;
    QLabel *m_status;
};

} // namespace kiln
