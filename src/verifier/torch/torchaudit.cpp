#include "verifier/torch/torchaudit.h"

#include "verifier/torch/torchkernelshare.h"
#include "verifier/torch/torchoprecord.h"

#include <QElapsedTimer>
#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace kiln {

namespace {

QJsonArray sortedArray(const QSet<QString> &set)
{
    QStringList list = set.values();
    list.sort();
    return QJsonArray::fromStringList(list);
}

QString statusText(SandboxProcess::Status status)
{
    switch (status) {
    case SandboxProcess::Status::TimedOut:
        return u"no answer in time"_s;
    case SandboxProcess::Status::Cancelled:
        return u"cancelled"_s;
    case SandboxProcess::Status::Flooded:
        return u"too much output"_s;
    case SandboxProcess::Status::Died:
        return u"the process ended"_s;
    case SandboxProcess::Status::Ok:
    case SandboxProcess::Status::Error:
        break;
    }
    return {};
}

} // namespace

TorchAudit::TorchAudit(TorchProcess &candidate, TorchProcess &reference,
                       std::optional<QJsonObject> &referenceRecord, QString candidateSource,
                       int timeoutMs, const std::atomic<bool> &cancel)
    : m_candidate(candidate), m_reference(reference), m_referenceRecord(referenceRecord),
      m_source(std::move(candidateSource)), m_timeoutMs(timeoutMs), m_cancel(cancel)
{
}

// Precision first (it needs both records and the trace's TF32 kernels), the replay last: it
// writes noise into the candidate's tensors, so nothing else runs after it.
TorchAudit::Outcome TorchAudit::run(quint64 seed, qint64 outputAt, const SameOutputs &sameOutputs)
{
    m_outcome = Outcome{};
    m_summary.clear();
    if (!m_referenceRecord)
        m_referenceRecord = ask(m_reference, "dtypes", u"the reference's op record"_s);
    const TorchOpRecord reference(m_referenceRecord.value_or(QJsonObject{}));
    const TorchOpRecord candidate(
        ask(m_candidate, "dtypes", u"the candidate's op record"_s).value_or(QJsonObject{}));
    QStringList tf32Kernels;
    const QByteArray profileLine =
        "profile " + QByteArray::number(kProfiledCalls) + ' ' + QByteArray::number(seed);
    if (const std::optional<QJsonObject> profile =
            ask(m_candidate, profileLine, u"the kernel profile"_s))
        tf32Kernels = judgeCoverage(*profile, reference, candidate);
    judgePrecision(reference, candidate, tf32Kernels);
    const QByteArray replayLine =
        "replay " + QByteArray::number(seed + 1) + ' ' + QByteArray::number(outputAt);
    if (const std::optional<QJsonObject> replay =
            ask(m_candidate, replayLine, u"the replay without its kernels"_s))
        judgeReplay(*replay, sameOutputs);
    m_summary += m_outcome.notes;
    m_outcome.summary = m_summary.join(u"; "_s);
    return m_outcome;
}

std::optional<QJsonObject> TorchAudit::ask(TorchProcess &process, const QByteArray &line,
                                           const QString &what)
{
    const bool candidate = &process == &m_candidate;
    if (m_cancel || (candidate && m_candidateLost))
        return std::nullopt;
    QElapsedTimer timer;
    timer.start();
    const SandboxProcess::Reply reply = process.request(line, m_timeoutMs, &m_cancel);
    // What each request cost, for the audit stage's data (where an evaluation's time goes).
    QJsonObject steps = m_outcome.data.value(u"steps_ms"_s).toObject();
    steps.insert((candidate ? u"candidate "_s : u"reference "_s) +
                     QString::fromUtf8(line).section(u' ', 0, 0),
                 qRound(timer.nsecsElapsed() / 1e5) / 10.0);
    m_outcome.data.insert(u"steps_ms"_s, steps);
    if (reply.status == SandboxProcess::Status::Ok)
        return TorchProcess::json(reply).object();
    const bool error = reply.status == SandboxProcess::Status::Error;
    m_outcome.notes.append(
        what + u" failed: "_s +
        (error ? QString::fromUtf8(reply.line).left(200) : statusText(reply.status)));
    // Once the process is gone or stuck, nothing else can be asked of it.
    m_candidateLost = m_candidateLost || (candidate && !error);
    return std::nullopt;
}

