#pragma once

#include "verifier/screen/native/candidatecode.h"

#include <QList>
#include <QPair>
#include <QRegularExpression>
#include <QString>

namespace kiln {

// An inline assembly statement, or the asm label of a declaration, in the candidate's tokens:
// its template (the strings before the first operand list, joined, escapes decoded) and what
// that template does that a reader of the source would not see. Mnemonics are matched in any
// case, as the assembler reads them.
class AsmStatement
{
public:
    // `keyword`: the index of asm, __asm__ or __asm.
    AsmStatement(const CandidateCode &code, int keyword);

    const QString &text() const { return m_text; }
    // The line of the keyword, or of the template string holding `offset`.
    int line() const { return m_line; }
    int lineAt(qsizetype offset) const;

    // What a match found: the instruction or directive as written, and where.
    struct Finding
    {
        QString what;
        qsizetype offset = -1;
        bool found() const { return offset >= 0; }
    };

    // A system call or software interrupt: syscall, sysenter, int $0x80, int3, svc, swi, ecall.
    Finding systemCall() const;
    // Instructions the source does not spell: data directives in code (.byte 0x0f, 0x05;
    // .word, .long, .inst, .insn, .incbin ...) and assembler macros and loops (.macro, .irp,
    // .rept) that can paste a mnemonic together.
    Finding hiddenInstructions() const;
    // A call or jump: through a register or memory ("*", an indirect call) or to a named
    // function, whose name is `what` (without @PLT).
    Finding call() const;
    // A read of a clock: rdtsc, rdtscp, rdpmc, PTX %globaltimer and %clock.
    Finding clockRead() const;

private:
    Finding firstMatch(const QRegularExpression &pattern, int group = 0) const;

    QString m_text;
    int m_line = 0;
    QList<QPair<qsizetype, int>> m_pieces; // offset in m_text -> line of its string
};

} // namespace kiln
