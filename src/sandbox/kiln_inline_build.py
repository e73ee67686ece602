# kiln_inline_build.py: Kiln's build of a candidate's load_inline extension, in place of
# torch.utils.cpp_extension.load_inline (docs/kernelbench.md, "Inline-CUDA builds").
#
# load_inline compiles the CUDA source with nvcc including the torch headers, and pybind11
# bindings with g++: about 40 s on a GPU machine, nearly all of it in those headers. Here the
# CUDA source is cut in two (kiln_inline_split.py): the device part compiles with nvcc alone,
# the host part with g++ against headers Kiln precompiled (kiln_inline_launch.h); the C++
# source compiles apart, as load_inline's main.cpp does, with the module made by Python's C API
# (kiln_inline_module.h) instead of pybind11. Every file takes load_inline's own flags (from the
# build file torch writes) and the three compiles run at once. A source this cannot build (the
# cut refused, a compile or link failed, an option it does not take) is built by load_inline
# itself, so the verdict never depends on which way was taken; only the time does. The build
# log says which way each extension took.
#
# The precompiled headers are made once per set of flags by a build process before it imports
# its candidate; that process then confines its own writes again without the headers' folder
# (Landlock), so no candidate's code can change what another's is compiled with. Without
# Landlock the shared headers are not used at all.

import fcntl
import hashlib
import importlib.util
import inspect
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODULE_HEADER = "kiln_inline_module.h"  # the C++ source's file: the Python module
LAUNCH_HEADER = "kiln_inline_launch.h"  # the CUDA source's host part: launches
BRIDGE_SOURCE = "kiln_tensor_bridge.cpp"
BRIDGE_LIBRARY = "libkiln_tensor_bridge.so"
OWN_FILES = ("kiln_inline_build.py", "kiln_inline_split.py", MODULE_HEADER, LAUNCH_HEADER,
             BRIDGE_SOURCE)
HEADER_VARIANTS = ([], ["-O3"])  # the optimisation flags the headers are made for ahead
NAME_DEFINE = re.compile(r"-DTORCH_EXTENSION_NAME=\S+")
# extra_cuda_cflags that change only the device code (or nothing): anything else (-D, -U,
# -Xcompiler, another -std, a default stream per thread ...) would make the host part differ.
DEVICE_ONLY_CUDA_FLAG = re.compile(
    r"-O[0-3s]?|--?use_fast_math|-lineinfo|--?expt-relaxed-constexpr|--?expt-extended-lambda|"
    r"--?extended-lambda|-res-usage|--resource-usage|-maxrregcount=\d+|--maxrregcount=\d+|"
    r"-Xptxas=\S+|--ptxas-options=\S+|-arch=\S+|-gencode=\S+|--generate-code=\S+|"
    r"-std=c\+\+17|--?ftz=(true|false)|--?prec-div=(true|false)|--?prec-sqrt=(true|false)|"
    r"--?fmad=(true|false)|-DNDEBUG")


class Declined(Exception):
    """This source goes to load_inline (the reason is logged)."""


def joined(sources):
    if sources is None:
        return ""
    return sources if isinstance(sources, str) else "\n".join(sources)


def own_digest():
    """Kiln's part in a build: a fix to the cut or the headers makes new builds."""
    digest = hashlib.sha256()
    for name in OWN_FILES:
        with open(os.path.join(HERE, name), "rb") as source:
            digest.update(source.read())
    return digest.hexdigest()[:16]


def run_command(command, cwd):
    return subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


def first_error(output):
    for line in output.splitlines():
        if "error" in line:
            return line.strip()[:300]
    return output.strip().splitlines()[-1][:300] if output.strip() else "no output"


def call_with_known(function, values):
    """A private torch function called with the arguments this torch's version of it takes."""
    parameters = inspect.signature(function).parameters
    missing = [p for p in parameters if p not in values and
               parameters[p].default is inspect.Parameter.empty]
    if missing:
        raise Declined("this torch's %s wants %s" % (function.__name__, ", ".join(missing)))
    return function(**{k: v for k, v in values.items() if k in parameters})


