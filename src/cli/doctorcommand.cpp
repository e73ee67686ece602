#include "cli/commandline.h"
#include "cli/commands.h"
#include "engine/doctor/machinedoctor.h"

#include <QJsonArray>
#include <QSysInfo>
#include <cstdio>

namespace kiln {

namespace {

void printFindings(const QList<DoctorFinding> &findings)
{
    for (const DoctorFinding &finding : findings)
        std::fputs(finding.toText().toLocal8Bit().constData(), stdout);
}

} // namespace

int runDoctorCommand(const QStringList &arguments)
{
    CommandLine cli(QStringLiteral("doctor"),
                    QStringLiteral("Say what Kiln finds on this machine, with a fix for each "
                                   "problem: the sandboxes and their isolation, the compilers, "
                                   "the GPUs and the driver, the cache, the tasks and the "
                                   "strategies. It verifies one kernel on each usable backend."));
    cli.addTasksDirOption();
    cli.addJsonOption();
    if (const auto done = cli.parse(arguments))
        return *done;

    MachineDoctor doctor(VerifierOptions::defaults(), cli.tasksDirs());
    const QList<DoctorFinding> findings = doctor.examine();

    if (cli.json()) {
        QJsonArray checks;
        for (const DoctorFinding &finding : findings)
            checks.append(finding.toJson());
        CommandLine::printJson(QJsonDocument(
            QJsonObject{{QStringLiteral("version"), QStringLiteral(KILN_VERSION)},
                        {QStringLiteral("ok"), doctor.ok()},
                        {QStringLiteral("backends"),
                         QJsonObject{{QStringLiteral("cpu"), doctor.cpuBackendUsable()},
                                     {QStringLiteral("cuda"), doctor.cudaBackendUsable()}}},
                        {QStringLiteral("checks"), checks}}));
        return ExitOk;
    }
    std::printf("Kiln %s on %s (%s)\n\n", KILN_VERSION, qPrintable(QSysInfo::prettyProductName()),
                qPrintable(QSysInfo::kernelVersion()));
    printFindings(findings);
    std::printf("\n%s\n", qPrintable(doctor.summary()));
    return ExitOk;
}

} // namespace kiln
