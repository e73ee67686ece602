#include "runlauncherdialog.h"

#include "languages/kernellanguages.h"
#include "models/rules/launchcheck.h"
#include "models/rules/lintnotes.h"
#include "policies/offline/offlinepolicy.h"
#include "strategyregistry.h"
#include "tasks/tasklibrary.h"
#include "ui_runlauncher.h"
#include "verifier/lint/lintcache.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <limits>

namespace kiln {

namespace {

QString gpuText(const CudaAvailability &gpus)
{
    if (!gpus.usable)
        return QObject::tr("No usable GPU: %1. <i>auto</i> judges on the CPU.")
            .arg(gpus.reason.toHtmlEscaped());
    const QLocale locale;
    QStringList names;
    for (const CudaDevice &d : gpus.devices)
        names << QStringLiteral("GPU %1: %2 (%3)")
                     .arg(d.index)
                     .arg(d.name.toHtmlEscaped(),
                          locale.formattedDataSize(d.memoryBytes, 0,
                                                   QLocale::DataSizeTraditionalFormat));
    return names.join(QStringLiteral("<br>"));
}

int clampToInt(const QVariant &value, int fallback)
{
    if (!value.isValid())
        return fallback;
    return int(std::clamp<qint64>(value.toLongLong(), std::numeric_limits<int>::min(),
                                  std::numeric_limits<int>::max()));
}

// An editor for one declared strategy parameter, typed by its default value.
QWidget *parameterEditor(const StrategyParameter &p, const QVariant &value)
{
    const QString help =
        p.description +
        (p.minimum.isValid() || p.maximum.isValid()
             ? QObject::tr(" (range %1 to %2)")
                   .arg(p.minimum.isValid() ? p.minimum.toString() : QStringLiteral("-∞"),
                        p.maximum.isValid() ? p.maximum.toString() : QStringLiteral("∞"))
             : QString()) +
        QObject::tr("; default %1").arg(p.defaultValue.toString());
    QWidget *editor = nullptr;
    switch (p.defaultValue.typeId()) {
    case QMetaType::Int:
    case QMetaType::LongLong:
    case QMetaType::UInt:
    case QMetaType::ULongLong: {
        auto *spin = new QSpinBox;
        spin->setRange(clampToInt(p.minimum, std::numeric_limits<int>::min()),
                       clampToInt(p.maximum, std::numeric_limits<int>::max()));
        spin->setValue(value.toInt());
        editor = spin;
        break;
    }
    case QMetaType::Double: {
        auto *spin = new QDoubleSpinBox;
        spin->setDecimals(3);
        spin->setRange(p.minimum.isValid() ? p.minimum.toDouble() : -1e12,
                       p.maximum.isValid() ? p.maximum.toDouble() : 1e12);
        spin->setSingleStep(0.05);
        spin->setValue(value.toDouble());
        editor = spin;
        break;
    }
    case QMetaType::Bool: {
        auto *check = new QCheckBox;
        check->setChecked(value.toBool());
        editor = check;
        break;
    }
    default:
        if (!p.choices.isEmpty()) {
            auto *combo = new QComboBox;
            combo->addItems(p.choices);
            combo->setCurrentText(value.toString());
            editor = combo;
        } else {
            auto *line = new QLineEdit(value.toString());
            editor = line;
        }
    }
    // "auto", "never", "off": what 0 means, shown instead of a bare 0.
    if (const QString zero = p.zeroMeaning(); !zero.isEmpty()) {
        if (auto *spin = qobject_cast<QSpinBox *>(editor); spin && spin->minimum() == 0)
            spin->setSpecialValueText(zero);
        if (auto *spin = qobject_cast<QDoubleSpinBox *>(editor); spin && spin->minimum() == 0.0)
            spin->setSpecialValueText(zero);
    }
    editor->setObjectName(QStringLiteral("param_") + p.name);
    editor->setToolTip(help);
    return editor;
}

QVariant editorValue(const QWidget *editor)
{
    if (auto *spin = qobject_cast<const QSpinBox *>(editor))
        return spin->value();
    if (auto *spin = qobject_cast<const QDoubleSpinBox *>(editor))
        return spin->value();
    if (auto *check = qobject_cast<const QCheckBox *>(editor))
        return check->isChecked();
    if (auto *combo = qobject_cast<const QComboBox *>(editor))
        return combo->currentText();
    if (auto *line = qobject_cast<const QLineEdit *>(editor))
        return line->text();
    return {};
}

} // namespace

RunLauncherDialog::RunLauncherDialog(const TaskLibrary &tasks, CudaAvailability gpus,
                                     QList<RunRecord> recordedRuns, QWidget *parent)
    : QDialog(parent), m_ui(new Ui::RunLauncher), m_tasks(tasks), m_gpus(std::move(gpus))
{
    m_ui->setupUi(this);
    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setText(tr("&Start"));
    connect(m_ui->buttonBox, &QDialogButtonBox::accepted, this, &RunLauncherDialog::accept);
    connect(m_ui->buttonBox, &QDialogButtonBox::rejected, this, &RunLauncherDialog::reject);
    fillChoices(recordedRuns);
    addWorkshopFields();
    m_ui->gpuLabel->setText(gpuText(m_gpus));

    // The policy's page takes the room it needs, not the room of the largest page, and spare
    // height goes below the form.
    m_ui->policyStack->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    connect(m_ui->policyCombo, &QComboBox::currentIndexChanged, this, [this](int index) {
        for (int i = 0; i < m_ui->policyStack->count(); ++i)
            m_ui->policyStack->widget(i)->setSizePolicy(
                QSizePolicy::Preferred, i == index ? QSizePolicy::Preferred : QSizePolicy::Ignored);
        m_ui->policyStack->setCurrentIndex(index);
        fitPolicyPage();
    });
    // A preset fills the settings it gives; editing one afterwards overrides that one only.
    connect(m_ui->presetCombo, &QComboBox::currentTextChanged, this, [this](const QString &name) {
        if (m_filling)
            return;
        const OfflinePolicyOptions o =
            OfflinePolicyOptions::fromPreset(name).value_or(OfflinePolicyOptions{});
        m_ui->skillSpin->setValue(o.skill);
        m_ui->compileErrorSpin->setValue(o.compileErrorRate);
        m_ui->wrongSpin->setValue(o.wrongRate);
        m_ui->gamingSpin->setValue(o.gamingRate);
        fillOfflineExtras(name, {});
    });
    connect(m_ui->suiteCheck, &QCheckBox::toggled, this, [this](bool suite) {
        m_ui->suiteList->setVisible(suite);
        m_ui->taskCombo->setEnabled(!suite);
        m_allocationCombo->setEnabled(suite);
        m_tasksAtOnceSpin->setEnabled(suite);
        refresh();
    });
    connect(m_ui->strategyCombo, &QComboBox::currentTextChanged, this,
            [this](const QString &strategy) {
                if (!m_filling)
                    rebuildParameters(strategy, {});
                refresh();
            });
    connect(m_ui->copyButton, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(commandLine()); });
    connect(m_ui->browseButton, &QPushButton::clicked, this, &RunLauncherDialog::browseDatabase);
    // Any edit re-checks the form and rewrites the command line.
    for (QComboBox *c : findChildren<QComboBox *>())
        connect(c, &QComboBox::currentIndexChanged, this, &RunLauncherDialog::refresh);
    for (QLineEdit *e : findChildren<QLineEdit *>())
        connect(e, &QLineEdit::textChanged, this, &RunLauncherDialog::refresh);
    for (QDoubleSpinBox *s : findChildren<QDoubleSpinBox *>())
        connect(s, &QDoubleSpinBox::valueChanged, this, &RunLauncherDialog::refresh);
    for (QSpinBox *s : findChildren<QSpinBox *>())
        connect(s, &QSpinBox::valueChanged, this, &RunLauncherDialog::refresh);
    connect(m_ui->suiteList, &QListWidget::itemChanged, this, &RunLauncherDialog::refresh);
    setSettings(LaunchSettings());
}