def without_name(flags):
    """The flags without -DTORCH_EXTENSION_NAME, which g++ would compare with the precompiled
    header's; each file defines it in its first line instead."""
    return [f for f in flags if not NAME_DEFINE.fullmatch(f)]


class TorchFlags:
    """The compilers and flags load_inline would use for one extension, read from the build
    file torch writes for it (so every torch version's own choices are kept): `main` for the
    C++ source's file, `cuda_host` for the CUDA source's host part (load_inline compiled it in
    nvcc's host pass: the common flags, nvcc's macros and the optimisation of extra_cuda_cflags,
    not extra_cflags), `cuda` for the device part, `ldflags` for the link."""

    def __init__(self, cpp, name, extra_cflags, extra_cuda_cflags, extra_ldflags, with_cuda,
                 folder):
        ldflags = call_with_known(cpp._prepare_ldflags, {
            "extra_ldflags": list(extra_ldflags), "with_cuda": with_cuda, "with_sycl": False,
            "verbose": False, "is_standalone": False})
        variables = self.build_file(cpp, name, extra_cflags, extra_cuda_cflags, ldflags,
                                    with_cuda, folder)
        common = self.build_file(cpp, name, [], [], ldflags, with_cuda, folder)
        self.cxx = shlex.split(variables.get("cxx", "c++"))
        self.nvcc = shlex.split(variables.get("nvcc", "nvcc"))
        self.main = self.fixed(shlex.split(variables.get("cflags", "")) +
                               shlex.split(variables.get("post_cflags", "")))
        self.cuda = shlex.split(variables.get("cuda_cflags", "")) + \
            shlex.split(variables.get("cuda_post_cflags", ""))
        self.ldflags = shlex.split(variables.get("ldflags", ""))
        optimisation = [f for f in extra_cuda_cflags if re.fullmatch(r"-O[0-3s]?", f)][-1:]
        self.cuda_host = self.fixed(
            shlex.split(common.get("cflags", "")) + shlex.split(common.get("post_cflags", "")) +
            [f for f in self.cuda if f.startswith("-D__CUDA_NO_")] + optimisation)

    @staticmethod
    def build_file(cpp, name, extra_cflags, extra_cuda_cflags, ldflags, with_cuda, folder):
        sources = [os.path.join(folder, "main.cpp")]
        if with_cuda:
            sources.append(os.path.join(folder, "cuda.cu"))
        path = os.path.join(folder, "build.ninja")
        call_with_known(cpp._write_ninja_file_to_build_library, {
            "path": path, "name": name, "sources": sources, "extra_cflags": list(extra_cflags),
            "extra_cuda_cflags": list(extra_cuda_cflags), "extra_sycl_cflags": [],
            "extra_ldflags": list(ldflags), "extra_include_paths": [], "with_cuda": with_cuda,
            "with_sycl": False, "is_standalone": False})
        with open(path) as text:
            return dict(re.findall(r"^(\w+) = (.*)$", text.read(), re.M))

    @staticmethod
    def fixed(flags):
        if not any(re.fullmatch(r"-std=(c|gnu)\+\+(17|1z|2\w)", f) for f in flags):
            flags.append("-std=c++17")  # a torch older than 2.1 builds with C++14
        return flags + ["-Wno-attributes"]  # __device__ and kin, which g++ ignores


