#pragma once

#include <QString>
#include <QStringList>

namespace kiln {

// What a KernelBench problem file must hold, read from its Python text without running it (no
// torch is needed to import): `class Model(nn.Module)` with a `forward`, and module-level
// `get_inputs()` and `get_init_inputs()`. Used by the importer, the task loader and the
// candidate check (a candidate must define `class ModelNew`).
class KernelBenchSource
{
public:
    // Everything wrong with a problem file; empty when it has the required parts.
    static QStringList problemDefects(const QString &source);
    // Everything wrong with a candidate module (ModelNew and its forward).
    static QStringList candidateDefects(const QString &source);
    // The first line of the Model class's docstring, or its first comment; empty when none.
    static QString summary(const QString &source);

    // "19_ReLU.py" -> 19 and "ReLU"; false when the name has no leading number.
    static bool parseFileName(const QString &fileName, int *number, QString *title);
    // A task name for level 1 problem 19 "ReLU": kb1_019_relu.
    static QString taskName(int level, int number, const QString &title);
};

} // namespace kiln
