#include "verifier/screen/flagcatalog.h"

#include "verifier/screen/native/symbolnames.h"

namespace kiln {

namespace {

// One row of the catalogue as plain text: a constant table needs no code to build it. A row
// without a tier is "hard" when it blocks and "telemetry" when it does not; a non-blocking flag
// that a game or an honest bug can explain names "suspicious".
struct FlagRow
{
    const char *id;
    const char *message;
    bool blocking;
    const char *stage;
    const char *tier = nullptr;
};

constexpr const char *suspicious = "suspicious";

constexpr FlagRow flagTable[] = {
    {"dynamic_loading",
     "Loads code or looks up symbols at run time (dlopen/dlsym), or calls through "
     "a pointer made from an address, so nobody can tell what actually runs.",
     true, "screen"},
    {"memory_protection",
     "Changes memory protection (mprotect), the usual first step to patch the "
     "harness or its timer.",
     true, "screen"},
    {"process_inspection",
     "Uses ptrace, reads another process's memory or locates the harness's own "
     "code (getauxval, return addresses, backtraces); a kernel only computes.",
     true, "screen"},
    {"proc_access",
     "Reads /proc (for example /proc/self/maps) to inspect the harness "
     "process.",
     true, "screen"},
    {"timer_tampering",
     "Defines a clock function (clock_gettime, gettimeofday, std::chrono ...) or "
     "takes its address, which could replace or find the clock the harness "
     "measures with.",
     true, "screen"},
    {"symbol_interposition",
     "Defines a function that belongs to the C/C++ runtime; a kernel defines "
     "only its entry and its own helpers.",
     true, "screen"},
    {"process_exit",
     "Ends the process (exit, _exit, abort, std::terminate) instead of "
     "returning to its caller.",
     true, "screen"},
    {"signals",
     "Raises, sends or handles signals (raise, kill, signal, sigaction, alarm); "
     "a kernel has no use for them.",
     true, "screen"},
    {"process_spawn", "Starts other processes (fork, exec, system, popen).", true, "screen"},
    {"file_access",
     "Opens, creates or deletes files; a kernel computes from its arguments "
     "only.",
     true, "screen"},
    {"network", "Uses network sockets.", true, "screen"},
    {"raw_system_calls",
     "Makes raw system calls or uses file descriptors directly (syscall, "
     "read, write, dup2, close, asm \"syscall\", instructions written as data "
     "with .byte); a kernel has no use for them.",
     true, "screen"},
    {"threads_detached",
     "Detaches a thread: work still running after the call returns is not "
     "timed. Join every thread before returning.",
     true, "screen"},
    {"forbidden_library",
     "Calls a library that computes the answer (BLAS, MKL, Eigen ...), which "
     "this task forbids.",
     true, "screen"},
    {"precision_downgrade",
     "Computes below the task's precision (half, bfloat16, fp8, int8 or TF32: "
     "their types, intrinsics and tensor-core paths, quantisation) in an fp32 "
     "task; the results are less accurate than the task asks for.",
     true, "screen"},
    {"load_time_code",
     "Runs code when the library is loaded (__attribute__((constructor))); a "
     "kernel does its work inside the call.",
     true, "screen"},
    {"inline_asm",
     "Uses inline assembly: allowed, but it can bypass other checks, so it is "
     "worth a review.",
     false, "screen", suspicious},
    {"hidden_state",
     "Keeps state where no variable shows it (thread-specific data, the "
     "environment, shared memory); a kernel computes each call from its "
     "arguments.",
     true, "screen"},
    {"memory_mapping",

     "Maps memory itself (mmap, brk): allowed for scratch, but memory at a fixed "
     "address can carry results from one call to the next, so it is worth a "
     "review.",
     false, "screen", suspicious},
    {"static_state",
     "Keeps mutable static or global variables; state that survives between "
     "calls must not change results.",
     false, "screen", suspicious},
    {"stream_creation",
     "Creates its own CUDA stream (or context): work there runs beside the "
     "harness's stream, so the timer does not see it. Use the stream you are "
     "given.",
     true, "screen"},
    {"legacy_default_stream",
     "Uses the default stream (a launch or copy without the given stream, with "
     "stream 0, or a synchronous cudaMemcpy/cudaMemset); the harness's stream "
     "does not wait for it, so that work is not timed.",
     true, "screen"},
    {"persisting_l2",
     "Sets a persisting-L2 access policy or reserves L2 for persisting data, "
     "which keeps data cached between timed calls so the kernel looks faster "
     "than it is.",
     true, "screen"},
    {"line_directive",
     "Contains #line or line-marker directives, which make its code look like "
     "it came from another file; a kernel has no use for them.",
     true, "screen"},
    {"unscreenable_source",
     "Its macros expand beyond what the screen reads (too large or too slow to "
     "expand); code the screen cannot read cannot pass.",
     true, "screen"},
    // KernelBench candidates (TorchScreen): a Python ModelNew with load_inline CUDA.
    {"torch_reference_model",
     "Uses the reference Model (inherits from it, creates or calls it, or "
     "imports the problem file), so the reference computes the answer.",
     true, "screen"},
    {"torch_fallback",
     "Catches errors (try/except, contextlib.suppress) to fall back to another "
     "path when the kernel fails; the kernel must work on its own.",
     true, "screen"},
    {"torch_library_compute",
     "PyTorch or a library computes the answer: forward calls none of its own "
     "kernels, still does every operation of the reference with PyTorch, or uses "
     "torch.compile, torch.jit, torch.backends, cuBLAS/cuDNN through torch, or a "
     "library's ready-made kernels (triton.ops).",
     true, "screen"},
    {"language_mismatch",
     "The candidate writes its kernels in another language than the run's "
     "(--language): judge it in a run of its own language, so that runs of one "
     "language compare like with like.",
     true, "screen"},
    {"torch_partial_library",
     "Part of the computation stays in PyTorch (allowed, as in most level-2 "
     "solutions); only the custom kernels are what you wrote.",
     false, "screen"},
    {"torch_monkey_patch",
     "Changes attributes of torch, time, the builtins, sys.modules, another "
     "module or an object it did not create (this is how timers and "
     "torch.cuda.Event get replaced).",
     true, "screen"},
    {"torch_threads",
     "Starts threads, processes or asynchronous tasks (threading, "
     "multiprocessing, subprocess, asyncio, os.fork, signal); work they do "
     "after forward returns is not timed.",
     true, "screen"},
    {"torch_lazy_tensor",
     "Returns something that computes later (a torch.Tensor subclass, "
     "__torch_function__/__torch_dispatch__, a generator), so the work "
     "happens outside the timed call.",
     true, "screen"},
    {"torch_stream",
     "Uses its own CUDA stream or graph (torch.cuda.Stream, torch.cuda.stream, "
     "CUDA graphs, non_blocking copies, a stream from the pool); the timer on "
     "torch's current stream does not see that work.",
     true, "screen"},
    {"torch_default_stream",
     "Launches or copies on the CUDA default stream instead of torch's "
     "current stream; pass at::cuda::getCurrentCUDAStream() so the work is "
     "ordered with, and timed on, the caller's stream.",
     false, "screen"},
    {"torch_introspection",
     "Inspects or rewrites the running program, reads files or loads code the "
     "screen cannot see (inspect, gc, ctypes, importlib, eval/exec, open, "
     "getattr with a computed name, C++ built at run time, unknown modules).",
     true, "screen"},
    {"torch_state_between_calls",
     "Keeps state between calls (a cache, global, attributes set on self in "
     "forward, keys from data_ptr()/id()); results must not depend on earlier "
     "calls.",
     false, "screen", suspicious},
    // KernelBench candidates, once correct (TorchAudit): how the forward computes.
    {"torch_ghost_kernel",
     "Its outputs do not depend on its own kernels: with every function of its "
     "extension neutralised (what they write or return replaced by noise) the "
     "forward returns the same outputs, so something else computes the answer.",
     true, "correctness"},
    {"torch_library_gemm",
     "A cuBLAS/cuDNN matrix multiplication or convolution that the reference "
     "does not run does most of the GPU work (a 1x1 convolution for a matmul, "
     "say): the library computes the answer under another op's name.",
     true, "timing"},
    {"torch_library_share",
     "Its own kernels take under a tenth of the forward's GPU time; library "
     "kernels do the rest. Allowed (partial offload), but little of the work "
     "is yours.",
     false, "timing", suspicious},
    {"output_unwritten",
     "Left its output unwritten in a checked call (the whole buffer; on the PyTorch backend any "
     "element of it): a kernel that returns early, "
     "or launches no block for a small shape, does this as often as a game (the verdict follows "
     "correctness, which such an output fails).",
     false, "correctness", suspicious},
    {"timed_output_unwritten",
     "Wrote its output in the checked calls but not in a timed one: it does less work when it "
     "is timed than when it is checked.",
     true, "timing"},
    {"guard_band_overwrite", "Wrote outside its output buffer (into the guard bands around it).",
     true, "correctness"},
    {"input_modified", "Modified an input buffer; inputs are read-only.", true, "correctness"},
    {"cached_result",
     "Called again with new values at the same addresses, it returned the "
     "previous result: results are cached, not computed.",
     true, "correctness"},
    {"uninitialized_memory",
     "Its result depends on memory it never wrote: the same inputs gave different outputs "
     "when fresh memory held different patterns. Initialise scratch before reading it (an "
     "honest bug as often as a game; the verdict follows correctness).",
     false, "correctness", "suspicious"},
    {"near_constant_output",
     "The output is (nearly) constant or unrelated to the correct result, "
     "which varies; it passed the tolerance only because of the data.",
     true, "correctness"},
    {"wrong_constant_output",
     "Its wrong output is (nearly) constant while the correct result varies: a guess, or a "
     "kernel that computes nothing for this shape (an honest bug as often as a game; the "
     "verdict follows correctness).",
     false, "correctness", suspicious},
    {"threads_left_running",
     "Threads kept working after the call returned (using CPU while the "
     "harness waited, or still writing the output): the measured time misses "
     "that work. Join your threads, or finish the parallel region, before "
     "returning; an idle OpenMP pool is fine.",
     true, "correctness"},
    {"implausibly_fast",
     "Measured faster than the hardware can move or compute its data, so the "
     "time cannot be real.",
     true, "timing"},
    {"timer_inconsistent",
     "The times the sandbox reported do not add up to the wall-clock time the "
     "engine measured around them.",
     true, "timing"},
    {"engine_clock_gap",
     "The engine's clock saw more time around the candidate's timed requests than the "
     "reported calls and the calibrated overhead explain, but not enough for a verdict: "
     "on the CUDA backend a gap under 0.5 ms or under the reported time a call, or one "
     "taken while another process used the GPU (its time slices leave such gaps). Worth "
     "a review.",
     false, "timing", suspicious},
    {"side_stream_work",
     "The device kept working after the timed stream finished: work was put "
     "on another stream, which the timer on the harness stream does not see.",
     true, "timing"},
    {"baseline_outlier",
     "The reference took much longer or shorter here than in this run's other "
     "judgements of the task: this one ran under other conditions, so its "
     "speedup compares less well with theirs.",
     false, "timing"},
    {"timing_disturbed",
     "Another program used this CPU or GPU while the candidate was timed, "
     "even after the timing was repeated, so the times are less certain; this "
     "is not the candidate's fault.",
     false, "timing"},
    {"large_speedup",
     "Unusually large speedup over the reference; correct, but worth a "
     "review.",
     false, "timing"},
};

} // namespace

const QList<FlagInfo> &FlagCatalog::all()
{
    static const QList<FlagInfo> flags = [] {
        QList<FlagInfo> list;
        for (const FlagRow &row : flagTable)
            list.append(
                {QString::fromUtf8(row.id), QString::fromUtf8(row.message), row.blocking,
                 QString::fromUtf8(row.stage),
                 row.tier ? QString::fromUtf8(row.tier) : CheatFlag::defaultTier(row.blocking)});
        return list;
    }();
    return flags;
}

const FlagInfo *FlagCatalog::find(const QString &id)
{
    for (const FlagInfo &info : all()) {
        if (info.id == id)
            return &info;
    }
    return nullptr;
}

CheatFlag FlagCatalog::make(const QString &id, const QList<int> &lines, const QString &detail)
{
    CheatFlag flag;
    flag.id = id;
    const FlagInfo *info = find(id);
    flag.message = info ? info->message : id;
    flag.blocking = info ? info->blocking : true;
    flag.tier = info ? info->tier : CheatFlag::defaultTier(flag.blocking);
    if (!detail.isEmpty()) // a symbol reads as a student wrote it, not as the linker spells it
        flag.message += QStringLiteral(" (") + SymbolNames::readable(detail) + QLatin1Char(')');
    flag.lines = lines;
    return flag;
}

} // namespace kiln