class InlineHeaders:
    """Kiln's headers (one of MODULE_HEADER and LAUNCH_HEADER, and a stand-in torch/extension.h
    that includes it), precompiled once per header and set of flags under one folder, and the
    tensor bridge library."""

    def __init__(self, folder):
        self.folder = folder

    def variant(self, header, flags):
        """(folder of this header and set of flags, its flags without the extension's name)."""
        generic = without_name(flags)
        key = hashlib.sha256(open(os.path.join(HERE, header), "rb").read())
        key.update("\0".join([header] + generic).encode())
        return os.path.join(self.folder, key.hexdigest()[:20]), generic

    def write_sources(self, header, variant):
        os.makedirs(os.path.join(variant, "shim", "torch"), exist_ok=True)
        copy = os.path.join(variant, header)
        if not os.path.exists(copy):
            shutil.copyfile(os.path.join(HERE, header), copy + ".tmp")
            os.replace(copy + ".tmp", copy)
        for stand_in in ("extension.h", "torch.h"):
            path = os.path.join(variant, "shim", "torch", stand_in)
            if not os.path.exists(path):
                with open(path + ".tmp", "w") as out:
                    # Relative: the folder may be copied elsewhere (the benchmark does).
                    out.write("#pragma once\n#include \"../../%s\"\n" % header)
                os.replace(path + ".tmp", path)

    def flags_for(self, header, flags):
        """The flags that put the stand-ins first and the header (precompiled where made) in."""
        variant, generic = self.variant(header, flags)
        if not os.path.exists(os.path.join(variant, header)):
            raise Declined("Kiln's headers are not made for these flags")
        return ["-I" + os.path.join(variant, "shim")] + generic + [
            "-include", os.path.join(variant, header), "-Winvalid-pch"]

    def bridge(self):
        """kiln_tensor_bridge.cpp built for this torch (its path, which may not exist yet)."""
        import torch

        key = hashlib.sha256(("%s|%s" % (torch.__version__, torch.__file__)).encode())
        key.update(open(os.path.join(HERE, BRIDGE_SOURCE), "rb").read())
        return os.path.join(self.folder, "bridge-" + key.hexdigest()[:20], BRIDGE_LIBRARY)

    def prepare(self, plans, bridge_flags):
        """Makes what is missing of plans ((cxx, header, flags) ...) and the bridge, all at
        once; returns what was made (seconds)."""
        os.makedirs(self.folder, exist_ok=True)
        wanted = [os.path.join(self.variant(header, flags)[0], header) + ".gch"
                  for _, header, flags in plans] + [self.bridge()]
        if all(os.path.exists(product) for product in wanted):
            return {}  # nothing to make: no lock to wait for (or to be kept from by anyone)
        with open(os.path.join(self.folder, ".lock"), "w") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return {}  # another build makes them; this one goes without
            began = time.perf_counter()
            running = []
            for cxx, header, flags in plans:
                variant, generic = self.variant(header, flags)
                self.write_sources(header, variant)
                product = os.path.join(variant, header) + ".gch"
                if not os.path.exists(product):
                    running.append((product, run_command(
                        cxx + generic + ["-x", "c++-header", os.path.join(variant, header), "-o",
                                         product + ".tmp"], variant)))
            bridge = self.bridge()
            if not os.path.exists(bridge):
                os.makedirs(os.path.dirname(bridge), exist_ok=True)
                cxx, cflags, ldflags = bridge_flags
                running.append((bridge, run_command(
                    cxx + cflags + ["-shared", os.path.join(HERE, BRIDGE_SOURCE)] + ldflags +
                    ["-o", bridge + ".tmp"], self.folder)))
            made = {}
            for product, process in running:
                output = process.communicate()[0]
                if process.returncode == 0:
                    os.replace(product + ".tmp", product)
                    made[os.path.relpath(product, self.folder)] = round(
                        time.perf_counter() - began, 1)
                else:
                    sys.stderr.write("kiln inline build: %s failed: %s\n"
                                     % (os.path.basename(product), first_error(output)))
            return made