RunLauncherDialog::~RunLauncherDialog() = default;

void RunLauncherDialog::fillChoices(const QList<RunRecord> &recordedRuns)
{
    const LintCache lints = LintCache::forOptions(VerifierOptions::defaults());
    for (const Task &task : m_tasks.tasks()) {
        m_lints.insert(task.name, lints.stored(task));
        m_ui->taskCombo->addItem(QStringLiteral("%1 — %2").arg(task.name, task.title), task.name);
        auto *item = new QListWidgetItem(task.name, m_ui->suiteList);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
    }
    m_ui->backendCombo->addItems({QStringLiteral("auto"), QStringLiteral("cpu"),
                                  QStringLiteral("cuda"), QStringLiteral("pytorch")});
    m_ui->executorCombo->addItems({QStringLiteral("local"), QStringLiteral("slurm")});
    m_ui->verifierCombo->addItems({QStringLiteral("strict"), QStringLiteral("lenient")});
    for (const KernelLanguage *language : KernelLanguages::all())
        m_ui->languageCombo->addItem(language->displayName(), language->id());
    m_ui->presetCombo->addItems(OfflinePolicyOptions::presetNames());
    m_ui->policyCombo->addItem(tr("offline (simulated LLM, no key, no network)"),
                               QStringLiteral("offline"));
    m_ui->policyCombo->addItem(tr("LLM endpoint"), QStringLiteral("llm"));
    m_ui->policyCombo->addItem(tr("replay a recorded run"), QStringLiteral("replay"));
    m_ui->policyCombo->addItem(tr("coding agent (a command line)"), QStringLiteral("command"));
    m_ui->apiCombo->addItems({QStringLiteral("openai"), QStringLiteral("anthropic")});
    m_ui->effortCombo->addItem(tr("server default"), QString());
    for (const char *level : {"minimal", "low", "medium", "high"})
        m_ui->effortCombo->addItem(QString::fromLatin1(level), QString::fromLatin1(level));
    for (const RunRecord &run : recordedRuns) {
        if (run.kind == QLatin1String("search"))
            m_ui->replayCombo->addItem(
                tr("#%1  %2 · %3 · %4")
                    .arg(run.id)
                    .arg(run.tasks.join(QLatin1Char(',')), run.strategy, run.policy),
                run.id);
    }
    m_ui->strategyCombo->addItems(StrategyRegistry::names());
    for (const char *axis : {"evals", "samples", "tokens", "seconds", "cost"})
        m_ui->axisCombo->addItem(QString::fromLatin1(axis));
}

