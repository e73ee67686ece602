#include "doctordialog.h"

#include "engine/doctor/machinedoctor.h"
#include "models/verdictstyle.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace kiln {

namespace {

QColor levelColour(DoctorFinding::Level level)
{
    switch (level) {
    case DoctorFinding::Level::Ok:
        return VerdictStyle::color(Verdict::Pass);
    case DoctorFinding::Level::Warning:
        return VerdictStyle::color(Verdict::Wrong); // the palette's amber
    case DoctorFinding::Level::Problem:
        return VerdictStyle::color(Verdict::Crash);
    }
    return {};
}

} // namespace

DoctorDialog::DoctorDialog(QWidget *parent)
    : QDialog(parent), m_summary(new QLabel(this)), m_table(new QTreeWidget(this)),
      m_again(new QPushButton(tr("Check again"), this)),
      m_copy(new QPushButton(tr("Copy report"), this))
{
    setWindowTitle(tr("Check this machine"));
    m_summary->setWordWrap(true);
    m_table->setColumnCount(3);
    m_table->setHeaderLabels({tr("Status"), tr("Check"), tr("Found, and how to fix it")});
    m_table->setRootIsDecorated(false);
    m_table->setWordWrap(true);
    m_table->header()->setSectionResizeMode(2, QHeaderView::Stretch);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_again, QDialogButtonBox::ActionRole);
    buttons->addButton(m_copy, QDialogButtonBox::ActionRole);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);
    resize(900, 520);

    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_again, &QPushButton::clicked, this, &DoctorDialog::start);
    connect(m_copy, &QPushButton::clicked, this, [this] {
        QString text;
        for (const DoctorFinding &finding : std::as_const(m_findings))
            text += finding.toText();
        QApplication::clipboard()->setText(m_summary->text() + QStringLiteral("\n\n") + text);
    });
    connect(&m_watcher, &QFutureWatcher<std::shared_ptr<MachineDoctor>>::finished, this,
            [this] { showReport(*m_watcher.result()); });
}

DoctorDialog::~DoctorDialog()
{
    // The checks end by themselves within seconds; the result must not reach a deleted dialog.
    m_watcher.disconnect(this);
    m_watcher.waitForFinished();
}

void DoctorDialog::start()
{
    if (m_watcher.isRunning())
        return;
    m_summary->setText(tr("Checking the sandboxes, the compilers, the GPUs, the cache and the "
                          "tasks, and verifying a kernel on each usable backend…"));
    m_again->setEnabled(false);
    m_copy->setEnabled(false);
    m_watcher.setFuture(QtConcurrent::run([] {
        auto doctor = std::make_shared<MachineDoctor>(VerifierOptions::defaults(), QStringList());
        doctor->examine();
        return doctor;
    }));
}

void DoctorDialog::showReport(const MachineDoctor &doctor)
{
    m_findings = doctor.findings();
    m_table->clear();
    for (const DoctorFinding &finding : std::as_const(m_findings)) {
        const QString text = finding.fix.isEmpty()
                                 ? finding.found
                                 : finding.found + QStringLiteral("\nFix: ") + finding.fix;
        auto *item = new QTreeWidgetItem(
            m_table, {DoctorFinding::levelName(finding.level), finding.check, text});
        item->setForeground(0, levelColour(finding.level));
        item->setToolTip(2, text);
    }
    m_table->resizeColumnToContents(0);
    m_table->resizeColumnToContents(1);
    m_summary->setText(doctor.summary());
    m_again->setEnabled(true);
    m_copy->setEnabled(true);
    emit checked();
}

} // namespace kiln
