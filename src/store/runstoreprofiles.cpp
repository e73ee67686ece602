// RunStore's hardware profiles: the profiles table, a candidate's newest first.
#include "runstore.h"
#include "runstorequeries.h"

#include <sqlite3.h>

namespace kiln {

namespace {

ProfileRecord profileFromRow(const SqliteStatement &s)
{
    ProfileRecord p;
    s.columns(0, p.id, p.candidateId, p.subject, p.ok, p.reason, p.reportPath, p.metrics,
              p.fingerprint, p.createdAt);
    return p;
}

} // namespace

qint64 RunStore::addProfile(ProfileRecord &profile)
{
    QMutexLocker lock(&m_mutex);
    if (!requireWritable("addProfile"))
        return 0;
    const QDateTime created =
        profile.createdAt.isValid() ? profile.createdAt : QDateTime::currentDateTimeUtc();
    SqliteStatement s(m_db, "INSERT INTO profiles (candidate_id, subject, ok, reason, report_path, "
                            "metrics, fingerprint, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
                            "?7, ?8)");
    s.bindAll(profile.candidateId, profile.subject, profile.ok, profile.reason, profile.reportPath,
              profile.metrics, profile.fingerprint, created);
    m_lastError.clear();
    if (!s.exec()) {
        setError(QStringLiteral("addProfile"), s.error());
        return 0;
    }
    profile.id = sqlite3_last_insert_rowid(m_db);
    profile.createdAt = created;
    return profile.id;
}

QList<ProfileRecord> RunStore::profiles(qint64 candidateId)
{
    return selectAll<ProfileRecord>(
        "profiles",
        "SELECT id, candidate_id, subject, ok, reason, report_path, metrics, fingerprint, "
        "created_at FROM profiles WHERE candidate_id = ?1 ORDER BY id DESC",
        profileFromRow, candidateId);
}

} // namespace kiln
