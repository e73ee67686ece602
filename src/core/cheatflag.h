#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

namespace kiln {

// One finding of the anti-cheat screen or checks, explained for a student.
struct CheatFlag
{
    QString id;       // stable identifier, e.g. "side_stream"
    QString message;  // one line a student understands, with its evidence
    QList<int> lines; // 1-based source lines, empty when unknown
    bool blocking = false;
    // How much the flag says (docs/verifier.md): "hard" (only a game explains it; it blocks),
    // "suspicious" (a game or an honest bug; the verdict follows correctness) or "telemetry"
    // (advice). Empty means the default for `blocking`: flags made before tiers had none.
    QString tier;

    static QString defaultTier(bool blocking); // "hard" or "telemetry"
    QString effectiveTier() const;             // the tier, or its default when unset
    bool isHard() const { return effectiveTier() == QLatin1String("hard"); }
    bool isSuspicious() const { return effectiveTier() == QLatin1String("suspicious"); }
    // "[hard] side_stream": how text output names a flag and its tier.
    QString label() const;

    QJsonObject toJson() const; // always names the effective tier
    static CheatFlag fromJson(const QJsonObject &object);
    // An unset tier equals the tier it defaults to, so a flag survives a JSON round trip.
    bool operator==(const CheatFlag &other) const;
};

} // namespace kiln
