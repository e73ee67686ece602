#pragma once

#include "verifier/screen/native/candidatecode.h"
#include "verifier/screen/screenflags.h"

#include <QSet>
#include <QString>

namespace kiln {

// What a scan for calls (`name(`) does not see, on the candidate's tokens: a forbidden
// function named without being called (its address taken, an alias, a table of pointers, a
// decltype, a parenthesised call), its name spelled in a string (dlsym's argument, an asm label,
// a weakref or alias attribute), and code reached through a cast to a function pointer type
// (an integer or an object's address turned into code). The same flag as a call, except that
// the clock functions are timer_tampering, since their address finds the harness's clock.
class IndirectCallRules
{
public:
    explicit IndirectCallRules(const CandidateCode &code);

    void screenTokens(ScreenFlags &flags) const;

private:
    void collectOwnNames();
    void collectListedNames(int keyword, const QString &open);
    void screenNamedFunction(int i, ScreenFlags &flags) const;
    void screenString(int k, const QString &value, ScreenFlags &flags) const;
    void screenNamedCast(int i, ScreenFlags &flags) const;
    void screenParenthesisedCast(int open, ScreenFlags &flags) const;
    // Whether tokens [first, last) spell a function or function pointer type.
    bool isFunctionType(int first, int last) const;
    bool declaresVariable(const QString &name) const;
    // Whether the operand starting at token k is one of the candidate's own functions.
    bool isOwnFunction(int k) const;

    const CandidateCode &m_code;
    QSet<QString> m_ownNames;      // types, enumerators, bindings and aliases it declares
    QSet<QString> m_functionTypes; // aliases of function and function pointer types
};

} // namespace kiln