void RunLauncherDialog::showEvent(QShowEvent *event)
{
    QDialog::showEvent(event);
    fitPolicyPage(); // polished now: its fields have their real heights
}

// The stack holds pages of very different heights: it takes the shown one's, and the scroll
// area scrolls when the form is taller than the dialog (the offline page's rows were squeezed to
// slivers instead).
void RunLauncherDialog::fitPolicyPage()
{
    QWidget *page = m_ui->policyStack->currentWidget();
    if (!page)
        return;
    page->layout()->activate();
    m_ui->policyStack->setFixedHeight(page->sizeHint().height());
    m_ui->formLayout->invalidate();
}

void RunLauncherDialog::addWorkshopFields()
{
    m_allocationCombo = new QComboBox;
    m_allocationCombo->setObjectName(QStringLiteral("allocationCombo"));
    m_allocationCombo->addItems(
        {QStringLiteral("adaptive"), QStringLiteral("even"), QStringLiteral("diagnosed")});
    m_allocationCombo->setToolTip(
        tr("How a suite's budget is shared among its tasks: adaptive (probe, then more for the "
           "tasks that fail), even (the same share each) or diagnosed (probe, then by failure "
           "rate, reasoning-length tier and stagnation; a task at its ceiling stops)"));
    m_ui->taskLayout->addWidget(new QLabel(tr("Allocation")));
    m_ui->taskLayout->addWidget(m_allocationCombo);
    m_tasksAtOnceSpin = new QSpinBox;
    m_tasksAtOnceSpin->setObjectName(QStringLiteral("tasksAtOnceSpin"));
    m_tasksAtOnceSpin->setRange(1, 64);
    m_tasksAtOnceSpin->setToolTip(
        tr("Rounds of up to this many of the suite's tasks run at once, so one task's compiles "
           "overlap another's timing; a seed records the same rounds however they interleave"));
    m_ui->taskLayout->addWidget(new QLabel(tr("Tasks at once")));
    m_ui->taskLayout->addWidget(m_tasksAtOnceSpin);
    // The offline settings the exercises change (docs/offline-policy.md names each).
    for (const QString &name : LaunchSettings::extraOfflineSettings()) {
        auto *spin = new QDoubleSpinBox;
        spin->setObjectName(QStringLiteral("offline_") + name);
        spin->setRange(0.0, 1.0);
        spin->setDecimals(3);
        spin->setSingleStep(0.05);
        spin->setToolTip(tr("--param %1 (the preset's value unless changed)").arg(name));
        m_offlineEditors.insert(name, spin);
        m_ui->offlineLayout->addRow(name, spin);
    }
    addAgentPage();
    // Both re-check the form through the constructor's connections to every field.
}

