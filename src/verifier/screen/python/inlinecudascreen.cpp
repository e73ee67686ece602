#include "verifier/screen/python/inlinecudascreen.h"

#include "verifier/screen/native/elfsymbols.h"
#include "verifier/screen/native/macroexpander.h"
#include "verifier/screen/native/staticscreen.h"
#include "verifier/screen/python/torchops.h"

#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace kiln {

namespace {

using Token = PythonSource::Token;
using MappedText = InlineCudaScreen::MappedText;

constexpr int kMaxAlternatives = 16;

void append(MappedText &to, const MappedText &piece)
{
    if (to.lines.isEmpty()) {
        to = piece;
        return;
    }
    // The piece's first line continues the last one; a last line still empty starts there.
    if (to.text.isEmpty() || to.text.endsWith(u'\n'))
        to.lines.last() = piece.lines.value(0, to.lines.last());
    to.text += piece.text;
    to.lines += piece.lines.mid(1);
}

// Every combination of one alternative from each part, joined by `separator`.
QList<MappedText> product(const QList<QList<MappedText>> &parts, const QString &separator, int line)
{
    QList<MappedText> result = {MappedText{QString(), {line}}};
    for (int p = 0; p < parts.size(); ++p) {
        QList<MappedText> next;
        for (const MappedText &prefix : std::as_const(result)) {
            for (const MappedText &piece : parts[p]) {
                MappedText joined = prefix;
                if (p > 0 && !separator.isEmpty())
                    append(joined, MappedText{separator, {joined.lines.last(), line}});
                append(joined, piece);
                if (next.size() < kMaxAlternatives)
                    next.append(joined);
            }
        }
        result = next;
    }
    return result;
}

// Python strings: the piece of a string token's value between two offsets, with its lines.
MappedText slice(const Token &token, qsizetype from, qsizetype to)
{
    const int firstLine = int(QStringView(token.value).left(from).count(u'\n'));
    const QString text = token.value.mid(from, to - from);
    return {text, token.valueLines.mid(firstLine, int(text.count(u'\n')) + 1)};
}

bool isNumeric(const QString &text)
{
    static const QRegularExpression number(
        QStringLiteral("^[-+]?(0[xX][0-9a-fA-F]+|[0-9_]*\\.?[0-9_]+([eE][-+]?[0-9]+)?)[fFuUlL]*$"));
    return text.isEmpty() || text == u"true" || text == u"false" || number.match(text).hasMatch();
}

// Backslash-newline splices joined (an identifier can be split across lines in C++) and
// universal character names decoded (`cubl\u0061sSgemm` is cublasSgemm); lines keep their
// numbers, a joined line is followed by an empty one.
QString normalisedCpp(const QString &text)
{
    QStringList lines = text.split(u'\n');
    for (int k = 0; k < lines.size(); ++k) {
        int joined = 0;
        while (lines[k].endsWith(u'\\') && k + 1 + joined < lines.size()) {
            lines[k].chop(1);
            lines[k] += lines[k + 1 + joined];
            lines[k + 1 + joined].clear();
            ++joined;
        }
        k += joined;
    }
    QString result = lines.join(u'\n');
    static const QRegularExpression ucn(
        QStringLiteral("\\\\u([0-9A-Fa-f]{4})|\\\\U([0-9A-Fa-f]{8})"));
    QString decoded;
    qsizetype last = 0;
    for (const QRegularExpressionMatch &m : ucn.globalMatch(result)) {
        decoded += QStringView(result).mid(last, m.capturedStart() - last);
        const char32_t code =
            (m.captured(1).isEmpty() ? m.captured(2) : m.captured(1)).toUInt(nullptr, 16);
        decoded += QString::fromUcs4(&code, 1);
        last = m.capturedEnd();
    }
    decoded += QStringView(result).mid(last);
    return decoded;
}

const QSet<QString> &libraryHandles()
{
    static const QSet<QString> names = {u"getCurrentCUDABlasHandle"_s,
                                        u"getCurrentCUDABlasLtHandle"_s,
                                        u"getCurrentCUDASolverDnHandle"_s,
                                        u"getCurrentCUDASparseHandle"_s,
                                        u"getCudnnHandle"_s,
                                        u"getCurrentCUDASolverHandle"_s};
    return names;
}

const QSet<QString> &streamNames()
{
    static const QSet<QString> names = {u"getStreamFromPool"_s,
                                        u"getStreamFromExternal"_s,
                                        u"setCurrentCUDAStream"_s,
                                        u"CUDAStreamGuard"_s,
                                        u"OptionalCUDAStreamGuard"_s,
                                        u"CUDAMultiStreamGuard"_s,
                                        u"CUDAGraph"_s,
                                        u"cudaStreamBeginCapture"_s,
                                        u"cudaStreamBeginCaptureToGraph"_s,
                                        u"cudaStreamEndCapture"_s,
                                        u"cudaGraphInstantiate"_s,
                                        u"cudaGraphLaunch"_s,
                                        u"cudaGraphCreate"_s,
                                        u"cuStreamBeginCapture"_s,
                                        u"cuGraphLaunch"_s,
                                        u"cuGraphInstantiate"_s};
    return names;
}

const QSet<QString> &precisionSetters()
{
    static const QSet<QString> names = {
        u"setAllowTF32CuBLAS"_s,          u"setAllowTF32CuDNN"_s,
        u"setFloat32MatmulPrecision"_s,   u"setAllowFP16ReductionCuBLAS"_s,
        u"setAllowBF16ReductionCuBLAS"_s, u"setAllowFP16AccumulationCuBLAS"_s,
        u"setFloat32Precision"_s,         u"setFlushDenormal"_s};
    return names;
}

bool isReducedPrecisionCpp(const QString &name, const QString &before, const QString &after)
{
    // Half, bfloat16 and fp8; int8 and the quantized types (kChar is int8).
    static const QSet<QString> constants = {
        u"kHalf"_s,  u"kFloat16"_s, u"kBFloat16"_s, u"kComplexHalf"_s, u"kChar"_s,    u"kInt8"_s,
        u"kQInt8"_s, u"kQUInt8"_s,  u"kQInt32"_s,   u"kQUInt4x2"_s,    u"kQUInt2x4"_s};
    static const QSet<QString> scalarTypes = {u"Half"_s,  u"BFloat16"_s, u"Char"_s,
                                              u"QInt8"_s, u"QUInt8"_s,   u"QInt32"_s};
    // ATen's int8 and fp8 matrix products.
    static const QSet<QString> lowPrecisionOps = {
        u"_int_mm"_s, u"_scaled_mm"_s, u"_weight_int8pack_mm"_s, u"_weight_int4pack_mm"_s};
    const bool member = before == u"." || before == u"->";
    return constants.contains(name) || name.startsWith(u"kFloat8") || name.startsWith(u"Float8_") ||
           (scalarTypes.contains(name) && before == u"::") ||
           (lowPrecisionOps.contains(name) && after == u"(") ||
           ((name == u"half" || name == u"bfloat16") && member && after == u"(");
}

// Python C-API and pybind11 calls back into the interpreter (imports, exec, attributes).
bool reachesPython(const QString &name, const QString &before, const QString &scope)
{
    static const QRegularExpression capi(QStringLiteral("^_?Py([A-Z][A-Za-z]*_|_)\\w"));
    static const QSet<QString> pybind = {u"exec"_s,
                                         u"eval"_s,
                                         u"eval_file"_s,
                                         u"globals"_s,
                                         u"import"_s,
                                         u"getattr"_s,
                                         u"setattr"_s,
                                         u"delattr"_s,
                                         u"module_"_s,
                                         u"module"_s,
                                         u"handle"_s,
                                         u"object"_s,
                                         u"reinterpret_borrow"_s,
                                         u"reinterpret_steal"_s,
                                         u"scoped_interpreter"_s,
                                         u"gil_scoped_acquire"_s};
    if (capi.match(name).hasMatch() || name == u"PyObject" || name == u"PYBIND11_EMBEDDED_MODULE")
        return true;
    return before == u"::" && (scope == u"py" || scope == u"pybind11") && pybind.contains(name);
}

const QStringList &riskyFlagPrefixes()
{
    // Flags that read or link files the screen cannot see, or change what is compiled.
    static const QStringList prefixes = {u"-I"_s,
                                         u"-isystem"_s,
                                         u"-include"_s,
                                         u"-imacros"_s,
                                         u"-iquote"_s,
                                         u"-idirafter"_s,
                                         u"-iprefix"_s,
                                         u"-isysroot"_s,
                                         u"--sysroot"_s,
                                         u"-L"_s,
                                         u"-Wl,"_s,
                                         u"-Xlinker"_s,
                                         u"--linker-options"_s,
                                         u"-Wp,"_s,
                                         u"-Xnvlink"_s,
                                         u"--nvlink-options"_s,
                                         u"-B"_s,
                                         u"-specs"_s,
                                         u"--specs"_s,
                                         u"-fplugin"_s,
                                         u"-ccbin"_s,
                                         u"--compiler-bindir"_s,
                                         u"@"_s,
                                         u"--options-file"_s,
                                         u"-optf"_s,
                                         u"--pre-include"_s,
                                         u"--include-path"_s,
                                         u"--library-path"_s,
                                         u"-o"_s,
                                         u"--output-file"_s,
                                         u"-load"_s,
                                         u"-Xclang"_s};
    return prefixes;
}

} // namespace

