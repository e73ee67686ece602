#pragma once

#include "models/runprogress.h"

#include <QWidget>

class QProgressBar;

namespace kiln {

class SteadyLabel;

// The live run's line in the status bar: a bar for the budget used on the run's own axis, and
// beside it the other axes and what is in flight (evaluations per second, generations and
// evaluations running, the GPUs in use).
class RunProgressWidget : public QWidget
{
    Q_OBJECT

public:
    explicit RunProgressWidget(QWidget *parent = nullptr);

    // otherRuns: runs of the window going or queued besides this one.
    void showProgress(const RunProgress &progress, const QString &state, int otherRuns = 0);
    // No run of this window's on screen grows: a line about the ones that go elsewhere.
    void showNote(const QString &text);
    QString text() const;
    int percent() const;

private:
    QProgressBar *m_bar;
    SteadyLabel *m_label;
};

} // namespace kiln
