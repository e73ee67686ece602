#include "replaybar.h"

#include "models/rundocument.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QStyle>
#include <QToolButton>

namespace kiln {

namespace {
constexpr int kTickMs = 100;
}

ReplayBar::ReplayBar(RunDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document), m_play(new QToolButton),
      m_slider(new QSlider(Qt::Horizontal)), m_speed(new QComboBox), m_label(new QLabel)
{
    setObjectName(QStringLiteral("replayBar"));
    m_play->setObjectName(QStringLiteral("replayPlay"));
    m_play->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    m_play->setToolTip(tr("Replay how the run grew"));
    m_slider->setObjectName(QStringLiteral("replaySlider"));
    m_slider->setToolTip(tr("The run as it stood after this many steps (added, judged, evicted)"));
    for (int stepsPerSecond : {10, 40, 160, 640})
        m_speed->addItem(tr("%1 steps/s").arg(stepsPerSecond), stepsPerSecond);
    m_speed->setCurrentIndex(1);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 0, 4, 0);
    layout->addWidget(new QLabel(tr("Growth")));
    layout->addWidget(m_play);
    layout->addWidget(m_slider, 1);
    layout->addWidget(m_speed);
    layout->addWidget(m_label);
    m_timer.setInterval(kTickMs);
    connect(&m_timer, &QTimer::timeout, this, &ReplayBar::tick);
    connect(m_play, &QToolButton::clicked, this, [this] { isPlaying() ? pause() : play(); });
    connect(m_slider, &QSlider::sliderPressed, this, &ReplayBar::refreshRange);
    connect(m_slider, &QSlider::valueChanged, this, &ReplayBar::setStep);
    // While the run grows (and no replay is on), the slider's end follows it, twice a second.
    m_growth.setSingleShot(true);
    m_growth.setInterval(500);
    connect(&m_growth, &QTimer::timeout, this, [this] {
        if (!m_document->isReplaying())
            refreshRange();
    });
    auto grew = [this] {
        if (!m_growth.isActive())
            m_growth.start();
    };
    connect(m_document, &RunDocument::candidatesAppended, this, grew);
    connect(m_document, &RunDocument::candidateChanged, this, grew);
    connect(m_document, &RunDocument::runLoaded, this, [this] {
        if (!m_document->isReplaying()) { // a new run, or the end of a replay
            pause();
            refreshRange();
        }
    });
    connect(m_document, &RunDocument::loadStarted, this, &ReplayBar::pause);
    refreshRange();
}

void ReplayBar::refreshRange()
{
    // The count alone (an index count) until a replay needs the timeline itself.
    const int count = !m_document->hasRun()       ? 0
                      : m_document->isReplaying() ? m_document->replaySteps()
                                                  : m_document->growthSteps();
    showOnSlider(count, m_document->isReplaying() ? m_document->replayStep() : count);
    setEnabled(m_document->hasRun());
}

void ReplayBar::setStep(int step)
{
    if (!m_document->hasRun())
        return;
    const int count = m_document->replaySteps();
    step = std::clamp(step, 0, count);
    if (step >= count)
        m_document->endReplay();
    else
        m_document->setReplayStep(step);
    showOnSlider(count, step);
}

// Moves the slider without taking it as the user's move.
void ReplayBar::showOnSlider(int count, int step)
{
    const QSignalBlocker quiet(m_slider);
    m_slider->setRange(0, count);
    m_slider->setValue(step);
    updateLabel();
}

int ReplayBar::step() const
{
    return m_slider->value();
}

int ReplayBar::steps() const
{
    return m_slider->maximum();
}

int ReplayBar::speed() const
{
    return m_speed->currentData().toInt();
}

void ReplayBar::play()
{
    if (!m_document->hasRun())
        return;
    refreshRange();
    if (!m_document->isReplaying()) // from the start
        setStep(0);
    m_play->setIcon(style()->standardIcon(QStyle::SP_MediaPause));
    m_timer.start();
}

void ReplayBar::pause()
{
    m_timer.stop();
    m_play->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
}

void ReplayBar::tick()
{
    const int count = m_document->replaySteps(); // grows while the run is live
    const int next = step() + std::max(1, speed() * kTickMs / 1000);
    // At the end the replay ends: the run as it is now, which a live run goes on growing.
    setStep(next);
    if (next >= count)
        pause();
}

void ReplayBar::updateLabel()
{
    const QDateTime at = m_document->replayTime();
    const QString time = at.isValid() && m_document->hasRun()
                             ? QStringLiteral(" · +%1 s")
                                   .arg(m_document->run().createdAt.msecsTo(at) / 1000.0, 0, 'f', 1)
                             : QString();
    m_label->setText(m_document->isReplaying()
                         ? tr("step %1 of %2%3").arg(step()).arg(steps()).arg(time)
                         : tr("%1 steps · now").arg(steps()));
}

} // namespace kiln
