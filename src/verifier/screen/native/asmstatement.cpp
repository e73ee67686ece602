#include "verifier/screen/native/asmstatement.h"

#include <QRegularExpression>

namespace kiln {

namespace {

// A mnemonic: a word not inside a name, a register (%x), an immediate ($x) or a PTX type (.x),
// in any case.
QRegularExpression mnemonicPattern(const char *alternatives, const char *operand = "")
{
    return QRegularExpression(QStringLiteral("(?<![\\w.%$])(") + QLatin1String(alternatives) +
                                  QLatin1Char(')') + QLatin1String(operand),
                              QRegularExpression::CaseInsensitiveOption);
}

} // namespace

AsmStatement::AsmStatement(const CandidateCode &code, int keyword)
    : m_line(code.token(keyword).line)
{
    int open = keyword + 1;
    while (open < code.size() && code.isIdentifier(open))
        ++open; // volatile, __volatile__, goto, inline
    if (code.text(open) != QLatin1String("("))
        return;
    const int close = code.matchingClose(open);
    const int stop = close < 0 ? code.size() : close;
    // The template ends at the first operand list; a name between its strings is a macro
    // that the preprocessed screen sees expanded.
    for (int k = open + 1; k < stop && code.text(k) != QLatin1String(":"); ++k) {
        const SourceToken &token = code.token(k);
        if (token.kind != SourceToken::Kind::String)
            continue;
        m_pieces.append({m_text.size(), token.line});
        m_text += token.rawString ? token.text : CandidateCode::decodeEscapes(token.text);
    }
}

int AsmStatement::lineAt(qsizetype offset) const
{
    int line = m_line;
    for (const auto &[start, pieceLine] : m_pieces) {
        if (start <= offset)
            line = pieceLine;
    }
    return line;
}

AsmStatement::Finding AsmStatement::firstMatch(const QRegularExpression &pattern, int group) const
{
    const QRegularExpressionMatch match = pattern.match(m_text);
    if (!match.hasMatch())
        return {};
    return {match.captured(group).simplified(), match.capturedStart(0)};
}

AsmStatement::Finding AsmStatement::systemCall() const
{
    static const QRegularExpression pattern = mnemonicPattern(
        "syscall|sysenter|svc|swi|ecall|int\\s*\\$?\\s*(0x)?[0-9][0-9a-f]*h?", "(?![\\w.])");
    return firstMatch(pattern);
}

AsmStatement::Finding AsmStatement::hiddenInstructions() const
{
    static const QRegularExpression pattern(
        QStringLiteral(
            "(?<![\\w.])\\.(byte|2byte|4byte|8byte|short|hword|word|int|long|quad|octa|value|inst|"
            "insn|dc|dcb|ds|ascii|asciz|string|string8|string16|string32|string64|base64|fill|skip|"
            "space|zero|incbin|float|single|double|dword|sleb128|uleb128|macro|rept|irp|irpc|"
            "altmacro)(?![\\w])"),
        QRegularExpression::CaseInsensitiveOption);
    return firstMatch(pattern);
}

AsmStatement::Finding AsmStatement::call() const
{
    static const QRegularExpression pattern =
        mnemonicPattern("call|jmp|callq|jmpq|bl|blr|br|jalr", "\\s+(\\*|[A-Za-z_][\\w.$]*)");
    // Registers and memory operands in Intel or ARM syntax are indirect like AT&T's "*".
    static const QRegularExpression indirect(
        QStringLiteral("^(r\\w+|e[a-d]x|e[sd]i|e[bs]p|[xw]\\d+|qword|dword|ptr)$"),
        QRegularExpression::CaseInsensitiveOption);
    Finding finding = firstMatch(pattern, 2);
    finding.what = finding.what.section(QLatin1Char('@'), 0, 0);
    if (indirect.match(finding.what).hasMatch())
        finding.what = QStringLiteral("*");
    return finding;
}

AsmStatement::Finding AsmStatement::clockRead() const
{
    static const QRegularExpression pattern =
        mnemonicPattern("rdtscp?|rdpmc", "(?![\\w.])|%(globaltimer\\w*|clock(64)?)\\b");
    return firstMatch(pattern);
}

} // namespace kiln
