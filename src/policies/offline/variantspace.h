#pragma once

#include "core/backend.h"
#include "policies/offline/templateengine.h"

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>
#include <optional>

namespace kiln {

// One tunable choice of a kernel variant space (tasks/<task>/variants/<backend>/knobs.json).
struct Knob
{
    QString name;        // template variable, e.g. "VEC"
    QString description; // one line, used in simulated reasoning text
    QStringList values;  // in order: "up"/"down" moves walk this list
    QList<double> prior; // what a mediocre model picks (normalised)
    // 0..1 per value: how good the simulated model believes the value is (belief tags
    // best/good/fair/poor = 1/0.75/0.5/0.25, set from published guidance, not from timings).
    QList<double> quality;
    QString basis; // the guideline the beliefs come from (docs/offline-policy.md lists them)
    // feedback kind ("memory_bound", "compute_bound", "launch_bound", "latency") -> target:
    // a value, or "up"/"down" for one step along `values`.
    QMap<QString, QString> feedback;

    int indexOf(const QString &value) const { return values.indexOf(value); }
};

using KnobConfig = QMap<QString, QString>;

// The variant space of one task and backend: knobs plus a source template. Loaded from the
// embedded resources (":/tasks/<task>/variants/<backend>/"; a KernelBench problem's, in one
// kernel language, from ":/tasks/kernelbench/<problem>/variants/<language>/") or from any
// directory.
class VariantSpace
{
public:
    // kiln_tasks embeds the whole top-level tasks/ folder under :/tasks, variant spaces included.
    static QString resourceRoot() { return QStringLiteral(":/tasks"); }
    // <root>/<task>/variants/<backend>
    static QString directoryFor(const QString &root, const QString &task, Backend backend);
    // Tasks that have an embedded space for the backend.
    static QStringList availableTasks(Backend backend);
    static std::optional<VariantSpace> loadEmbedded(const QString &task, Backend backend,
                                                    QString *error = nullptr);
    // KernelBench problems (named as import-kernelbench names them) have spaces per language.
    static QString kernelBenchDirectory(const QString &root, const QString &problem,
                                        const QString &language);
    static QStringList availableKernelBench(const QString &language);
    static std::optional<VariantSpace>
    loadKernelBench(const QString &problem, const QString &language, QString *error = nullptr);
    // Loads <directory>/knobs.json and the template it names.
    static std::optional<VariantSpace> loadDirectory(const QString &directory,
                                                     QString *error = nullptr);
    static std::optional<VariantSpace>
    fromJson(const QJsonObject &object, const QString &templateText, QString *error = nullptr);

    QString task() const { return m_task; }
    Backend backend() const { return m_backend; }
    QString language() const { return m_language; } // a KernelBench space's; empty otherwise
    // Whether a problem's reference source (as a prompt shows it) is the one this space's
    // template was written for: every pattern of knobs.json's "reference" matches. A space
    // without patterns fits any reference; `why` names the first pattern that did not match.
    bool fitsReference(const QString &referenceSource, QString *why = nullptr) const;
    QString templateText() const { return m_template; }
    const QList<Knob> &knobs() const { return m_knobs; }
    const Knob *knob(const QString &name) const;
    double difficulty() const { return m_difficulty; } // 0..1
    QString bound() const { return m_bound; }          // "memory" or "compute"

    qint64 combinationCount() const;
    KnobConfig configAt(qint64 index) const; // mixed-radix enumeration, 0 <= index < count
    KnobConfig bestConfig() const;           // the highest-quality value of every knob
    bool isValid(const KnobConfig &config) const;
    // Mean knob quality in [0, 1]: the simulated policy's notion of how good a variant is.
    double quality(const KnobConfig &config) const;
    TemplateEngine::Result render(const KnobConfig &config) const;

    static QJsonObject configToJson(const KnobConfig &config);
    static KnobConfig configFromJson(const QJsonObject &object);

private:
    QString m_task;
    Backend m_backend = Backend::Cpu;
    QString m_language;
    QStringList m_referencePatterns;
    QString m_template;
    QList<Knob> m_knobs;
    double m_difficulty = 0.5;
    QString m_bound = QStringLiteral("memory");
};

} // namespace kiln
