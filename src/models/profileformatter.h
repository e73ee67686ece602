#pragma once

#include "core/profilerecord.h"

#include <QList>
#include <QString>
#include <optional>

namespace kiln {

// The HTML of the profile panel: the newest hardware profile of a candidate and of its task's
// reference side by side, a column per kernel and a row per key metric, with what ran (GPU,
// driver, ncu) and how ncu's duration compares with the verifier's median. Where a profile
// failed or none was taken, it says why.
class ProfileFormatter
{
public:
    // profiles: a candidate's, newest first (RunStore::profiles). unavailable: why this machine
    // cannot take one (empty where it may).
    static QString html(const QList<ProfileRecord> &profiles, const QString &unavailable);
    static std::optional<ProfileRecord> newest(const QList<ProfileRecord> &profiles,
                                               const QString &subject);
};

} // namespace kiln