InlineCudaScreen::InlineCudaScreen(const PythonSource &source, const PythonNames &names,
                                   const Task &cudaTask, bool reducedPrecisionAllowed,
                                   const QSet<QString> &extraOps, ScreenFlags *flags)
    : m_source(source), m_names(names), m_cudaTask(cudaTask),
      m_reducedPrecisionAllowed(reducedPrecisionAllowed), m_extraOps(extraOps), m_flags(flags)
{
}

void InlineCudaScreen::run()
{
    for (const PythonNames::Reference &reference : m_names.references()) {
        const QString &q = reference.qualified;
        if (q.endsWith(u"cpp_extension.load_inline") || q.endsWith(u"cpp_extension.load"))
            screenCall(reference);
    }
}

void InlineCudaScreen::screenCall(const PythonNames::Reference &call)
{
    const QString intro = u"torch_introspection"_s;
    if (call.qualified.endsWith(u"cpp_extension.load")) {
        m_flags->add(intro, call.line, u"cpp_extension.load() compiles files from disk"_s);
        return;
    }
    if (!call.called) {
        m_flags->add(intro, call.line, u"load_inline used other than by a direct call"_s);
        return;
    }
    int position = 0;
    for (const auto &[first, last] : m_source.splitItems(call.callOpen + 1, call.callClose)) {
        const int line = m_source.tokens()[first].line;
        if (m_source.is(first, u"*") || m_source.is(first, u"**")) {
            m_flags->add(intro, line, u"load_inline arguments unpacked with * or **"_s);
            continue;
        }
        if (m_source.tokens()[first].kind == Token::Kind::Name && m_source.is(first + 1, u"="))
            screenArgument(m_source.tokens()[first].text, -1, first + 2, last, line);
        else
            screenArgument(QString(), position++, first, last, line);
    }
}