void TorchAudit::judgePrecision(const TorchOpRecord &reference, const TorchOpRecord &candidate,
                                const QStringList &tf32Kernels)
{
    QStringList evidence = TorchOpRecord::downgrades(reference, candidate);
    // Every process runs with TF32 off, so a TF32 library kernel is the candidate's doing,
    // unless the problem's own code switches TF32 on.
    if (reference.settings().isEmpty()) {
        for (const QString &kernel : tf32Kernels)
            evidence.append(kernel + u" computes in TF32"_s);
    }
    QJsonObject data{{u"reference_dtypes"_s, sortedArray(reference.dtypes())},
                     {u"candidate_dtypes"_s, sortedArray(candidate.dtypes())},
                     {u"settings"_s, QJsonArray::fromStringList(candidate.settings())},
                     {u"evidence"_s, QJsonArray::fromStringList(evidence)}};
    if (!reference.available())
        data.insert(u"reference_unavailable"_s, reference.unavailable());
    if (!candidate.available())
        data.insert(u"candidate_unavailable"_s, candidate.unavailable());
    m_outcome.data.insert(u"precision"_s, data);
    if (!evidence.isEmpty()) {
        m_outcome.findings.append(
            {u"precision_downgrade"_s, u"audit: "_s + evidence.mid(0, 3).join(u"; "_s)});
        m_summary.append(u"computes below the problem's precision"_s);
    } else if (reference.available() && candidate.available()) {
        m_summary.append(u"computes in the problem's precision"_s);
    } else {
        m_summary.append(u"op dtypes not recorded"_s);
    }
}

// The kernel shares, and the TF32 library kernels of the trace.
QStringList TorchAudit::judgeCoverage(const QJsonObject &profile, const TorchOpRecord &reference,
                                      const TorchOpRecord &candidate)
{
    for (const QString &key : {u"skipped"_s, u"unavailable"_s}) {
        if (profile.contains(key)) {
            m_outcome.data.insert(u"coverage"_s, QJsonObject{{key, profile.value(key)}});
            m_summary.append(u"no kernel trace ("_s + profile.value(key).toString() + u")"_s);
            return {};
        }
    }
    const TorchKernelShare share(profile, m_source);
    const QStringList substituted = TorchOpRecord::substitutedFamilies(reference, candidate);
    QJsonObject data = share.toJson();
    data.insert(u"substituted"_s, QJsonArray::fromStringList(substituted));
    data.insert(u"calls"_s, profile.value(u"calls"_s));
    m_outcome.data.insert(u"coverage"_s, data);
    if (share.totalUs() <= 0.0) {
        m_summary.append(u"no GPU work in the trace"_s);
        return share.tf32Kernels();
    }
    const bool libraryWork = share.libraryGemmUs() > share.ownUs() &&
                             share.libraryGemmUs() >= kLibraryGemmFloor * share.totalUs();
    if (!substituted.isEmpty() && libraryWork)
        m_outcome.findings.append({u"torch_library_gemm"_s,
                                   substituted.join(u", "_s) +
                                       u" that the reference does not run; "_s + share.summary()});
    else if (share.ownShare() < kOwnShareFloor)
        m_outcome.findings.append({u"torch_library_share"_s, share.summary()});
    m_summary.append(QStringLiteral("own kernels %1 % of %2 us on the GPU")
                         .arg(100.0 * share.ownShare(), 0, 'f', 0)
                         .arg(share.totalUs(), 0, 'f', 1));
    return share.tf32Kernels();
}

void TorchAudit::judgeReplay(const QJsonObject &replay, const SameOutputs &sameOutputs)
{
    const int calls = replay.value(u"calls"_s).toInt();
    const QString error = replay.value(u"error"_s).toString();
    const QJsonArray functions = replay.value(u"functions"_s).toArray();
    QJsonObject data{{u"calls"_s, calls},
                     {u"functions"_s, functions},
                     {u"modules"_s, replay.value(u"modules"_s)},
                     {u"unwritable"_s, replay.value(u"unwritable"_s)},
                     {u"error"_s, error}};
    if (calls == 0) {
        // Nothing was neutralised: the forward reaches no extension function the worker
        // can find (or calls none; the screen says so).
        data.insert(u"depends"_s, QJsonValue::Null);
        m_summary.append(u"replay: no extension function was called"_s);
    } else if (!error.isEmpty() || !replay.value(u"replay"_s).isArray()) {
        data.insert(u"depends"_s, true);
        m_summary.append(u"without its kernels the forward fails"_s);
    } else {
        const bool same =
            sameOutputs(replay.value(u"normal"_s).toArray(), replay.value(u"replay"_s).toArray());
        // Outputs some of which could not be overwritten prove nothing.
        const bool ghost = same && replay.value(u"unwritable"_s).toInt() == 0;
        data.insert(u"depends"_s,
                    same ? (ghost ? QJsonValue(false) : QJsonValue::Null) : QJsonValue(true));
        if (ghost) {
            QStringList names;
            for (const QJsonValue &name : functions)
                names.append(name.toString());
            m_outcome.findings.append(
                {u"torch_ghost_kernel"_s,
                 QStringLiteral("the same outputs with %1 call(s) of %2 neutralised")
                     .arg(calls)
                     .arg(names.mid(0, 4).join(u", "_s))});
        }
        m_summary.append(ghost  ? u"outputs do not depend on its kernels"_s
                         : same ? u"replay inconclusive"_s
                                : u"outputs depend on its kernels"_s);
    }
    m_outcome.data.insert(u"replay"_s, data);
}

} // namespace kiln
