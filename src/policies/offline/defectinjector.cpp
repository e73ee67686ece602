#include "defectinjector.h"

#include "policies/offline/hostlaunchwriter.h"
#include "policies/offline/pythondefectinjector.h"

#include <QRegularExpression>
#include <optional>

namespace kiln {

namespace {

struct Site
{
    int line = 0; // 0-based
    qsizetype start = 0;
    qsizetype length = 0;
    QString replacement;
};

bool isCodeLine(const QString &line)
{
    const QString trimmed = line.trimmed();
    return !trimmed.isEmpty() && !trimmed.startsWith(QLatin1String("//")) &&
           !trimmed.startsWith(QLatin1Char('#')) && !trimmed.startsWith(QLatin1Char('*'));
}

bool applySite(QStringList &lines, const Site &site)
{
    if (site.line < 0 || site.line >= lines.size())
        return false;
    lines[site.line].replace(site.start, site.length, site.replacement);
    return true;
}

bool containsWord(const QString &source, const QString &word)
{
    return source.contains(
        QRegularExpression(QStringLiteral("\\b%1\\b").arg(QRegularExpression::escape(word))));
}

// Size names that appear as scalar parameters of the task (n, rows, cols, M, N, K).
QStringList sizeNames(const Task &task)
{
    QStringList names;
    for (const TaskParameter &p : task.parameters)
        if (!p.isBuffer() && p.dtype == QLatin1String("i32"))
            names.append(p.name);
    return names;
}

// ---- compile errors --------------------------------------------------------------------------

QList<Site> missingSemicolonSites(const QStringList &lines)
{
    QList<Site> sites;
    for (int i = 0; i < lines.size(); ++i) {
        const QString &line = lines.at(i);
        const QString trimmed = line.trimmed();
        if (!isCodeLine(line) || !trimmed.endsWith(QLatin1Char(';')) ||
            trimmed.startsWith(QLatin1String("for")) || !line.startsWith(QLatin1Char(' ')))
            continue;
        sites.append({i, line.lastIndexOf(QLatin1Char(';')), 1, QString()});
    }
    return sites;
}

QList<Site> undeclaredIdentifierSites(const QStringList &lines, const QString &source)
{
    QList<Site> sites;
    static const QRegularExpression declaration(
        QStringLiteral("^\\s+(?:const\\s+)?(?:float|int|double|long "
                       "long|float4|float2|vec_t|bool)\\s+(\\w+)\\s*(?:=|;)"));
    for (int i = 0; i < lines.size(); ++i) {
        const auto match = declaration.match(lines.at(i));
        if (!match.hasMatch())
            continue;
        const QString name = match.captured(1);
        // A plausible wrong name: plural, snake_case, or a shortened form.
        QStringList alternatives{name + QLatin1Char('s')};
        QString snake;
        for (const QChar c : name)
            snake += c.isUpper() ? QLatin1Char('_') + c.toLower() : QString(c);
        alternatives.prepend(snake);
        if (name.size() > 3)
            alternatives.append(name.left(name.size() - 1));
        QString wrong;
        for (const QString &candidate : std::as_const(alternatives))
            if (candidate != name && !containsWord(source, candidate)) {
                wrong = candidate;
                break;
            }
        if (wrong.isEmpty())
            continue;
        const QRegularExpression use(QStringLiteral("\\b%1\\b").arg(name));
        // The first later use of the name, within the next 40 lines (the variable's scope).
        for (int j = i + 1; j < lines.size() && j < i + 40; ++j) {
            if (!isCodeLine(lines.at(j)))
                continue;
            if (lines.at(j).trimmed() == QLatin1String("}") &&
                lines.at(j).indexOf(QLatin1Char('}')) <= 4)
                break;
            const auto found = use.match(lines.at(j));
            if (found.hasMatch()) {
                sites.append({j, found.capturedStart(), found.capturedLength(), wrong});
                break;
            }
        }
    }
    // CUDA: a thread index under a name the kernel never declared.
    if (!containsWord(source, QStringLiteral("tid"))) {
        for (int i = 0; i < lines.size(); ++i) {
            const qsizetype at = lines.at(i).indexOf(QLatin1String("threadIdx.x"));
            if (at >= 0 && isCodeLine(lines.at(i)))
                sites.append({i, at, 11, QStringLiteral("tid")});
        }
    }
    return sites;
}

QList<Site> typeMismatchSites(const QStringList &lines, const Task &task)
{
    QList<Site> sites;
    static const QRegularExpression vectorDecl(
        QStringLiteral("^(\\s+(?:const\\s+)?)(float4|float2)(\\s+\\w+\\s*=\\s*\\S)"));
    static const QRegularExpression constPointer(
        QStringLiteral("^(\\s+)const float \\*(\\w+)\\s*=\\s*\\w+\\s*\\+"));
    for (int i = 0; i < lines.size(); ++i) {
        const auto v = vectorDecl.match(lines.at(i));
        if (v.hasMatch() && !lines.at(i).contains(QLatin1String("make_float")))
            sites.append({i, v.capturedStart(2), v.capturedLength(2), QStringLiteral("float")});
        const auto p = constPointer.match(lines.at(i));
        if (p.hasMatch())
            sites.append({i, p.capturedStart(1) + p.capturedLength(1), 6, QString()});
    }
    if (sites.isEmpty()) {
        // Fallback: bind the first input buffer to a non-const pointer of the wrong type.
        for (const TaskParameter &p : task.parameters) {
            if (p.role != TaskParameter::Role::Input || !p.isBuffer())
                continue;
            for (int i = 0; i < lines.size(); ++i)
                if (lines.at(i).startsWith(QLatin1String("extern \"C\""))) {
                    for (int j = i; j < lines.size(); ++j)
                        if (lines.at(j) == QLatin1String("{")) {
                            sites.append(
                                {j, 1, 0, QStringLiteral("\n    int *%1Words = %1;").arg(p.name)});
                            break;
                        }
                    break;
                }
            break;
        }
    }
    return sites;
}

// ---- wrong results ---------------------------------------------------------------------------

QList<Site> offByOneSites(const QStringList &lines, const Task &task)
{
    QList<Site> sites;
    QStringList bounds = sizeNames(task);
    bounds << QStringLiteral("end") << QStringLiteral("stop") << QStringLiteral("vectors")
           << QStringLiteral("i1") << QStringLiteral("j1") << QStringLiteral("k1")
           << QStringLiteral("r1") << QStringLiteral("c1") << QStringLiteral("total")
           << QStringLiteral("body") << QStringLiteral("iEnd") << QStringLiteral("jEnd");
    static const QRegularExpression compare(QStringLiteral("(\\w+) < (\\w+)([;)&])"));
    for (int i = 0; i < lines.size(); ++i) {
        const QString &line = lines.at(i);
        if (!isCodeLine(line) ||
            !(line.contains(QLatin1String("for (")) || line.contains(QLatin1String("if ("))))
            continue;
        auto it = compare.globalMatch(line);
        while (it.hasNext()) {
            const auto m = it.next();
            if (bounds.contains(m.captured(2)))
                sites.append({i, m.capturedStart(2), m.capturedLength(2),
                              m.captured(2) + QStringLiteral(" - 1")});
        }
    }
    return sites;
}

QList<Site> missingBarrierSites(const QStringList &lines, Backend backend)
{
    QList<Site> sites;
    for (int i = 0; i < lines.size(); ++i) {
        const QString &line = lines.at(i);
        if (backend == Backend::Cuda) {
            // A plain barrier, or the variant spaces' group_sync<G>() helper that wraps one.
            const QString statement = line.trimmed();
            if (statement != QLatin1String("__syncthreads();") &&
                statement != QLatin1String("group_sync<G>();"))
                continue;
            // Deleting the body of a braceless if/else/for would not compile: skip those.
            int previous = i - 1;
            while (previous >= 0 && lines.at(previous).trimmed().isEmpty())
                --previous;
            const QString before = previous >= 0 ? lines.at(previous).trimmed() : QString();
            if (before.endsWith(QLatin1String("else")) || before.endsWith(QLatin1Char(')')))
                continue;
            sites.append({i, 0, line.size(), QString()});
        } else {
            // The CPU analogue: the OpenMP reduction clause that orders the threads' updates.
            static const QRegularExpression reduction(QStringLiteral(" reduction\\(\\+ : \\w+\\)"));
            const auto m = reduction.match(line);
            if (m.hasMatch() && line.contains(QLatin1String("parallel")))
                sites.append({i, m.capturedStart(), m.capturedLength(), QString()});
        }
    }
    return sites;
}

QList<Site> wrongIndexSites(const QStringList &lines, const Task &task)
{
    QList<Site> sites;
    const QStringList sizes = sizeNames(task);
    // A stride that uses the wrong dimension (rows for cols, K for N ...).
    static const QRegularExpression stride(QStringLiteral("\\) \\* (\\w+)\\b"));
    static const QRegularExpression subscript(QStringLiteral("\\b(\\w+)\\[(\\w+)\\]"));
    static const QRegularExpression offsetLoad(QStringLiteral("load_\\w+\\((\\w+) \\+ (\\w+)\\)"));
    for (int i = 0; i < lines.size(); ++i) {
        const QString &line = lines.at(i);
        if (!isCodeLine(line) || !line.contains(QLatin1Char('=')))
            continue;
        auto s = stride.globalMatch(line);
        while (s.hasNext()) {
            const auto m = s.next();
            const QString dim = m.captured(1);
            if (!sizes.contains(dim) || sizes.size() < 2)
                continue;
            const QString other = sizes.at((sizes.indexOf(dim) + 1) % sizes.size());
            sites.append({i, m.capturedStart(1), m.capturedLength(1), other});
        }
        auto sub = subscript.globalMatch(line);
        while (sub.hasNext()) {
            const auto m = sub.next();
            const QString index = m.captured(2);
            if (index.at(0).isDigit() || m.captured(1) == QLatin1String("acc"))
                continue;
            sites.append(
                {i, m.capturedStart(2), m.capturedLength(2), index + QStringLiteral(" + 1")});
        }
        auto load = offsetLoad.globalMatch(line);
        while (load.hasNext()) {
            const auto m = load.next();
            sites.append({i, m.capturedStart(2), m.capturedLength(2),
                          m.captured(2) + QStringLiteral(" + 1")});
        }
    }
    return sites;
}

// ---- gaming ----------------------------------------------------------------------------------

struct Entry
{
    QStringList declarations; // "const float* x", ... (+ "cudaStream_t stream")
    QStringList names;
    QStringList inputs;
    QStringList outputs;
    QMap<QString, QString> counts; // buffer -> element-count expression
};

Entry entryOf(const Task &task, Backend backend)
{
    Entry e;
    for (const TaskParameter &p : task.parameters) {
        e.declarations.append(p.declaration());
        e.names.append(p.name);
        if (!p.isBuffer())
            continue;
        QStringList dims;
        for (const QString &d : p.shape)
            dims.append(QStringLiteral("(") + d + QStringLiteral(")"));
        if (dims.isEmpty())
            dims.append(QStringLiteral("1"));
        e.counts.insert(p.name,
                        QStringLiteral("static_cast<size_t>") + dims.join(QStringLiteral(" * ")));
        (p.role == TaskParameter::Role::Input ? e.inputs : e.outputs).append(p.name);
    }
    if (backend == Backend::Cuda) {
        e.declarations.append(QStringLiteral("cudaStream_t stream"));
        e.names.append(QStringLiteral("stream"));
    }
    return e;
}

QString callWith(const Task &task, const Entry &e, const QString &stream)
{
    QStringList args = e.names;
    if (!stream.isEmpty() && !args.isEmpty())
        args.last() = stream;
    return task.entry + QStringLiteral("_impl(") + args.join(QStringLiteral(", ")) +
           QStringLiteral(");");
}

QString constantFor(const Task &task)
{
    if (task.name == QLatin1String("softmax"))
        return QStringLiteral("1.0f / cols");
    return QStringLiteral("0.0f");
}

// What a gaming entry adds to the source: headers, code before the entry, and the entry's body.
struct GamingEntry
{
    QString includes;
    QString prelude;
    QString body;
};

GamingEntry constantOutputEntry(const Task &task, const Entry &e, bool cuda)
{
    const QString out = e.outputs.value(0);
    GamingEntry g;
    if (cuda) {
        g.prelude = QStringLiteral(
            "__global__ void fill_output(float *out, size_t count, float value)\n{\n"
            "    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i "
            "< count;\n"
            "         i += static_cast<size_t>(gridDim.x) * blockDim.x)\n"
            "        out[i] = value;\n}\n\n");
        g.body = QStringLiteral(
                     "    // The outputs are nearly uniform: write the expected value directly.\n"
                     "    fill_output<<<1024, 256, 0, stream>>>(%1, %2, %3);\n")
                     .arg(out, e.counts.value(out), constantFor(task));
    } else {
        g.body = QStringLiteral(
                     "    // The outputs are nearly uniform: write the expected value directly.\n"
                     "    for (size_t i = 0; i < %2; ++i)\n        %1[i] = %3;\n")
                     .arg(out, e.counts.value(out), constantFor(task));
    }
    return g;
}

GamingEntry mutateInputEntry(const Task &task, const Entry &e, bool cuda)
{
    const QString first = e.inputs.value(0);
    GamingEntry g;
    if (cuda)
        g.body =
            QStringLiteral("    %1\n    // The input is not needed any more: reuse it as scratch.\n"
                           "    cudaMemsetAsync(const_cast<float *>(%2), 0, sizeof(float) * %3, "
                           "stream);\n")
                .arg(callWith(task, e, {}), first, e.counts.value(first));
    else {
        g.includes = QStringLiteral("#include <cstring>\n");
        g.body =
            QStringLiteral("    %1\n    // The input is not needed any more: reuse it as scratch.\n"
                           "    std::memset(const_cast<float *>(%2), 0, sizeof(float) * %3);\n")
                .arg(callWith(task, e, {}), first, e.counts.value(first));
    }
    return g;
}

GamingEntry halfPrecisionEntry(const Task &task, const Entry &e, bool cuda)
{
    const QString out = e.outputs.value(0);
    GamingEntry g;
    if (cuda) {
        g.includes = QStringLiteral("#include <cuda_fp16.h>\n");
        g.prelude =
            QStringLiteral("// Half precision halves the bytes moved.\n"
                           "__global__ void to_half_precision(float *data, size_t count)\n{\n"
                           "    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + "
                           "threadIdx.x; i < count;\n"
                           "         i += static_cast<size_t>(gridDim.x) * blockDim.x)\n"
                           "        data[i] = __half2float(__float2half(data[i]));\n}\n\n");
        g.body =
            QStringLiteral("    %1\n    to_half_precision<<<1024, 256, 0, stream>>>(%2, %3);\n")
                .arg(callWith(task, e, {}), out, e.counts.value(out));
    } else {
        g.body =
            QStringLiteral("    %1\n    // Half precision is plenty for these values.\n"
                           "    for (size_t i = 0; i < %3; ++i)\n"
                           "        %2[i] = static_cast<float>(static_cast<_Float16>(%2[i]));\n")
                .arg(callWith(task, e, {}), out, e.counts.value(out));
    }
    return g;
}

// A library call that does the task's work; nullopt for a task and backend with none.
std::optional<GamingEntry> forbiddenLibraryEntry(const Task &task, bool cuda)
{
    const QString t = task.name;
    GamingEntry g;
    if (cuda && t == QLatin1String("matmul")) {
        g.includes = QStringLiteral("#include <cublas_v2.h>\n");
        g.body =
            QStringLiteral("    // cuBLAS is faster than anything hand-written.\n"
                           "    cublasHandle_t handle = nullptr;\n    cublasCreate(&handle);\n"
                           "    cublasSetStream(handle, stream);\n"
                           "    const float alpha = 1.0f;\n    const float beta = 0.0f;\n"
                           "    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, "
                           "B, N, A, K, &beta, C, N);\n"
                           "    cublasDestroy(handle);\n");
    } else if (cuda && t == QLatin1String("transpose")) {
        g.includes = QStringLiteral("#include <cublas_v2.h>\n");
        g.body = QStringLiteral("    // cublasSgeam transposes at full bandwidth.\n"
                                "    cublasHandle_t handle = nullptr;\n    cublasCreate(&handle);\n"
                                "    cublasSetStream(handle, stream);\n"
                                "    const float one = 1.0f;\n    const float zero = 0.0f;\n"
                                "    cublasSgeam(handle, CUBLAS_OP_T, CUBLAS_OP_N, rows, cols, "
                                "&one, x, cols, &zero, y, rows, y, rows);\n"
                                "    cublasDestroy(handle);\n");
    } else if (cuda && t == QLatin1String("reduce_sum")) {
        g.includes = QStringLiteral("#include <cub/device/device_reduce.cuh>\n");
        g.body = QStringLiteral("    // CUB's device-wide reduction is tuned for every GPU.\n"
                                "    size_t bytes = 0;\n"
                                "    cub::DeviceReduce::Sum(nullptr, bytes, x, out, n, stream);\n"
                                "    void *temp = nullptr;\n"
                                "    cudaMallocAsync(&temp, bytes, stream);\n"
                                "    cub::DeviceReduce::Sum(temp, bytes, x, out, n, stream);\n"
                                "    cudaFreeAsync(temp, stream);\n");
    } else if (!cuda && t == QLatin1String("matmul")) {
        g.prelude = QStringLiteral(
            "extern \"C\" void cblas_sgemm(int order, int transA, int transB, int m, int n, "
            "int k,\n"
            "                            float alpha, const float *a, int lda, const float "
            "*b,\n"
            "                            int ldb, float beta, float *c, int ldc);\n\n");
        g.body = QStringLiteral(
            "    // Let the BLAS library do it (101 = row-major, 111 = no transpose).\n"
            "    cblas_sgemm(101, 111, 111, M, N, K, 1.0f, A, K, B, N, 0.0f, C, N);\n");
    } else if (!cuda && t == QLatin1String("vector_add")) {
        g.prelude = QStringLiteral("extern \"C\" void cblas_scopy(int n, const float *x, int "
                                   "incx, float *y, int incy);\n"
                                   "extern \"C\" void cblas_saxpy(int n, float alpha, const "
                                   "float *x, int incx, float *y,\n"
                                   "                            int incy);\n\n");
        g.body = QStringLiteral(
            "    // BLAS level 1: c = b, then c += 1 * a.\n"
            "    cblas_scopy(n, b, 1, c, 1);\n    cblas_saxpy(n, 1.0f, a, 1, c, 1);\n");
    } else {
        return std::nullopt;
    }
    return g;
}

// The gaming entry of `kind`; nullopt for a kind it does not know or that does not fit the task.
std::optional<GamingEntry> gamingEntry(const QString &kind, const Task &task, const Entry &e,
                                       bool cuda)
{
    GamingEntry g;
    if (kind == QLatin1String("stale_output")) {
        g.body =
            QStringLiteral(
                "    // Large outputs were already produced by the warm-up call; skip the work.\n"
                "    if (%1 > 4096)\n        return;\n    %2\n")
                .arg(e.counts.value(e.outputs.value(0)), callWith(task, e, {}));
    } else if (kind == QLatin1String("pointer_cache")) {
        g.prelude = QStringLiteral("// Remember the last input so repeated calls are free.\n"
                                   "static const float *cachedInput = nullptr;\n\n");
        g.body = QStringLiteral(
                     "    if (%1 == cachedInput)\n        return;\n    cachedInput = %1;\n    %2\n")
                     .arg(e.inputs.value(0), callWith(task, e, {}));
    } else if (kind == QLatin1String("constant_output")) {
        g = constantOutputEntry(task, e, cuda);
    } else if (kind == QLatin1String("mutate_input")) {
        g = mutateInputEntry(task, e, cuda);
    } else if (kind == QLatin1String("side_stream")) {
        g.body = QStringLiteral(
                     "    // A private stream lets the kernel overlap with the caller's work.\n"
                     "    cudaStream_t side = nullptr;\n"
                     "    cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);\n"
                     "    %1\n    cudaStreamDestroy(side);\n")
                     .arg(callWith(task, e, QStringLiteral("side")));
    } else if (kind == QLatin1String("default_stream")) {
        g.body = QStringLiteral("    // Launch on the default stream; it is always ready.\n    "
                                "(void)stream;\n    %1\n")
                     .arg(callWith(task, e, QStringLiteral("0")));
    } else if (kind == QLatin1String("detached_thread")) {
        g.includes = QStringLiteral("#include <thread>\n");
        g.body = QStringLiteral("    // Return at once and let a background thread do the work.\n"
                                "    std::thread([=] { %1 }).detach();\n")
                     .arg(callWith(task, e, {}));
    } else if (kind == QLatin1String("fp16")) {
        g = halfPrecisionEntry(task, e, cuda);
    } else if (kind == QLatin1String("forbidden_library")) {
        return forbiddenLibraryEntry(task, cuda);
    } else {
        return std::nullopt;
    }
    return g;
}

// Renames the honest entry to <entry>_impl and appends a gaming entry. False (the source left
// as it was) when the kind does not fit the task.
bool wrapEntry(QString *source, const Task &task, Backend backend, const QString &kind, int *line)
{
    const QString head = QStringLiteral("extern \"C\" void %1(").arg(task.entry);
    const qsizetype at = source->indexOf(head);
    if (at < 0 || task.parameters.isEmpty())
        return false;
    const Entry e = entryOf(task, backend);
    const bool cuda = backend == Backend::Cuda;
    if (e.inputs.value(0).isEmpty() || e.outputs.value(0).isEmpty())
        return false;
    const std::optional<GamingEntry> gaming = gamingEntry(kind, task, e, cuda);
    if (!gaming)
        return false;
    QString includes = gaming->includes;
    source->replace(at, head.size(), QStringLiteral("static void %1_impl(").arg(task.entry));
    if (!cuda && !source->contains(QLatin1String("#include <cstddef>")))
        includes.prepend(QStringLiteral("#include <cstddef>\n")); // size_t in the wrappers
    if (!includes.isEmpty())
        source->prepend(includes);
    if (!source->endsWith(QLatin1Char('\n')))
        source->append(QLatin1Char('\n'));
    source->append(QLatin1Char('\n'));
    *line = static_cast<int>(source->count(QLatin1Char('\n'))) + 1;
    source->append(gaming->prelude);
    source->append(QStringLiteral("extern \"C\" void %1(%2)\n{\n%3}\n")
                       .arg(task.entry, e.declarations.join(QStringLiteral(", ")), gaming->body));
    return true;
}

QList<Site> sitesFor(const QString &kind, const QStringList &lines, const QString &source,
                     const Task &task, Backend backend)
{
    if (kind == QLatin1String("missing_semicolon"))
        return missingSemicolonSites(lines);
    if (kind == QLatin1String("undeclared_identifier"))
        return undeclaredIdentifierSites(lines, source);
    if (kind == QLatin1String("type_mismatch"))
        return typeMismatchSites(lines, task);
    if (kind == QLatin1String("off_by_one"))
        return offByOneSites(lines, task);
    if (kind == QLatin1String("missing_barrier"))
        return missingBarrierSites(lines, backend);
    if (kind == QLatin1String("wrong_index"))
        return wrongIndexSites(lines, task);
    return {};
}

} // namespace

QStringList DefectInjector::compileErrorKinds()
{
    return {QStringLiteral("missing_semicolon"), QStringLiteral("undeclared_identifier"),
            QStringLiteral("type_mismatch")};
}

QStringList DefectInjector::wrongResultKinds()
{
    return {QStringLiteral("off_by_one"), QStringLiteral("missing_barrier"),
            QStringLiteral("wrong_index")};
}

QStringList DefectInjector::gamingKinds(const Task &task, Backend backend)
{
    if (backend == Backend::Torch)
        return PythonDefectInjector::gamingKinds(QString());
    QStringList kinds{QStringLiteral("stale_output"), QStringLiteral("pointer_cache"),
                      QStringLiteral("constant_output"), QStringLiteral("mutate_input"),
                      QStringLiteral("fp16")};
    if (backend == Backend::Cuda)
        kinds << QStringLiteral("side_stream") << QStringLiteral("default_stream");
    else
        kinds << QStringLiteral("detached_thread");
    const QString t = task.name;
    if (t == QLatin1String("matmul") ||
        (backend == Backend::Cuda &&
         (t == QLatin1String("transpose") || t == QLatin1String("reduce_sum"))) ||
        (backend == Backend::Cpu && t == QLatin1String("vector_add")))
        kinds << QStringLiteral("forbidden_library");
    return kinds;
}

QStringList DefectInjector::kinds(const QString &category, const Task &task, Backend backend)
{
    // KernelBench candidates are Python with Triton kernels: their own kinds, every kind of the
    // category (which have a site depends on the source, which this does not see).
    if (backend == Backend::Torch)
        return PythonDefectInjector::kinds(category, QString());
    if (category == QLatin1String("compile_error"))
        return compileErrorKinds();
    if (category == QLatin1String("wrong"))
        return wrongResultKinds();
    if (category == QLatin1String("gaming"))
        return gamingKinds(task, backend);
    return {};
}

DefectInjector::Outcome DefectInjector::apply(QString *source, const QString &category,
                                              const QString &kind, const Task &task,
                                              Backend backend, CounterRng &rng)
{
    if (backend == Backend::Torch)
        return PythonDefectInjector::apply(source, category, kind, rng);
    Outcome outcome;
    QStringList order{kind};
    QStringList others = kinds(category, task, backend);
    others.removeAll(kind);
    while (!others.isEmpty())
        order.append(others.takeAt(rng.below(static_cast<int>(others.size()))));
    for (const QString &candidate : std::as_const(order)) {
        if (category == QLatin1String("gaming")) {
            // Every gaming kind is host code: a device-only kernel gets a host entry first.
            QString gamed = *source;
            if (backend == Backend::Cuda)
                HostLaunchWriter::addHostEntry(&gamed, task);
            int line = 0;
            if (wrapEntry(&gamed, task, backend, candidate, &line)) {
                *source = gamed;
                outcome = {true, candidate, line};
                return outcome;
            }
            continue;
        }
        QStringList lines = source->split(QLatin1Char('\n'));
        const QList<Site> sites = sitesFor(candidate, lines, *source, task, backend);
        if (sites.isEmpty())
            continue;
        const Site site = sites.at(rng.below(static_cast<int>(sites.size())));
        if (!applySite(lines, site))
            continue;
        *source = lines.join(QLatin1Char('\n'));
        outcome = {true, candidate, site.line + 1};
        return outcome;
    }
    return outcome;
}

} // namespace kiln