void InlineCudaScreen::screenArgument(const QString &keyword, int position, int first, int last,
                                      int line)
{
    static const QSet<QString> sourceKeywords = {u"cpp_sources"_s, u"cuda_sources"_s,
                                                 u"sycl_sources"_s};
    static const QSet<QString> flagKeywords = {u"extra_cflags"_s, u"extra_cuda_cflags"_s,
                                               u"extra_sycl_cflags"_s, u"extra_ldflags"_s};
    const QString intro = u"torch_introspection"_s;
    const bool constant =
        last == first + 1 &&
        (m_source.tokens()[first].kind == Token::Kind::Number || m_source.is(first, u"None") ||
         m_source.is(first, u"True") || m_source.is(first, u"False"));
    if (keyword == u"extra_include_paths") {
        if (!constant && !(m_source.is(first, u"[") && last == first + 2))
            m_flags->add(intro, line, u"extra_include_paths reads headers from disk"_s);
        return;
    }
    // Positional arguments after cuda_sources differ between torch versions: screen them
    // both as sources and as flags.
    const bool source = sourceKeywords.contains(keyword) || (keyword.isEmpty() && position >= 1);
    const bool flags = flagKeywords.contains(keyword) || (keyword.isEmpty() && position >= 3);
    if (constant || (!source && !flags))
        return;
    if (source) {
        QList<MappedText> texts;
        if (!evaluate(first, last, &texts, 0)) {
            m_flags->add(intro, line, u"C++ source built at run time"_s);
        } else {
            for (const MappedText &text : std::as_const(texts))
                screenSource(text, line);
        }
    }
    if (flags) {
        QStringList values;
        if (!evaluateFlags(first, last, &values, 0))
            m_flags->add(intro, line, u"compiler flags built at run time"_s);
        else
            screenCompilerFlags(values, line);
    }
}

