#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QString>
#include <optional>

namespace kiln {

// One lesson of the optimisation memory (docs/strategies.md "Optimisation memory"): a child that
// ran faster than its parent, what changed between them and what it gained. Shared by every run
// of a workspace; later prompts carry the entries most relevant to their task.
struct MemoryEntry
{
    qint64 id = 0; // 0 until stored
    QString task;
    QString backend; // "cpu", "cuda", "pytorch"
    QString shape;   // the timing shape the speeds were taken on, e.g. "n=4194304"
    std::optional<qint64> runId;
    std::optional<qint64> parentId;
    std::optional<qint64> childId; // unique: one lesson per improvement
    QString idea;                  // the knob or idea, one line ("block: 128 -> 256")
    QString diff;                  // unified diff from the parent's source to the child's
    double speedupBefore = 0.0;
    double speedupAfter = 0.0;
    std::optional<double> msBefore;
    std::optional<double> msAfter;
    bool edited = false; // a person changed the idea after it was recorded
    QDateTime createdAt;

    // How many times faster the child ran than its parent (1 when unknown).
    double gain() const;
    QJsonObject toJson() const;
    static MemoryEntry fromJson(const QJsonObject &object);
};

} // namespace kiln
