#include "verifier/cpu/bandwidthprobe.h"

#include <QElapsedTimer>
#include <QFile>
#include <QSaveFile>
#include <QThread>
#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

namespace kiln {

double BandwidthProbe::memoryBytesPerSecond(const QString &cacheFile)
{
    static double bandwidth = 0.0;
    static std::once_flag once;
    std::call_once(once, [&cacheFile] {
        QFile cached(cacheFile);
        if (!cacheFile.isEmpty() && cached.open(QIODevice::ReadOnly)) {
            bandwidth = cached.readAll().trimmed().toDouble();
            if (bandwidth > 0.0)
                return;
        }
        const size_t bytes = 16u << 20; // well above L2; small enough to measure in ~10 ms
        std::vector<char> source(bytes, 1), target(bytes, 0);
        double best = 0.0;
        for (int round = 0; round < 3; ++round) {
            QElapsedTimer timer;
            timer.start();
            std::memcpy(target.data(), source.data(), bytes);
            const double seconds = std::max(1e-9, timer.nsecsElapsed() * 1e-9);
            best = std::max(best, 2.0 * bytes / seconds);
            source[round] = target[bytes - 1 - round]; // keep the copies observable
        }
        bandwidth = best;
        QSaveFile save(cacheFile);
        if (!cacheFile.isEmpty() && save.open(QIODevice::WriteOnly)) {
            save.write(QByteArray::number(best, 'g', 6));
            save.commit();
        }
    });
    return bandwidth;
}

double BandwidthProbe::peakFlopsPerSecond()
{
    return std::max(1, QThread::idealThreadCount()) * 5e9 * 64.0;
}

} // namespace kiln
