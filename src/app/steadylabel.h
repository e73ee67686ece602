#pragma once

#include <QLabel>
#include <QWidget>

namespace kiln {

// A one-line rich-text label for text that changes many times a second (a live run's status
// line and progress): its host has no layout and a constant size hint, so a new text repaints
// the label and lays nothing else out again. (A plain QLabel asks its window to re-layout on
// every change, and the window then repaints every panel.)
class SteadyLabel : public QWidget
{
    Q_OBJECT

public:
    explicit SteadyLabel(QWidget *parent = nullptr);

    // The tooltip holds the same line: a status bar too narrow cuts it, and hover shows it whole.
    void setText(const QString &text)
    {
        m_label->setText(text);
        m_label->setToolTip(text);
    }
    QString text() const { return m_label->text(); }
    QLabel *label() const { return m_label; }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return {0, sizeHint().height()}; }

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    QLabel *m_label;
};

} // namespace kiln
