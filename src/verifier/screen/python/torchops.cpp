#include "verifier/screen/python/torchops.h"

#include <QRegularExpression>
#include <cstddef>

using namespace Qt::StringLiterals;

namespace kiln {

namespace {

using Token = PythonSource::Token;

const QHash<QString, QString> &families()
{
    static const QHash<QString, QString> map = [] {
        QHash<QString, QString> m;
        for (const QString &name :
             {u"mm"_s, u"bmm"_s, u"addmm"_s, u"addbmm"_s, u"baddbmm"_s, u"addmv"_s, u"mv"_s,
              u"dot"_s, u"vdot"_s, u"inner"_s, u"einsum"_s, u"tensordot"_s, u"linear"_s,
              u"bilinear"_s, u"chainmatmul"_s, u"multidot"_s, u"matmul"_s})
            m.insert(name, u"matmul"_s);
        m.insert(u"multiply"_s, u"mul"_s);
        m.insert(u"subtract"_s, u"sub"_s);
        m.insert(u"rsub"_s, u"sub"_s);
        m.insert(u"divide"_s, u"div"_s);
        m.insert(u"truedivide"_s, u"div"_s);
        m.insert(u"clip"_s, u"clamp"_s);
        return m;
    }();
    return map;
}

// Python operators on tensors and the ops they are.
const QHash<QString, QString> &operatorOps()
{
    static const QHash<QString, QString> map = {
        {u"+"_s, u"add"_s},          {u"-"_s, u"sub"_s},       {u"*"_s, u"mul"_s},
        {u"/"_s, u"div"_s},          {u"@"_s, u"matmul"_s},    {u"**"_s, u"pow"_s},
        {u"//"_s, u"floordivide"_s}, {u"%"_s, u"remainder"_s}, {u"+="_s, u"add"_s},
        {u"-="_s, u"sub"_s},         {u"*="_s, u"mul"_s},      {u"/="_s, u"div"_s},
        {u"@="_s, u"matmul"_s},      {u"**="_s, u"pow"_s},     {u"//="_s, u"floordivide"_s},
        {u"%="_s, u"remainder"_s},   {u"<"_s, u"lt"_s},        {u">"_s, u"gt"_s},
        {u"<="_s, u"le"_s},          {u">="_s, u"ge"_s},       {u"=="_s, u"eq"_s},
        {u"!="_s, u"ne"_s}};
    return map;
}

// Names that make an expression a Python number rather than a tensor (x.size(0), len(x)).
const QSet<QString> &scalarMarkers()
{
    static const QSet<QString> names = {
        u"shape"_s,        u"size"_s,   u"numel"_s, u"dim"_s,   u"ndim"_s, u"stride"_s,
        u"len"_s,          u"int"_s,    u"float"_s, u"range"_s, u"math"_s, u"item"_s,
        u"min"_s,          u"max"_s,    u"round"_s, u"bool"_s,  u"str"_s,  u"ndimension"_s,
        u"element_size"_s, u"nbytes"_s, u"True"_s,  u"False"_s, u"None"_s, u"is_contiguous"_s,
        u"is_cuda"_s,      u"device"_s, u"dtype"_s};
    return names;
}

// nn module classes that hold other modules or nothing: not compute themselves.
bool isContainerModule(const QString &name)
{
    static const QSet<QString> names = {
        u"Module"_s,    u"Sequential"_s,    u"ModuleList"_s,    u"ModuleDict"_s,
        u"Parameter"_s, u"ParameterList"_s, u"ParameterDict"_s, u"Buffer"_s,
        u"Identity"_s,  u"Flatten"_s,       u"Unflatten"_s,     u"UninitializedParameter"_s};
    return names.contains(name);
}

const QSet<QString> &keywordOperands()
{
    static const QSet<QString> words = {u"return"_s, u"in"_s,    u"and"_s,   u"or"_s,
                                        u"not"_s,    u"if"_s,    u"else"_s,  u"elif"_s,
                                        u"lambda"_s, u"yield"_s, u"while"_s, u"assert"_s,
                                        u"is"_s,     u"await"_s, u"for"_s};
    return words;
}

// Canonical names of calls that compute nothing: views and reshapes, copies and conversions,
// tensor factories, queries, grad modes, and container or module bookkeeping.
constexpr const char *nonComputeOps[] = {"view",
                                         "viewas",
                                         "reshape",
                                         "reshapeas",
                                         "size",
                                         "contiguous",
                                         "iscontiguous",
                                         "unsqueeze",
                                         "squeeze",
                                         "permute",
                                         "transpose",
                                         "t",
                                         "flatten",
                                         "unflatten",
                                         "expand",
                                         "expandas",
                                         "dim",
                                         "ndimension",
                                         "numel",
                                         "stride",
                                         "storageoffset",
                                         "dataptr",
                                         "to",
                                         "cuda",
                                         "cpu",
                                         "float",
                                         "double",
                                         "type",
                                         "typeas",
                                         "item",
                                         "tolist",
                                         "numpy",
                                         "detach",
                                         "clone",
                                         "requiresgrad",
                                         "newempty",
                                         "newzeros",
                                         "newones",
                                         "newfull",
                                         "newtensor",
                                         "empty",
                                         "emptylike",
                                         "zeros",
                                         "zeroslike",
                                         "ones",
                                         "oneslike",
                                         "full",
                                         "fulllike",
                                         "emptystrided",
                                         "tensor",
                                         "astensor",
                                         "asstrided",
                                         "fromnumpy",
                                         "arange",
                                         "linspace",
                                         "randn",
                                         "rand",
                                         "randint",
                                         "randnlike",
                                         "randlike",
                                         "randperm",
                                         "manualseed",
                                         "seed",
                                         "device",
                                         "dtype",
                                         "float32",
                                         "float64",
                                         "float16",
                                         "bfloat16",
                                         "half",
                                         "int32",
                                         "int64",
                                         "int16",
                                         "int8",
                                         "uint8",
                                         "long",
                                         "int",
                                         "bool",
                                         "short",
                                         "istensor",
                                         "isfloatingpoint",
                                         "nograd",
                                         "inferencemode",
                                         "enablegrad",
                                         "setgradenabled",
                                         "isgradenabled",
                                         "getdefaultdtype",
                                         "finfo",
                                         "iinfo",
                                         "chunk",
                                         "split",
                                         "narrow",
                                         "select",
                                         "unbind",
                                         "movedim",
                                         "moveaxis",
                                         "swapaxes",
                                         "swapdims",
                                         "broadcastto",
                                         "broadcasttensors",
                                         "copy",
                                         "fill",
                                         "zero",
                                         "ravel",
                                         "viewasreal",
                                         "viewascomplex",
                                         "pinmemory",
                                         "elementsize",
                                         "getdevice",
                                         "untypedstorage",
                                         "storage",
                                         "iscuda",
                                         "get",
                                         "forward",
                                         "init",
                                         "format",
                                         "join",
                                         "append",
                                         "items",
                                         "keys",
                                         "values",
                                         "update",
                                         "pop",
                                         "setdefault",
                                         "synchronize",
                                         "record",
                                         "parameters",
                                         "modules",
                                         "registerbuffer",
                                         "registerparameter",
                                         "eval",
                                         "train",
                                         "atleast1d",
                                         "atleast2d",
                                         "atleast3d",
                                         "contiguousformat",
                                         "channelslast",
                                         "layout"};

// Canonical names of the ops that compute: matmul, activations, elementwise math, reductions,
// convolutions, norms, pooling, attention, indexing, losses and linear algebra.
constexpr const char *knownComputeOps[] = {"matmul",
                                           "outer",
                                           "ger",
                                           "softmax",
                                           "logsoftmax",
                                           "softmin",
                                           "relu",
                                           "relu6",
                                           "gelu",
                                           "silu",
                                           "mish",
                                           "sigmoid",
                                           "tanh",
                                           "hardtanh",
                                           "hardsigmoid",
                                           "hardswish",
                                           "leakyrelu",
                                           "elu",
                                           "selu",
                                           "celu",
                                           "softplus",
                                           "softsign",
                                           "logsigmoid",
                                           "threshold",
                                           "prelu",
                                           "glu",
                                           "exp",
                                           "exp2",
                                           "expm1",
                                           "log",
                                           "log2",
                                           "log10",
                                           "log1p",
                                           "sqrt",
                                           "rsqrt",
                                           "square",
                                           "pow",
                                           "abs",
                                           "neg",
                                           "reciprocal",
                                           "sign",
                                           "sin",
                                           "cos",
                                           "tan",
                                           "erf",
                                           "erfc",
                                           "sum",
                                           "mean",
                                           "prod",
                                           "std",
                                           "var",
                                           "norm",
                                           "max",
                                           "min",
                                           "amax",
                                           "amin",
                                           "argmax",
                                           "argmin",
                                           "logsumexp",
                                           "cumsum",
                                           "cumprod",
                                           "cummax",
                                           "cummin",
                                           "add",
                                           "sub",
                                           "mul",
                                           "div",
                                           "addcmul",
                                           "addcdiv",
                                           "lerp",
                                           "clamp",
                                           "clampmin",
                                           "clampmax",
                                           "where",
                                           "maximum",
                                           "minimum",
                                           "fmax",
                                           "fmin",
                                           "floordivide",
                                           "remainder",
                                           "fmod",
                                           "sort",
                                           "topk",
                                           "kthvalue",
                                           "median",
                                           "conv1d",
                                           "conv2d",
                                           "conv3d",
                                           "convtranspose1d",
                                           "convtranspose2d",
                                           "convtranspose3d",
                                           "layernorm",
                                           "groupnorm",
                                           "batchnorm",
                                           "instancenorm",
                                           "rmsnorm",
                                           "normalize",
                                           "dropout",
                                           "maxpool1d",
                                           "maxpool2d",
                                           "maxpool3d",
                                           "avgpool1d",
                                           "avgpool2d",
                                           "avgpool3d",
                                           "adaptiveavgpool1d",
                                           "adaptiveavgpool2d",
                                           "adaptiveavgpool3d",
                                           "adaptivemaxpool2d",
                                           "embedding",
                                           "scaleddotproductattention",
                                           "pad",
                                           "interpolate",
                                           "cat",
                                           "stack",
                                           "gather",
                                           "scatter",
                                           "indexselect",
                                           "maskedfill",
                                           "triu",
                                           "tril",
                                           "diag",
                                           "cross",
                                           "cdist",
                                           "cosinesimilarity",
                                           "crossentropy",
                                           "mseloss",
                                           "nllloss",
                                           "kldiv",
                                           "l1loss",
                                           "smoothl1loss",
                                           "huberloss",
                                           "round",
                                           "floor",
                                           "ceil",
                                           "flip",
                                           "roll",
                                           "repeat",
                                           "tile",
                                           "repeatinterleave",
                                           "diff",
                                           "inverse",
                                           "det",
                                           "svd",
                                           "qr",
                                           "cholesky",
                                           "solve",
                                           "argsort",
                                           "any",
                                           "all"};

// The names of a constant table as a set, for look-ups.
template <std::size_t N> QSet<QString> nameSet(const char *const (&names)[N])
{
    QSet<QString> set;
    for (const char *name : names)
        set.insert(QString::fromLatin1(name));
    return set;
}

} // namespace

QString TorchOps::canonical(const QString &name)
{
    QString n = name;
    if (!n.startsWith(u"__")) {
        while (n.endsWith(u'_'))
            n.chop(1); // in-place variants: relu_ is relu
    }
    n = n.toLower().remove(u'_');
    static const QRegularExpression numbered(QStringLiteral("^(batchnorm|instancenorm)[123]d$"));
    const QRegularExpressionMatch m = numbered.match(n);
    if (m.hasMatch())
        n = m.captured(1);
    return families().value(n, n);
}

bool TorchOps::isNonCompute(const QString &op)
{
    static const QSet<QString> names = nameSet(nonComputeOps);
    return names.contains(op);
}

bool TorchOps::isKnownCompute(const QString &op)
{
    static const QSet<QString> names = nameSet(knownComputeOps);
    return names.contains(op);
}

QString TorchOps::torchFunctionOp(const QString &qualified)
{
    static const QStringList namespaces = {
        u"torch.nn.functional."_s, u"torch.special."_s,  u"torch.linalg."_s,    u"torch.fft."_s,
        u"torch.Tensor."_s,        u"torch.ops.aten."_s, u"torch.ops.prims."_s, u"torch."_s};
    for (const QString &ns : namespaces) {
        if (!qualified.startsWith(ns))
            continue;
        QString rest = qualified.mid(ns.size());
        if (ns.startsWith(u"torch.ops."))
            rest = rest.section(u'.', 0, 0); // aten.mm.default
        if (rest.isEmpty() || rest.contains(u'.') || !rest[0].isLower())
            return {};
        // Settings and queries (set_*, get_*, is_*, use_*) compute nothing.
        static const QRegularExpression setting(
            QStringLiteral("^(set|get|is|use|enable|disable|autocast|compile)"));
        const QString op = canonical(rest);
        return isNonCompute(op) || setting.match(rest).hasMatch() ? QString() : op;
    }
    return {};
}

TorchOps::TorchOps(const PythonSource &source, const PythonNames &names, const QString &className,
                   const QSet<QString> &extraOps, const QStringList &ownKernels)
    : m_source(source), m_names(names), m_extraOps(extraOps),
      m_ownKernels(ownKernels.begin(), ownKernels.end())
{
    m_class = source.findClass(className);
    if (m_class < 0)
        return;
    readModules();
    readScalarNames();
    collectReachable();
    for (int f : std::as_const(m_reachable)) {
        const PythonSource::Function &function = source.functions()[f];
        if (m_ownKernels.contains(function.name))
            continue; // kernel code: its arithmetic is the kernel's, not PyTorch's
        const auto [first, last] = source.bodyTokens(function.header, function.bodyEnd);
        scanRange(first, last);
    }
    scanLambdas();
    scanStoredFunctions();
}

// A torch function kept as a value (self.act = torch.relu, partial(F.softmax, dim=1)) outside
// the code forward reaches is kept to be called later: it counts as used.
void TorchOps::scanStoredFunctions()
{
    for (const PythonNames::Reference &reference : m_names.references()) {
        const int f = m_source.functionAt(reference.first);
        if (reference.called || m_reachable.contains(f) ||
            !m_names.isModuleRooted(reference.qualified))
            continue;
        const bool inClass = m_source.classAt(reference.first) == m_class;
        const QString op = torchFunctionOp(reference.qualified);
        if (!op.isEmpty() && (inClass || f < 0))
            addOp(op, reference.line);
    }
}

// A lambda stored in the class (self.act = lambda x: ...) or in a name forward uses can be
// what forward calls.
void TorchOps::scanLambdas()
{
    QSet<QString> used; // names in the code forward reaches
    for (int f : std::as_const(m_reachable)) {
        const PythonSource::Function &function = m_source.functions()[f];
        const auto [first, last] = m_source.bodyTokens(function.header, function.bodyEnd);
        for (int k = first; k < last; ++k)
            used.insert(m_source.tokens()[k].text);
    }
    const QList<Token> &tokens = m_source.tokens();
    for (const PythonSource::Statement &statement : m_source.statements()) {
        const bool inClass = m_source.classAt(statement.first) == m_class;
        const bool named = tokens[statement.first].kind == Token::Kind::Name &&
                           used.contains(tokens[statement.first].text);
        if (m_reachable.contains(m_source.functionAt(statement.first)) || !(inClass || named))
            continue;
        for (int k = statement.first; k < statement.last; ++k) {
            if (!m_source.is(k, u"lambda"))
                continue;
            int end = k + 1;
            for (int depth = 0; end < statement.last; ++end) {
                const QString &t = tokens[end].text;
                if (tokens[end].kind != Token::Kind::Operator)
                    continue;
                if (t == u"(" || t == u"[" || t == u"{")
                    ++depth;
                else if ((t == u")" || t == u"]" || t == u"}") && depth-- == 0)
                    break;
                else if (t == u"," && depth == 0)
                    break;
            }
            scanRange(k + 1, end);
            k = end;
        }
    }
}

void TorchOps::addOp(const QString &op, int line)
{
    QList<int> &lines = m_ops[op];
    if (!lines.contains(line))
        lines.append(line);
}

// self.<name> = nn.Linear(...) and the like, in any method of the class.
void TorchOps::readModules()
{
    const PythonSource::ClassDef &cls = m_source.classes()[m_class];
    const auto [first, last] = m_source.bodyTokens(cls.header, cls.bodyEnd);
    const QList<PythonSource::Statement> &statements = m_source.statements();
    for (const PythonSource::Statement &statement : statements) {
        if (statement.first < first || statement.last > last || statement.compound)
            continue;
        const int r = m_names.referenceAt(statement.first);
        if (r < 0)
            continue;
        const PythonNames::Reference &target = m_names.references()[r];
        const QStringList parts = target.dotted.split(u'.');
        if (parts.size() != 2 || parts[0] != u"self" || !m_source.is(target.end, u"="))
            continue;
        for (int k = target.end + 1; k < statement.last; ++k) {
            const int inner = m_names.referenceAt(k);
            if (inner < 0)
                continue;
            const QString q = m_names.references()[inner].qualified;
            if (!q.startsWith(u"torch.nn.") || !m_names.references()[inner].called)
                continue;
            const QString cls = q.section(u'.', -1);
            if (!cls.isEmpty() && cls[0].isUpper() && !isContainerModule(cls))
                m_moduleOps[parts[1]].insert(canonical(cls));
        }
    }
}

// Names that hold Python numbers (n = x.numel(), BLOCK = 256): arithmetic on them is no op.
void TorchOps::readScalarNames()
{
    for (int round = 0; round < 2; ++round) {
        for (const PythonSource::Statement &statement : m_source.statements()) {
            const QStringList targets = unpackedTargets(statement);
            if (!targets.isEmpty())
                m_scalarNames.unite(QSet<QString>(targets.cbegin(), targets.cend()));
        }
    }
    const QList<Token> &tokens = m_source.tokens();
    for (int k = 0; k + 3 < tokens.size(); ++k) {
        if (m_source.is(k, u"for") && tokens[k + 1].kind == Token::Kind::Name &&
            m_source.is(k + 2, u"in") && m_source.is(k + 3, u"range"))
            m_scalarNames.insert(tokens[k + 1].text);
    }
}

// The names a statement binds to Python numbers: `n = x.numel()`, `rows, cols = x.shape`, and
// `r, c = x.size(0), x.size(1)` name by name (a tuple may mix a tensor in).
QStringList TorchOps::unpackedTargets(const PythonSource::Statement &statement) const
{
    const QList<Token> &tokens = m_source.tokens();
    QStringList names;
    int k = statement.first;
    while (k < statement.last && tokens[k].kind == Token::Kind::Name) {
        names << tokens[k].text;
        if (!m_source.is(k + 1, u","))
            break;
        k += 2;
    }
    if (names.isEmpty() || !m_source.is(k + 1, u"="))
        return {};
    // The right side's values, split at its top-level commas.
    QList<QPair<int, int>> values;
    int depth = 0;
    int from = k + 2;
    for (int j = from; j < statement.last; ++j) {
        const QString &text = tokens[j].text;
        if (tokens[j].kind != Token::Kind::Operator)
            continue;
        if (text == u"(" || text == u"[" || text == u"{")
            ++depth;
        else if (text == u")" || text == u"]" || text == u"}")
            --depth;
        else if (text == u"," && depth == 0) {
            values.append({from, j});
            from = j + 1;
        }
    }
    values.append({from, statement.last});
    if (names.size() == 1 || values.size() == 1)
        return isScalar({k + 2, statement.last}) ? names : QStringList();
    QStringList scalars;
    for (qsizetype i = 0; i < names.size() && values.size() == names.size(); ++i)
        if (isScalar(values.at(i)))
            scalars << names.at(i);
    return scalars;
}

void TorchOps::collectReachable()
{
    QList<int> work;
    // forward (or __call__) of the class, or of a base class defined in the same file.
    QList<int> classes = {m_class};
    for (int c = 0; c < classes.size(); ++c) {
        const PythonSource::ClassDef &cls = m_source.classes()[classes[c]];
        for (int k = cls.basesFirst; k < cls.basesLast; ++k) {
            const int base = m_source.tokens()[k].kind == Token::Kind::Name
                                 ? m_source.findClass(m_source.tokens()[k].text)
                                 : -1;
            if (base >= 0 && !classes.contains(base))
                classes.append(base);
        }
    }
    const QList<PythonSource::Function> &functions = m_source.functions();
    for (int c : std::as_const(classes)) {
        for (int f = 0; f < functions.size(); ++f) {
            if (functions[f].owner == c &&
                (functions[f].name == u"forward" || functions[f].name == u"__call__")) {
                if (c == m_class && functions[f].name == u"forward")
                    m_forwardLine = functions[f].line;
                reach(f, &work);
            }
        }
    }
    while (!work.isEmpty()) {
        const int f = work.takeLast();
        const auto [first, last] = m_source.bodyTokens(functions[f].header, functions[f].bodyEnd);
        for (int k = first; k < last; ++k) {
            if (m_source.tokens()[k].kind != Token::Kind::Name)
                continue;
            const QString &name = m_source.tokens()[k].text;
            for (int g = 0; g < functions.size(); ++g) {
                const int owner = functions[g].owner;
                const bool byName = functions[g].name == name && name != u"__init__";
                const bool byClass = owner >= 0 && m_source.classes()[owner].name == name;
                if (byName || byClass)
                    reach(g, &work);
            }
        }
    }
}

void TorchOps::reach(int function, QList<int> *work)
{
    if (m_reachable.contains(function))
        return;
    m_reachable.insert(function);
    work->append(function);
}

void TorchOps::scanRange(int first, int last)
{
    for (int k = first; k < last; ++k) {
        const int r = m_names.referenceAt(k);
        if (r >= 0)
            scanReference(m_names.references()[r]);
        if (m_source.tokens()[k].kind == Token::Kind::Operator)
            scanOperator(k);
    }
}

void TorchOps::scanReference(const PythonNames::Reference &reference)
{
    const QString &q = reference.qualified;
    const QStringList parts = q.split(u'.');
    if (parts.first() == u"@ext" || (parts.size() == 1 && m_ownKernels.contains(q))) {
        // A call into the extension, or the extension handed to code that calls it; a
        // launch of one of its own kernels (`kernel[grid](...)`).
        m_extensionCalls.append(reference.line);
        return;
    }
    if (q.startsWith(u"torch.ops.") && parts.size() >= 4 && parts[2] != u"aten" &&
        parts[2] != u"prims") {
        m_extensionCalls.append(reference.line); // an op the extension registered
        return;
    }
    const QString op = torchFunctionOp(q);
    if (!op.isEmpty()) {
        addOp(op, reference.line);
        return;
    }
    if (parts.first() == u"self" && parts.size() >= 2 && m_moduleOps.contains(parts[1])) {
        const bool direct = parts.size() == 2 && !m_source.is(reference.end, u".");
        const bool viaForward =
            parts.size() == 3 && (parts[2] == u"forward" || parts[2] == u"__call__");
        if (direct || viaForward) {
            for (const QString &moduleOp : m_moduleOps.value(parts[1]))
                addOp(moduleOp, reference.line);
        }
        return;
    }
    if (!reference.called || parts.size() < 2 || m_names.isModuleRooted(q))
        return;
    const QString method = canonical(parts.last());
    if (!isNonCompute(method) && (isKnownCompute(method) || m_extraOps.contains(method)))
        addOp(method, reference.line);
}

bool TorchOps::isUnaryPosition(int token) const
{
    if (token == 0)
        return true;
    const Token &before = m_source.tokens()[token - 1];
    if (before.kind == Token::Kind::Name)
        return keywordOperands().contains(before.text);
    if (before.kind == Token::Kind::Operator)
        return before.text != u")" && before.text != u"]" && before.text != u"}";
    return false;
}

void TorchOps::scanOperator(int token)
{
    const QString &op = m_source.tokens()[token].text;
    if (!operatorOps().contains(op))
        return;
    const int line = m_source.tokens()[token].line;
    const bool augmented = op.size() >= 2 && op.endsWith(u'=') && op != u"==" && op != u"!=" &&
                           op != u"<=" && op != u">=";
    if (!augmented && isUnaryPosition(token)) {
        // Unary minus negates; unary * and ** unpack arguments.
        if (op == u"-" && !isScalar(rightOperand(token)))
            addOp(u"neg"_s, line);
        return;
    }
    if (isScalar(leftOperand(token)) && isScalar(rightOperand(token)))
        return;
    addOp(operatorOps().value(op), line);
}

// The primary just left of an operator: a name, literal, call, subscript or bracketed group.
QPair<int, int> TorchOps::leftOperand(int token) const
{
    const QList<Token> &tokens = m_source.tokens();
    int j = token - 1;
    int start = token;
    while (j >= 0) {
        if (m_source.is(j, u")") || m_source.is(j, u"]") || m_source.is(j, u"}")) {
            int depth = 0;
            int open = j;
            for (; open >= 0; --open) {
                const QString &t = tokens[open].text;
                if (tokens[open].kind != Token::Kind::Operator)
                    continue;
                if (t == u")" || t == u"]" || t == u"}")
                    ++depth;
                else if ((t == u"(" || t == u"[" || t == u"{") && --depth == 0)
                    break;
            }
            start = qMax(0, open);
            j = open - 1;
            if (j >= 0 && tokens[j].kind == Token::Kind::Name &&
                !PythonNames::isKeyword(tokens[j].text))
                continue;
            break;
        }
        if (tokens[j].kind == Token::Kind::Operator || PythonNames::isKeyword(tokens[j].text))
            break;
        start = j;
        --j;
        if (!m_source.is(j, u"."))
            break;
        --j; // an attribute: keep walking left over its object
    }
    return {start, token};
}

QPair<int, int> TorchOps::rightOperand(int token) const
{
    const QList<Token> &tokens = m_source.tokens();
    const int size = int(tokens.size());
    int j = token + 1;
    while (m_source.is(j, u"-") || m_source.is(j, u"+") || m_source.is(j, u"~"))
        ++j;
    const int start = j;
    if (m_source.is(j, u"(") || m_source.is(j, u"[") || m_source.is(j, u"{"))
        j = m_source.matchingClose(j, size) + 1;
    else if (j < size && tokens[j].kind != Token::Kind::Operator)
        ++j;
    for (;;) {
        if (m_source.is(j, u".") && j + 1 < size && tokens[j + 1].kind == Token::Kind::Name)
            j += 2;
        else if (m_source.is(j, u"(") || m_source.is(j, u"["))
            j = m_source.matchingClose(j, size) + 1;
        else
            break;
    }
    return {start, qMin(j, size)};
}

bool TorchOps::isScalar(QPair<int, int> range) const
{
    if (range.first >= range.second)
        return true;
    bool allScalar = true;
    for (int k = range.first; k < range.second; ++k) {
        const Token &token = m_source.tokens()[k];
        if (token.kind == Token::Kind::Name) {
            if (scalarMarkers().contains(token.text))
                return true;
            if (!m_scalarNames.contains(token.text) && !PythonNames::isKeyword(token.text))
                allScalar = false;
        }
    }
    return allScalar;
}

} // namespace kiln
