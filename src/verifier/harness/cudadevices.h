#pragma once

#include "verifier/harness/verifieroptions.h"

#include <QList>
#include <QString>

namespace kiln {

// One GPU as kiln-cuda-sandbox --probe saw it.
struct CudaDevice
{
    int index = 0;
    QString name;
    int major = 0;
    int minor = 0;
    int smCount = 0;
    qint64 l2Bytes = 0;
    qint64 memoryBytes = 0;
    int clockKhz = 0;
    int memoryClockKhz = 0;
    int busWidthBits = 0;
    // "GPU-xxxxxxxx-xxxx-..." as nvidia-smi prints it; empty from a probe that did not say.
    QString uuid;

    QString architecture() const { return QStringLiteral("sm_%1%2").arg(major).arg(minor); }
    // fp32 FMA lanes per SM x 2 flops x clock: the SIMT peak (no tensor cores: an fp32 task
    // may not use TF32).
    double peakFp32FlopsPerSecond() const;
    // The machine-wide DeviceLock's name for this GPU: "gpu-" and the UUID in lower case (the
    // same GPU whatever CUDA_VISIBLE_DEVICES says), or "gpu-<index>" without one.
    QString lockName() const;
};

struct CudaAvailability
{
    bool usable = false;
    QString reason; // why not, when not: no sandbox, no driver, no device, the device's error
    QList<CudaDevice> devices;
    // From the probe's versions line; 0 / empty when the sandbox did not answer. A driver
    // version of 0 means no NVIDIA driver is installed. Versions are CUDA's 1000*major+10*minor.
    int runtimeVersion = 0;
    int driverVersion = 0;
    QString nvrtcVersion;
    static QString versionText(int cudaVersion); // 13000 -> "13.0"
};

// Whether the CUDA backend can run here. The engine itself never links the CUDA runtime: it asks
// kiln-cuda-sandbox --probe, once per process (the answer is cached).
class CudaDevices
{
public:
    static CudaAvailability probe(const VerifierOptions &options = VerifierOptions::defaults());
    // Parses the probe's output (exposed for tests).
    static CudaAvailability parse(const QString &output);
};

} // namespace kiln