// The command policy's page, the policy stack's last (its combo entry is the last too).
void RunLauncherDialog::addAgentPage()
{
    auto *page = new QWidget;
    auto *form = new QFormLayout(page);
    m_agentCommandEdit = new QLineEdit;
    m_agentCommandEdit->setObjectName(QStringLiteral("agentCommandEdit"));
    m_agentCommandEdit->setPlaceholderText(
        QStringLiteral("claude -p --output-format json < prompt.md"));
    m_agentCommandEdit->setToolTip(
        tr("Run by /bin/sh in a work folder of its own holding prompt.md, task.md, the reference "
           "and the parent with its feedback; the agent writes candidate.* there or prints the "
           "code (docs/llm.md)"));
    m_agentTimeoutSpin = new QSpinBox;
    m_agentTimeoutSpin->setObjectName(QStringLiteral("agentTimeoutSpin"));
    m_agentTimeoutSpin->setRange(1, 24 * 3600);
    m_agentTimeoutSpin->setSuffix(tr(" s"));
    m_agentReadableEdit = new QLineEdit;
    m_agentReadableEdit->setObjectName(QStringLiteral("agentReadableEdit"));
    m_agentReadableEdit->setToolTip(
        tr("Further folders the agent may read, ':'-separated (--param command.read)"));
    form->addRow(tr("Command"), m_agentCommandEdit);
    form->addRow(tr("Time limit"), m_agentTimeoutSpin);
    form->addRow(tr("Also readable"), m_agentReadableEdit);
    m_ui->policyStack->addWidget(page);
}

void RunLauncherDialog::fillOfflineExtras(const QString &preset, const QVariantMap &overrides)
{
    OfflinePolicyOptions options =
        OfflinePolicyOptions::fromPreset(preset).value_or(OfflinePolicyOptions{});
    m_offlineShown.clear();
    for (const auto &[name, value] : options.numericSettings()) {
        QDoubleSpinBox *spin = m_offlineEditors.value(name);
        if (!spin)
            continue;
        const QSignalBlocker block(spin);
        spin->setValue(*value);
        m_offlineShown.insert(name, spin->value());
        if (overrides.contains(name))
            spin->setValue(overrides.value(name).toDouble());
    }
}

