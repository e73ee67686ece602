#include "installlayout.h"

#include <QCoreApplication>
#include <QDir>

namespace kiln {

QString InstallLayout::besideExecutable(const QString &relative)
{
    if (!QCoreApplication::instance())
        return {};
    return QDir::cleanPath(QCoreApplication::applicationDirPath() + QLatin1Char('/') + relative);
}

} // namespace kiln
