#pragma once

#include <QByteArrayView>
#include <QtGlobal>

namespace kiln {

// A number derived from the run's secret and some data: the first eight bytes of
// SHA-256(secret || data). The same on every machine, and no number of them gives back the
// secret (splitmix64, used once for the PyTorch seeds, could be inverted from two), so inputs
// derived from other data stay unpredictable to a candidate that sees some of them.
quint64 secretDigest(quint64 secret, QByteArrayView data);

} // namespace kiln