QVariantMap RunLauncherDialog::offlineOverrides() const
{
    QVariantMap overrides;
    for (auto it = m_offlineEditors.cbegin(); it != m_offlineEditors.cend(); ++it)
        if (it.value()->value() != m_offlineShown.value(it.key()))
            overrides.insert(it.key(), it.value()->value());
    return overrides;
}

void RunLauncherDialog::setSettings(const LaunchSettings &s)
{
    m_filling = true;
    const bool suite = s.tasks.size() > 1;
    m_ui->suiteCheck->setChecked(suite);
    m_ui->suiteList->setVisible(suite);
    m_ui->taskCombo->setEnabled(!suite);
    const int task = m_ui->taskCombo->findData(s.tasks.value(0));
    m_ui->taskCombo->setCurrentIndex(task >= 0 ? task : 0);
    for (int i = 0; i < m_ui->suiteList->count(); ++i) {
        QListWidgetItem *item = m_ui->suiteList->item(i);
        item->setCheckState(suite && s.tasks.contains(item->text()) ? Qt::Checked : Qt::Unchecked);
    }
    m_ui->backendCombo->setCurrentText(s.backend);
    m_ui->verifierCombo->setCurrentText(s.verifier);
    m_ui->languageCombo->setCurrentIndex(std::max(0, m_ui->languageCombo->findData(s.language)));
    m_ui->presetCombo->setCurrentText(s.preset);
    m_ui->policyCombo->setCurrentIndex(std::max(0, m_ui->policyCombo->findData(s.policy)));
    emit m_ui->policyCombo->currentIndexChanged(m_ui->policyCombo->currentIndex());
    m_ui->skillSpin->setValue(s.skill);
    m_ui->compileErrorSpin->setValue(s.compileErrorRate);
    m_ui->wrongSpin->setValue(s.wrongRate);
    m_ui->gamingSpin->setValue(s.gamingRate);
    fillOfflineExtras(s.preset, s.offlineOverrides);
    m_allocationCombo->setCurrentText(s.allocation);
    m_allocationCombo->setEnabled(suite);
    m_tasksAtOnceSpin->setValue(s.tasksAtOnce);
    m_tasksAtOnceSpin->setEnabled(suite);
    m_ui->endpointEdit->setText(s.endpoint);
    m_agentCommandEdit->setText(s.agentCommand);
    m_agentTimeoutSpin->setValue(s.agentTimeoutSeconds);
    m_agentReadableEdit->setText(s.agentReadable);
    m_ui->modelEdit->setText(s.model);
    m_ui->apiCombo->setCurrentText(s.api);
    m_ui->apiKeyEnvEdit->setText(s.apiKeyEnv);
    m_ui->effortCombo->setCurrentIndex(std::max(0, m_ui->effortCombo->findData(s.reasoningEffort)));
    m_ui->pricePromptSpin->setValue(s.pricePrompt);
    m_ui->priceCompletionSpin->setValue(s.priceCompletion);
    const int replay = m_ui->replayCombo->findData(s.replayRunId);
    if (replay >= 0)
        m_ui->replayCombo->setCurrentIndex(replay);
    m_ui->strategyCombo->setCurrentText(s.strategy);
    rebuildParameters(m_ui->strategyCombo->currentText(), s.strategyParameters);
    m_ui->budgetSpin->setValue(s.budget);
    m_ui->axisCombo->setCurrentText(s.budgetAxis);
    m_ui->seedSpin->setValue(int(std::min<quint64>(s.seed, quint64(m_ui->seedSpin->maximum()))));
    m_ui->seedsSpin->setValue(s.seeds);
    m_ui->databaseEdit->setText(s.database);
    m_ui->executorCombo->setCurrentText(s.executor);
    m_ui->slurmPartitionEdit->setText(s.slurmPartition);
    m_ui->slurmGpusSpin->setValue(s.slurmGpus);
    m_ui->slurmJobsSpin->setValue(s.slurmMaxJobs);
    m_filling = false;
    refresh();
}

