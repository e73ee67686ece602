#include "verifier/harness/secretdigest.h"

#include <QCryptographicHash>
#include <cstring>

namespace kiln {

quint64 secretDigest(quint64 secret, QByteArrayView data)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(QByteArrayView(reinterpret_cast<const char *>(&secret), sizeof secret));
    hash.addData(data);
    quint64 value = 0;
    std::memcpy(&value, hash.resultView().constData(), sizeof value);
    return value;
}

} // namespace kiln
