#pragma once

#include "core/runrecord.h"
#include "models/launchsettings.h"
#include "verifier/harness/cudadevices.h"
#include "verifier/lint/problemlint.h"

#include <QDialog>
#include <QHash>
#include <memory>

class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace Ui {
class RunLauncher;
}

namespace kiln {

class TaskLibrary;

// The run launcher (ui/runlauncher.ui): task or suite, backend with the GPUs found, policy with
// its settings, strategy with a form made from the parameters the strategy declares, budget
// and its axis, seeds and the database. Every problem is listed with its message before
// anything starts, and the equivalent kiln-cli line is shown, ready to copy.
class RunLauncherDialog : public QDialog
{
    Q_OBJECT

public:
    RunLauncherDialog(const TaskLibrary &tasks, CudaAvailability gpus,
                      QList<RunRecord> recordedRuns, QWidget *parent = nullptr);
    ~RunLauncherDialog() override;

    void setSettings(const LaunchSettings &settings);
    LaunchSettings settings() const;
    QList<LaunchSettings::Problem> problems() const;
    QString commandLine() const;
    QString problemsText() const;
    // What problem lint found in the chosen tasks and what would start but not be what was
    // asked (advice; never refuses the start).
    QString lintText() const;

    // Start: refused (the dialog stays) while a problem remains.
    void accept() override;

protected:
    void showEvent(QShowEvent *event) override;

private:
    void fitPolicyPage(); // the stack exactly as tall as the policy page shown
    void fillChoices(const QList<RunRecord> &recordedRuns);
    void addWorkshopFields(); // allocation, tasks at once and the offline settings beyond the rates
    void addAgentPage();      // the command policy's fields
    // The preset's values in the extra offline fields; `overrides` on top (given settings).
    void fillOfflineExtras(const QString &preset, const QVariantMap &overrides);
    QVariantMap offlineOverrides() const;
    void rebuildParameters(const QString &strategy, const QVariantMap &values);
    QVariantMap parameterValues() const;
    void refresh();
    void browseDatabase();

    std::unique_ptr<Ui::RunLauncher> m_ui;
    const TaskLibrary &m_tasks;
    CudaAvailability m_gpus;
    QHash<QString, QWidget *> m_parameterEditors;
    QHash<QString, QVariant> m_parameterDefaults;
    // What each editor showed when it was made (after the spin box's rounding), and the values
    // given by the settings: only an editor the person changed, or a given value, is passed on.
    QHash<QString, QVariant> m_parameterShown;
    QVariantMap m_parameterGiven;
    QHash<QString, ProblemLint> m_lints; // kept lint of every task, read once
    bool m_filling = false;
    QComboBox *m_allocationCombo = nullptr;
    QSpinBox *m_tasksAtOnceSpin = nullptr;
    QLineEdit *m_agentCommandEdit = nullptr; // the command policy's page (addAgentPage)
    QSpinBox *m_agentTimeoutSpin = nullptr;
    QLineEdit *m_agentReadableEdit = nullptr;
    QHash<QString, QDoubleSpinBox *> m_offlineEditors;
    QHash<QString, double> m_offlineShown; // what each showed before the person changed it
};

} // namespace kiln
