# kiln_torch_worker.py: the Python side of Kiln's PyTorch sandbox (protocol.h, "PyTorch
# sandbox"). kiln-torch-sandbox isolates the process and then runs this file with the user's
# python3. One role per process:
#   reference  the problem's Model: inputs, expected outputs, eager and torch.compile timings
#   candidate  a ModelNew: outputs and timings of the untrusted module
#   build      imports a candidate module once so that load_inline compiles its extension
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

    def write_raw(self, tensor, offset):
        data = tensor.detach().contiguous().cpu().view(-1).view(self.torch.uint8).numpy()
        self.need(offset + data.nbytes)
        self.channel.buffer[offset : offset + data.nbytes] = data.tobytes()
        return data.nbytes

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
            start, end = entry["offset"], entry["offset"] + entry["bytes"]
            self.need(end)
            raw = bytearray(self.channel.buffer[start:end])
            flat = torch.frombuffer(raw, dtype=torch.uint8) if raw else torch.empty(0, dtype=torch.uint8)
            values.append(flat.view(dtype).reshape(entry["shape"]).to(device))
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

    def confine_writes(self):
        if self.lib is not None:
            self.landlock = self.lib.kiln_confine_writes(
                os.environ.get("KILN_WORKDIR", ".").encode(),
                os.environ.get("KILN_WRITABLE", "").encode())
        return self.landlock

    def forbid_processes(self):
        if self.lib is not None:
            self.seccomp = self.lib.kiln_forbid_processes()
        return self.seccomp

    def describe(self, role):
        words = [w for w in os.environ.get("KILN_ISOLATION", "").split() if not w.startswith("landlock=")]
        words.append("landlock=%d" % self.landlock)
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
    positions = torch.randint(0, flat.numel(), (count,), generator=generator)
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


class Worker:
    def __init__(self, role, channel, device):
        self.role = role
        self.device = device
        self.channel = channel
        self.torch = None
        self.model = None
        self.compiled = None
        self.reference = None
        self.inputs = None  # the inputs of the last "inputs" / "call"
        self.kept = []  # earlier timed inputs, kept alive so addresses are not recycled
        self.confinement = Confinement()

    # -- set-up ---------------------------------------------------------------------------
    def start(self):
        try:
            import torch
        except Exception as error:  # no torch: the engine says how to install it
            self.channel.reply("err torch unavailable: %s" % error)
            return False
        self.torch = torch
        self.codec = TensorCodec(torch, self.channel)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        device = "none"
        if self.device == "cpu":
            self.timer = CpuTimer(torch)
            device = "cpu"
        elif self.role != "build":
            if not torch.cuda.is_available():
                self.channel.reply("err torch sees no CUDA device (torch %s)" % torch.__version__)
                return False
            torch.cuda.init()
            self.timer = GpuTimer(torch)
            major, minor = torch.cuda.get_device_capability()
            device = "%d.%d" % (major, minor)
        self.confinement.confine_writes()
        self.channel.map()
        self.channel.reply("ready torch=%s cuda=%s arch=%s %s" % (
            torch.__version__, torch.version.cuda, device, self.confinement.describe(self.role)))
        return True

    # -- requests -------------------------------------------------------------------------
    def handle(self, words):
        name = words[0]
        handler = getattr(self, "do_" + name, None)
        if handler is None:
            return "err unknown request %s" % name
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
        began = time.perf_counter()
        load_module(path, "kiln_candidate")
        return "ok %d" % int((time.perf_counter() - began) * 1000)

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
            module = load_module(path, "kiln_candidate")
            init = json.loads(init_json)
            torch.manual_seed(int(seed))
            self.model = module.ModelNew(*init).to(self.device)
            self.timer.synchronize()
            self.confinement.forbid_processes()
        ms = int((time.perf_counter() - began) * 1000)
        return "ok %d %s seccomp=%d" % (ms, json.dumps(init, separators=(",", ":")),
                                        self.confinement.seccomp)

    def forward(self, model, inputs):
        with self.torch.no_grad():
            return as_tuple(model(*inputs))

    def do_inputs(self, seed, offset, spread="0"):
        """Reference: inputs drawn with get_inputs() under the seed, and its outputs. spread=1
        scales a seeded 1 % of every floating-point input's elements by 8 (their sign, and so
        the problem's domain, kept): an answer that is a constant or reads a subsample then
        misses it, while the distribution of get_inputs() alone may hide both."""
        torch = self.torch
        torch.manual_seed(int(seed))
        cpu = list(self.reference.get_inputs())
        if spread == "1":
            generator = torch.Generator().manual_seed(int(seed) ^ 0x5EED)
            cpu = [spread_values(torch, v, generator) for v in cpu]
        self.inputs = [v.to(self.device) if isinstance(v, torch.Tensor) else v for v in cpu]
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
        times = []
        prep = 0
        outputs = ()
        for _ in range(int(count)):
            began = CLOCK()
            fresh = [flat_roll(torch, v, generator) if isinstance(v, torch.Tensor) else v
                     for v in self.inputs]
            self.kept.append(fresh)
            prep += CLOCK() - began
            with torch.no_grad():
                outputs, event, wall = self.timer.time(model, fresh)
            times.append("%d/%d" % (event, wall))
        outs, _ = self.codec.write_outputs(as_tuple(outputs), int(offset))
        self.kept = self.kept[-2:]
        total = CLOCK() - began_request
        return "ok %s prep=%d total=%d %s" % (" ".join(times), prep, total,
                                             json.dumps(outs, separators=(",", ":")))

    def serve(self):
        for line in self.channel.requests:
            words = line.split()
            if words and words[0] == "call":  # one JSON document (compact: no spaces)
                words = ["call", line.strip()[5:]]
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
    role = argv[argv.index("--role") + 1] if "--role" in argv else "candidate"
    device = argv[argv.index("--device") + 1] if "--device" in argv else "cuda"
    channel = Channel()
    worker = Worker(role, channel, device)
    if not worker.start():
        return 90
    worker.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
