#include "verifier/torch/torchkernelshare.h"

#include "verifier/screen/native/macroexpander.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <algorithm>

using namespace Qt::StringLiterals;

namespace kiln {

namespace {

// Every identifier of the candidate's file, its C++ strings included.
QSet<QString> wordsOf(const QString &source)
{
    static const QRegularExpression word(QStringLiteral("[A-Za-z_][A-Za-z0-9_]*"));
    QSet<QString> words;
    for (const QRegularExpressionMatch &m : word.globalMatch(source))
        words.insert(m.captured(0));
    return words;
}

// The names the candidate's own kernels may carry: the words of its source, and those of each
// string in it that pastes tokens, with its macros expanded (KERNEL_NAME(op) op##_kernel names
// a kernel no word of the text spells). A kernel whose name is not its own would count as a
// library's, and one pasted to read "gemm" as a library GEMM.
QSet<QString> ownNames(const QString &source)
{
    QSet<QString> words = wordsOf(source);
    static const QRegularExpression literal(QStringLiteral(R"re(("""|''')(.*?)\1)re"),
                                            QRegularExpression::DotMatchesEverythingOption);
    for (const QRegularExpressionMatch &m : literal.globalMatch(source)) {
        QString text = m.captured(2);
        if (!text.contains(u"##"_s))
            continue;
        text.replace(u"\\\\"_s, u"\\"_s); // Python's escaped backslashes (line continuations)
        const MacroExpander::Result expansion = MacroExpander::expand(text, u"inline.cu"_s);
        if (expansion.status == MacroExpander::Status::Expanded)
            words.unite(wordsOf(expansion.text));
    }
    return words;
}

// Library kernels that multiply matrices, convolve or transform for a convolution (cuBLAS,
// cuDNN, CUTLASS, ATen's own convolutions, cuFFT). Applied to library kernels only: the
// candidate's own "my_gemm" is its own work.
bool isGemmOrConvolution(const QString &lower)
{
    static const QStringList parts = {
        u"gemm"_s,       u"gemv"_s,       u"conv"_s,       u"fprop"_s,       u"dgrad"_s,
        u"wgrad"_s,      u"winograd"_s,   u"xmma"_s,       u"nvjet"_s,       u"cutlass"_s,
        u"cudnn"_s,      u"cublas"_s,     u"implicit"_s,   u"tensorop"_s,    u"fft"_s,
        u"nchwtonhwc"_s, u"nhwctonchw"_s, u"dot_kernel"_s, u"splitkreduce"_s};
    return std::any_of(parts.cbegin(), parts.cend(),
                       [&lower](const QString &p) { return lower.contains(p); });
}

QString shortName(const QString &demangled)
{
    const QString name = TorchKernelShare::kernelName(demangled).first;
    return name.size() > 80 ? name.left(77) + u"..."_s : name;
}

QString percent(double part, double whole)
{
    return QString::number(whole > 0.0 ? 100.0 * part / whole : 0.0, 'f', 0) + u" %"_s;
}

} // namespace

TorchKernelShare::TorchKernelShare(const QJsonObject &profile, const QString &candidateSource)
{
    const QSet<QString> words = ownNames(candidateSource);
    for (const QJsonValue &value : profile.value(u"kernels"_s).toArray()) {
        const QJsonObject entry = value.toObject();
        Kernel k;
        k.name = entry.value(u"name"_s).toString();
        k.us = std::max(0.0, entry.value(u"us"_s).toDouble());
        k.count = entry.value(u"n"_s).toInteger();
        const bool kernel = entry.value(u"cat"_s).toString() == u"kernel";
        const bool library = !kernel || isLibraryKernel(k.name);
        k.own = !library && words.contains(kernelName(k.name).second);
        const QString lower = k.name.toLower();
        k.gemmOrConvolution = !k.own && kernel && isGemmOrConvolution(lower);
        k.tf32 = !k.own && kernel && lower.contains(u"tf32"_s);
        m_totalUs += k.us;
        m_ownUs += k.own ? k.us : 0.0;
        m_libraryGemmUs += k.gemmOrConvolution ? k.us : 0.0;
        m_kernels.append(k);
    }
    // Names beyond the worker's list were not classified: they count as the libraries'.
    m_totalUs += std::max(0.0, profile.value(u"rest_us"_s).toDouble());
    std::stable_sort(m_kernels.begin(), m_kernels.end(),
                     [](const Kernel &a, const Kernel &b) { return a.us > b.us; });
}

QStringList TorchKernelShare::tf32Kernels() const
{
    QStringList names;
    for (const Kernel &k : m_kernels) {
        if (k.tf32)
            names.append(shortName(k.name));
    }
    return names;
}

QString TorchKernelShare::summary(int top) const
{
    QStringList parts;
    for (int i = 0; i < std::min(top, int(m_kernels.size())); ++i)
        parts.append(QStringLiteral("%1 %2 (%3)")
                         .arg(shortName(m_kernels[i].name), percent(m_kernels[i].us, m_totalUs),
                              m_kernels[i].own ? u"own"_s : u"library"_s));
    return QStringLiteral("own kernels %1 of %2 us; top: %3")
        .arg(percent(m_ownUs, m_totalUs))
        .arg(m_totalUs, 0, 'f', 1)
        .arg(parts.join(u", "_s));
}

QJsonObject TorchKernelShare::toJson(int top) const
{
    QJsonArray kernels;
    for (int i = 0; i < std::min(top, int(m_kernels.size())); ++i) {
        const Kernel &k = m_kernels[i];
        kernels.append(QJsonObject{{u"name"_s, shortName(k.name)},
                                   {u"us"_s, k.us},
                                   {u"calls"_s, k.count},
                                   {u"own"_s, k.own},
                                   {u"gemm_or_convolution"_s, k.gemmOrConvolution}});
    }
    return {{u"total_us"_s, m_totalUs},
            {u"own_us"_s, m_ownUs},
            {u"library_gemm_us"_s, m_libraryGemmUs},
            {u"own_share"_s, ownShare()},
            {u"kernels"_s, kernels}};
}

QPair<QString, QString> TorchKernelShare::kernelName(const QString &demangled)
{
    QString text = demangled.trimmed();
    if (text.startsWith(u"void "_s))
        text.remove(0, 5);
    text.replace(u"(anonymous namespace)"_s, u"anonymous"_s);
    // The name ends at the first '(' outside template arguments, which are dropped.
    QString name;
    int depth = 0;
    for (const QChar c : std::as_const(text)) {
        if (c == u'<')
            ++depth;
        else if (c == u'>')
            depth = std::max(0, depth - 1);
        else if (depth == 0 && c == u'(')
            break;
        else if (depth == 0)
            name += c;
    }
    name = name.trimmed();
    if (const qsizetype space = name.lastIndexOf(u' '); space >= 0)
        name = name.mid(space + 1); // a return type or keyword before it
    const qsizetype colons = name.lastIndexOf(u"::"_s);
    return {name, colons >= 0 ? name.mid(colons + 2) : name};
}

bool TorchKernelShare::isLibraryKernel(const QString &demangled)
{
    const QString lower = demangled.toLower();
    for (const QString &marker : {u"cutlass"_s, u"cudnn"_s, u"cublas"_s, u"xmma"_s, u"nvjet"_s}) {
        if (lower.contains(marker))
            return true;
    }
    const auto [qualified, base] = kernelName(demangled);
    static const QSet<QString> namespaces = {
        u"at"_s,       u"c10"_s,           u"cute"_s, u"cub"_s,    u"thrust"_s,
        u"flash"_s,    u"pytorch_flash"_s, u"fmha"_s, u"cufft"_s,  u"cusparse"_s,
        u"cusolver"_s, u"curand"_s,        u"nccl"_s, u"triton"_s, u"torch"_s};
    if (qualified.contains(u"::"_s) && namespaces.contains(qualified.section(u"::"_s, 0, 0)))
        return true;
    static const QRegularExpression prefix(QStringLiteral(
        "^(sm\\d+_|ampere_|volta_|turing_|hopper_|maxwell_|kepler_|pascal_|blackwell_|gemv2|"
        "gemmSN|gemmk1|splitKreduce|nchwToNhwc|nhwcToNchw|implicit_convolve|explicit_convolve|"
        "precomputed_convolve|regular_fft|vector_fft|fft2d_|triton_)"));
    return prefix.match(base).hasMatch();
}

} // namespace kiln
