#pragma once

#include <QTimer>
#include <QWidget>

class QComboBox;
class QLabel;
class QSlider;
class QToolButton;

namespace kiln {

class RunDocument;

// The growth replay's controls: a timeline slider over the shown run's steps (candidates added,
// verdicts, evictions), play and pause, and a speed. The tree, the table and the curves show
// the run as it stood at the slider; the end of the slider is the run as it is now, and a live
// run's timeline grows while it plays.
class ReplayBar : public QWidget
{
    Q_OBJECT

public:
    explicit ReplayBar(RunDocument *document, QWidget *parent = nullptr);

    // Shows step `step` of the timeline (0 = nothing yet); the last step ends the replay.
    void setStep(int step);
    int step() const;
    int steps() const;
    void play();
    void pause();
    bool isPlaying() const { return m_timer.isActive(); }
    // Steps per second while playing.
    int speed() const;
    QSlider *slider() const { return m_slider; }

private:
    void refreshRange();
    void showOnSlider(int count, int step);
    void tick();
    void updateLabel();

    RunDocument *m_document;
    QToolButton *m_play;
    QSlider *m_slider;
    QComboBox *m_speed;
    QLabel *m_label;
    QTimer m_timer;
    QTimer m_growth;
};

} // namespace kiln
