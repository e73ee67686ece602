#include "runprogresswidget.h"

#include "steadylabel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>

namespace kiln {

namespace {

QString axisAmount(BudgetAxis axis, double value)
{
    const QLocale locale;
    switch (axis) {
    case BudgetAxis::Evals:
        return QObject::tr("%1 evals").arg(locale.toString(qint64(value)));
    case BudgetAxis::Samples:
        return QObject::tr("%1 samples").arg(locale.toString(qint64(value)));
    case BudgetAxis::Tokens:
        return QObject::tr("%1 tokens").arg(locale.toString(qint64(value)));
    case BudgetAxis::Seconds:
        return QObject::tr("%1 s").arg(value, 0, 'f', 0);
    case BudgetAxis::DeviceSeconds:
        return QObject::tr("%1 device-s").arg(value, 0, 'f', 1);
    case BudgetAxis::Cost:
        return QObject::tr("$%1").arg(value, 0, 'f', 2);
    }
    return {};
}

} // namespace

RunProgressWidget::RunProgressWidget(QWidget *parent)
    : QWidget(parent), m_bar(new QProgressBar(this)), m_label(new SteadyLabel(this))
{
    setObjectName(QStringLiteral("runProgress"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_bar->setRange(0, 1000);
    m_bar->setFixedWidth(200);
    m_bar->setTextVisible(true);
    m_label->setMinimumWidth(m_label->fontMetrics().averageCharWidth() * 110);
    layout->addWidget(m_bar);
    layout->addWidget(m_label);
    setVisible(false);
}

void RunProgressWidget::showProgress(const RunProgress &p, const QString &state, int otherRuns)
{
    m_bar->setValue(int(p.fraction() * 1000.0));
    // "4 / 8 evals": the unit once, so the line fits the bar.
    const QString budget = axisAmount(p.axis, p.budget);
    QString spent = axisAmount(p.axis, p.spent());
    const qsizetype unit = spent.indexOf(QLatin1Char(' '));
    if (unit > 0 && budget.endsWith(spent.mid(unit)))
        spent.truncate(unit);
    m_bar->setFormat(QStringLiteral("%1 / %2").arg(spent, budget));
    QStringList parts;
    parts << QStringLiteral("<b>%1</b>").arg(state.toHtmlEscaped());
    parts << tr("%1 eval/s").arg(p.evaluationsPerSecond, 0, 'f', 1);
    parts << tr("%1 generating · %2 evaluating").arg(p.generating).arg(p.evaluating);
    // The axes the run is not budgeted on, so any of them can be read off while it goes.
    for (BudgetAxis axis : {BudgetAxis::Samples, BudgetAxis::Evals, BudgetAxis::Tokens,
                            BudgetAxis::DeviceSeconds, BudgetAxis::Seconds}) {
        if (axis != p.axis)
            parts << axisAmount(axis, usageOnAxis(p.used, axis));
    }
    parts << (p.devices.isEmpty() ? tr("CPU") : p.devices.join(QStringLiteral(", ")));
    if (otherRuns > 0)
        parts << tr("%n more run(s) going", nullptr, otherRuns);
    m_label->setText(parts.join(QStringLiteral(" · ")));
    m_bar->setVisible(true);
    setVisible(true);
}

void RunProgressWidget::showNote(const QString &text)
{
    m_bar->setVisible(false);
    m_bar->setFormat(QString());
    m_label->setText(text.toHtmlEscaped());
    setVisible(true);
}

QString RunProgressWidget::text() const
{
    return m_bar->format() + QLatin1Char(' ') + m_label->text();
}

int RunProgressWidget::percent() const
{
    return m_bar->value() / 10;
}

} // namespace kiln
