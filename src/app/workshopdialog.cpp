#include "workshopdialog.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace kiln {

WorkshopDialog::WorkshopDialog(const QString &folder, QWidget *parent)
    : QDialog(parent), m_list(new QListWidget), m_text(new QTextBrowser),
      m_folder(new QLineEdit(folder)), m_scale(new QDoubleSpinBox),
      m_start(new QPushButton(tr("&Start this exercise"))), m_status(new QLabel)
{
    setObjectName(QStringLiteral("workshopDialog"));
    setWindowTitle(tr("Workshop exercises"));
    setModal(false);
    m_list->setObjectName(QStringLiteral("workshopExercises"));
    for (const WorkshopExercise &e : WorkshopExercise::all(folder))
        m_list->addItem(QStringLiteral("%1. %2").arg(e.number).arg(e.title));
    m_list->setMaximumWidth(m_list->fontMetrics().averageCharWidth() * 44);
    m_text->setObjectName(QStringLiteral("workshopText"));
    m_folder->setObjectName(QStringLiteral("workshopFolder"));
    m_folder->setToolTip(tr("Each exercise stores its runs in its own database in this folder"));
    m_scale->setObjectName(QStringLiteral("workshopScale"));
    m_scale->setRange(0.1, 1.0);
    m_scale->setSingleStep(0.1);
    m_scale->setValue(1.0);
    m_scale->setToolTip(tr("Every budget times this: 1 runs the exercise as the workshop doc "
                           "gives it, less for a quick look"));
    m_start->setObjectName(QStringLiteral("workshopStart"));
    m_status->setWordWrap(true);

    auto *split = new QSplitter;
    split->addWidget(m_list);
    split->addWidget(m_text);
    split->setStretchFactor(1, 3);
    auto *form = new QFormLayout;
    form->addRow(tr("Folder"), m_folder);
    form->addRow(tr("Budget scale"), m_scale);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    buttons->addButton(m_start, QDialogButtonBox::ActionRole);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(split, 1);
    layout->addLayout(form);
    layout->addWidget(m_status);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_list, &QListWidget::currentRowChanged, this, &WorkshopDialog::showExercise);
    connect(m_scale, &QDoubleSpinBox::valueChanged, this, &WorkshopDialog::showExercise);
    connect(m_start, &QPushButton::clicked, this, [this] { emit startRequested(current()); });
    m_list->setCurrentRow(0);
    resize(980, 620);
}

QString WorkshopDialog::folder() const
{
    return m_folder->text().trimmed();
}

double WorkshopDialog::budgetScale() const
{
    return m_scale->value();
}

WorkshopExercise WorkshopDialog::current() const
{
    return WorkshopExercise::all(folder(), budgetScale()).value(std::max(0, m_list->currentRow()));
}

void WorkshopDialog::setStatus(const QString &text)
{
    m_status->setText(text);
}

void WorkshopDialog::showExercise()
{
    const WorkshopExercise e = current();
    QString html = QStringLiteral("<h3>%1. %2</h3>").arg(e.number).arg(e.title.toHtmlEscaped());
    html += tr("<p><b>Runs</b> (the same as these commands):</p>");
    for (const QString &command : e.commands()) // long lines wrap instead of running off
        html += QStringLiteral("<p style=\"white-space:pre-wrap; font-family:monospace;\">%1</p>")
                    .arg(command.toHtmlEscaped());
    html += tr("<p><b>Look at:</b> %1</p>").arg(e.lookAt.toHtmlEscaped());
    html += tr("<p><b>Expect:</b> %1</p>").arg(e.expect.toHtmlEscaped());
    m_text->setHtml(html);
}

} // namespace kiln
