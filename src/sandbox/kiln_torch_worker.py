# kiln_torch_worker.py: the Python side of Kiln's PyTorch sandbox (protocol.h, "PyTorch
# sandbox"). kiln-torch-sandbox isolates the process and then runs this file with the user's
# python3. One role per process:
#   reference  the problem's Model: inputs, expected outputs, eager and torch.compile timings
#   candidate  a ModelNew: outputs and timings of the untrusted module
#   build      imports a candidate module once so that load_inline compiles its extension
# A candidate of a JIT language (--jit 1: Triton, CuTe DSL, TileLang) compiles its kernels on
# its first call instead: the "warm" request makes that call, untimed, before the process loses
# exec (the compilers run then).
# Requests arrive one per line on fd 0, replies leave on fd 1 ("ok ..." or "err ..."), tensors
# cross in the shared buffer on fd 3. Everything sent back is raw (bytes, nanoseconds): the
# engine compares outputs and computes statistics, so expected outputs never enter a
# candidate's process.

import json
import mmap
import os
import sys
import time
import traceback

SENTINEL_WORD = 0x7FA5A5A5
# The worker's own clock, taken before any candidate code runs: a module that later replaces
# time.perf_counter_ns (or torch.cuda.Event) changes its own view, not the worker's.
CLOCK = time.perf_counter_ns
ALIGN = 256


def ms_since_exec():
    """Milliseconds since this process began (its fork, the sandbox's set-up included)."""
    try:
        with open("/proc/self/stat") as stat:
            ticks = int(stat.read().rsplit(")", 1)[1].split()[19])
        return time.clock_gettime(time.CLOCK_BOOTTIME) * 1000 - ticks * 1000 / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return -1.0


STARTED_MS = ms_since_exec()  # the interpreter's own start, before this file ran


