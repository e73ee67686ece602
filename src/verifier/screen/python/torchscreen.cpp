#include "verifier/screen/python/torchscreen.h"

#include "languages/kernellanguages.h"
#include "verifier/screen/python/inlinecudascreen.h"
#include "verifier/screen/python/pythonnames.h"
#include "verifier/screen/python/pythonsource.h"
#include "verifier/screen/python/torchmutationscreen.h"
#include "verifier/screen/python/torchops.h"
#include "verifier/screen/screenflags.h"

#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace kiln {

namespace {

using Token = PythonSource::Token;
using Reference = PythonNames::Reference;

const QString kReference = u"torch_reference_model"_s;
const QString kFallback = u"torch_fallback"_s;
const QString kLibrary = u"torch_library_compute"_s;
const QString kPartial = u"torch_partial_library"_s;
const QString kMonkeyPatch = u"torch_monkey_patch"_s;
const QString kThreads = u"torch_threads"_s;
const QString kLazy = u"torch_lazy_tensor"_s;
const QString kStream = u"torch_stream"_s;
const QString kPrecision = u"precision_downgrade"_s;
const QString kIntrospection = u"torch_introspection"_s;
const QString kState = u"torch_state_between_calls"_s;
const QString kMismatch = u"language_mismatch"_s;

struct Context
{
    const PythonSource &source;
    const PythonNames &names;
    QSet<QString> allowedPrecision; // precision categories the reference itself uses
    ScreenFlags &flags;
    const KernelLanguage &language; // the run's: its own modules compute nothing for it
};

// ---- module tables ----------------------------------------------------------------------

const QSet<QString> &threadModules()
{
    static const QSet<QString> names = {u"threading"_s,  u"_thread"_s,         u"multiprocessing"_s,
                                        u"concurrent"_s, u"asyncio"_s,         u"subprocess"_s,
                                        u"signal"_s,     u"sched"_s,           u"pty"_s,
                                        u"selectors"_s,  u"_posixsubprocess"_s};
    return names;
}

const QSet<QString> &networkModules()
{
    static const QSet<QString> names = {
        u"socket"_s,    u"ssl"_s,        u"urllib"_s,    u"urllib3"_s,
        u"http"_s,      u"requests"_s,   u"httpx"_s,     u"aiohttp"_s,
        u"ftplib"_s,    u"smtplib"_s,    u"telnetlib"_s, u"xmlrpc"_s,
        u"websocket"_s, u"websockets"_s, u"paramiko"_s,  u"socketserver"_s};
    return names;
}

// Libraries that compute the answer (or compile it) instead of the candidate's kernel.
const QSet<QString> &libraryModules()
{
    static const QSet<QString> names = {u"numpy"_s,
                                        u"scipy"_s,
                                        u"cupy"_s,
                                        u"cupyx"_s,
                                        u"jax"_s,
                                        u"jaxlib"_s,
                                        u"tensorflow"_s,
                                        u"triton"_s,
                                        u"numba"_s,
                                        u"pycuda"_s,
                                        u"cuda"_s,
                                        u"taichi"_s,
                                        u"tvm"_s,
                                        u"apex"_s,
                                        u"xformers"_s,
                                        u"flash_attn"_s,
                                        u"transformer_engine"_s,
                                        u"cutlass"_s,
                                        u"cute"_s,
                                        u"tilelang"_s,
                                        u"thunderkittens"_s,
                                        u"liger_kernel"_s,
                                        u"deepspeed"_s,
                                        u"bitsandbytes"_s,
                                        u"torchvision"_s,
                                        u"torchaudio"_s,
                                        u"einops"_s,
                                        u"opt_einsum"_s,
                                        u"mlx"_s,
                                        u"onnxruntime"_s,
                                        u"tensorrt"_s,
                                        u"torch_tensorrt"_s,
                                        u"warp"_s,
                                        u"nvidia"_s,
                                        u"cudnn"_s,
                                        u"cublas"_s,
                                        u"pykeops"_s,
                                        u"sklearn"_s,
                                        u"torch_geometric"_s,
                                        u"keras"_s,
                                        u"cuequivariance"_s,
                                        u"nvmath"_s,
                                        u"cuda_bindings"_s,
                                        u"helion"_s};
    return names;
}

const QSet<QString> &introspectionModules()
{
    static const QSet<QString> names = {u"inspect"_s,
                                        u"gc"_s,
                                        u"ctypes"_s,
                                        u"_ctypes"_s,
                                        u"cffi"_s,
                                        u"importlib"_s,
                                        u"pathlib"_s,
                                        u"shutil"_s,
                                        u"tempfile"_s,
                                        u"pickle"_s,
                                        u"marshal"_s,
                                        u"dill"_s,
                                        u"cloudpickle"_s,
                                        u"builtins"_s,
                                        u"io"_s,
                                        u"mmap"_s,
                                        u"code"_s,
                                        u"codeop"_s,
                                        u"dis"_s,
                                        u"types"_s,
                                        u"runpy"_s,
                                        u"zipimport"_s,
                                        u"pkgutil"_s,
                                        u"site"_s,
                                        u"linecache"_s,
                                        u"atexit"_s,
                                        u"faulthandler"_s,
                                        u"tracemalloc"_s,
                                        u"trace"_s,
                                        u"pdb"_s,
                                        u"bdb"_s,
                                        u"resource"_s,
                                        u"fcntl"_s,
                                        u"glob"_s,
                                        u"posix"_s,
                                        u"ast"_s,
                                        u"symtable"_s,
                                        u"tokenize"_s,
                                        u"copyreg"_s,
                                        u"gzip"_s,
                                        u"zipfile"_s,
                                        u"tarfile"_s,
                                        u"sqlite3"_s,
                                        u"shelve"_s,
                                        u"dbm"_s,
                                        u"select"_s,
                                        u"sysconfig"_s,
                                        u"fileinput"_s,
                                        u"lzma"_s,
                                        u"bz2"_s,
                                        u"pkg_resources"_s,
                                        u"setuptools"_s,
                                        u"distutils"_s,
                                        u"psutil"_s,
                                        u"mmap"_s,
                                        u"_io"_s,
                                        u"_imp"_s,
                                        u"_frozen_importlib"_s,
                                        u"sitecustomize"_s};
    return names;
}

const QSet<QString> &allowedModules()
{
    static const QSet<QString> names = {
        u"torch"_s,     u"math"_s,        u"cmath"_s,      u"typing"_s,      u"typing_extensions"_s,
        u"numbers"_s,   u"dataclasses"_s, u"enum"_s,       u"collections"_s, u"itertools"_s,
        u"functools"_s, u"operator"_s,    u"warnings"_s,   u"os"_s,          u"time"_s,
        u"random"_s,    u"string"_s,      u"re"_s,         u"abc"_s,         u"contextlib"_s,
        u"copy"_s,      u"logging"_s,     u"textwrap"_s,   u"json"_s,        u"statistics"_s,
        u"decimal"_s,   u"fractions"_s,   u"__future__"_s, u"struct"_s,      u"array"_s,
        u"bisect"_s,    u"heapq"_s,       u"pprint"_s,     u"datetime"_s,    u"sys"_s,
        u"keyword"_s,   u"platform"_s,    u"hashlib"_s,    u"uuid"_s,        u"weakref"_s};
    return names;
}

// A module that could be the reference problem or the harness around it.
bool isReferenceLike(const QString &module)
{
    const QString m = module.toLower();
    static const QRegularExpression level(QStringLiteral("^level\\d"));
    return m == u"__main__" || m.contains(u"reference") || m.contains(u"kernelbench") ||
           m.contains(u"problem") || m == u"model" || m == u"models" || m == u"ref" ||
           m.startsWith(u"ref_") || m.startsWith(u"model_") || m.endsWith(u"_model") ||
           m == u"task" || m == u"harness" || m.contains(u"kiln") || m == u"worker" ||
           m == u"evaluate" || m == u"eval" || level.match(m).hasMatch();
}

bool startsWithAny(const QString &qualified, const QStringList &prefixes)
{
    for (const QString &prefix : prefixes) {
        if (qualified == prefix || qualified.startsWith(prefix + u'.'))
            return true;
    }
    return false;
}

// ---- precision --------------------------------------------------------------------------

QString precisionOfName(const QString &name)
{
    static const QHash<QString, QString> categories = {
        {u"float16"_s, u"half"_s},
        {u"half"_s, u"half"_s},
        {u"HalfTensor"_s, u"half"_s},
        {u"chalf"_s, u"half"_s},
        {u"complex32"_s, u"half"_s},
        {u"bfloat16"_s, u"bfloat16"_s},
        {u"BFloat16Tensor"_s, u"bfloat16"_s},
        {u"allow_tf32"_s, u"tf32"_s},
        {u"set_float32_matmul_precision"_s, u"tf32"_s},
        {u"float32_matmul_precision"_s, u"tf32"_s},
        {u"allow_fp16_reduced_precision_reduction"_s, u"tf32"_s},
        {u"allow_bf16_reduced_precision_reduction"_s, u"tf32"_s},
        {u"allow_fp16_accumulation"_s, u"tf32"_s},
        {u"fp32_precision"_s, u"tf32"_s},
        {u"autocast"_s, u"autocast"_s},
        {u"amp"_s, u"autocast"_s},
        {u"GradScaler"_s, u"autocast"_s},
        {u"quantize_per_tensor"_s, u"quant"_s},
        {u"quantize_per_channel"_s, u"quant"_s},
        {u"quantize_dynamic"_s, u"quant"_s},
        {u"quantization"_s, u"quant"_s},
        {u"ao"_s, u"quant"_s},
        {u"qint8"_s, u"quant"_s},
        {u"quint8"_s, u"quant"_s},
        {u"qint32"_s, u"quant"_s},
        {u"quint4x2"_s, u"quant"_s},
        {u"quint2x4"_s, u"quant"_s},
        {u"int8"_s, u"int8"_s},
        {u"int4"_s, u"int8"_s},
        {u"uint4"_s, u"int8"_s},
        {u"char"_s, u"int8"_s},
        {u"_int_mm"_s, u"int8"_s},
        {u"_weight_int8pack_mm"_s, u"int8"_s},
        {u"_weight_int4pack_mm"_s, u"int8"_s},
        {u"_convert_weight_to_int4pack"_s, u"int8"_s},
        {u"_scaled_mm"_s, u"fp8"_s},
        {u"set_flush_denormal"_s, u"denormal"_s}};
    if (name.startsWith(u"float8_"))
        return u"fp8"_s;
    return categories.value(name);
}

// torch.float16, torch.cuda.amp.autocast, x.half(): any part of a torch name, the method of
// anything else (a variable called `half` is no finding).
QString precisionOf(const Reference &reference, const PythonNames &names)
{
    const QStringList parts = reference.qualified.split(u'.');
    if (parts.first() == u"torch" && names.isModuleRooted(reference.qualified)) {
        for (qsizetype k = 1; k < parts.size(); ++k) {
            const QString category = precisionOfName(parts[k]);
            if (!category.isEmpty())
                return category;
        }
        return {};
    }
    if (parts.size() >= 2 && reference.called)
        return precisionOfName(parts.last());
    return {};
}

QString precisionOfString(const QString &value)
{
    if (value.contains(u"HalfTensor") || value == u"float16" || value == u"half" ||
        value == u"fp16")
        return u"half"_s;
    if (value.contains(u"BFloat16Tensor") || value == u"bfloat16" || value == u"bf16")
        return u"bfloat16"_s;
    return {};
}

// Statements made of string literals only: docstrings, which are no code.
QSet<int> docstringTokens(const PythonSource &source)
{
    QSet<int> tokens;
    for (const PythonSource::Statement &statement : source.statements()) {
        bool strings = true;
        for (int k = statement.first; k < statement.last && strings; ++k)
            strings = source.tokens()[k].kind == Token::Kind::String;
        for (int k = statement.first; strings && k < statement.last; ++k)
            tokens.insert(k);
    }
    return tokens;
}

QSet<QString> precisionCategories(const PythonSource &source, const PythonNames &names)
{
    QSet<QString> categories;
    for (const Reference &reference : names.references()) {
        const QString category = precisionOf(reference, names);
        if (!category.isEmpty())
            categories.insert(category);
    }
    for (const Token &token : source.tokens()) {
        if (token.kind == Token::Kind::String && !precisionOfString(token.value).isEmpty())
            categories.insert(precisionOfString(token.value));
    }
    if (categories.contains(u"autocast"_s))
        categories += {u"half"_s, u"bfloat16"_s};
    return categories;
}

// ---- qualified names --------------------------------------------------------------------

void screenOs(Context &c, const QStringList &parts, int line)
{
    if (parts.size() < 2)
        return;
    const QString &name = parts[1];
    static const QSet<QString> harmless = {u"environ"_s, u"getenv"_s, u"cpu_count"_s, u"sep"_s,
                                           u"getpid"_s,  u"name"_s,   u"linesep"_s,   u"pathsep"_s};
    static const QSet<QString> paths = {u"join"_s,     u"dirname"_s,  u"basename"_s, u"abspath"_s,
                                        u"splitext"_s, u"normpath"_s, u"sep"_s};
    static const QRegularExpression process(
        QStringLiteral("^(fork|forkpty|system|popen|exec\\w*|spawn\\w*|posix_spawn\\w*|kill|killpg|"
                       "register_at_fork|wait\\w*|startfile|pidfd_open)$"));
    const QString detail = u"os."_s + name;
    if (harmless.contains(name) || (name == u"path" && paths.contains(parts.value(2))))
        return;
    if (process.match(name).hasMatch())
        c.flags.add(kThreads, line, detail);
    else if (name == u"_exit" || name == u"abort")
        c.flags.add(u"process_exit"_s, line, detail);
    else if (name == u"putenv" || name == u"unsetenv")
        c.flags.add(kMonkeyPatch, line, detail);
    else
        c.flags.add(kIntrospection, line, parts.mid(0, 3).join(u'.'));
}

void screenSys(Context &c, const QStringList &parts, int line)
{
    if (parts.size() < 2)
        return;
    static const QSet<QString> harmless = {u"version"_s,    u"version_info"_s,   u"platform"_s,
                                           u"maxsize"_s,    u"float_info"_s,     u"byteorder"_s,
                                           u"hexversion"_s, u"implementation"_s, u"stderr"_s,
                                           u"stdout"_s,     u"int_info"_s,       u"getsizeof"_s};
    if (harmless.contains(parts[1]))
        return;
    c.flags.add(parts[1] == u"exit" ? u"process_exit"_s : kIntrospection, line,
                u"sys."_s + parts[1]);
}

void screenTorchName(Context &c, const QString &q, int line)
{
    const QStringList parts = q.split(u'.');
    static const QStringList library = {u"torch.compile"_s,
                                        u"torch.jit"_s,
                                        u"torch._dynamo"_s,
                                        u"torch._inductor"_s,
                                        u"torch.compiler"_s,
                                        u"torch.backends"_s,
                                        u"torch.export"_s,
                                        u"torch.fx"_s,
                                        u"torch.onnx"_s,
                                        u"torch.cuda.jiterator"_s,
                                        u"torch._higher_order_ops"_s,
                                        u"torch._prims"_s,
                                        u"torch._refs"_s,
                                        u"torch._decomp"_s,
                                        u"torch.ops.inductor"_s};
    static const QStringList lazy = {u"torch.overrides"_s, u"torch.utils._python_dispatch"_s,
                                     u"torch._subclasses"_s};
    static const QStringList threads = {u"torch.multiprocessing"_s, u"torch.distributed"_s,
                                        u"torch.futures"_s};
    static const QStringList patches = {u"torch.library"_s, u"torch.set_default_dtype"_s,
                                        u"torch.set_default_device"_s,
                                        u"torch.set_default_tensor_type"_s};
    static const QRegularExpression stream(QStringLiteral("stream|graph"),
                                           QRegularExpression::CaseInsensitiveOption);
    const bool isLibrary = startsWithAny(q, library);
    if (isLibrary)
        c.flags.add(kLibrary, line, q);
    if (startsWithAny(q, lazy))
        c.flags.add(kLazy, line, q);
    if (startsWithAny(q, threads))
        c.flags.add(kThreads, line, q);
    if (startsWithAny(q, patches))
        c.flags.add(kMonkeyPatch, line, q);
    if (startsWithAny(q, {u"torch.hub"_s}))
        c.flags.add(u"network"_s, line, q);
    if (q == u"torch.load" || q == u"torch.save")
        c.flags.add(kIntrospection, line, q);
    for (qsizetype k = 1; k < parts.size(); ++k) {
        const QString &part = parts[k];
        if (stream.match(part).hasMatch() && part != u"current_stream" &&
            part != u"default_stream" && !isLibrary)
            c.flags.add(kStream, line, q);
        if (part == u"_make_subclass" || part == u"_make_wrapper_subclass" ||
            part == u"as_subclass" || part.endsWith(u"FunctionMode") ||
            part.endsWith(u"DispatchMode"))
            c.flags.add(kLazy, line, q);
        if (part.startsWith(u"register_module_"))
            c.flags.add(kMonkeyPatch, line, q);
        const bool privatePart = part.startsWith(u'_') && !part.startsWith(u"__");
        if ((privatePart && !isLibrary) || part == u"CUDAExtension" || part == u"CppExtension" ||
            part == u"BuildExtension")
            c.flags.add(kIntrospection, line, q);
    }
}

// A library computes the answer, unless it is the run's kernel language itself (Triton's own
// `triton.ops` still does); another language's module is a candidate for another run.
void screenLanguageModule(Context &c, const QString &q, int line)
{
    const QString root = q.section(u'.', 0, 0);
    const KernelLanguage *owner = KernelLanguages::owningModule(root);
    if (owner == &c.language) {
        if (startsWithAny(q, c.language.libraryParts()))
            c.flags.add(kLibrary, line, q);
        return;
    }
    if (owner)
        c.flags.add(kMismatch, line,
                    u"%1 is %2; this run's language is %3"_s.arg(q, owner->displayName(),
                                                                 c.language.displayName()));
    else if (libraryModules().contains(root))
        c.flags.add(kLibrary, line, q);
}

void screenModuleName(Context &c, const QString &q, int line)
{
    const QStringList parts = q.split(u'.');
    const QString &root = parts.first();
    if (root == u"torch")
        screenTorchName(c, q, line);
    else if (root == u"os")
        screenOs(c, parts, line);
    else if (root == u"sys")
        screenSys(c, parts, line);
    if (threadModules().contains(root))
        c.flags.add(kThreads, line, q);
    if (networkModules().contains(root))
        c.flags.add(u"network"_s, line, q);
    screenLanguageModule(c, q, line);
    if (introspectionModules().contains(root))
        c.flags.add(kIntrospection, line, q);
    if (root == u"weakref" || q == u"functools.lru_cache" || q == u"functools.cache" ||
        q == u"functools.cached_property")
        c.flags.add(kState, line, q);
    if (q == u"contextlib.suppress")
        c.flags.add(kFallback, line, q);
    if (q == u"operator.attrgetter" || q == u"operator.methodcaller")
        c.flags.add(kIntrospection, line, q);
}

void screenImports(Context &c)
{
    for (const PythonNames::Import &import : c.names.imports()) {
        const QString root = import.module.section(u'.', 0, 0);
        if (import.module.startsWith(u'.')) {
            c.flags.add(kIntrospection, import.line, u"relative import"_s);
            continue;
        }
        if (isReferenceLike(root) || import.alias == u"Model") {
            c.flags.add(kReference, import.line, u"import "_s + import.module);
            continue;
        }
        screenModuleName(c, import.module, import.line);
        const bool known = allowedModules().contains(root) ||
                           KernelLanguages::owningModule(root) != nullptr ||
                           threadModules().contains(root) || networkModules().contains(root) ||
                           libraryModules().contains(root) || introspectionModules().contains(root);
        if (!known)
            c.flags.add(kIntrospection, import.line, u"imports "_s + import.module);
        if (import.star && root != u"torch")
            c.flags.add(kIntrospection, import.line, u"from "_s + import.module + u" import *"_s);
    }
}

bool definesName(const PythonSource &source, const QString &name)
{
    for (const PythonSource::Function &function : source.functions()) {
        if (function.name == name)
            return true;
    }
    return source.findClass(name) >= 0;
}

void screenBuiltin(Context &c, const Reference &r, const QString &name)
{
    static const QSet<QString> introspection = {
        u"eval"_s,       u"exec"_s,    u"compile"_s, u"open"_s, u"input"_s,
        u"breakpoint"_s, u"globals"_s, u"locals"_s,  u"vars"_s, u"__import__"_s};
    if (definesName(c.source, name))
        return;
    if (introspection.contains(name))
        c.flags.add(kIntrospection, r.line, name);
    if ((name == u"exit" || name == u"quit") && r.called)
        c.flags.add(u"process_exit"_s, r.line, name);
    if ((name == u"id" || name == u"hash") && r.called)
        c.flags.add(kState, r.line, name + u"()"_s);
    if (name == u"type" && r.called && c.source.splitItems(r.callOpen + 1, r.callClose).size() == 3)
        c.flags.add(kIntrospection, r.line, u"type() building a class"_s);
}

// A call that may ask for reduced precision through `rule.keyword`: a literal of
// `rule.values`, a value the screen cannot read (a name, `**kwargs`), or an argument in the
// keyword's position.
void screenPrecisionKeyword(Context &c, const Reference &r,
                            const KernelLanguage::PrecisionKeyword &rule)
{
    const QList<QPair<int, int>> items = c.source.splitItems(r.callOpen + 1, r.callClose);
    for (qsizetype i = 0; i < items.size(); ++i) {
        const int k = items[i].first;
        QString found;
        if (c.source.is(k, u"*") || c.source.is(k, u"**"))
            found = u"arguments unpacked from a collection"_s;
        else if (c.source.is(k, rule.keyword) && c.source.is(k + 1, u"=") &&
                 k + 2 < items[i].second) {
            const PythonSource::Token &value = c.source.tokens()[k + 2];
            const bool string = value.kind == PythonSource::Token::Kind::String;
            const QString text = string ? value.value : value.text;
            const bool harmless = !string && (text == u"None" || text == u"False");
            if (rule.values.contains(text) || (!string && !harmless))
                found = rule.keyword + u'=' + text;
        } else if (rule.position > 0 && i == rule.position && !c.source.is(k + 1, u"="))
            found = rule.keyword + u" by position"_s;
        if (!found.isEmpty())
            c.flags.add(kPrecision, r.line, u"%1(%2)"_s.arg(r.dotted, found));
    }
}

// The run's language's own reduced dtypes (tl.float16) and the calls that ask for reduced
// precision by a keyword (tl.dot(..., input_precision="tf32")).
void screenLanguagePrecision(Context &c, const Reference &r)
{
    const QStringList parts = r.qualified.split(u'.');
    if (!c.language.ownModules().contains(parts.first()) || !c.names.isModuleRooted(r.qualified))
        return;
    for (const auto &[name, category] : c.language.reducedDtypes()) {
        if (parts.size() >= 2 && parts.last() == name && !c.allowedPrecision.contains(category))
            c.flags.add(kPrecision, r.line, r.dotted);
    }
    if (!r.called)
        return;
    for (const KernelLanguage::PrecisionKeyword &rule : c.language.precisionKeywords()) {
        if (parts.last() != rule.call || c.allowedPrecision.contains(rule.category))
            continue;
        if (rule.keyword.isEmpty()) {
            c.flags.add(kPrecision, r.line, r.dotted);
            continue;
        }
        screenPrecisionKeyword(c, r, rule);
    }
}

void screenReference(Context &c, const Reference &r)
{
    const QString &q = r.qualified;
    const QStringList parts = q.split(u'.');
    if (parts.contains(u"Model"_s))
        c.flags.add(kReference, r.line, r.dotted);
    const QString category = precisionOf(r, c.names);
    if (!category.isEmpty() && !c.allowedPrecision.contains(category))
        c.flags.add(kPrecision, r.line, r.dotted);
    screenLanguagePrecision(c, r);
    static const QSet<QString> streamMethods = {u"record_stream"_s, u"wait_stream"_s,
                                                u"wait_event"_s,    u"replay"_s,
                                                u"capture_begin"_s, u"capture_end"_s};
    static const QSet<QString> addressKeys = {u"data_ptr"_s, u"_version"_s, u"untyped_storage"_s,
                                              u"storage_offset"_s};
    if (parts.size() >= 2 && streamMethods.contains(parts.last()) && r.called)
        c.flags.add(kStream, r.line, parts.last());
    if (parts.size() >= 2 && addressKeys.contains(parts.last()))
        c.flags.add(kState, r.line, parts.last());
    // torch's own file readers and writers reach files (and /proc) like open() does.
    static const QSet<QString> fileMethods = {u"from_file"_s, u"load"_s, u"save"_s};
    if (parts.size() >= 2 && parts.first() == u"torch" && fileMethods.contains(parts.last()))
        c.flags.add(kIntrospection, r.line, q);
    if (q.startsWith(u'?') || q.startsWith(u"@ext"))
        return;
    if (q.startsWith(u"builtins."))
        screenBuiltin(c, r, q.mid(9));
    else if (parts.size() == 1 && q == r.dotted)
        screenBuiltin(c, r, q);
    if (c.names.isModuleRooted(q))
        screenModuleName(c, q, r.line);
}

// A module passed around as a value (`f(torch)`, `[time]`) can be patched where the screen
// does not follow it; assigning it to a name is followed.
void screenModuleValues(Context &c)
{
    QList<int> statementOf(c.source.tokens().size(), -1);
    for (int s = 0; s < c.source.statements().size(); ++s) {
        const PythonSource::Statement &statement = c.source.statements()[s];
        for (int k = statement.first; k < statement.last; ++k)
            statementOf[k] = s;
    }
    for (const Reference &r : c.names.references()) {
        if (r.dotted.contains(u'.') || !c.names.isModuleName(r.dotted) || r.called ||
            c.source.is(r.end, u"."))
            continue;
        const int s = statementOf.value(r.first, -1);
        const bool alias =
            s >= 0 && c.source.is(r.first - 1, u"=") && r.end == c.source.statements()[s].last;
        if (!alias && !c.source.is(r.first - 1, u"del"))
            c.flags.add(kIntrospection, r.line, u"passes the module "_s + r.dotted + u" around"_s);
    }
}

// ---- tokens -----------------------------------------------------------------------------

void screenDunder(Context &c, int k)
{
    const QString &name = c.source.tokens()[k].text;
    static const QSet<QString> harmless = {
        u"__init__"_s,   u"__name__"_s,     u"__file__"_s,   u"__doc__"_s,         u"__all__"_s,
        u"__future__"_s, u"__new__"_s,      u"__call__"_s,   u"__repr__"_s,        u"__str__"_s,
        u"__len__"_s,    u"__iter__"_s,     u"__next__"_s,   u"__enter__"_s,       u"__version__"_s,
        u"__slots__"_s,  u"__qualname__"_s, u"__module__"_s, u"__annotations__"_s, u"__eq__"_s,
        u"__hash__"_s,   u"__post_init__"_s};
    static const QSet<QString> lazy = {u"__torch_function__"_s,
                                       u"__torch_dispatch__"_s,
                                       u"__getattr__"_s,
                                       u"__getattribute__"_s,
                                       u"__get__"_s,
                                       u"__set__"_s,
                                       u"__del__"_s,
                                       u"__array__"_s,
                                       u"__array_interface__"_s,
                                       u"__cuda_array_interface__"_s,
                                       u"__dlpack__"_s,
                                       u"__dlpack_device__"_s,
                                       u"__array_function__"_s,
                                       u"__array_ufunc__"_s,
                                       u"__float__"_s,
                                       u"__index__"_s,
                                       u"__int__"_s};
    const int line = c.source.tokens()[k].line;
    if (harmless.contains(name))
        return;
    if (lazy.contains(name))
        c.flags.add(kLazy, line, name);
    else if ((name == u"__exit__" || name == u"__aexit__") && c.source.is(k - 1, u"def"))
        c.flags.add(kFallback, line, u"defines "_s + name + u" (it can swallow errors)"_s);
    else
        c.flags.add(kIntrospection, line, name);
}

void screenTokens(Context &c)
{
    static const QRegularExpression dunder(QStringLiteral("^__\\w+__$"));
    const QSet<int> docstrings = docstringTokens(c.source);
    const QList<Token> &tokens = c.source.tokens();
    for (int k = 0; k < tokens.size(); ++k) {
        const Token &token = tokens[k];
        if (token.kind == Token::Kind::String) {
            if (docstrings.contains(k))
                continue;
            if (token.value.contains(u"/proc"))
                c.flags.add(kIntrospection, token.line, u"/proc"_s);
            const QString category = precisionOfString(token.value);
            if (!category.isEmpty() && !c.allowedPrecision.contains(category))
                c.flags.add(kPrecision, token.line, token.value.left(40));
            if (token.opaque)
                c.flags.add(kIntrospection, token.line, u"\\N{...} escape"_s);
            continue;
        }
        if (token.kind != Token::Kind::Name)
            continue;
        const QString &name = token.text;
        if (name == u"try")
            c.flags.add(kFallback, token.line, u"try/except"_s);
        else if (name == u"global" || name == u"nonlocal")
            c.flags.add(kState, token.line, name);
        else if (name == u"yield")
            c.flags.add(kLazy, token.line, u"yield (a generator computes later)"_s);
        else if (name == u"async" || name == u"await")
            c.flags.add(kThreads, token.line, name);
        else if (name == u"Model")
            c.flags.add(kReference, token.line, u"Model"_s);
        else if (dunder.match(name).hasMatch())
            screenDunder(c, k);
        if (name == u"non_blocking" && c.source.is(k + 1, u"=") && !c.source.is(k + 2, u"False"))
            c.flags.add(kStream, token.line, u"non_blocking copy"_s);
    }
    for (int line : c.names.computedAttributeLines())
        c.flags.add(kIntrospection, line, u"getattr/setattr with a computed name"_s);
    for (int line : c.source.unusualEncodingLines())
        c.flags.add(kIntrospection, line, u"source encoding"_s);
}

bool isTensorBase(const QString &q)
{
    static const QSet<QString> bases = {u"torch.Tensor"_s,
                                        u"torch._C.TensorBase"_s,
                                        u"torch._C._TensorBase"_s,
                                        u"torch.nn.Parameter"_s,
                                        u"torch.nn.parameter.Parameter"_s,
                                        u"torch.nn.Buffer"_s,
                                        u"torch.nn.parameter.Buffer"_s,
                                        u"torch.nn.parameter.UninitializedParameter"_s,
                                        u"torch.nn.parameter.UninitializedBuffer"_s};
    return bases.contains(q) || (q.startsWith(u"torch.") && q.endsWith(u"Tensor"));
}

void screenClasses(Context &c)
{
    QSet<QString> lazyClasses;
    for (const PythonSource::ClassDef &cls : c.source.classes()) {
        for (int k = cls.basesFirst; k < cls.basesLast; ++k) {
            const Token &token = c.source.tokens()[k];
            if (token.kind == Token::Kind::Name && token.text == u"metaclass" &&
                c.source.is(k + 1, u"="))
                c.flags.add(kIntrospection, token.line, u"metaclass"_s);
            const int r = c.names.referenceAt(k);
            if (r < 0)
                continue;
            const QString q = c.names.references()[r].qualified;
            if (isTensorBase(q) || lazyClasses.contains(q) || q.endsWith(u"FunctionMode") ||
                q.endsWith(u"DispatchMode")) {
                c.flags.add(kLazy, token.line, cls.name + u" subclasses "_s + q);
                lazyClasses.insert(cls.name);
            }
        }
    }
}

// ---- the computation itself ---------------------------------------------------------------

QString opList(const QStringList &ops)
{
    return ops.mid(0, 6).join(u", "_s);
}

void screenLibraryCompute(Context &c, const TorchOps &reference, const TorchOps &candidate)
{
    if (!candidate.found())
        return; // no ModelNew: the candidate check reports it
    const QStringList referenceOps = reference.ops().keys();
    const QMap<QString, QList<int>> &ops = candidate.ops();
    QStringList covered;
    QList<int> coveredLines;
    for (const QString &op : referenceOps) {
        if (ops.contains(op)) {
            covered.append(op);
            coveredLines += ops.value(op);
        }
    }
    if (candidate.extensionCalls().isEmpty())
        c.flags.add(
            kLibrary, candidate.forwardLine(),
            c.language.build() == KernelLanguage::Build::AtImport
                ? u"forward calls no function of a load_inline extension"_s
                : u"forward launches none of its own %1 kernels"_s.arg(c.language.displayName()));
    if (!referenceOps.isEmpty() && covered.size() == referenceOps.size()) {
        c.flags.add(kLibrary, coveredLines,
                    u"forward still computes "_s + opList(covered) + u" with PyTorch"_s);
        return;
    }
    QList<int> lines;
    for (const QList<int> &opLines : ops)
        lines += opLines;
    if (!ops.isEmpty())
        c.flags.add(kPartial, lines, u"PyTorch computes "_s + opList(ops.keys()));
}

// The CUDA screen's view of the task: every library that computes the answer is forbidden,
// and fp32 unless the reference itself computes in reduced precision.
Task cudaTaskFor(const Task &task, bool reducedPrecision)
{
    Task cuda = task;
    cuda.forbiddenLibraries = {u"cublas"_s,     u"cublaslt"_s, u"cudnn"_s,
                               u"cub_device"_s, u"thrust"_s,   u"cutlass"_s};
    cuda.parameters.clear();
    if (reducedPrecision) {
        TaskParameter parameter;
        parameter.name = u"x"_s;
        parameter.dtype = u"f16"_s;
        cuda.parameters.append(parameter);
    }
    return cuda;
}

} // namespace

