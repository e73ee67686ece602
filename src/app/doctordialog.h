#pragma once

#include "engine/doctor/doctorfinding.h"

#include <QDialog>
#include <QFutureWatcher>
#include <QList>
#include <memory>

class QLabel;
class QPushButton;
class QTreeWidget;

namespace kiln {

class MachineDoctor;

// Help ▸ Check this machine: what `kiln-cli doctor` says, in the window. The checks run on a
// worker thread (they start a sandbox and verify a kernel per backend); the dialog stays
// responsive and can be closed meanwhile.
class DoctorDialog : public QDialog
{
    Q_OBJECT

public:
    explicit DoctorDialog(QWidget *parent = nullptr);
    ~DoctorDialog() override;

    void start();
    bool isChecking() const { return m_watcher.isRunning(); }
    QList<DoctorFinding> findings() const { return m_findings; }
    QTreeWidget *table() const { return m_table; }

signals:
    void checked(); // the findings are shown

private:
    void showReport(const MachineDoctor &doctor);

    QLabel *m_summary;
    QTreeWidget *m_table;
    QPushButton *m_again;
    QPushButton *m_copy;
    QFutureWatcher<std::shared_ptr<MachineDoctor>> m_watcher;
    QList<DoctorFinding> m_findings;
};

} // namespace kiln
