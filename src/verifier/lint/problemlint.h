#pragma once

#include "tasks/task.h"
#include "verifier/lint/lintfacts.h"
#include "verifier/lint/lintfinding.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace kiln {

// What problem lint says about one task (docs/tasks.md, "Problem lint"): its findings, and
// the magnitude-aware absolute tolerance the verifier applies to a problem whose reference
// outputs are so small that an all-zero or constant answer would meet the declared one.
// Stored once per task (LintCache) under a hash of everything the verdict depends on.
struct ProblemLint
{
    enum class State
    {
        Linted,
        NotLinted, // nothing ran: no torch, no sandbox, or not asked yet
        Failed     // the reference itself could not be run
    };
    // Bumped whenever what lint measures changes: older stored results no longer count.
    static constexpr int kVersion = 1;
    // The effective atol is this fraction of the smallest output's median |reference|.
    static constexpr double kMagnitudeFraction = 1e-2;

    State state = State::NotLinted;
    QString note;     // not linted or failed: why; linted: by what ("the CPU reference")
    QString taskHash; // hashOf() the task it was computed for
    int version = kVersion;
    QString lintedAt;   // ISO 8601, UTC
    Tolerance declared; // the f32 tolerance it was judged against
    // Set when an all-zero or constant answer met `declared`: the verifier's atol for the task.
    std::optional<double> effectiveAbs;
    double typicalMagnitude = 0.0; // the smallest median |reference| over the outputs
    QString opsCoverage;           // how far the redundant-op check went (PyTorch problems)
    QList<LintFinding> findings;

    static ProblemLint fromFacts(const LintFacts &facts, const Tolerance &declared);
    static ProblemLint notLinted(const QString &why);
    static ProblemLint failed(const QString &why);
    // min(declaredAbs, kMagnitudeFraction x the smallest positive typical magnitude).
    static double magnitudeAbs(double declaredAbs, const QList<double> &typicalMagnitudes);
    // A short hash of what lint depends on: the reference lint runs, the parameters, shapes,
    // distributions and the declared tolerances (not the task's name or text).
    static QString hashOf(const Task &task);

    bool linted() const { return state == State::Linted; }
    // Computed by this version of lint for exactly this task.
    bool currentFor(const Task &task) const;
    // Lowers the task's f32 absolute tolerance to effectiveAbs (idempotent; nothing otherwise).
    void applyTo(Task &task) const;
    // "atol 0.01 -> 7.4e-07 (1e-2 x median |ref| 7.4e-05)"; empty without an effective atol.
    QString toleranceText() const;
    // The lines `kiln-cli tasks` prints under a task: the state or each finding, then the
    // tolerance.
    QStringList lines() const;
    QString stateName() const; // "linted", "not_linted", "failed"

    QJsonObject toJson() const;
    static ProblemLint fromJson(const QJsonObject &object);
};

} // namespace kiln