bool InlineCudaScreen::evaluate(int first, int last, QList<MappedText> *out, int depth) const
{
    if (depth > 8 || first >= last)
        return false;
    const QList<Token> &tokens = m_source.tokens();
    const int line = tokens[first].line;
    const bool bracketed = (m_source.is(first, u"(") || m_source.is(first, u"[")) &&
                           m_source.matchingClose(first, last) == last - 1;
    if (bracketed) {
        const QList<QPair<int, int>> items = m_source.splitItems(first + 1, last - 1);
        if (m_source.is(first, u"(") && items.size() == 1 && !m_source.is(last - 2, u","))
            return evaluate(first + 1, last - 1, out, depth + 1);
        // A list of sources: load_inline joins them with newlines.
        QList<QList<MappedText>> parts;
        for (const auto &[itemFirst, itemLast] : items) {
            QList<MappedText> alternatives;
            if (!evaluate(itemFirst, itemLast, &alternatives, depth + 1))
                return false;
            parts.append(alternatives);
        }
        *out += product(parts, u"\n"_s, line);
        return true;
    }
    QList<QPair<int, int>> terms;
    int start = first;
    int level = 0;
    for (int k = first; k < last; ++k) {
        const QString &t = tokens[k].text;
        if (tokens[k].kind != Token::Kind::Operator)
            continue;
        if (t == u"(" || t == u"[" || t == u"{")
            ++level;
        else if (t == u")" || t == u"]" || t == u"}")
            --level;
        else if (level == 0 && t == u"+") {
            terms.append({start, k});
            start = k + 1;
        } else if (level == 0) {
            return false; // any other operator or call computes the text
        }
    }
    terms.append({start, last});
    if (terms.size() > 1) {
        QList<QList<MappedText>> parts;
        for (const auto &[termFirst, termLast] : terms) {
            QList<MappedText> alternatives;
            if (!evaluate(termFirst, termLast, &alternatives, depth + 1))
                return false;
            parts.append(alternatives);
        }
        *out += product(parts, QString(), line);
        return true;
    }
    if (tokens[first].kind == Token::Kind::String)
        return evaluateStrings(first, last, out);
    if (last == first + 1 && tokens[first].kind == Token::Kind::Number) {
        out->append({tokens[first].text, {line}});
        return true;
    }
    if (last == first + 1 && tokens[first].kind == Token::Kind::Name)
        return evaluateName(tokens[first].text, out, depth + 1);
    return false;
}

// Adjacent string literals, f-strings with plain fields substituted.
bool InlineCudaScreen::evaluateStrings(int first, int last, QList<MappedText> *out) const
{
    MappedText text;
    for (int k = first; k < last; ++k) {
        const Token &token = m_source.tokens()[k];
        if (token.inField)
            continue; // the field's own tokens follow its string
        if (token.kind != Token::Kind::String || token.opaque)
            return false;
        qsizetype from = 0;
        for (int f = 0; f < token.fields.size(); ++f) {
            append(text, slice(token, from, token.fieldOffsets[f]));
            const QString value = fieldValue(token.fields[f]);
            if (value.isNull())
                return false;
            append(text,
                   MappedText{value, {text.lines.isEmpty() ? token.line : text.lines.last()}});
            from = token.fieldOffsets[f];
        }
        append(text, slice(token, from, token.value.size()));
    }
    out->append(text);
    return true;
}

