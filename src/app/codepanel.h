#pragma once

#include "core/candidaterecord.h"
#include "core/evaluationresult.h"

#include <QWidget>
#include <optional>

class QLabel;
class QToolButton;

namespace kiln {

class CodeEditor;

// One rich-text line naming a candidate: id, task, origin, verdict badge and speedup.
QString candidateHeadline(const CandidateRecord &record,
                          const std::optional<EvaluationResult> &result);

// The selected candidate's source, with its cheat flags and compiler diagnostics on their lines.
class CodePanel : public QWidget
{
    Q_OBJECT

public:
    explicit CodePanel(QWidget *parent = nullptr);

    void showCandidate(const CandidateRecord &record,
                       const std::optional<EvaluationResult> &result);
    void clear(const QString &why);
    CodeEditor *editor() const { return m_editor; }
    QString headerText() const;
    void setEditCopyEnabled(bool enabled);

public slots:
    void goToLine(int line);

signals:
    void editCopyRequested();

private:
    QLabel *m_header;
    QToolButton *m_editCopy;
    CodeEditor *m_editor;
};

} // namespace kiln
