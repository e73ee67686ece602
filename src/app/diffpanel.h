#pragma once

#include "models/sidebysidediff.h"

#include <QWidget>
#include <memory>

namespace Ui {
class DiffPanel;
}

namespace kiln {

class CodeEditor;
class RunDocument;

// Two candidates side by side (default: the selected one against its parent): changed lines and
// the characters that changed inside them highlighted, filler rows keeping both sides aligned,
// scrolling synchronised, next / previous change.
class DiffPanel : public QWidget
{
    Q_OBJECT

public:
    explicit DiffPanel(RunDocument *document, QWidget *parent = nullptr);
    ~DiffPanel() override;

    // left == 0: nothing to compare with (a root); shows the right side alone.
    void showPair(qint64 left, qint64 right);
    void clear(const QString &why);

    qint64 leftId() const { return m_left; }
    qint64 rightId() const { return m_right; }
    const SideBySideDiff &diff() const { return m_diff; }
    CodeEditor *leftEditor() const { return m_leftEditor; }
    CodeEditor *rightEditor() const { return m_rightEditor; }
    QString summaryText() const;
    int currentHunk() const { return m_currentHunk; }

public slots:
    void nextChange();
    void previousChange();

signals:
    // The user typed another id on one side.
    void leftRequested(qint64 candidateId);
    void rightRequested(qint64 candidateId);

private:
    void setupEditor(CodeEditor *editor); // markers for changed lines, indicators for characters
    void connectScrolling();
    void connectNavigation();
    void connectIdEdits();
    void render();
    void goToRow(int row);
    void syncScroll(CodeEditor *from, CodeEditor *to);

    std::unique_ptr<Ui::DiffPanel> m_ui;
    RunDocument *m_document;
    CodeEditor *m_leftEditor;
    CodeEditor *m_rightEditor;
    SideBySideDiff m_diff;
    qint64 m_left = 0;
    qint64 m_right = 0;
    int m_currentHunk = -1;
    bool m_syncing = false;
    int m_removedMarker = 3;
    int m_addedMarker = 4;
    int m_fillerMarker = 5;
    int m_removedIndicator = 10;
    int m_addedIndicator = 11;
};

} // namespace kiln
