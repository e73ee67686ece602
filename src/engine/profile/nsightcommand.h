#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace kiln {

// Nsight Compute's command lines: where ncu is, what every profile collects (the same sections
// and metrics each time, so two reports compare), how a report is read back, and the settings
// a profile's fingerprint records.
class NsightCommand
{
public:
    // $KILN_NCU, else ncu on PATH, else /usr/local/cuda/bin/ncu; empty if none is executable.
    static QString locate();
    // The folder of ncu's installation, the one with target/ (its libraries, which the profiled
    // sandbox may read); empty where none is found.
    static QString installFolder(const QString &ncu);
    // ncu and its options, to which the profiled sandbox's command line is appended: the
    // report goes to reportBase + ".ncu-rep", ncu's own messages to reportBase + ".log".
    static QStringList collect(const QString &ncu, const QString &reportBase);
    // Reads a report back: the raw page, one row per profiled launch, in base units.
    static QStringList import(const QString &report);
    // "ncu --version"'s last line, empty where ncu does not answer within a few seconds.
    static QString version(const QString &ncu);
    // The collection's settings (sections, metrics, clock and cache control, launch count).
    static QJsonObject settings();
    // Why profiles cannot be taken on this machine, empty where nothing is known against it:
    // the driver's RmProfilingAdminOnly with a process that is not root.
    static QString permissionProblem();

    static constexpr int kLaunchCount = 64; // profiled launches, correctness's and timing's
};

} // namespace kiln
