#include "flagcatalog.h"

namespace kiln {

const QList<FlagInfo> &FlagCatalog::all()
{
    static const QList<FlagInfo> flags = {
        {QStringLiteral("dynamic_loading"),
         QStringLiteral("Loads code or looks up symbols at run time (dlopen/dlsym), so nobody can "
                        "tell what actually runs."),
         true, QStringLiteral("screen")},
        {QStringLiteral("memory_protection"),
         QStringLiteral("Changes memory protection (mprotect), the usual first step to patch the "
                        "harness or its timer."),
         true, QStringLiteral("screen")},
        {QStringLiteral("process_inspection"),
         QStringLiteral("Uses ptrace or reads another process's memory; a kernel only computes."),
         true, QStringLiteral("screen")},
        {QStringLiteral("proc_access"),
         QStringLiteral("Reads /proc (for example /proc/self/maps) to inspect the harness "
                        "process."),
         true, QStringLiteral("screen")},
        {QStringLiteral("timer_tampering"),
         QStringLiteral("Defines a clock function (clock_gettime, gettimeofday, std::chrono ...), "
                        "which could replace the clock the harness measures with."),
         true, QStringLiteral("screen")},
        {QStringLiteral("symbol_interposition"),
         QStringLiteral("Defines a function that belongs to the C/C++ runtime; a kernel defines "
                        "only its entry and its own helpers."),
         true, QStringLiteral("screen")},
        {QStringLiteral("process_exit"),
         QStringLiteral("Ends the process (exit, _exit, abort, std::terminate) instead of "
                        "returning to its caller."),
         true, QStringLiteral("screen")},
        {QStringLiteral("signals"),
         QStringLiteral("Raises, sends or handles signals (raise, kill, signal, sigaction, alarm); "
                        "a kernel has no use for them."),
         true, QStringLiteral("screen")},
        {QStringLiteral("process_spawn"),
         QStringLiteral("Starts other processes (fork, exec, system, popen)."), true,
         QStringLiteral("screen")},
        {QStringLiteral("file_access"),
         QStringLiteral("Opens, creates or deletes files; a kernel computes from its arguments "
                        "only."),
         true, QStringLiteral("screen")},
        {QStringLiteral("network"), QStringLiteral("Uses network sockets."), true,
         QStringLiteral("screen")},
        {QStringLiteral("raw_system_calls"),
         QStringLiteral("Makes raw system calls or uses file descriptors directly (syscall, "
                        "write, dup2, close, asm \"syscall\"); a kernel has no use for them."),
         true, QStringLiteral("screen")},
        {QStringLiteral("threads_detached"),
         QStringLiteral("Detaches a thread: work still running after the call returns is not "
                        "timed. Join every thread before returning."),
         true, QStringLiteral("screen")},
        {QStringLiteral("forbidden_library"),
         QStringLiteral("Calls a library that computes the answer (BLAS, MKL, Eigen ...), which "
                        "this task forbids."),
         true, QStringLiteral("screen")},
        {QStringLiteral("precision_downgrade"),
         QStringLiteral("Computes in half precision (_Float16, __fp16, bfloat16) in an fp32 "
                        "task; the results are less accurate than the task asks for."),
         true, QStringLiteral("screen")},
        {QStringLiteral("load_time_code"),
         QStringLiteral("Runs code when the library is loaded (__attribute__((constructor))); a "
                        "kernel does its work inside the call."),
         true, QStringLiteral("screen")},
        {QStringLiteral("inline_asm"),
         QStringLiteral("Uses inline assembly: allowed, but it can bypass other checks, so it is "
                        "worth a review."),
         false, QStringLiteral("screen")},
        {QStringLiteral("hidden_state"),
         QStringLiteral("Keeps state where no variable shows it (thread-specific data, the "
                        "environment, shared memory); a kernel computes each call from its "
                        "arguments."),
         true, QStringLiteral("screen")},
        {QStringLiteral("memory_mapping"),
         QStringLiteral(
             "Maps memory itself (mmap, brk): allowed for scratch, but memory at a fixed "
             "address can carry results from one call to the next, so it is worth a "
             "review."),
         false, QStringLiteral("screen")},
        {QStringLiteral("static_state"),
         QStringLiteral("Keeps mutable static or global variables; state that survives between "
                        "calls must not change results."),
         false, QStringLiteral("screen")},
        {QStringLiteral("stream_creation"),
         QStringLiteral("Creates its own CUDA stream (or context): work there runs beside the "
                        "harness's stream, so the timer does not see it. Use the stream you are "
                        "given."),
         true, QStringLiteral("screen")},
        {QStringLiteral("legacy_default_stream"),
         QStringLiteral("Uses the default stream (a launch or copy without the given stream, with "
                        "stream 0, or a synchronous cudaMemcpy/cudaMemset); the harness's stream "
                        "does not wait for it, so that work is not timed."),
         true, QStringLiteral("screen")},
        {QStringLiteral("persisting_l2"),
         QStringLiteral("Sets a persisting-L2 access policy or reserves L2 for persisting data, "
                        "which keeps data cached between timed calls so the kernel looks faster "
                        "than it is."),
         true, QStringLiteral("screen")},
        {QStringLiteral("line_directive"),
         QStringLiteral("Contains #line or line-marker directives, which make its code look like "
                        "it came from another file; a kernel has no use for them."),
         true, QStringLiteral("screen")},
        // KernelBench candidates (TorchScreen): a Python ModelNew with load_inline CUDA.
        {QStringLiteral("torch_reference_model"),
         QStringLiteral("Uses the reference Model (inherits from it, creates or calls it, or "
                        "imports the problem file), so the reference computes the answer."),
         true, QStringLiteral("screen")},
        {QStringLiteral("torch_fallback"),
         QStringLiteral("Catches errors (try/except, contextlib.suppress) to fall back to another "
                        "path when the kernel fails; the kernel must work on its own."),
         true, QStringLiteral("screen")},
        {QStringLiteral("torch_library_compute"),
         QStringLiteral("PyTorch or a library computes the answer: forward calls no function of "
                        "its load_inline extension, still does every operation of the reference "
                        "with PyTorch, or uses torch.compile, torch.jit, Triton, torch.backends "
                        "or cuBLAS/cuDNN through torch."),
         true, QStringLiteral("screen")},
        {QStringLiteral("torch_partial_library"),
         QStringLiteral("Part of the computation stays in PyTorch (allowed, as in most level-2 "
                        "solutions); only the custom kernels are what you wrote."),
         false, QStringLiteral("screen")},
        {QStringLiteral("torch_monkey_patch"),
         QStringLiteral("Changes attributes of torch, time, the builtins, sys.modules, another "
                        "module or an object it did not create (this is how timers and "
                        "torch.cuda.Event get replaced)."),
         true, QStringLiteral("screen")},
        {QStringLiteral("torch_threads"),
         QStringLiteral("Starts threads, processes or asynchronous tasks (threading, "
                        "multiprocessing, subprocess, asyncio, os.fork, signal); work they do "
                        "after forward returns is not timed."),
         true, QStringLiteral("screen")},
        {QStringLiteral("torch_lazy_tensor"),
         QStringLiteral("Returns something that computes later (a torch.Tensor subclass, "
                        "__torch_function__/__torch_dispatch__, a generator), so the work "
                        "happens outside the timed call."),
         true, QStringLiteral("screen")},
        {QStringLiteral("torch_stream"),
         QStringLiteral("Uses its own CUDA stream or graph (torch.cuda.Stream, torch.cuda.stream, "
                        "CUDA graphs, non_blocking copies, a stream from the pool); the timer on "
                        "torch's current stream does not see that work."),
         true, QStringLiteral("screen")},
        {QStringLiteral("torch_default_stream"),
         QStringLiteral("Launches or copies on the CUDA default stream instead of torch's "
                        "current stream; pass at::cuda::getCurrentCUDAStream() so the work is "
                        "ordered with, and timed on, the caller's stream."),
         false, QStringLiteral("screen")},
        {QStringLiteral("torch_introspection"),
         QStringLiteral("Inspects or rewrites the running program, reads files or loads code the "
                        "screen cannot see (inspect, gc, ctypes, importlib, eval/exec, open, "
                        "getattr with a computed name, C++ built at run time, unknown modules)."),
         true, QStringLiteral("screen")},
        {QStringLiteral("torch_state_between_calls"),
         QStringLiteral("Keeps state between calls (a cache, global, attributes set on self in "
                        "forward, keys from data_ptr()/id()); results must not depend on earlier "
                        "calls."),
         false, QStringLiteral("screen")},
        {QStringLiteral("output_unwritten"),
         QStringLiteral("Returned without writing its output at all."), true,
         QStringLiteral("correctness")},
        {QStringLiteral("guard_band_overwrite"),
         QStringLiteral("Wrote outside its output buffer (into the guard bands around it)."), true,
         QStringLiteral("correctness")},
        {QStringLiteral("input_modified"),
         QStringLiteral("Modified an input buffer; inputs are read-only."), true,
         QStringLiteral("correctness")},
        {QStringLiteral("cached_result"),
         QStringLiteral("Called again with new values at the same addresses, it returned the "
                        "previous result: results are cached, not computed."),
         true, QStringLiteral("correctness")},
        {QStringLiteral("near_constant_output"),
         QStringLiteral("The output is (nearly) constant or unrelated to the correct result, "
                        "which varies; it passed the tolerance only because of the data."),
         true, QStringLiteral("correctness")},
        {QStringLiteral("threads_left_running"),
         QStringLiteral("Threads kept working after the call returned (using CPU while the "
                        "harness waited, or still writing the output): the measured time misses "
                        "that work. Join your threads, or finish the parallel region, before "
                        "returning; an idle OpenMP pool is fine."),
         true, QStringLiteral("correctness")},
        {QStringLiteral("implausibly_fast"),
         QStringLiteral("Measured faster than the hardware can move or compute its data, so the "
                        "time cannot be real."),
         true, QStringLiteral("timing")},
        {QStringLiteral("timer_inconsistent"),
         QStringLiteral("The times the sandbox reported do not add up to the wall-clock time the "
                        "engine measured around them."),
         true, QStringLiteral("timing")},
        {QStringLiteral("side_stream_work"),
         QStringLiteral("The device kept working after the timed stream finished: work was put "
                        "on another stream, which the timer on the harness stream does not see."),
         true, QStringLiteral("timing")},
        {QStringLiteral("baseline_outlier"),
         QStringLiteral("The reference took much longer or shorter here than in this run's other "
                        "judgements of the task: this one ran under other conditions, so its "
                        "speedup compares less well with theirs."),
         false, QStringLiteral("timing")},
        {QStringLiteral("timing_disturbed"),
         QStringLiteral("Another program used this CPU or GPU while the candidate was timed, "
                        "even after the timing was repeated, so the times are less certain; this "
                        "is not the candidate's fault."),
         false, QStringLiteral("timing")},
        {QStringLiteral("large_speedup"),
         QStringLiteral("Unusually large speedup over the reference; correct, but worth a "
                        "review."),
         false, QStringLiteral("timing")},
    };
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
    if (!detail.isEmpty())
        flag.message += QStringLiteral(" (") + detail + QLatin1Char(')');
    flag.lines = lines;
    return flag;
}

} // namespace kiln