// An f-string field that names a known value: `{BLOCK}`, `{BLOCK * 2}`, `{HEADER}`. Numbers
// stand for themselves (their digits cannot hide a name); anything else makes the text unknown.
QString InlineCudaScreen::fieldValue(const QString &field) const
{
    static const QRegularExpression plain(
        QStringLiteral("^\\s*([A-Za-z_]\\w*)\\s*(![rsa])?\\s*(:[^{}]*)?$"));
    static const QRegularExpression arithmetic(QStringLiteral("^[\\w\\s+\\-*/%().]*(:[^{}]*)?$"));
    const QRegularExpressionMatch m = plain.match(field);
    if (m.hasMatch()) {
        QList<MappedText> values;
        if (!evaluateName(m.captured(1), &values, 1) || values.isEmpty())
            return {};
        const QString text = values.first().text.isNull() ? u""_s : values.first().text;
        if (values.size() > 1)
            return isNumeric(text) ? u"0"_s : QString();
        return text;
    }
    if (!arithmetic.match(field).hasMatch())
        return {};
    static const QRegularExpression word(QStringLiteral("[A-Za-z_]\\w*"));
    for (const QRegularExpressionMatch &w : word.globalMatch(field.section(u':', 0, 0))) {
        QList<MappedText> values;
        if (!evaluateName(w.captured(0), &values, 1) || values.isEmpty() ||
            !isNumeric(values.first().text))
            return {};
    }
    return u"0"_s;
}

// Every value a name is given by `name = ...`; unknown when any of them is not text.
bool InlineCudaScreen::evaluateName(const QString &name, QList<MappedText> *out, int depth) const
{
    bool bound = false;
    for (const PythonSource::Statement &statement : m_source.statements()) {
        const int first = statement.first;
        if (m_source.tokens()[first].kind != Token::Kind::Name ||
            m_source.tokens()[first].text != name || statement.compound)
            continue;
        int value = first + 1;
        if (m_source.is(value, u":")) { // annotated: name: str = "..."
            while (value < statement.last && !m_source.is(value, u"="))
                ++value;
        }
        const QString op = m_source.tokens().value(value).text;
        if (op.size() == 2 && op.endsWith(u'=') && op != u"==")
            return false; // name += ...: built up at run time
        if (op != u"=")
            continue;
        if (!evaluate(value + 1, statement.last, out, depth + 1))
            return false;
        bound = true;
    }
    return bound;
}

bool InlineCudaScreen::evaluateFlags(int first, int last, QStringList *flags, int depth) const
{
    if (depth > 8 || first >= last)
        return false;
    if (last == first + 1 && m_source.is(first, u"None"))
        return true;
    if ((m_source.is(first, u"[") || m_source.is(first, u"(")) &&
        m_source.matchingClose(first, last) == last - 1) {
        for (const auto &[itemFirst, itemLast] : m_source.splitItems(first + 1, last - 1)) {
            QList<MappedText> values;
            if (!evaluate(itemFirst, itemLast, &values, depth + 1))
                return false;
            for (const MappedText &value : std::as_const(values))
                flags->append(value.text);
        }
        return true;
    }
    if (last == first + 1 && m_source.tokens()[first].kind == Token::Kind::Name) {
        bool bound = false;
        for (const PythonSource::Statement &statement : m_source.statements()) {
            if (statement.compound ||
                !m_source.is(statement.first, m_source.tokens()[first].text) ||
                !m_source.is(statement.first + 1, u"="))
                continue;
            if (!evaluateFlags(statement.first + 2, statement.last, flags, depth + 1))
                return false;
            bound = true;
        }
        return bound;
    }
    QList<MappedText> values;
    if (!evaluate(first, last, &values, depth + 1))
        return false;
    for (const MappedText &value : std::as_const(values))
        flags->append(value.text);
    return true;
}

