#pragma once

// Small helpers the benchmarks share.

#include <QFile>
#include <QString>
#include <algorithm>
#include <vector>

namespace kiln::bench {

// The upper median (the middle value of an odd count); 0 when empty.
inline double median(std::vector<double> values)
{
    if (values.empty())
        return 0.0;
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

// A text file's contents; empty when it cannot be read.
inline QString readFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll());
}

} // namespace kiln::bench
