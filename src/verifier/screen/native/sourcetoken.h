#pragma once

#include <QString>

namespace kiln {

// One token of a C, C++ or CUDA source, as SourceTokenizer reads it.
struct SourceToken
{
    enum class Kind
    {
        Identifier,
        Number,
        String,
        Punctuation
    };
    Kind kind = Kind::Punctuation;
    QString text;
    int line = 0; // line in the candidate's file
    // A raw string literal R"(...)": its text is its value, with no escapes to decode.
    bool rawString = false;
};

} // namespace kiln