void InlineCudaScreen::screenCompilerFlags(const QStringList &values, int line)
{
    QStringList words;
    for (const QString &value : values)
        words += value.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
    const QString intro = u"torch_introspection"_s;
    for (int k = 0; k < words.size(); ++k) {
        QString word = words[k];
        const QString next = words.value(k + 1);
        if (word == u"-Xcompiler" || word == u"--compiler-options") {
            // Options for the host compiler are checked like the rest.
            words += next.split(u',', Qt::SkipEmptyParts);
            ++k;
            continue;
        }
        if (word.startsWith(u"-Xcompiler=") || word.startsWith(u"--compiler-options=")) {
            words += word.section(u'=', 1).split(u',', Qt::SkipEmptyParts);
            continue;
        }
        const bool library =
            (word.startsWith(u"-l") && word != u"-lineinfo" && !word.startsWith(u"-lto")) ||
            word == u"--library" || word.startsWith(u"--library=");
        if (library) {
            QString name = word.startsWith(u"--library=") ? word.section(u'=', 1) : word.mid(2);
            if (name.isEmpty() || word == u"--library")
                name = words.value(++k);
            static const QSet<QString> harmless = {
                u"cuda"_s,      u"cudart"_s,     u"c10"_s,          u"c10_cuda"_s, u"torch"_s,
                u"torch_cpu"_s, u"torch_cuda"_s, u"torch_python"_s, u"m"_s,        u"stdc++"_s};
            const QString lower = name.toLower();
            if (lower.startsWith(u"cublas") || lower.startsWith(u"cudnn"))
                m_flags->add(u"forbidden_library"_s, line, u"-l"_s + name);
            else if (!harmless.contains(name))
                m_flags->add(intro, line, u"links library "_s + name);
            continue;
        }
        if (word.startsWith(u"-D") || word == u"--define-macro") {
            const QString definition =
                word.size() > 2 && word.startsWith(u"-D") ? word.mid(2) : words.value(++k);
            if (!isNumeric(definition.section(u'=', 1)))
                m_flags->add(intro, line, u"-D names code from the command line: "_s + definition);
            continue;
        }
        for (const QString &prefix : riskyFlagPrefixes()) {
            if (word.startsWith(prefix) && !(prefix == u"-o" && word.size() > 2 && word != u"-o"))
                m_flags->add(intro, line, u"compiler flag "_s + word);
        }
    }
}

void InlineCudaScreen::screenSource(const MappedText &source, int line)
{
    // One line first, so text that begins with a line marker is never read as preprocessor
    // output (which would let it hide code "in another file").
    const QString text = u"\n"_s + normalisedCpp(source.text);
    QList<int> lines = {line};
    lines += source.lines;
    // Expanded once: the CUDA screen and the extension's own rules both read the expansion.
    const MacroExpander::Result expansion = MacroExpander::expand(text, u"inline.cu"_s);
    const QList<CheatFlag> found = StaticScreen::screen(m_cudaTask, Backend::Cuda, text,
                                                        u"inline.cu"_s, ElfSymbols{}, expansion);
    for (CheatFlag flag : found) {
        QList<int> mapped;
        for (int l : std::as_const(flag.lines)) {
            const int pythonLine = lines.value(l - 1, line);
            if (!mapped.contains(pythonLine))
                mapped.append(pythonLine);
        }
        flag.lines = mapped;
        // Torch runs on its current stream, the default one unless the harness sets another:
        // a launch without a stream is a risk worth advice, not a proven side stream.
        const bool defaultStream = flag.id == u"legacy_default_stream";
        m_flags->merge(flag, defaultStream ? u"torch_default_stream"_s : QString());
    }
    // The extension's own rules read the text as written and with its macros expanded; token
    // pasting hides names only where the expansion could not be made.
    const bool expanded = expansion.status == MacroExpander::Status::Expanded;
    screenTorchTokens(text, lines, !expanded);
    if (expanded)
        screenTorchTokens(expansion.text, lines, false);
    screenIncludes(text, lines);
}

void InlineCudaScreen::screenIncludes(const QString &text, const QList<int> &lines)
{
    static const QRegularExpression include(
        QStringLiteral("^\\s*(#|%:)\\s*(include|include_next|import|embed)\\b\\s*(\\S?)([^>\"]*)"));
    const QStringList physical = text.split(u'\n');
    for (int k = 0; k < physical.size(); ++k) {
        const QRegularExpressionMatch m = include.match(physical[k]);
        if (!m.hasMatch())
            continue;
        const QString path = m.captured(4).trimmed();
        const bool quoted = m.captured(3) == u"\"";
        const bool angled = m.captured(3) == u"<";
        if (m.captured(2) == u"embed" || quoted || !angled || path.startsWith(u'/') ||
            path.contains(u".."))
            m_flags->add(u"torch_introspection"_s, lines.value(k, lines.first()),
                         u"#include "_s + m.captured(3) + path);
    }
}

