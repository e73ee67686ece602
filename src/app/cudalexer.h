#pragma once

#include <Qsci/qscilexercpp.h>

namespace kiln {

// C++ highlighting plus CUDA's qualifiers, built-in variables and runtime types, so kernels read
// the same in every editor of the workbench.
class CudaLexer : public QsciLexerCPP
{
    Q_OBJECT

public:
    explicit CudaLexer(QObject *parent = nullptr);

    const char *language() const override { return "CUDA"; }
    const char *keywords(int set) const override;
};

} // namespace kiln