QList<CheatFlag> TorchScreen::screen(const Task &task, const QString &candidateSource)
{
    return screen(task, candidateSource, KernelLanguages::defaultLanguage());
}

QList<CheatFlag> TorchScreen::screen(const Task &task, const QString &candidateSource,
                                     const KernelLanguage &language)
{
    const PythonSource source(candidateSource);
    const PythonNames names(source);
    const PythonSource referenceSource(task.referenceSource.value(Backend::Torch));
    const PythonNames referenceNames(referenceSource);
    ScreenFlags flags;
    Context c{source, names, precisionCategories(referenceSource, referenceNames), flags, language};
    for (const KernelLanguage *other : KernelLanguages::all()) {
        if (other != &language && other->writtenIn(candidateSource))
            flags.add(kMismatch, 1,
                      u"it writes %1; this run's language is %2"_s.arg(other->displayName(),
                                                                       language.displayName()));
    }

    screenImports(c);
    for (const Reference &reference : names.references())
        screenReference(c, reference);
    screenModuleValues(c);
    screenTokens(c);
    screenClasses(c);
    TorchMutationScreen(source, names, &flags).run();

    const TorchOps referenceOps(referenceSource, referenceNames, u"Model"_s);
    QSet<QString> referenceOpNames;
    for (auto it = referenceOps.ops().cbegin(); it != referenceOps.ops().cend(); ++it)
        referenceOpNames.insert(it.key());
    const bool reduced =
        c.allowedPrecision.contains(u"half"_s) || c.allowedPrecision.contains(u"bfloat16"_s) ||
        c.allowedPrecision.contains(u"fp8"_s) || c.allowedPrecision.contains(u"int8"_s) ||
        c.allowedPrecision.contains(u"quant"_s);
    const Task cudaTask = cudaTaskFor(task, reduced);
    InlineCudaScreen inlineScreen(source, names, cudaTask, reduced, referenceOpNames, &flags);
    inlineScreen.run();

    // A JIT language's kernels are decorated functions the screen can tell apart; inline CUDA's
    // live in strings, and a Python function of the same name is Python.
    const QStringList ownKernels = language.build() == KernelLanguage::Build::OnFirstCall
                                       ? language.kernelNames(candidateSource)
                                       : QStringList();
    TorchOps candidateOps(source, names, u"ModelNew"_s, referenceOpNames, ownKernels);
    for (auto it = inlineScreen.ops().cbegin(); it != inlineScreen.ops().cend(); ++it) {
        for (int line : it.value())
            candidateOps.addOp(it.key(), line);
    }
    screenLibraryCompute(c, referenceOps, candidateOps);
    return flags.flags();
}

} // namespace kiln