void InlineCudaScreen::screenTorchTokens(const QString &text, const QList<int> &lines,
                                         bool pastingHides)
{
    using CppToken = StaticScreen::Token;
    const QList<CppToken> tokens = StaticScreen::candidateTokens(text, u"inline.cu"_s);
    auto at = [&](int k) { return k >= 0 && k < tokens.size() ? tokens[k].text : QString(); };
    const QString intro = u"torch_introspection"_s;
    for (int i = 0; i < tokens.size(); ++i) {
        const CppToken &token = tokens[i];
        const int line = lines.value(token.line - 1, lines.first());
        if (pastingHides && token.kind == CppToken::Kind::Punctuation && token.text == u"#" &&
            at(i + 1) == u"#")
            m_flags->add(intro, line, u"token pasting (##) hides names from the screen"_s);
        if (token.kind == CppToken::Kind::String && token.text.contains(u".incbin"))
            m_flags->add(intro, line, u".incbin"_s);
        if (token.kind != CppToken::Kind::Identifier)
            continue;
        screenTorchIdentifier(token.text, at(i - 1), at(i - 2), at(i + 1), line);
        if (token.text == u"static" || token.text == u"__device__" ||
            token.text == u"__managed__" || token.text == u"__constant__") {
            // A variable (not a function, not a constant) that outlives the call.
            int end = i + 1;
            bool constant = false;
            while (end < tokens.size() && end < i + 64 && at(end) != u";" && at(end) != u"=" &&
                   at(end) != u"{" && at(end) != u"(") {
                constant = constant || at(end) == u"const" || at(end) == u"constexpr";
                ++end;
            }
            if (at(end) != u"(" && !constant && end < tokens.size())
                m_flags->add(u"torch_state_between_calls"_s, line, token.text + u" variable"_s);
        }
    }
}

void InlineCudaScreen::screenTorchIdentifier(const QString &name, const QString &before,
                                             const QString &scope, const QString &after, int line)
{
    const bool member = before == u"." || before == u"->";
    const bool qualified = before == u"::";
    if (qualified && (scope == u"torch" || scope == u"at") && after == u"(" && !name.isEmpty() &&
        name[0].isLower()) {
        const QString op = TorchOps::canonical(name);
        if (!TorchOps::isNonCompute(op) &&
            (TorchOps::isKnownCompute(op) || m_extraOps.contains(op)))
            m_ops[op].append(line);
    }
    if (member && after == u"(") {
        const QString op = TorchOps::canonical(name);
        if (!TorchOps::isNonCompute(op) &&
            (TorchOps::isKnownCompute(op) || m_extraOps.contains(op)))
            m_ops[op].append(line);
        if (name == u"attr")
            m_flags->add(u"torch_introspection"_s, line, u"pybind11 .attr()"_s);
    }
    if (libraryHandles().contains(name) || (qualified && scope == u"at" && name == u"native") ||
        (qualified && scope == u"cuda" && name == u"blas"))
        m_flags->add(u"torch_library_compute"_s, line, name);
    if (reachesPython(name, before, scope))
        m_flags->add(u"torch_introspection"_s, line, name);
    if (precisionSetters().contains(name))
        m_flags->add(m_reducedPrecisionAllowed ? u"torch_monkey_patch"_s : u"precision_downgrade"_s,
                     line, name);
    if (name == u"globalContext")
        m_flags->add(u"torch_monkey_patch"_s, line, u"at::globalContext()"_s);
    if (!m_reducedPrecisionAllowed && isReducedPrecisionCpp(name, before, after))
        m_flags->add(u"precision_downgrade"_s, line, name);
    if (streamNames().contains(name))
        m_flags->add(u"torch_stream"_s, line, name);
    if (name == u"getDefaultCUDAStream")
        m_flags->add(u"torch_default_stream"_s, line, name);
    const bool stdThread = qualified && scope == u"std" &&
                           (name == u"thread" || name == u"jthread" || name == u"async");
    if (stdThread || name == u"pthread_create")
        m_flags->add(u"torch_threads"_s, line, name);
}

} // namespace kiln