void RunLauncherDialog::rebuildParameters(const QString &strategy, const QVariantMap &values)
{
    QFormLayout *form = m_ui->parametersLayout;
    while (form->rowCount() > 0)
        form->removeRow(0);
    m_parameterEditors.clear();
    m_parameterDefaults.clear();
    m_parameterShown.clear();
    m_parameterGiven = values;
    const QList<StrategyParameter> parameters = StrategyRegistry::parameters(strategy);
    for (const StrategyParameter &p : parameters) {
        QWidget *editor = parameterEditor(p, values.value(p.name, p.defaultValue));
        m_parameterEditors.insert(p.name, editor);
        m_parameterDefaults.insert(p.name, p.defaultValue);
        m_parameterShown.insert(p.name, editorValue(editor));
        form->addRow(p.name, editor);
        if (auto *spin = qobject_cast<QSpinBox *>(editor))
            connect(spin, &QSpinBox::valueChanged, this, &RunLauncherDialog::refresh);
        else if (auto *dspin = qobject_cast<QDoubleSpinBox *>(editor))
            connect(dspin, &QDoubleSpinBox::valueChanged, this, &RunLauncherDialog::refresh);
        else if (auto *check = qobject_cast<QCheckBox *>(editor))
            connect(check, &QCheckBox::toggled, this, &RunLauncherDialog::refresh);
        else if (auto *combo = qobject_cast<QComboBox *>(editor))
            connect(combo, &QComboBox::currentIndexChanged, this, &RunLauncherDialog::refresh);
        else if (auto *line = qobject_cast<QLineEdit *>(editor))
            connect(line, &QLineEdit::textChanged, this, &RunLauncherDialog::refresh);
    }
    m_ui->parametersBox->setVisible(!parameters.isEmpty());
    m_ui->strategyDescription->setText(StrategyRegistry::description(strategy));
}

QVariantMap RunLauncherDialog::parameterValues() const
{
    QVariantMap values;
    for (auto it = m_parameterEditors.cbegin(); it != m_parameterEditors.cend(); ++it) {
        const QVariant value = editorValue(it.value());
        // An untouched editor passes nothing: a spin box shows 1.414 for mcts's 1.41421356.
        const bool changed = value.toString() != m_parameterShown.value(it.key()).toString();
        if (!changed && !m_parameterGiven.contains(it.key()))
            continue;
        if (value.toString() != m_parameterDefaults.value(it.key()).toString())
            values.insert(it.key(), value);
    }
    return values;
}

LaunchSettings RunLauncherDialog::settings() const
{
    LaunchSettings s;
    if (m_ui->suiteCheck->isChecked()) {
        for (int i = 0; i < m_ui->suiteList->count(); ++i)
            if (m_ui->suiteList->item(i)->checkState() == Qt::Checked)
                s.tasks << m_ui->suiteList->item(i)->text();
        // A suite of one is the task alone, spelt --task.
    } else if (m_ui->taskCombo->currentIndex() >= 0) {
        s.tasks << m_ui->taskCombo->currentData().toString();
    }
    s.backend = m_ui->backendCombo->currentText();
    s.verifier = m_ui->verifierCombo->currentText();
    s.language = m_ui->languageCombo->currentData().toString();
    s.preset = m_ui->presetCombo->currentText();
    s.policy = m_ui->policyCombo->currentData().toString();
    s.skill = m_ui->skillSpin->value();
    s.compileErrorRate = m_ui->compileErrorSpin->value();
    s.wrongRate = m_ui->wrongSpin->value();
    s.gamingRate = m_ui->gamingSpin->value();
    s.offlineOverrides = offlineOverrides();
    s.allocation = m_allocationCombo->currentText();
    s.tasksAtOnce = m_tasksAtOnceSpin->value();
    s.endpoint = m_ui->endpointEdit->text();
    s.agentCommand = m_agentCommandEdit->text();
    s.agentTimeoutSeconds = m_agentTimeoutSpin->value();
    s.agentReadable = m_agentReadableEdit->text();
    s.model = m_ui->modelEdit->text();
    s.api = m_ui->apiCombo->currentText();
    s.apiKeyEnv = m_ui->apiKeyEnvEdit->text().trimmed();
    s.reasoningEffort = m_ui->effortCombo->currentData().toString();
    s.pricePrompt = m_ui->pricePromptSpin->value();
    s.priceCompletion = m_ui->priceCompletionSpin->value();
    s.replayRunId = m_ui->replayCombo->currentData().toLongLong();
    s.strategy = m_ui->strategyCombo->currentText();
    s.strategyParameters = parameterValues();
    s.budget = m_ui->budgetSpin->value();
    s.budgetAxis = m_ui->axisCombo->currentText();
    s.seed = quint64(m_ui->seedSpin->value());
    s.seeds = m_ui->seedsSpin->value();
    s.database = m_ui->databaseEdit->text().trimmed();
    s.executor = m_ui->executorCombo->currentText();
    s.slurmPartition = m_ui->slurmPartitionEdit->text().trimmed();
    s.slurmGpus = m_ui->slurmGpusSpin->value();
    s.slurmMaxJobs = m_ui->slurmJobsSpin->value();
    return s;
}

