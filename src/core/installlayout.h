#pragma once

#include <QString>

namespace kiln {

// Where an installed Kiln's parts are, relative to the running executable's folder, so that an
// installed tree still works after it is moved. The relative paths come from CMake
// (KILN_LIBEXEC_FROM_BIN, KILN_PLUGIN_FROM_BIN, KILN_TASK_FROM_BIN in the top-level file).
class InstallLayout
{
public:
    // The executable's folder joined with `relative`, cleaned; empty without a
    // QCoreApplication (the folder is unknown then).
    static QString besideExecutable(const QString &relative);
};

} // namespace kiln
