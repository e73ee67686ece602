#pragma once

#include "policies/policy.h"

#include <QMap>
#include <QString>
#include <QStringList>

namespace kiln {

// The text sent to a model for one generation request, built from editable templates
// (resources/prompts/*.md, overridable per user). Used by the LLM policy for real requests
// and by the offline policy so its simulated token counts come from real prompt text.
struct Prompt
{
    QString system;
    QString user;

    // Both parts in one text, as the transcript and CandidateRecord::prompt keep it.
    QString transcript() const;
};

class PromptBuilder
{
public:
    // Loads the embedded templates, then any user overrides from templateDir (if it exists).
    explicit PromptBuilder(const QString &templateDir = QString());
    Prompt build(const GenerationRequest &request) const;
    // Template names: "system", "first", "refine", "crossover" (mutate uses "refine"), and the
    // agents strategy's "agent_profiler", "agent_planner", "agent_coder", "agent_tester".
    QString templateText(const QString &name) const;

    // Every template name, including the per-backend rules ("backend_cpu", "backend_cuda",
    // "backend_pytorch": KernelBench problems, answered with a Python ModelNew module).
    static QStringList templateNames();
    // <AppConfigLocation>/prompts: where the desktop app writes a user's edited templates.
    static QString defaultTemplateDir();
    // Names of the templates that came from templateDir rather than the embedded defaults.
    QStringList overriddenTemplates() const { return m_overridden; }
    // Replaces every {{name}} whose name is a key of values; unknown placeholders stay verbatim
    // so a typo in an edited template is visible in the transcript instead of vanishing.
    static QString render(const QString &text, const QMap<QString, QString> &values);
    // The placeholder values build() would use for request (exposed for tests and the editor).
    QMap<QString, QString> values(const GenerationRequest &request) const;

    // The {{memory}} placeholder: a "## What worked before" section, empty without lessons.
    static QString memorySection(const QList<MemoryEntry> &memory);

private:
    // The tester's placeholders: size_names, checked_shapes, largest_sizes, shape_example.
    static void insertShapeValues(const Task &task, QMap<QString, QString> *values);
    // The task's placeholders; the KernelBench ones (reference_source, tolerance,
    // kernelbench_level, ...) only for backend Torch.
    static void insertTaskValues(const Task &task, Backend backend, QMap<QString, QString> *values);

    QMap<QString, QString> m_templates;
    QStringList m_overridden;
};

} // namespace kiln
