#pragma once

// The engine <-> kiln-sandbox protocol, shared by both sides. Qt-free on purpose: the sandbox
// links only the C++ standard library and libdl.
//
// File descriptors given to the sandbox at exec time:
//   0: requests (one text line each)          1: replies (one text line each)
//   2: diagnostics, and the candidate's stdout/stderr (drained and capped by the engine)
//   3: a memfd holding every buffer the candidate sees (mapped by both sides)
//
// Requests (words separated by single spaces):
//   compile <compiler> <args...>      run the compiler in the private work directory;
//                                     output goes to compile.log  -> "ok <exit-code> <ms>"
//   lock                              apply the seccomp filter (no more processes)  -> "ok"
//   load <slot> <symbol> <path>       dlopen() a compiled object, slot 'c' or 'r'   -> "ok"
//   map                               (re)map fd 3 after the engine resized it  -> "ok <bytes>"
//   args <id> <np> <ptr-offsets...> <ni> <ints...> <nr> <reals...>
//                                     store an argument set (pointers are offsets into fd 3)
//   batch <ops...>                    run ops in order; each call op is timed
//        cp:<src>:<dst>:<bytes>       copy inside the shared buffer (outside the timed window)
//        fill:<offset>:<bytes>        fill with the output sentinel (outside the timed window)
//        flush                        evict caches by writing the flush buffer
//        call:<slot>:<args-id>        timed call of the loaded entry  -> one time per call op
//        nop                          timed call of an empty function (timer overhead)
//        poison:<byte>                memory the candidate mallocs from here on, and the stack
//                                     below the next call, hold this byte (outside the timed
//                                     window): a result that depends on memory it never wrote
//                                     then shows, instead of the zeros of fresh pages
//        snap:<src>:<dst>:<bytes>     copy right after a call: its outputs as they were then
//        cpu                          the process's CPU time so far -> one number (ns)
//                                     -> "ok <threads> <ns> <ns> ..." (in op order)
//   probe <ms>                        CPU time used by threads other than the main one while
//                                     the main thread sleeps <ms>  -> "ok <threads> <busy-ns>"
//   quit                              -> exits 0
// Any reply may instead be "err <message>". Just before the sandbox dies of a fatal signal it
// writes "fatal <signal> <errno> <fault-address>"; on a failed allocation "resource alloc".
// Everything that comes back is raw: the engine computes statistics and verdicts.
//
// CUDA sandbox (kiln-cuda-sandbox --workdir DIR --device N [--userns 0|1] [--profiling]
// [--checker | --launcher]): the same descriptors and reply forms; a single-use process per
// candidate with host code; with --launcher the persistent trusted launcher of device-only
// candidates (it refuses `load`, so no candidate host code ever runs in it); with --checker the
// persistent GPU checker of its GPU (the only one with the checker ops). fd 3 is host staging;
// the device holds a mirror of it at the same offsets. Requests:
//   nvrtc <arch> <source> <cubin> <log> [include-dir]   compile (a --compile-only process)
//                                       -> "ok <0|1> <ms>"
//   load c|r|b <symbol> <path.so>       dlopen a CUDA shim (candidate, reference, library)
//   loadcubin c|r <kernel> <path> [<global>...]   load an NVRTC cubin (the named module
//                                       variables zeroed); the harness launches its kernel
//   kernels c|r                         -> "ok name:registers:shared:local:max-threads ..."
//   unload c                            drop the candidate, synchronise -> "ok <threads>"
//   scrub                               (launcher) drop the candidate, wait for the device, and
//                                       reset what its kernels could reach: mirror zeroed,
//                                       flush buffer rewritten, sentinel source dropped, every
//                                       SM's shared memory cleared, persisting L2 reset
//                                       -> "ok <threads> <ms>"
//   map / args / probe                  as above (args offsets are into the device mirror)
//   alloc <bytes>                       (re)allocate and zero the device mirror -> "ok <bytes>"
//   dims <args-id> <PIF...> gx gy gz bx by bz shared    launch geometry of a cubin kernel
//   batch <ops...>   h2d:<off>:<bytes> / d2h:<off>:<bytes> (host <-> mirror), cp, fill
//                    (sentinel, on the device), flush (persisting-L2 reset + L2 flush), sync,
//                    fresh:<dst>:<bytes>:<table>:<bits>:<key> (fresh values drawn on the device,
//                    freshvalues.h), abs:<src>:<dst>:<bytes>:<f|i> (|values|),
//                    nop, call:<slot>:<args-id>; each call / nop ->
//                    "<event-ns>/<wall-ns>/<tail-ns>"
//   bandwidth <bytes> <repeats>         best device-to-device copy rate -> "ok <bytes/s>"
//   export                              CUDA IPC handle of the device mirror -> "ok <hex>"
//   import <hex> <bytes> | import -     the GPU checker maps (or drops) a candidates' sandbox's
//                                       mirror; then, in batches (r: offset there, l: here):
//                    put:l:r:bytes (inputs into the candidate's buffers), rset:r:bytes:word,
//                    rcount:r:bytes:word -> "n,<differing words>,<first|-1>",
//                    same:r:l:bytes -> "n,...", cmp:r:l:scale-l|-:bytes:f|i:abs:rel:scaled ->
//                    "m,<mismatches>,<first|-1>,<got>,<expected>,<max-abs>,<max-rel>,
//                    <unwritten>,<non-finite>" (the element rule of elementcheck.h); these
//                    answers follow the call times, in op order.
// A CUDA error answers "err cuda <code> <sticky 0|1> <name> <text>"; sticky means the context
// is lost and the engine restarts the process. --probe and --compile-only run no device code.
//
// PyTorch sandbox (kiln-torch-sandbox --workdir DIR --worker kiln_torch_worker.py --python PY
// --role reference|candidate|build [--device cuda|cpu] [--extensions DIR] [--arch X.Y]
// [--defer-device 1]): the same descriptors and reply forms, spoken by python3; tensors sit in
// fd 3 at the offsets the JSON documents (compact, one word) name. "ready torch=... arch=...
// <isolation>" (arch=deferred with --defer-device 1, which candidates and builds get), then:
//   device [extensions-dir]             a deferred process: its extension folder (as
//                                       --extensions), its device opened (the CUDA context; a
//                                       build's none), then its writes confined -> "ok arch=...
//                                       <isolation>"; every other request but map is refused
//                                       until then ("err <request> before the device is open")
//   build <module.py>                   import once, so load_inline builds (build role)
//   load <module.py> <seed> [init-json] reference: Model(*get_init_inputs()) -> "ok <ms>
//                                       <init-json> seccomp=0"; candidate: ModelNew(*init)
//                                       under the same seed, then seccomp -> "... seccomp=1"
//   inputs <seed> <offset>              reference: get_inputs() under the seed (its tensors made
//                                       on the device where it allows) and its outputs
//                                       -> "ok {inputs, outputs, end, ms}"
//   call <json>                         candidate: {inputs, outputs, at, same} -> its outputs
//                                       (32-bit words) and inputs after the call at `at`
//   compile                             reference: torch.compile(Model) -> "ok <ms>" or
//                                       "ok unavailable <why>"
//   time eager|compiled|candidate <n> <seed> <offset>
//                                       n calls on fresh inputs -> "ok <event-ns>/<wall-ns>...
//                                       prep=<ns> total=<ns> [last outputs]"
//   The audit of a correct candidate (TorchAudit). Every process runs with TF32 off and the
//   float32 matmul precision "highest", set again before each call; JSON strings in these
//   replies spell spaces as \u0020, so each document stays one word:
//   dtypes                              either role: one more forward on copies of the current
//                                       inputs under a TorchDispatchMode -> "ok {ops: [[op,
//                                       [dtypes in], [dtypes out], count] ...], settings: [TF32
//                                       or matmul precision found switched, and when]}", or
//                                       "ok {unavailable: <why>, settings}"
//   profile <n> <seed>                  candidate: n forward calls on fresh inputs under
//                                       torch.profiler -> "ok {kernels: [{name, cat: kernel|
//                                       memcpy|memset, us, n} ...largest 40], rest_us, total_us,
//                                       calls}"; "ok {skipped: ...}" on the CPU device,
//                                       "ok {unavailable: <why>}" without a working profiler
//   replay <seed> <offset>              candidate: the forward on copies of the current inputs,
//                                       then again with its extensions' functions neutralised
//                                       (what they change or return becomes seeded noise); both
//                                       outputs (32-bit words) from offset -> "ok {normal: [...],
//                                       replay: [...] | null, error, calls, functions, modules,
//                                       unwritable}"
//   map / quit                          as above
// "err need <bytes>" asks the engine to grow the buffer and send the request again.

#include <cstdint>

namespace kiln::sandbox {

inline constexpr int kRequestFd = 0;
inline constexpr int kReplyFd = 1;
inline constexpr int kDiagnosticFd = 2;
inline constexpr int kBufferFd = 3;

// Output elements are pre-filled with this NaN pattern; an element still holding it was never
// written. Guard bands around outputs hold kGuardWord.
inline constexpr std::uint32_t kSentinelWord = 0x7fa5a5a5u;
inline constexpr std::uint32_t kGuardWord = 0x5ac3a55au;

// The poison patterns, alternated call by call: huge floats and integers of either sign, never
// zero (glibc's M_PERTURB fills with the byte's complement, and 0 would turn it off).
inline constexpr unsigned char kPoisonFills[2] = {0xfe, 0x7f};

inline constexpr int kExitSetupFailed = 90;
inline constexpr int kExitResource = 91;

} // namespace kiln::sandbox
