#pragma once

#include <QString>

namespace kiln {

// Deterministic stand-in for a BPE tokenizer, used for the offline policy's simulated token
// counts. Rules (docs/offline-policy.md): a run of letters costs one token per started 5 letters;
// a run of digits one per started 3 digits; every other visible character one token; a newline
// one token; other whitespace is free (BPE merges it into the next word). On English prose and C
// code this lands within about 20 % of common tokenizers, which is all the budget plots need.
class TokenEstimator
{
public:
    static qint64 count(const QString &text);
};

} // namespace kiln