QList<LaunchSettings::Problem> RunLauncherDialog::problems() const
{
    return LaunchCheck::problems(settings(), m_tasks, m_gpus);
}

QString RunLauncherDialog::commandLine() const
{
    return settings().commandLine();
}

QString RunLauncherDialog::problemsText() const
{
    return m_ui->problemsLabel->text();
}

QString RunLauncherDialog::lintText() const
{
    return m_ui->lintLabel->text();
}

void RunLauncherDialog::refresh()
{
    if (m_filling)
        return;
    const bool slurm = m_ui->executorCombo->currentText() == QLatin1String("slurm");
    for (QWidget *w :
         {static_cast<QWidget *>(m_ui->slurmPartitionEdit),
          static_cast<QWidget *>(m_ui->slurmGpusLabel), static_cast<QWidget *>(m_ui->slurmGpusSpin),
          static_cast<QWidget *>(m_ui->slurmJobsLabel),
          static_cast<QWidget *>(m_ui->slurmJobsSpin)})
        w->setEnabled(slurm);
    const QList<LaunchSettings::Problem> found = problems();
    QStringList lines;
    for (const LaunchSettings::Problem &p : found)
        lines << QStringLiteral("• ") + p.message.toHtmlEscaped();
    m_ui->problemsLabel->setText(lines.join(QStringLiteral("<br>")));
    m_ui->problemsLabel->setVisible(!found.isEmpty());
    QStringList notes;
    const LaunchSettings chosen = settings();
    for (const QString &line : chosen.warnings() + LintNotes::lines(chosen.tasks, m_lints))
        notes << QStringLiteral("• ") + line.toHtmlEscaped();
    m_ui->lintLabel->setText(notes.join(QStringLiteral("<br>")));
    m_ui->lintLabel->setVisible(!notes.isEmpty());
    m_ui->commandEdit->setPlainText(commandLine());
    // Start only looks possible when it is.
    QPushButton *start = m_ui->buttonBox->button(QDialogButtonBox::Ok);
    start->setEnabled(found.isEmpty());
    start->setToolTip(found.isEmpty() ? tr("Start the run")
                                      : tr("Fix the problems listed above first"));
}

void RunLauncherDialog::accept()
{
    refresh();
    if (!problems().isEmpty())
        return;
    QDialog::accept();
}

void RunLauncherDialog::browseDatabase()
{
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Workspace database"), m_ui->databaseEdit->text(),
                                     tr("Kiln databases (*.db *.sqlite *.kiln);;All files (*)"),
                                     nullptr, QFileDialog::DontConfirmOverwrite);
    if (!path.isEmpty())
        m_ui->databaseEdit->setText(path);
}

} // namespace kiln