class FastInlineBuild:
    """Installed over torch.utils.cpp_extension.load_inline (install()). may_build: this process
    builds (the build role, with the headers' folder); a candidate's process only loads what
    its build made, and gives the rest to load_inline, which finds its own build there."""

    def __init__(self, headers_folder, may_build):
        self.headers = InlineHeaders(headers_folder) if headers_folder and may_build else None
        self.may_build = may_build
        self.disabled = None  # why this process builds nothing itself (disable())
        self.records = []  # one per load_inline call: how it was built, or why not
        self.original = None
        self.cpp = None

    def install(self):
        import torch.utils.cpp_extension as cpp

        self.cpp = cpp
        self.original = cpp.load_inline
        signature = inspect.signature(self.original)
        fast = self

        def load_inline(*args, **kwargs):
            return fast.load_inline(signature, args, kwargs)

        load_inline.__doc__ = self.original.__doc__
        cpp.load_inline = load_inline

    def disable(self, reason):
        self.disabled = reason

    # -- the headers, before any candidate code ------------------------------------------
    def prepare(self):
        if self.headers is None or self.disabled:
            return {}
        import torch

        with_cuda = torch.version.cuda is not None and self.cpp.CUDA_HOME is not None
        plans = []
        bridge = None
        with tempfile.TemporaryDirectory() as folder:
            for extra in HEADER_VARIANTS:
                flags = TorchFlags(self.cpp, "kiln_headers", extra, extra, [], with_cuda, folder)
                plans.append((flags.cxx, MODULE_HEADER, flags.main))
                if with_cuda:
                    plans.append((flags.cxx, LAUNCH_HEADER, flags.cuda_host))
                if not extra:
                    bridge = (flags.cxx, flags.main, flags.ldflags)
        return self.headers.prepare(plans, bridge)

    # -- load_inline ---------------------------------------------------------------------
    def load_inline(self, signature, args, kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return self.original(*args, **kwargs)  # torch says what is wrong with the call
        bound.apply_defaults()
        a = dict(bound.arguments)
        began = time.perf_counter()
        record = {"name": a.get("name"), "way": "kiln"}
        try:
            module = self.fast(a, signature)
            record["seconds"] = round(time.perf_counter() - began, 2)
            self.records.append(record)
            return module
        except Declined as declined:
            record.update(way="load_inline", reason=str(declined))
        except Exception as error:  # Kiln's build failed in a way it did not foresee
            record.update(way="load_inline", reason="%s: %s" % (type(error).__name__, error))
        module = self.original(*args, **kwargs)
        record["seconds"] = round(time.perf_counter() - began, 2)
        self.records.append(record)
        return module

    @staticmethod
    def refusal(a, signature):
        handled = {"name", "cpp_sources", "cuda_sources", "functions", "extra_cflags",
                   "extra_cuda_cflags", "extra_ldflags", "verbose", "with_cuda",
                   "with_pytorch_error_handling", "keep_intermediates"}
        for name, parameter in signature.parameters.items():
            value = a.get(name)
            if name not in handled and value != parameter.default and (value or parameter.default):
                return "%s=%r" % (name, value)
        if not a["functions"]:
            return "no functions= (the source binds itself)"
        if "PYBIND11_MODULE" in joined(a["cpp_sources"]) + joined(a["cuda_sources"]):
            return "the source binds itself"
        unknown = [f for f in a["extra_cuda_cflags"] or []
                   if not DEVICE_ONLY_CUDA_FLAG.fullmatch(str(f).strip())]
        if unknown:
            return "extra_cuda_cflags %s" % " ".join(map(str, unknown))
        return None

    def fast(self, a, signature):
        reason = self.refusal(a, signature)
        if reason:
            raise Declined(reason)
        name = a["name"]
        functions = a["functions"]
        if isinstance(functions, str):
            functions = [functions]
        docs = dict(functions) if isinstance(functions, dict) else {f: f for f in functions}
        cpp_source = joined(a["cpp_sources"])
        cuda_source = joined(a["cuda_sources"])
        with_cuda = a["with_cuda"] if a["with_cuda"] is not None else bool(cuda_source)
        key = hashlib.sha256(repr((own_digest(), name, cpp_source, cuda_source,
                                   sorted(docs.items()), a["extra_cflags"],
                                   a["extra_cuda_cflags"], a["extra_ldflags"], with_cuda,
                                   a["with_pytorch_error_handling"])).encode())
        root = os.environ.get("TORCH_EXTENSIONS_DIR") or self.cpp._get_build_directory(name, False)
        folder = os.path.join(root, "kiln-inline", "%s-%s" % (name, key.hexdigest()[:16]))
        library = os.path.join(folder, name + ".so")
        if not os.path.exists(library):
            if not self.may_build:
                raise Declined("not built by Kiln (its build process declined)")
            self.build(a, name, docs, cpp_source, cuda_source, with_cuda, folder, library)
        spec = importlib.util.spec_from_file_location(name, library)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    def build(self, a, name, docs, cpp_source, cuda_source, with_cuda, folder, library):
        from kiln_inline_split import SplitRefused, split

        if self.headers is None or self.disabled:
            raise Declined(self.disabled or "no headers folder")
        if not re.fullmatch(r"[A-Za-z_]\w*", name):
            raise Declined("a module name that is not an identifier")
        device, host = None, None
        if with_cuda:
            try:
                device, host, _ = split(cuda_source)
            except SplitRefused as refused:
                raise Declined("the CUDA source: %s" % refused)
        os.makedirs(folder, exist_ok=True)
        flags = TorchFlags(self.cpp, name, a["extra_cflags"] or [], a["extra_cuda_cflags"] or [],
                           a["extra_ldflags"] or [], with_cuda, folder)
        jobs = [("main.cpp", main_file(name, cpp_source, docs),
                 flags.cxx + self.headers.flags_for(MODULE_HEADER, flags.main))]
        if host is not None:
            jobs.append(("cuda_host.cpp", "#define TORCH_EXTENSION_NAME %s\n%s" % (name, host),
                         flags.cxx + self.headers.flags_for(LAUNCH_HEADER, flags.cuda_host)))
        if device is not None:
            jobs.append(("device.cu", device, flags.nvcc + flags.cuda))
        running = []
        for source, text, command in jobs:
            write(os.path.join(folder, source), text)
            obj = source.rsplit(".", 1)[0] + ".o"
            running.append((source, obj, run_command(command + ["-c", source, "-o", obj], folder)))
        failures = []
        for source, _, process in running:
            output = process.communicate()[0]
            if process.returncode != 0:
                failures.append("%s: %s" % (source, first_error(output)))
        if failures:
            raise Declined("; ".join(failures))
        bridge = self.headers.bridge()
        if not os.path.exists(bridge):
            raise Declined("Kiln's tensor bridge is not built for this torch")
        shutil.copyfile(bridge, os.path.join(folder, BRIDGE_LIBRARY))
        link = run_command(flags.cxx + [obj for _, obj, _ in running] + flags.ldflags + [
            "-L.", "-l" + BRIDGE_LIBRARY[3:-3], "-Wl,-rpath,$ORIGIN", "-o", library + ".tmp"],
            folder)
        output = link.communicate()[0]
        if link.returncode != 0:
            raise Declined("the link: %s" % first_error(output))
        os.replace(library + ".tmp", library)


def write(path, text):
    with open(path, "w") as out:
        out.write(text)


def main_file(name, cpp_source, docs):
    """load_inline's main.cpp (torch/extension.h and the C++ source), with the module of the
    functions made by Python's C API."""
    calls = []
    table = []
    for function, doc in docs.items():
        calls.append("static PyObject *kiln_call_%s(PyObject *, PyObject *args)\n"
                     "{ return kiln::inline_module::call(&%s, \"%s\", args); }"
                     % (function, function, function))
        table.append("    {\"%s\", kiln_call_%s, METH_VARARGS, %s},"
                     % (function, function, c_string(doc)))
    return "\n".join([
        "#define TORCH_EXTENSION_NAME %s" % name,
        "#include <torch/extension.h>",
        cpp_source,
        "// Kiln: the module",
        "\n".join(calls),
        "static PyMethodDef kiln_methods[] = {",
        "\n".join(table),
        "    {nullptr, nullptr, 0, nullptr}};",
        "static PyModuleDef kiln_module = {PyModuleDef_HEAD_INIT, \"%s\", nullptr, -1,"
        " kiln_methods};" % name,
        "PyMODINIT_FUNC PyInit_%s(void) { return PyModule_Create(&kiln_module); }" % name,
        ""])


def c_string(text):
    return "\"%s\"" % str(text).replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")
