#include "verifier/harness/cudadevices.h"

#include <QFileInfo>
#include <QHash>
#include <QMutex>
#include <QProcess>

namespace kiln {

double CudaDevice::peakFp32FlopsPerSecond() const
{
    // FP32 lanes per SM by compute capability (CUDA programming guide's throughput table).
    const int lanes = (major == 8 && minor > 0) || major >= 9 ? 128 : 64;
    return double(smCount) * lanes * 2.0 * clockKhz * 1e3;
}

QString CudaDevice::lockName() const
{
    if (uuid.isEmpty())
        return QStringLiteral("gpu-") + QString::number(index);
    const QString id = uuid.toLower();
    return id.startsWith(QLatin1String("gpu-")) ? id : QStringLiteral("gpu-") + id;
}

QString CudaAvailability::versionText(int cudaVersion)
{
    return QStringLiteral("%1.%2").arg(cudaVersion / 1000).arg(cudaVersion % 1000 / 10);
}

CudaAvailability CudaDevices::parse(const QString &output)
{
    CudaAvailability availability;
    const QStringList lines = output.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (const QString &line : lines) {
        if (line.startsWith(QLatin1String("error "))) {
            availability.reason = line.mid(6).trimmed();
            continue;
        }
        const QStringList words = line.split(QLatin1Char(' '));
        if (words.size() == 4 && words[0] == QLatin1String("versions")) {
            availability.runtimeVersion = words[1].toInt();
            availability.driverVersion = words[2].toInt();
            availability.nvrtcVersion = words[3];
            continue;
        }
        // "uuid <index> GPU-...", after its device's line.
        if (words.size() == 3 && words[0] == QLatin1String("uuid")) {
            for (CudaDevice &device : availability.devices)
                if (device.index == words[1].toInt())
                    device.uuid = words[2];
            continue;
        }
        if (words.size() < 11 || words[0] != QLatin1String("device"))
            continue;
        CudaDevice device;
        device.index = words[1].toInt();
        device.major = words[2].toInt();
        device.minor = words[3].toInt();
        device.smCount = words[4].toInt();
        device.l2Bytes = words[5].toLongLong();
        device.memoryBytes = words[6].toLongLong();
        device.clockKhz = words[7].toInt();
        device.memoryClockKhz = words[8].toInt();
        device.busWidthBits = words[9].toInt();
        device.name = words.mid(10).join(QLatin1Char(' '));
        availability.devices.append(device);
    }
    availability.usable = !availability.devices.isEmpty();
    if (availability.usable) {
        availability.reason.clear();
    } else if (availability.reason.contains(QLatin1String("InsufficientDriver")) ||
               availability.reason.contains(QLatin1String("NoDevice")) ||
               availability.reason.isEmpty()) {
        const QString detail = availability.reason;
        availability.reason =
            detail.contains(QLatin1String("InsufficientDriver"))
                ? QStringLiteral("no usable NVIDIA driver (%1)").arg(detail)
                : QStringLiteral("no CUDA device%1")
                      .arg(detail.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(detail));
    } else {
        availability.reason =
            QStringLiteral("the device reported an error: %1").arg(availability.reason);
    }
    return availability;
}

CudaAvailability CudaDevices::probe(const VerifierOptions &options)
{
    static QMutex mutex;
    static QHash<QString, CudaAvailability> answers;
    QMutexLocker lock(&mutex);
    const QString executable = options.cudaSandbox;
    if (auto it = answers.constFind(executable); it != answers.constEnd())
        return *it;
    CudaAvailability availability;
    if (executable.isEmpty() || !QFileInfo(executable).isExecutable()) {
        availability.reason =
            QStringLiteral("this build has no CUDA backend (kiln-cuda-sandbox not found%1)")
                .arg(executable.isEmpty() ? QString() : QStringLiteral(" at ") + executable);
    } else {
        QProcess process;
        process.start(executable, {QStringLiteral("--probe")});
        if (!process.waitForFinished(30000)) {
            process.kill();
            availability.reason = QStringLiteral("kiln-cuda-sandbox --probe did not answer: %1")
                                      .arg(process.errorString());
        } else if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
            const QString text = QString::fromLocal8Bit(process.readAllStandardError()).trimmed();
            // A missing libcudart / libcuda makes the loader fail before main.
            availability.reason =
                QStringLiteral("kiln-cuda-sandbox cannot start (no CUDA runtime or driver?): %1")
                    .arg(text.left(300));
        } else {
            availability = parse(QString::fromLocal8Bit(process.readAllStandardOutput()));
        }
    }
    answers.insert(executable, availability);
    return availability;
}

} // namespace kiln