class Channel:
    """The protocol descriptors, moved away from 0/1 so the module's prints cannot reach
    the reply stream (stdout joins the engine's capped diagnostics)."""

    def __init__(self):
        self.requests = os.fdopen(os.dup(0), "r", buffering=1)
        self.replies = os.fdopen(os.dup(1), "w", buffering=1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(2, 1)
        sys.stdout = sys.stderr
        self.buffer = None

    def reply(self, line):
        self.replies.write(line.replace("\n", " ") + "\n")
        self.replies.flush()

    def map(self):
        size = os.fstat(3).st_size
        if self.buffer is not None:
            self.buffer.close()
        self.buffer = mmap.mmap(3, size) if size > 0 else None
        return size


def aligned(offset):
    return (offset + ALIGN - 1) // ALIGN * ALIGN


class TensorCodec:
    """Tensors to and from the shared buffer. Outputs travel as 32-bit words (floats as f32,
    integers and booleans as i32), the element rule of elementcheck.h; inputs travel in their
    own dtype so the engine can compare them byte for byte."""

    def __init__(self, torch, channel):
        self.torch = torch
        self.channel = channel

    def need(self, end):
        if self.channel.buffer is None or end > len(self.channel.buffer):
            raise BufferNeeded(end)

    def view(self, offset, nbytes):
        """Bytes of the shared buffer as a tensor that aliases it: one copy to or from the
        device, where slices and bytes objects made three (a level-1 problem's sets are GiB).
        Only ever a local. The tensor holds a memoryview of the buffer, so while one lives the
        buffer cannot be unmapped (Channel.map raises BufferError instead of leaving it
        dangling)."""
        self.need(offset + nbytes)
        window = memoryview(self.channel.buffer)[offset : offset + nbytes]
        return self.torch.frombuffer(window, dtype=self.torch.uint8)

    def write_raw(self, tensor, offset):
        data = tensor.detach().contiguous().view(-1).view(self.torch.uint8)
        nbytes = data.numel()
        if nbytes:
            self.view(offset, nbytes).copy_(data)
        return nbytes

    def as_words(self, tensor):
        torch = self.torch
        tensor = tensor.detach().contiguous()
        if tensor.dtype.is_complex:
            return torch.view_as_real(tensor).float(), "f"
        if tensor.dtype.is_floating_point:
            return tensor.float(), "f"
        if tensor.element_size() == 8:  # int64: both halves compared exactly
            return tensor.view(-1).view(torch.int32), "i"
        return tensor.to(torch.int32), "i"

    def describe(self, tensor, offset, nbytes, kind=None):
        entry = {"dtype": str(tensor.dtype).replace("torch.", ""), "shape": list(tensor.shape),
                 "offset": offset, "bytes": nbytes}
        if kind:
            entry["kind"] = kind
        return entry

    def write_inputs(self, inputs, offset):
        entries = []
        for value in inputs:
            if isinstance(value, self.torch.Tensor):
                offset = aligned(offset)
                n = self.write_raw(value, offset)
                entries.append(self.describe(value, offset, n))
                offset += n
            else:
                # The engine re-serialises this JSON: the type keeps 2.0 a float.
                entries.append({"value": value, "type": type(value).__name__})
        return entries, offset

    def write_outputs(self, outputs, offset):
        entries = []
        for value in outputs:
            words, kind = self.as_words(value)
            offset = aligned(offset)
            n = self.write_raw(words, offset)
            entries.append(self.describe(value, offset, n, kind))
            offset += n
        return entries, offset

    def read_inputs(self, entries, device):
        torch = self.torch
        values = []
        for entry in entries:
            if "value" in entry:
                kinds = {"float": float, "int": int, "bool": bool}
                convert = kinds.get(entry.get("type"), lambda v: v)
                values.append(convert(entry["value"]) if entry["value"] is not None else None)
                continue
            dtype = getattr(torch, entry["dtype"])
            if entry["bytes"] == 0:
                values.append(torch.empty(entry["shape"], dtype=dtype, device=device))
                continue
            flat = self.view(entry["offset"], entry["bytes"])
            # copy=True: on the CPU device .to() would hand back the buffer's own bytes.
            values.append(flat.view(dtype).reshape(entry["shape"]).to(device, copy=True))
        return values


class BufferNeeded(Exception):
    def __init__(self, end):
        super().__init__("the shared buffer needs %d bytes" % end)
        self.end = end


def as_tuple(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def load_module(path, name):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def flat_roll(torch, tensor, generator):
    """Fresh values for a timed iteration: the tensor's elements shifted along its flattened
    index, so the value distribution (and any domain a problem relies on) is kept while every
    position holds a new value. Deterministic in the generator, so the reference and the
    candidate derive the same inputs."""
    n = tensor.numel()
    if n < 2:
        return tensor.clone()
    shift = int(torch.randint(1, n, (1,), generator=generator).item())
    return tensor.reshape(-1).roll(shift).reshape(tensor.shape).contiguous()


def draw_inputs(torch, problem, seed, device):
    """An input set of the problem's get_inputs() under a seed, on the device. On a GPU its
    factory functions make the tensors there (torch 2's default device): a level-1 problem's
    hundreds of millions of values are then drawn in milliseconds, where the CPU took seconds.
    The values follow the GPU's generator, so they are the same in every process of one machine
    and may differ on another GPU model; a get_inputs() that mixes devices draws on the CPU."""
    values = None
    if device != "cpu" and hasattr(torch, "set_default_device"):
        torch.manual_seed(seed)
        try:
            # A context, not set_default_device: that leaves a device mode on every later torch
            # call of the process ("cpu" included), which would slow the timed baselines.
            with torch.device(device):
                values = list(problem.get_inputs())
        except Exception:
            values = None
    if values is None:
        torch.manual_seed(seed)
        values = list(problem.get_inputs())
    return [v.to(device) if isinstance(v, torch.Tensor) else v for v in values]


def interpreter_folders():
    """What this interpreter reads after start-up: its prefixes, its import path, torch's folder
    and the CUDA toolkit that load_inline builds with. Never a parent of them (the home folder)."""
    import sys

    folders = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    folders.update(p for p in sys.path if p and os.path.isabs(p))
    cuda_home = os.environ.get("CUDA_HOME")
    if cuda_home:
        folders.add(cuda_home)
    folders.add(os.path.dirname(os.path.abspath(__file__)))
    if sys.pycache_prefix:  # Kiln's bytecode of the packages (TorchBytecode), read-only
        folders.add(sys.pycache_prefix)
    return sorted(f for f in folders if os.path.exists(f) and ":" not in f)


class Confinement:
    """Landlock and seccomp through libkiln-torch-confine.so (beside this file): Landlock only
    once CUDA has opened its device files, seccomp only once a candidate's module is imported
    (its load_inline starts ninja)."""

    def __init__(self):
        import ctypes

        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libkiln-torch-confine.so")
        try:
            self.lib = ctypes.CDLL(path)
        except OSError:
            self.lib = None
        self.landlock = 0
        self.seccomp = 0

    def confine_writes(self, excluding=None):
        """Writes to the work folder and the extension cache; reads to those, the system's
        folders and this interpreter's own (its prefixes and import path): the user's other
        files, the workspace database and other processes' /proc folders stay out of reach.
        Called again with excluding, a further layer takes that folder's writes away (it
        stays readable)."""
        self.reads = 0
        if self.lib is not None:
            writable = [w for w in os.environ.get("KILN_WRITABLE", "").split(":") if w]
            readable = interpreter_folders()
            if excluding:
                excluded = os.path.realpath(excluding)
                writable = [w for w in writable if os.path.realpath(w) != excluded]
                if any(excluded.startswith(os.path.realpath(w).rstrip("/") + "/")
                       for w in writable + [os.environ.get("KILN_WORKDIR", ".")]):
                    return 0  # still writable through a folder above it
                readable.append(excluding)
            abi = self.lib.kiln_confine(
                os.environ.get("KILN_WORKDIR", ".").encode(),
                ":".join(writable).encode(),
                ":".join(readable).encode())
            self.landlock = abs(abi)
            self.reads = 1 if abi > 0 else 0
        prefix = os.path.realpath(sys.pycache_prefix) if sys.pycache_prefix else ""
        if prefix and any((prefix + "/").startswith(os.path.realpath(w).rstrip("/") + "/")
                          for w in os.environ.get("KILN_WRITABLE", "").split(":") if w):
            sys.stderr.write("kiln: the shared bytecode folder %s is inside a writable folder\n"
                             % prefix)
            os._exit(91)
        if sys.pycache_prefix and not self.landlock:
            # The shared bytecode must stay out of every candidate's reach: no Landlock, no go.
            sys.stderr.write("kiln: Landlock did not confine this process; the shared bytecode "
                             "folder %s would be writable\n" % sys.pycache_prefix)
            os._exit(91)
        return self.landlock

    def forbid_processes(self):
        if self.lib is not None:
            self.seccomp = self.lib.kiln_forbid_processes()
        return self.seccomp

    def describe(self, role):
        words = [w for w in os.environ.get("KILN_ISOLATION", "").split() if not w.startswith("landlock=")]
        words = [w for w in words if not w.startswith("reads=")]
        words.append("landlock=%d" % self.landlock)
        words.append("reads=%d" % getattr(self, "reads", 0))
        words.append("seccomp=" + ("after-import" if role == "candidate" else "0"))
        return " ".join(words)


class CpuTimer:
    """The timer of --device cpu (tests and machines without a GPU): the worker's own clock
    around the call, and caches flushed by writing a buffer larger than the last-level cache."""

    def __init__(self, torch):
        self.torch = torch
        self.flush = torch.empty((64 << 20) // 4, dtype=torch.float32)

    def reset_l2(self):
        self.flush.zero_()

    def synchronize(self):
        pass

    def time(self, call, inputs):
        self.reset_l2()
        wall = CLOCK()
        out = call(*inputs)
        wall = CLOCK() - wall
        return out, wall, wall


def spread_values(torch, value, generator):
    if not isinstance(value, torch.Tensor) or not value.dtype.is_floating_point:
        return value
    flat = value.reshape(-1).clone()
    count = max(1, flat.numel() // 100)
    positions = torch.randint(0, flat.numel(), (count,), generator=generator).to(flat.device)
    flat[positions] *= 8
    return flat.reshape(value.shape)


class GpuTimer:
    """Events on the current stream around one call, a device-synchronised wall clock around
    the same call, an L2 flush and a persisting-L2 reset before it."""

    def __init__(self, torch):
        self.torch = torch
        self.event = torch.cuda.Event
        self.synchronize = torch.cuda.synchronize
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        l2 = getattr(props, "L2_cache_size", 50 << 20) or (50 << 20)
        self.flush = torch.empty(max(2 * l2, 8 << 20) // 4, dtype=torch.float32, device="cuda")
        self.driver = self._driver()

    @staticmethod
    def _driver():
        import ctypes

        try:
            lib = ctypes.CDLL("libcuda.so.1")
            return lib
        except OSError:
            return None

    def reset_l2(self):
        if self.driver is not None:
            self.driver.cuCtxSetLimit(0x06, 0)  # CU_LIMIT_PERSISTING_L2_CACHE_SIZE
            self.driver.cuCtxResetPersistingL2Cache()
        self.flush.zero_()

    def time(self, call, inputs):
        torch = self.torch
        self.reset_l2()
        start = self.event(enable_timing=True)
        stop = self.event(enable_timing=True)
        self.synchronize()
        wall = CLOCK()
        start.record()
        out = call(*inputs)
        stop.record()
        self.synchronize()
        wall = CLOCK() - wall
        return out, int(start.elapsed_time(stop) * 1e6), wall


# -- problem lint (the reference role's "lint" request; docs/kernelbench.md, "Problem lint") --

# Ops that only copy, move, view or re-type their input: never counted as redundant work.
COPY_OPS = frozenset((
    "clone", "contiguous", "to", "type", "type_as", "detach", "detach_", "float", "double",
    "half", "bfloat16", "cpu", "cuda", "view", "view_as", "reshape", "reshape_as", "flatten",
    "expand", "expand_as", "squeeze", "unsqueeze", "permute", "transpose", "t", "narrow",
    "select", "requires_grad_", "copy_", "__getitem__", "__setitem__", "__get__", "unflatten",
    "movedim", "swapaxes", "as_strided", "contiguous_", "zero_", "fill_"))


def op_label(func):
    name = getattr(func, "__name__", None) or str(func)
    return name.strip("_") if name.startswith("__") and name.endswith("__") else name


def make_op_trace(torch):
    """A TorchFunctionMode that records the forward's top-level torch calls and, given `skip`,
    removes that call: its first tensor argument passes through in place of its result. Only
    calls on the data flow from the forward's inputs can be redundant: bookkeeping such as
    BatchNorm's num_batches_tracked.add_(1) never reaches an output."""
    import weakref
    from torch.overrides import TorchFunctionMode

    class OpTrace(TorchFunctionMode):
        def __init__(self, skip=-1):
            super().__init__()
            self.skip = skip
            self.calls = []
            self.busy = False
            self.flow = {}  # id -> (weak reference, the call that made it): the data flow

        def mark(self, tensor, name):
            try:
                self.flow[id(tensor)] = (weakref.ref(tensor), name)
            except TypeError:
                pass

        def origin(self, tensor):
            """The call that made a tensor of the data flow ("input" for the forward's own
            inputs); None for a parameter, a buffer or a constant."""
            entry = self.flow.get(id(tensor))
            return entry[1] if entry is not None and entry[0]() is tensor else None

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if self.busy:  # calls made by the call itself, or by this handler
                return func(*args, **kwargs)
            self.busy = True
            try:
                return self.record(func, args, kwargs)
            finally:
                self.busy = False

        def record(self, func, args, kwargs):
            tensors = []
            for value in list(args) + list(kwargs.values()):
                if isinstance(value, (list, tuple)):
                    tensors += [v for v in value if isinstance(v, torch.Tensor)]
                elif isinstance(value, torch.Tensor):
                    tensors.append(value)
            first = tensors[0] if tensors else None
            origin = self.origin(first) if first is not None else None
            name = op_label(func)
            index = len(self.calls)
            call = {"index": index, "name": name,
                    "after": origin if origin not in (None, "input") else ""}
            self.calls.append(call)
            if index == self.skip and first is not None:
                return first
            inplace = (name.endswith("_") and not name.endswith("__")) or kwargs.get("inplace") is True
            before = first.clone() if inplace and origin is not None else None
            out = func(*args, **kwargs)
            if origin is not None:
                self.judge(call, name, first, before, out)
            if any(self.origin(t) is not None for t in tensors):
                for result in (out if isinstance(out, (list, tuple)) else (out,)):
                    if isinstance(result, torch.Tensor):
                        self.mark(result, name)
            return out

        def judge(self, call, name, first, before, out):
            """Whether a call may be redundant (it computes, and keeps its input's shape and
            dtype), and whether it changed nothing."""
            try:
                if (isinstance(out, torch.Tensor) and name not in COPY_OPS
                        and out.shape == first.shape and out.dtype == first.dtype
                        and (before is not None or out.data_ptr() != first.data_ptr())):
                    call["eligible"] = True
                    call["unchanged"] = bool(torch.equal(out, first if before is None else before))
            except RuntimeError:  # sparse or other layouts without data pointers
                pass

    return OpTrace


class ProblemLint:
    """Facts about the loaded problem, for the engine to turn into findings: whether outputs
    vary across input sets, whether each input changes them, whether an all-zero, constant or
    passed-through answer meets the tolerance (at the declared atol and at the magnitude-aware
    one), and which ops change nothing or can be removed within the tolerance. Outputs are
    compared by the element rule of elementcheck.h, in float64 chunks."""

    SEEDS = 4
    CHUNK = 1 << 24
    SAMPLE = 1 << 20
    MAX_TRIALS = 48

    def __init__(self, worker, seed, atol, rtol, fraction, budget_s):
        self.torch = worker.torch
        self.model = worker.model
        self.problem = worker.reference
        self.device = worker.device
        self.seed = seed
        self.atol = atol
        self.judged_atol = atol  # the atol the verifier applies (run() may lower it)
        self.rtol = rtol
        self.fraction = fraction
        self.deadline = time.perf_counter() + budget_s

    # -- helpers ----------------------------------------------------------------------------
    def draw(self, seed):
        """An input set of get_inputs() under a seed, drawn as the verifier draws its own."""
        return draw_inputs(self.torch, self.problem, seed, self.device)

    def forward(self, inputs, mode=None):
        """One call on copies of the inputs (a Model may change them in place), with torch's
        generator reset first, so random ops such as dropout repeat between calls."""
        torch = self.torch
        copies = [v.clone() if isinstance(v, torch.Tensor) else v for v in inputs]
        torch.manual_seed(self.seed ^ 0x5A5A)
        with torch.no_grad():
            if mode is None:
                outputs = as_tuple(self.model(*copies))
            else:
                for value in copies:
                    if isinstance(value, torch.Tensor):
                        mode.mark(value, "input")
                with mode:
                    outputs = as_tuple(self.model(*copies))
        for o in outputs:
            if not isinstance(o, torch.Tensor):
                raise TypeError("the forward returned %s, not tensors" % type(o).__name__)
        return [o.detach() for o in outputs]

    def words(self, tensor):
        """The values as the engine compares them: floats (complex as pairs) or integers."""
        torch = self.torch
        if tensor.dtype.is_complex:
            return torch.view_as_real(tensor).reshape(-1), False
        if tensor.dtype.is_floating_point:
            return tensor.reshape(-1), False
        return tensor.reshape(-1).to(torch.int64), True

    def meets(self, got, expected, atol):
        """Whether `got` (a tensor, or a number for every element) meets `expected` by the
        element rule; False when their sizes differ."""
        torch = self.torch
        exp, integer = self.words(expected)
        scalar = not isinstance(got, torch.Tensor)
        if not scalar:
            got, got_integer = self.words(got)
            if got.numel() != exp.numel() or (integer and not got_integer):
                return False
        for start in range(0, exp.numel(), self.CHUNK):
            e = exp[start:start + self.CHUNK]
            if integer:
                g = got if scalar else got[start:start + self.CHUNK]
                ok = e == g
            else:
                e = e.float().double()
                g = (torch.full_like(e, float(torch.tensor(got, dtype=torch.float32)))
                     if scalar else got[start:start + self.CHUNK].float().double())
                close = (g - e).abs() <= atol + self.rtol * e.abs()
                special = (torch.isnan(e) & torch.isnan(g)) | (torch.isinf(e) & (g == e))
                ok = torch.where(torch.isfinite(e), close, special)
            if not bool(ok.all()):
                return False
        return True

    def all_meet(self, got, expected, atol):
        return len(got) == len(expected) and all(
            g.shape == e.shape and self.meets(g, e, atol) for g, e in zip(got, expected))

    def same(self, got, expected):
        return len(got) == len(expected) and all(
            g.shape == e.shape and bool(self.torch.equal(g, e)) for g, e in zip(got, expected))

    def magnitude(self, tensor):
        """The median |value| over the finite non-zero elements of a sample, and the mean."""
        torch = self.torch
        values, integer = self.words(tensor)
        step = max(1, values.numel() // self.SAMPLE)
        sample = values[::step].double()
        sample = sample[torch.isfinite(sample)]
        mean = float(sample.mean()) if sample.numel() else 0.0
        nonzero = sample.abs()[sample != 0]
        return (float(nonzero.median()) if nonzero.numel() else 0.0), mean

    def names(self, count):
        import inspect

        try:
            names = [p.name for p in inspect.signature(self.model.forward).parameters.values()
                     if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            names = []
        return [names[i] if i < len(names) else "input %d" % i for i in range(count)]

    # -- the lint ---------------------------------------------------------------------------
    def run(self):
        began = time.perf_counter()
        seeds = [self.seed + 7919 * k for k in range(self.SEEDS)]
        base_inputs = self.draw(seeds[0])
        base = self.forward(base_inputs)
        facts = {"seeds": len(seeds)}
        outputs = self.describe_outputs(base, base_inputs)
        # Integer outputs are compared exactly: their magnitude says nothing of an atol.
        typicals = [o["typical"] for o in outputs if o["typical"] > 0 and not o["integer"]]
        effective = min([self.atol] + [self.fraction * t for t in typicals])
        facts["effective_atol"] = effective
        other_inputs, other = None, None
        for k, seed in enumerate(seeds):
            inputs = base_inputs if k == 0 else self.draw(seed)
            outs = base if k == 0 else self.forward(inputs)
            if k == 1:
                other_inputs, other = inputs, outs
            self.trivial_answers(outputs, inputs, outs, base, effective)
        facts["outputs"] = outputs
        # What follows is judged at the atol the verifier will apply: the magnitude-aware one
        # where a trivial answer meets the declared tolerance.
        if any(o["zeros"][0] or o["constant"][0] for o in outputs):
            self.judged_atol = effective
        facts["judged_atol"] = self.judged_atol
        facts["nondeterminism"] = self.nondeterminism(base_inputs, base)
        facts["inputs"] = self.perturb(base_inputs, base, other_inputs)
        facts["ops"] = self.redundant_ops(base_inputs, base, other_inputs, other)
        facts["ms"] = (time.perf_counter() - began) * 1000
        return facts

    def nondeterminism(self, inputs, base):
        again = self.forward(inputs)
        if self.same(again, base):
            return "none"
        return ("within_tolerance" if self.all_meet(again, base, self.judged_atol)
                else "beyond_tolerance")

    def describe_outputs(self, base, inputs):
        outputs = []
        for index, out in enumerate(base):
            typical, mean = self.magnitude(out)
            passthrough = [{"input": j, "pass": [True, True]} for j, v in enumerate(inputs)
                           if isinstance(v, self.torch.Tensor) and v.numel() == out.numel()]
            outputs.append({"index": index, "name": "output %d" % index, "shape": list(out.shape),
                            "dtype": str(out.dtype).replace("torch.", ""),
                            "integer": self.words(out)[1], "typical": typical,
                            "mean": mean, "constant_across_seeds": True,
                            "zeros": [True, True], "constant": [True, True],
                            "inputs": passthrough})
        return outputs

    def trivial_answers(self, outputs, inputs, outs, base, effective):
        """One input set's outputs against every trivial answer, at both tolerances."""
        for entry, out, first in zip(outputs, outs, base):
            if out.shape != first.shape or not bool(self.torch.equal(out, first)):
                entry["constant_across_seeds"] = False
            for key, got in (("zeros", 0.0), ("constant", entry["mean"])):
                entry[key] = [entry[key][0] and self.meets(got, out, self.atol),
                              entry[key][1] and self.meets(got, out, effective)]
            for answer in entry["inputs"]:
                value = inputs[answer["input"]]
                answer["pass"] = [answer["pass"][0] and self.meets(value, out, self.atol),
                                  answer["pass"][1] and self.meets(value, out, effective)]

    def fresh_values(self, value, other, index):
        """New values for one input: the same input of another draw of get_inputs(), else its
        elements shifted along the flattened index (the same values, so the same domain)."""
        torch = self.torch
        if (other is not None and isinstance(other[index], torch.Tensor)
                and other[index].shape == value.shape and other[index].dtype == value.dtype
                and not bool(torch.equal(other[index], value))):
            return other[index]
        generator = torch.Generator().manual_seed(self.seed + index)
        return flat_roll(torch, value, generator)

    def perturb(self, base_inputs, base, other_inputs):
        torch = self.torch
        names = self.names(len(base_inputs))
        result = []
        for index, value in enumerate(base_inputs):
            entry = {"index": index, "name": names[index]}
            result.append(entry)
            if not isinstance(value, torch.Tensor):
                entry["change"] = "not_a_tensor"
                continue
            fresh = self.fresh_values(value, other_inputs, index)
            if bool(torch.equal(fresh, value)):
                entry["change"] = "not_perturbed"  # every element holds the same value
                continue
            inputs = list(base_inputs)
            inputs[index] = fresh
            outs = self.forward(inputs)
            if self.same(outs, base):
                entry["change"] = "none"
            elif self.all_meet(outs, base, self.judged_atol):
                entry["change"] = "within_tolerance"
            else:
                entry["change"] = "changes"
        return result

    def redundant_ops(self, base_inputs, base, other_inputs, other):
        """Ops that change nothing on two input sets, and ops whose removal leaves the outputs
        of two input sets within the tolerance (latest first, up to MAX_TRIALS and the time
        budget)."""
        torch = self.torch
        try:
            OpTrace = make_op_trace(torch)
        except ImportError as error:
            return {"note": "torch has no TorchFunctionMode (%s)" % error}
        first, second = OpTrace(), OpTrace()
        try:
            self.forward(base_inputs, first)
            self.forward(other_inputs if other_inputs is not None else base_inputs, second)
        except Exception as error:  # an op torch's function modes cannot trace
            return {"note": "the forward could not be traced (%s: %s)" % (
                type(error).__name__, str(error).splitlines()[0] if str(error) else "")}
        calls = first.calls
        paired = len(second.calls) == len(calls)
        noop, removable, trials = [], [], []
        for call in calls:
            if not call.get("eligible"):
                continue
            twin = second.calls[call["index"]] if paired else {}
            if call.get("unchanged") and twin.get("unchanged"):
                noop.append(call)
            else:
                trials.append(call)
        tried = 0
        for call in reversed(trials):
            if tried >= self.MAX_TRIALS or time.perf_counter() > self.deadline:
                break
            tried += 1
            if self.removable(call["index"], OpTrace, base_inputs, base, other_inputs, other):
                removable.append(call)
        strip = lambda c: {"index": c["index"], "name": c["name"], "after": c["after"]}
        return {"recorded": len(calls), "eligible": len(noop) + len(trials),
                "tried": tried, "untried": len(trials) - tried,
                "noop": [strip(c) for c in noop], "removable": [strip(c) for c in removable]}

    def removable(self, index, OpTrace, base_inputs, base, other_inputs, other):
        try:
            if not self.all_meet(self.forward(base_inputs, OpTrace(index)), base,
                                 self.judged_atol):
                return False
            if other_inputs is None:
                return True
            return self.all_meet(self.forward(other_inputs, OpTrace(index)), other,
                                 self.judged_atol)
        except Exception:  # without the op the forward fails: it is needed
            return False


# -- the audit of a correct candidate (the "dtypes", "profile" and "replay" requests; -------
# -- docs/kernelbench.md, "Audit") ----------------------------------------------------------


def one_word(value):
    """Compact JSON without a space: a reply's words are split on spaces, and kernel names hold
    some ("void k(float const*)"); inside a JSON string \\u0020 reads back as a space."""
    return json.dumps(value, separators=(",", ":")).replace(" ", "\\u0020")


def first_line(error):
    text = str(error)
    return "%s: %s" % (type(error).__name__, text.splitlines()[0][:200] if text else "")


def tensors_in(torch, value):
    """The tensors of a value, through lists, tuples and dicts."""
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from tensors_in(torch, item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from tensors_in(torch, item)


def storage_of(tensor):
    try:
        return tensor.untyped_storage().data_ptr()
    except AttributeError:  # torch before 2.0
        return tensor.storage().data_ptr()


class PrecisionGuard:
    """Every process computes fp32 as fp32: TF32 off for cuBLAS and cuDNN and the float32
    matmul precision "highest", set through torch._C functions taken before any candidate code
    runs, and set again before each call. A setting found changed before a call (by the
    module's import or an earlier call) or after one (by the call) is kept as evidence."""

    SETTINGS = (  # getter, setter, value, what it governs
        ("_get_cublas_allow_tf32", "_set_cublas_allow_tf32", False, "TF32 for cuBLAS matmuls"),
        ("_get_cudnn_allow_tf32", "_set_cudnn_allow_tf32", False, "TF32 for cuDNN convolutions"),
        ("_get_float32_matmul_precision", "_set_float32_matmul_precision", "highest",
         "the float32 matmul precision"),
    )

    def __init__(self, torch):
        self.settings = []
        self.found = []
        for getter, setter, value, meaning in self.SETTINGS:
            get = getattr(torch._C, getter, None)
            put = getattr(torch._C, setter, None)
            if get is None or put is None:
                continue
            try:
                put(value)
                # What this torch reads back after the setting: the value to hold.
                self.settings.append((get, put, get(), meaning))
            except Exception:
                continue

    def apply(self):
        for _, put, value, _ in self.settings:
            try:
                put(value)
            except Exception:
                pass

    def check(self, when):
        for get, _, value, meaning in self.settings:
            try:
                now = get()
            except Exception:
                continue
            note = "%s was %r %s" % (meaning, now, when)
            if now != value and note not in self.found and len(self.found) < 8:
                self.found.append(note)


def dtype_names(torch, value, into):
    for tensor in tensors_in(torch, value):
        into.add(str(tensor.dtype).replace("torch.", ""))


def op_name(func):
    """"aten.mm.default": the op's schema name and overload, stable across torch versions."""
    schema = getattr(func, "_schema", None)
    if schema is None:
        return str(func)
    return "%s.%s" % (schema.name.replace("::", "."), getattr(schema, "overload_name", "") or "default")


def record_ops(torch, call):
    """call() under a TorchDispatchMode: every ATen op it runs, also those its C++ runs through
    the dispatcher, with the dtypes of its tensors -> [[op, [dtypes in], [dtypes out], count]]."""
    from torch.utils._python_dispatch import TorchDispatchMode

    seen = {}

    class OpRecorder(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            ins, outs = set(), set()
            dtype_names(torch, (args, kwargs), ins)
            dtype_names(torch, out, outs)
            key = (op_name(func), tuple(sorted(ins)), tuple(sorted(outs)))
            seen[key] = seen.get(key, 0) + 1
            return out

    with OpRecorder():
        call()
    return [[op, list(ins), list(outs), n] for (op, ins, outs), n in sorted(seen.items())][:400]


def kernel_totals(path, limit=40):
    """GPU time by name in the Chrome trace torch.profiler wrote: kernels, copies and fills,
    the largest first; the time of the names beyond `limit` is summed apart."""
    with open(path, encoding="utf-8") as handle:
        trace = json.load(handle)
    events = trace.get("traceEvents", []) if isinstance(trace, dict) else trace
    kinds = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}
    totals = {}
    for event in events:
        kind = kinds.get(str(event.get("cat", "")).lower()) if isinstance(event, dict) else None
        if kind is None or "dur" not in event:
            continue
        name = str(event.get("name", ""))[:300]
        entry = totals.setdefault(name, {"name": name, "cat": kind, "us": 0.0, "n": 0})
        entry["us"] += float(event.get("dur") or 0.0)
        entry["n"] += 1
    ranked = sorted(totals.values(), key=lambda e: -e["us"])
    return ranked[:limit], sum(e["us"] for e in ranked[limit:]), sum(e["us"] for e in ranked)


class ExtensionWatch:
    """The modules torch.utils.cpp_extension's load_inline (and load) return in this process,
    caught by wrapping them before the candidate's module is imported."""

    def __init__(self):
        self.modules = []

    def install(self):
        try:
            import torch.utils.cpp_extension as cpp
        except Exception:
            return
        for name in ("load_inline", "load"):
            original = getattr(cpp, name, None)
            if original is not None:
                setattr(cpp, name, self.wrap(original))

    def wrap(self, original):
        import functools

        @functools.wraps(original)
        def watched(*args, **kwargs):
            module = original(*args, **kwargs)
            if module is not None and not any(module is m for m in self.modules):
                self.modules.append(module)
            return module

        return watched


class Neutraliser:
    """Inside `with`: every function of the candidate's extension modules, wherever the
    candidate can reach it (the module's attributes, its own module's globals, its nn.Modules'
    attributes), calls the original and then undoes its work: tensor arguments it changed, and
    tensors it returned other than unchanged arguments passed back, are overwritten with seeded
    noise (integers with zeros, so indices stay valid; booleans inverted). Outputs that still
    come out the same were not made by its kernels."""

    def __init__(self, torch, modules, holders, seed):
        self.torch = torch
        self.modules = modules
        self.holders = holders
        self.generator = torch.Generator().manual_seed(int(seed))
        self.calls = 0
        self.failed = 0
        self.called = set()  # the names of the functions the forward called
        self.undo = []

    def __enter__(self):
        self.neutralise_jit_launches()
        wrapped = {}
        for module in self.modules:
            for name in dir(module):
                value = getattr(module, name, None)
                if name.startswith("__") or type(value).__name__ != "builtin_function_or_method":
                    continue
                wrapped.setdefault(id(value), self.wrap(value))
                self.undo.append((lambda m=module, n=name, v=value: setattr(m, n, v)))
                setattr(module, name, wrapped[id(value)])
        for holder in self.holders:
            for key, value in list(holder.items()):
                if id(value) in wrapped and value is not wrapped[id(value)]:
                    self.undo.append((lambda h=holder, k=key, v=value: h.__setitem__(k, v)))
                    holder[key] = wrapped[id(value)]
        return self

    def neutralise_jit_launches(self):
        """Every launch of a Triton kernel, however the candidate reaches the kernel (a global,
        a list, a closure), goes through JITFunction.run or a compiled kernel's launcher: both
        are replaced for the class, so no launch escapes."""
        triton_jit = sys.modules.get("triton.runtime.jit")
        if triton_jit is not None and hasattr(triton_jit, "JITFunction"):
            cls = triton_jit.JITFunction
            original = cls.run
            self.undo.append(lambda c=cls, o=original: setattr(c, "run", o))
            cls.run = self.wrap(original, lambda args: getattr(args[0], "__name__", "kernel"))
        compiler = sys.modules.get("triton.compiler.compiler")
        compiled = getattr(compiler, "CompiledKernel", None)
        if compiled is not None and hasattr(compiled, "__getitem__"):
            cls = compiled
            original = cls.__getitem__
            self.undo.append(lambda c=cls, o=original: setattr(c, "__getitem__", o))
            wrap = self.wrap

            def launcher(kernel, grid):
                return wrap(original(kernel, grid), lambda args: getattr(kernel, "name", "kernel"))

            cls.__getitem__ = launcher

    def __exit__(self, *exc):
        for undo in reversed(self.undo):
            undo()
        self.undo = []
        return False

    def wrap(self, function, name_of=None):
        torch = self.torch

        def neutralised(*args, **kwargs):
            self.calls += 1
            self.called.add(name_of(args) if name_of else getattr(function, "__name__", "?"))
            before = [(t, t.clone()) for t in tensors_in(torch, (args, kwargs))]
            result = function(*args, **kwargs)
            passed_back = set()
            for tensor, copy in before:
                if bool(torch.equal(tensor, copy)):
                    passed_back.add(storage_of(tensor))
                else:
                    self.noise(tensor)
            for tensor in tensors_in(torch, result):
                if storage_of(tensor) not in passed_back:
                    self.noise(tensor)
            return result

        return neutralised

    def noise(self, tensor):
        torch = self.torch
        try:
            if tensor.dtype == torch.bool:
                tensor.logical_not_()
            elif tensor.dtype.is_floating_point or tensor.dtype.is_complex:
                values = torch.randn(tuple(tensor.shape), generator=self.generator)
                tensor.copy_(values.to(tensor.device))
            else:
                tensor.zero_()
        except RuntimeError:  # an expanded or otherwise unwritable tensor
            self.failed += 1


def count_files(folder):
    if not folder or not os.path.isdir(folder):
        return 0
    return sum(len(files) for _, _, files in os.walk(folder))


def is_compile_error(error):
    """A JIT compiler's error (Triton's CompilationError and its kin), not the forward's."""
    kinds = [type(error)] + list(type(error).__mro__)
    return any("Compil" in k.__name__ or k.__module__.startswith("triton.compiler")
               for k in kinds)


def autotune_choices(model):
    """The configuration each autotuned kernel of the candidate chose: Triton's Autotuner
    objects reachable from the candidate's module and its nn.Modules."""
    holders = [vars(sys.modules["kiln_candidate"])] if "kiln_candidate" in sys.modules else []
    holders += [vars(m) for m in model.modules()]
    choices = {}
    for holder in holders:
        for name, value in list(holder.items()):
            best = getattr(value, "best_config", None) if hasattr(value, "configs") else None
            if best is not None:
                fn = getattr(value, "fn", None)
                label = getattr(fn, "__name__", None) or getattr(getattr(fn, "fn", None),
                                                              "__name__", name)
                choices[label] = str(best)
    return choices


class Worker:
    def __init__(self, role, channel, device, jit=False, defer_device=False):
        self.role = role
        self.device = device
        self.jit = jit  # the candidate's kernels compile on its first call ("warm")
        self.defer_device = defer_device  # the device opens on a "device" request
        self.opened = False  # the device open and writes confined (do_device, or at start)
        self.timer = None  # CpuTimer or GpuTimer, once the device is open
        self.warmed = False
        self.channel = channel
        self.torch = None
        self.model = None
        self.compiled = None
        self.reference = None
        self.inputs = None  # the inputs of the last "inputs" / "call"
        self.kept = []  # earlier timed inputs, kept alive so addresses are not recycled
        self.confinement = Confinement()
        self.guard = None  # PrecisionGuard, once torch is imported
        self.watch = ExtensionWatch()  # the candidate's load_inline modules
        self.inline = None  # Kiln's build of load_inline extensions (kiln_inline_build.py)

    # -- set-up ---------------------------------------------------------------------------
    def start(self):
        phases = {"python": STARTED_MS}
        begun = time.perf_counter()
        try:
            import torch
        except Exception as error:  # no torch: the engine says how to install it
            self.channel.reply("err torch unavailable: %s" % error)
            return False
        phases["torch"] = (time.perf_counter() - begun) * 1000
        self.torch = torch
        self.codec = TensorCodec(torch, self.channel)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        self.guard = PrecisionGuard(torch)
        if self.role == "candidate":
            begun = time.perf_counter()
            self.warm_op_recorder()
            phases["op_recorder"] = (time.perf_counter() - begun) * 1000
        if os.environ.get("KILN_INLINE_BUILD") == "kiln" and self.role in ("build", "candidate"):
            begun = time.perf_counter()
            from kiln_inline_build import FastInlineBuild

            self.inline = FastInlineBuild(os.environ.get("KILN_INLINE_HEADERS"),
                                          may_build=self.role == "build")
            self.inline.install()
            phases["inline_build"] = (time.perf_counter() - begun) * 1000
        device = "deferred" if self.defer_device else self.open_device()
        if device.startswith("err "):
            self.channel.reply(device)
            return False
        self.channel.map()
        times = os.times()
        phases["cpu"] = (times.user + times.system) * 1000
        phases["total"] = ms_since_exec()
        # Where the start's time went, as the last word (the engine keeps it apart).
        self.channel.reply("ready torch=%s cuda=%s arch=%s %s start_ms=%s" % (
            torch.__version__, torch.version.cuda, device, self.confinement.describe(self.role),
            ",".join("%s:%d" % (name, round(ms)) for name, ms in phases.items())))
        return True

    def warm_op_recorder(self):
        """The audit's op record on two numbers, before any candidate code: a dispatch mode's
        first use imports some 900 modules (dynamo, sympy) on torch 2, 3-4 s that would
        otherwise fall inside the audit. No GPU is touched."""
        try:
            record_ops(self.torch, lambda: self.torch.ones(2) + 1)
        except Exception:  # a torch without dispatch modes: the audit says so itself
            pass

    def open_device(self):
        """The device's timer and, on a GPU, the CUDA context, then writes confined (Landlock
        only once CUDA has opened its device files): its architecture, "none" for a build, or
        "err ..."."""
        torch = self.torch
        if self.device == "cpu":
            self.timer = CpuTimer(torch)
            device = "cpu"
        elif self.role == "build":
            device = "none"
        elif not torch.cuda.is_available():
            return "err torch sees no CUDA device (torch %s)" % torch.__version__
        else:
            torch.cuda.init()
            self.timer = GpuTimer(torch)
            device = "%d.%d" % torch.cuda.get_device_capability()
        self.confinement.confine_writes()
        self.opened = True
        return device

    def do_device(self, extensions=""):
        """A process started with --defer-device 1 (a candidate's or a build's, possibly
        started ahead, before its evaluation knew the source): the extension folder, where
        there is one, becomes TORCH_EXTENSIONS_DIR and writable; the device opens (none for a
        build), then writes are confined."""
        if self.opened:
            return "err the device is open already"
        if extensions:
            os.environ["TORCH_EXTENSIONS_DIR"] = extensions
            os.environ["KILN_WRITABLE"] = ":".join(
                w for w in (os.environ.get("KILN_WRITABLE", ""), extensions) if w)
        device = self.open_device()
        if device.startswith("err "):
            return device
        return "ok arch=%s %s" % (device, self.confinement.describe(self.role))

    # -- requests -------------------------------------------------------------------------
    # Requests that run the candidate's code: a JIT candidate's run only after its warm-up, the
    # one call made while the process may still start the compilers.
    CANDIDATE_CODE = ("call", "time", "dtypes", "profile", "replay")

    def handle(self, words):
        name = words[0]
        handler = getattr(self, "do_" + name, None)
        if handler is None:
            return "err unknown request %s" % name
        if not self.opened and name not in ("device", "map"):
            return "err %s before the device is open" % name
        if self.jit and not self.warmed and name in self.CANDIDATE_CODE:
            return "err %s before warm: a JIT candidate compiles on its warm-up call first" % name
        try:
            return handler(*words[1:])
        except BufferNeeded as need:
            return "err need %d" % need.end
        except Exception as error:
            traceback.print_exc(file=sys.stderr)
            return "err %s: %s" % (type(error).__name__, str(error).splitlines()[0] if str(error) else "")

    def do_map(self):
        return "ok %d" % self.channel.map()

    def do_build(self, path):
        """Imports the candidate once, so that its load_inline builds. With Kiln's fast build
        (kiln_inline_build.py) the precompiled headers are made first where missing, and the
        process then gives up writing them before any candidate code runs. The reply's JSON
        says how each extension was built."""
        began = time.perf_counter()
        report = {}
        if self.inline is not None:
            self.prepare_inline(report)
        load_module(path, "kiln_candidate")
        if self.inline is not None:
            report["builds"] = self.inline.records
        return "ok %d %s" % (int((time.perf_counter() - began) * 1000), one_word(report))

    def prepare_inline(self, report):
        """The shared headers, made where missing, then out of this process's reach: without
        Landlock (or with a writable folder above them) they are not used at all, since a
        candidate could otherwise change what every later one is compiled with."""
        headers = os.environ.get("KILN_INLINE_HEADERS", "")
        if not headers or self.confinement.landlock == 0:
            self.inline.disable("Landlock is not enforced here: the shared headers are not used")
        else:
            try:
                report["headers_made"] = self.inline.prepare()
            except Exception as error:  # a missing compiler, a full disk: load_inline builds
                traceback.print_exc(file=sys.stderr)
                self.inline.disable("the headers could not be made: %s" % first_line(error))
            if not self.confinement.confine_writes(excluding=headers):
                self.inline.disable("the headers' folder could not be made read-only")

    def do_load(self, path, seed, init_json="null"):
        torch = self.torch
        began = time.perf_counter()
        if self.role == "reference":
            self.reference = load_module(path, "kiln_reference")
            init = list(self.reference.get_init_inputs())
            json.dumps(init)  # the engine passes them on: numbers, lists, strings only
            torch.manual_seed(int(seed))
            self.model = self.reference.Model(*init).to(self.device)
        else:
            self.watch.install()
            try:
                module = load_module(path, "kiln_candidate")
            except Exception as error:
                if not self.jit:
                    raise
                # No build process ran the import of a JIT language's module: its errors are
                # the candidate's compile errors, as a failed load_inline build's are.
                traceback.print_exc(file=sys.stderr)
                return "err compile: %s: %s" % (type(error).__name__, first_line(error))
            init = json.loads(init_json)
            torch.manual_seed(int(seed))
            self.model = module.ModelNew(*init).to(self.device)
            self.timer.synchronize()
            if not self.jit:
                self.confinement.forbid_processes()
        ms = int((time.perf_counter() - began) * 1000)
        # How the candidate's extensions were loaded: Kiln's build, or load_inline's.
        loaded = one_word(self.inline.records) if self.inline is not None else "[]"
        return "ok %d %s seccomp=%d %s" % (ms, json.dumps(init, separators=(",", ":")),
                                           self.confinement.seccomp, loaded)

    def forward(self, model, inputs):
        self.before_call()
        with self.torch.no_grad():
            outputs = as_tuple(model(*inputs))
        self.guard.check("after a call")
        return outputs

    def before_call(self):
        """The precision settings checked and set again outside the call (PrecisionGuard)."""
        self.guard.check("before a call")
        self.guard.apply()

    def do_inputs(self, seed, offset, spread="0"):
        """Reference: inputs drawn with get_inputs() under the seed, and its outputs. spread=1
        scales a seeded 1 % of every floating-point input's elements by 8 (their sign, and so
        the problem's domain, kept): an answer that is a constant or reads a subsample then
        misses it, while the distribution of get_inputs() alone may hide both."""
        torch = self.torch
        inputs = draw_inputs(torch, self.reference, int(seed), self.device)
        if spread == "1":
            generator = torch.Generator().manual_seed(int(seed) ^ 0x5EED)
            inputs = [spread_values(torch, v, generator) for v in inputs]
        self.inputs = inputs
        # Written before the forward: a Model that changes its inputs in place must not hand
        # the candidate the changed values.
        inputs, end = self.codec.write_inputs(self.inputs, int(offset))
        began = time.perf_counter()
        outputs = self.forward(self.model, self.inputs)
        self.timer.synchronize()
        ms = (time.perf_counter() - began) * 1000
        outs, end = self.codec.write_outputs(outputs, end)
        return "ok " + json.dumps({"inputs": inputs, "outputs": outs, "end": end, "ms": ms},
                                  separators=(",", ":"))

    def prefill(self, outputs):
        """Free allocator blocks of each expected output's size hold the sentinel, so an output
        the candidate allocates but never writes reads as unwritten."""
        torch = self.torch
        blocks = []
        for entry in outputs:
            count = max(1, (entry["bytes"] + 3) // 4)
            for _ in range(3):
                block = torch.empty(count, dtype=torch.int32, device=self.device)
                block.fill_(SENTINEL_WORD - (1 << 32) if SENTINEL_WORD >= (1 << 31) else SENTINEL_WORD)
                blocks.append(block)
        self.timer.synchronize()
        del blocks

    def do_warm(self, spec_json):
        """JIT candidate: one untimed forward on the inputs the engine placed in the buffer, so
        its kernels compile (and autotune) now, while the compilers may still run; then the
        process loses exec. Compile errors say "compile:"; the autotuners' choices and what the
        process's own compile cache held before and after come back."""
        torch = self.torch
        spec = json.loads(spec_json)
        inputs = self.codec.read_inputs(spec["inputs"], self.device)
        cache = os.environ.get("TRITON_CACHE_DIR", "")
        before = count_files(cache)
        began = time.perf_counter()
        try:
            with torch.no_grad():
                self.model(*inputs)
            self.timer.synchronize()
        except Exception as error:
            traceback.print_exc(file=sys.stderr)
            kind = "compile" if is_compile_error(error) else "forward"
            return "err %s: %s: %s" % (kind, type(error).__name__, first_line(error))
        ms = (time.perf_counter() - began) * 1000
        self.warmed = True
        self.confinement.forbid_processes()
        return "ok " + one_word({"ms": ms, "autotune": autotune_choices(self.model),
                                 "cache": cache, "cache_files_before": before,
                                 "cache_files_after": count_files(cache),
                                 "seccomp": self.confinement.seccomp})

    def do_call(self, spec_json):
        """Candidate: the inputs the engine placed in the buffer, the call, its outputs and the
        inputs as the call left them. "same": new values written into the previous call's
        tensors (a cache keyed on addresses then answers with stale outputs)."""
        torch = self.torch
        spec = json.loads(spec_json)
        fresh = self.codec.read_inputs(spec["inputs"], self.device)
        if spec.get("same") and self.inputs is not None:
            for i, (old, new) in enumerate(zip(self.inputs, fresh)):
                if isinstance(old, torch.Tensor):
                    old.copy_(new)
                else:
                    self.inputs[i] = new
        else:
            self.inputs = fresh
        self.prefill(spec["outputs"])
        began = time.perf_counter()
        outputs = self.forward(self.model, self.inputs)
        self.timer.synchronize()
        ms = (time.perf_counter() - began) * 1000
        bad = [o for o in outputs if not isinstance(o, torch.Tensor)]
        if bad:
            return "err the forward returned %s, not tensors" % type(bad[0]).__name__
        outs, end = self.codec.write_outputs(outputs, spec["at"])
        after, end = self.codec.write_inputs(self.inputs, end)
        return "ok " + json.dumps({"outputs": outs, "after": after, "ms": ms},
                                  separators=(",", ":"))

    def do_compile(self):
        """Reference: torch.compile of the Model, warmed up on the current inputs."""
        torch = self.torch
        began = time.perf_counter()
        try:
            self.compiled = torch.compile(self.model)
            self.forward(self.compiled, self.inputs)
            self.timer.synchronize()
        except Exception as error:
            self.compiled = None
            traceback.print_exc(file=sys.stderr)
            return "ok unavailable %s" % type(error).__name__
        return "ok %d" % int((time.perf_counter() - began) * 1000)

    def do_time(self, which, count, seed, offset):
        """Timed calls on fresh inputs derived from the current ones; each answer is
        <event-ns>/<wall-ns>, then the preparation time. The last call's outputs go to the
        buffer at offset, so the engine can check them against the reference's."""
        torch = self.torch
        model = {"eager": self.model, "compiled": self.compiled, "candidate": self.model}[which]
        if model is None:
            return "err no %s model" % which
        began_request = CLOCK()
        generator = torch.Generator().manual_seed(int(seed))
        self.kept = []
        keep = self.sets_that_fit(int(count))
        times = []
        prep = 0
        outputs = ()
        for _ in range(int(count)):
            began = CLOCK()
            fresh = [flat_roll(torch, v, generator) if isinstance(v, torch.Tensor) else v
                     for v in self.inputs]
            self.kept.append(fresh)
            del self.kept[:-keep]
            prep += CLOCK() - began
            self.before_call()
            with torch.no_grad():
                outputs, event, wall = self.timer.time(model, fresh)
            self.guard.check("after a timed call")
            times.append("%d/%d" % (event, wall))
        outs, _ = self.codec.write_outputs(as_tuple(outputs), int(offset))
        self.kept = self.kept[-2:]
        total = CLOCK() - began_request
        return "ok %s prep=%d total=%d %s" % (" ".join(times), prep, total,
                                             json.dumps(outs, separators=(",", ":")))

    def sets_that_fit(self, wanted):
        """How many fresh input sets may be alive at once (each timed call gets its own, and
        earlier ones are kept so that their addresses are not handed out again): all `wanted`
        while they take under a quarter of the GPU's free memory, fewer for a large problem,
        never under one."""
        torch = self.torch
        if self.device == "cpu":
            return max(1, wanted)
        size = sum(v.numel() * v.element_size() for v in self.inputs
                   if isinstance(v, torch.Tensor))
        if size == 0:
            return max(1, wanted)
        free, _ = torch.cuda.mem_get_info()
        return max(1, min(wanted, int(free // 4 // size)))

    def do_dtypes(self):
        """Both roles: the forward once more on copies of the current inputs under an op
        recorder, and the precision settings PrecisionGuard found changed so far."""
        torch = self.torch
        inputs = [v.clone() if isinstance(v, torch.Tensor) else v for v in self.inputs]
        try:
            ops = record_ops(torch, lambda: self.forward(self.model, inputs))
            self.timer.synchronize()
        except Exception as error:  # a torch without dispatch modes, or a forward they break
            traceback.print_exc(file=sys.stderr)
            return "ok " + one_word({"unavailable": first_line(error), "settings": self.guard.found})
        return "ok " + one_word({"ops": ops, "settings": self.guard.found})

    def do_profile(self, count, seed):
        """Candidate on a GPU: `count` forward calls on fresh inputs (made as for timed calls,
        before the trace starts) under torch.profiler; GPU time by kernel, copy and fill."""
        torch = self.torch
        if self.device == "cpu":
            return "ok " + one_word({"skipped": "torch's CPU device has no kernel trace"})
        generator = torch.Generator().manual_seed(int(seed))
        made = [[flat_roll(torch, v, generator) if isinstance(v, torch.Tensor) else v
                 for v in self.inputs] for _ in range(self.sets_that_fit(int(count)))]
        batches = [made[i % len(made)] for i in range(int(count))]
        path = os.path.join(os.environ.get("KILN_WORKDIR", "."), "kiln-profile.json")
        try:
            from torch.profiler import ProfilerActivity, profile

            self.timer.synchronize()
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as trace:
                for fresh in batches:
                    self.forward(self.model, fresh)
                self.timer.synchronize()
            trace.export_chrome_trace(path)
            kernels, rest, total = kernel_totals(path)
        except Exception as error:  # no CUPTI, or a profiler this sandbox refuses
            traceback.print_exc(file=sys.stderr)
            return "ok " + one_word({"unavailable": first_line(error)})
        finally:
            if os.path.exists(path):
                os.remove(path)
        return "ok " + one_word({"kernels": kernels, "rest_us": rest, "total_us": total,
                                 "calls": int(count)})

    def extension_holders(self):
        """The candidate's extension modules (from load_inline, or found among its values),
        and the dicts through which its code reaches their functions."""
        import types

        holders = [vars(m) for m in self.model.modules()]
        candidate = sys.modules.get("kiln_candidate")
        if candidate is not None:
            holders.append(vars(candidate))
        folder = os.path.realpath(os.environ.get("TORCH_EXTENSIONS_DIR", "") or "/nonexistent")
        modules = list(self.watch.modules)
        for holder in holders:
            for value in list(holder.values()):
                path = getattr(value, "__file__", None) if isinstance(value, types.ModuleType) else None
                if (path and os.path.realpath(path).startswith(folder + os.sep)
                        and not any(value is m for m in modules)):
                    modules.append(value)
        return modules, holders

    def do_replay(self, seed, offset):
        """Candidate: the forward on copies of the current inputs, then again with its
        extensions' functions neutralised (Neutraliser); both outputs go to the buffer at
        offset. replay is null when the neutralised forward raised (its error says why)."""
        torch = self.torch

        def copies():
            return [v.clone() if isinstance(v, torch.Tensor) else v for v in self.inputs]

        normal = [o.detach().clone() if isinstance(o, torch.Tensor) else o
                  for o in self.forward(self.model, copies())]
        if any(not isinstance(o, torch.Tensor) for o in normal):
            return "err the forward returned something other than tensors"
        modules, holders = self.extension_holders()
        neutraliser = Neutraliser(torch, modules, holders, seed)
        replay, error = None, None
        # An output the forward allocates (torch.empty) and a kernel fills would otherwise get
        # the block the first forward's output just left, holding the same answer: the
        # neutraliser would see a tensor its kernel did not change, and not overwrite it.
        self.prefill([{"bytes": o.numel() * o.element_size()} for o in normal])
        try:
            with neutraliser:
                replay = self.forward(self.model, copies())
            self.timer.synchronize()
        except Exception as caught:
            traceback.print_exc(file=sys.stderr)
            replay, error = None, first_line(caught)
        normal_entries, end = self.codec.write_outputs(normal, int(offset))
        replay_entries = None
        if replay is not None and all(isinstance(o, torch.Tensor) for o in replay):
            replay_entries, end = self.codec.write_outputs(replay, end)
        return "ok " + one_word({"normal": normal_entries, "replay": replay_entries,
                                 "error": error, "calls": neutraliser.calls,
                                 "functions": sorted(neutraliser.called)[:20],
                                 "modules": len(modules), "unwritable": neutraliser.failed})

    def do_lint(self, seed, atol, rtol, fraction, budget_s="120"):
        """Reference: the loaded problem's lint facts (ProblemLint), one JSON document."""
        if self.reference is None:
            return "err load a problem first"
        lint = ProblemLint(self, int(seed), float(atol), float(rtol), float(fraction),
                           float(budget_s))
        facts = lint.run()
        if self.device != "cpu":
            self.torch.cuda.empty_cache()
        return "ok " + json.dumps(facts, separators=(",", ":"))

    def serve(self):
        for line in self.channel.requests:
            words = line.split()
            if words and words[0] == "call":  # one JSON document (compact: no spaces)
                words = ["call", line.strip()[5:]]
            elif words and words[0] == "device" and len(words) > 1:  # a path, spaces and all
                words = ["device", line.strip()[7:]]
            if not words:
                continue
            if words[0] == "quit":
                self.channel.reply("ok")
                return
            self.channel.reply(self.handle(words))


def check_syntax(paths):
    """--syntax FILE...: one JSON line per file, whether Python can parse it (no torch needed;
    the importer uses it to skip broken problem files)."""
    import ast

    for path in paths:
        try:
            with open(path, encoding="utf-8") as handle:
                ast.parse(handle.read(), filename=path)
            print(json.dumps({"file": path, "ok": True}))
        except (SyntaxError, ValueError, UnicodeDecodeError, OSError) as error:
            line = getattr(error, "lineno", None)
            print(json.dumps({"file": path, "ok": False, "line": line, "error": str(error)}))
    return 0


def main(argv):
    if len(argv) > 1 and argv[1] == "--syntax":
        return check_syntax(argv[2:])
    if sys.pycache_prefix and Confinement().lib is None:
        # No Landlock from here on: the shared bytecode is not read (the interpreter, run with
        # -B, compiles in memory and writes nothing), so no candidate can reach it either.
        sys.pycache_prefix = None
    role = argv[argv.index("--role") + 1] if "--role" in argv else "candidate"
    device = argv[argv.index("--device") + 1] if "--device" in argv else "cuda"
    jit = "--jit" in argv and argv[argv.index("--jit") + 1] == "1"
    defer = "--defer-device" in argv and argv[argv.index("--defer-device") + 1] == "1"
    channel = Channel()
    worker = Worker(role, channel, device, jit, defer)
    if not worker.start():
        return 90
    worker.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
