# kiln_inline_build.py: Kiln's build of a candidate's load_inline extension, in place of
# torch.utils.cpp_extension.load_inline (docs/kernelbench.md, "Inline-CUDA builds").
#
# load_inline compiles the CUDA source with nvcc including the torch headers, and pybind11
# bindings with g++: about 40 s on a GPU machine, nearly all of it in those headers. Here the
# CUDA source is cut in two (kiln_inline_split.py): the device part compiles with nvcc alone,
# the host part (the torch wrappers and the candidate's C++ source) with g++ against headers
# Kiln precompiled, and the module is made with Python's C API (kiln_inline_module.h) instead of
# pybind11. Both compiles take load_inline's own flags (from the build file torch writes) and
# run at once. A source this cannot build (the cut is refused, a compile or link fails, an
# option it does not know) is built by load_inline itself, so the verdict never depends on
# which way was taken; only the time does. The build log says which way each extension took.
#
# The precompiled headers are made once per set of flags by a build process before it imports
# its candidate; that process then confines its own writes again without the headers' folder,
# so no candidate's code can change what another's host part is compiled with.

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
MODULE_HEADER = "kiln_inline_module.h"
BRIDGE_SOURCE = "kiln_tensor_bridge.cpp"
BRIDGE_LIBRARY = "libkiln_tensor_bridge.so"
HEADER_VARIANTS = ([], ["-O3"])  # extra_cflags the headers are made for ahead
NAME_DEFINE = re.compile(r"-DTORCH_EXTENSION_NAME=\S+")


class Declined(Exception):
    """This source goes to load_inline (the reason is logged)."""


def joined(sources):
    if sources is None:
        return ""
    return sources if isinstance(sources, str) else "\n".join(sources)


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


class TorchFlags:
    """The compilers and flags load_inline would use for one extension, read from the build
    file torch writes for it (so every torch version's own choices are kept)."""

    def __init__(self, cpp, name, extra_cflags, extra_cuda_cflags, extra_ldflags,
                 extra_include_paths, with_cuda, folder):
        writer = cpp._write_ninja_file_to_build_library
        extra_ldflags = call_with_known(cpp._prepare_ldflags, {
            "extra_ldflags": list(extra_ldflags), "with_cuda": with_cuda, "with_sycl": False,
            "verbose": False, "is_standalone": False})
        sources = [os.path.join(folder, "main.cpp")]
        if with_cuda:
            sources.append(os.path.join(folder, "cuda.cu"))
        path = os.path.join(folder, "build.ninja")
        values = {"path": path, "name": name, "sources": sources,
                  "extra_cflags": list(extra_cflags), "extra_cuda_cflags": list(extra_cuda_cflags),
                  "extra_sycl_cflags": [], "extra_ldflags": list(extra_ldflags),
                  "extra_include_paths": list(extra_include_paths), "with_cuda": with_cuda,
                  "with_sycl": False, "is_standalone": False}
        call_with_known(writer, values)
        text = open(path).read()
        variables = dict(re.findall(r"^(\w+) = (.*)$", text, re.M))
        self.cxx = shlex.split(variables.get("cxx", "c++"))
        self.nvcc = shlex.split(variables.get("nvcc", "nvcc"))
        self.cflags = shlex.split(variables.get("cflags", "")) + \
            shlex.split(variables.get("post_cflags", ""))
        self.cuda_flags = shlex.split(variables.get("cuda_cflags", "")) + \
            shlex.split(variables.get("cuda_post_cflags", ""))
        self.ldflags = shlex.split(variables.get("ldflags", ""))
        if not any(re.fullmatch(r"-std=(c|gnu)\+\+(17|1z|2\w)", f) for f in self.cflags):
            self.cflags.append("-std=c++17")  # a torch older than 2.1 builds with C++14
        self.with_cuda = with_cuda
        if with_cuda:
            # The host part was CUDA source: it keeps the macros nvcc's pass gave it.
            self.cflags += [f for f in self.cuda_flags if f.startswith("-D__CUDA_NO_")]
            self.cflags.append("-DKILN_INLINE_CUDA")
        self.cflags.append("-Wno-attributes")  # __device__ and kin, which g++ ignores


class InlineHeaders:
    """The host part's headers (kiln_inline_module.h, and a stand-in torch/extension.h that
    includes it), precompiled once per set of host flags under one folder."""

    def __init__(self, folder):
        self.folder = folder

    def variant(self, flags):
        """(folder of this set of flags, its flags without the extension's name)."""
        generic = without_name(flags)
        key = hashlib.sha256()
        key.update(open(os.path.join(HERE, MODULE_HEADER), "rb").read())
        key.update("\0".join(generic).encode())
        key.update(compiler_identity(flags).encode())
        return os.path.join(self.folder, key.hexdigest()[:20]), generic

    def write_sources(self, variant):
        os.makedirs(os.path.join(variant, "shim", "torch"), exist_ok=True)
        header = os.path.join(variant, MODULE_HEADER)
        if not os.path.exists(header):
            with open(os.path.join(HERE, MODULE_HEADER)) as src, open(header + ".tmp", "w") as out:
                out.write(src.read())
            os.replace(header + ".tmp", header)
        for stand_in in ("extension.h", "torch.h"):
            path = os.path.join(variant, "shim", "torch", stand_in)
            if not os.path.exists(path):
                with open(path + ".tmp", "w") as out:
                    # Relative: the folder may be copied elsewhere (the benchmark does).
                    out.write("#pragma once\n#include \"../../%s\"\n" % MODULE_HEADER)
                os.replace(path + ".tmp", path)

    def host_flags(self, flags):
        """The flags that put the stand-ins first and the precompiled header in, where made."""
        variant, _ = self.variant(flags)
        header = os.path.join(variant, MODULE_HEADER)
        if not os.path.exists(header):
            raise Declined("Kiln's host headers are not made for these flags")
        return ["-I" + os.path.join(variant, "shim")] + without_name(flags) + ["-include", header]

    def bridge(self):
        """kiln_tensor_bridge.cpp built for this torch (its path, which may not exist yet)."""
        import torch

        key = hashlib.sha256(("%s|%s" % (torch.__version__, torch.__file__)).encode())
        key.update(open(os.path.join(HERE, BRIDGE_SOURCE), "rb").read())
        return os.path.join(self.folder, "bridge-" + key.hexdigest()[:20], BRIDGE_LIBRARY)

    def prepare(self, compilers_and_flags, bridge_flags):
        """Makes what is missing, all at once; returns what was made (seconds)."""
        os.makedirs(self.folder, exist_ok=True)
        with open(os.path.join(self.folder, ".lock"), "w") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return {}  # another build makes them; this one goes without
            began = time.perf_counter()
            running = []
            for cxx, flags in compilers_and_flags:
                variant, generic = self.variant(flags)
                self.write_sources(variant)
                header = os.path.join(variant, MODULE_HEADER)
                if os.path.exists(header + ".gch"):
                    continue
                command = cxx + generic + ["-x", "c++-header", header, "-o", header + ".gch.tmp"]
                running.append((variant, header, run_command(command, variant)))
            bridge = self.bridge()
            if not os.path.exists(bridge):
                os.makedirs(os.path.dirname(bridge), exist_ok=True)
                cxx, cflags, ldflags = bridge_flags
                command = cxx + cflags + [os.path.join(HERE, BRIDGE_SOURCE)] + ldflags + [
                    "-o", bridge + ".tmp"]
                running.append((os.path.dirname(bridge), bridge, run_command(command, self.folder)))
            made = {}
            for variant, header, process in running:
                output = process.communicate()[0]
                if process.returncode == 0:
                    product = header if header.endswith(".so") else header + ".gch"
                    os.replace(product + ".tmp", product)
                    made[os.path.basename(variant)] = round(time.perf_counter() - began, 1)
                else:
                    sys.stderr.write("kiln inline build: %s failed: %s\n"
                                     % (os.path.basename(header), first_error(output)))
            return made


def without_name(flags):
    """The flags without -DTORCH_EXTENSION_NAME, which g++ would compare with the precompiled
    header's; the host part defines it in its first line instead."""
    return [f for f in flags if not NAME_DEFINE.fullmatch(f)]


def compiler_identity(flags):
    return " ".join(f for f in flags if f.startswith("-std") or f.startswith("-O"))


class FastInlineBuild:
    """Installed over torch.utils.cpp_extension.load_inline (install()). may_build: this process
    builds (the build role); a candidate's process only loads what its build made."""

    def __init__(self, headers_folder, may_build):
        self.headers = InlineHeaders(headers_folder) if headers_folder else None
        self.may_build = may_build
        self.records = []  # one per load_inline call: how it was built, or why not
        self.original = None
        self.cpp = None

    def install(self):
        import torch.utils.cpp_extension as cpp

        self.cpp = cpp
        self.original = cpp.load_inline
        fast = self

        def load_inline(name, cpp_sources, cuda_sources=None, *args, **kwargs):
            return fast.load_inline(name, cpp_sources, cuda_sources, *args, **kwargs)

        load_inline.__doc__ = self.original.__doc__
        cpp.load_inline = load_inline

    # -- the headers, before any candidate code ------------------------------------------
    def prepare(self):
        if self.headers is None:
            return {}
        import torch

        with_cuda = torch.version.cuda is not None and self.cpp.CUDA_HOME is not None
        plans = []
        with tempfile.TemporaryDirectory() as folder:
            for extra in HEADER_VARIANTS:
                try:
                    flags = TorchFlags(self.cpp, "kiln_headers", extra, [], [], [], with_cuda, folder)
                except Exception as error:
                    sys.stderr.write("kiln inline build: no headers: %s\n" % error)
                    return {}
                plans.append((flags.cxx, flags.cflags))
                if not extra:
                    bridge = (flags.cxx, flags.cflags + ["-shared"], flags.ldflags)
        return self.headers.prepare(plans, bridge)

    # -- load_inline ---------------------------------------------------------------------
    def load_inline(self, name, cpp_sources, cuda_sources=None, sycl_sources=None,
                    functions=None, extra_cflags=None, extra_cuda_cflags=None,
                    extra_sycl_cflags=None, extra_ldflags=None, extra_include_paths=None,
                    build_directory=None, verbose=False, with_cuda=None, with_sycl=None,
                    is_python_module=True, with_pytorch_error_handling=True,
                    keep_intermediates=True, **more):
        arguments = dict(locals())
        for unused in ("self", "more"):
            arguments.pop(unused)
        arguments.update(more)
        if sycl_sources is None:
            arguments.pop("sycl_sources")
        for absent in ("extra_sycl_cflags", "with_sycl"):
            if arguments[absent] is None:
                arguments.pop(absent)
        began = time.perf_counter()
        record = {"name": name, "way": "kiln"}
        try:
            module = self.fast(arguments)
            record["seconds"] = round(time.perf_counter() - began, 2)
            self.records.append(record)
            return module
        except Declined as declined:
            record.update(way="load_inline", reason=str(declined))
        except Exception as error:  # Kiln's build failed in a way it did not foresee
            record.update(way="load_inline", reason="%s: %s" % (type(error).__name__, error))
        module = self.original(**arguments)
        record["seconds"] = round(time.perf_counter() - began, 2)
        self.records.append(record)
        return module

    def refusal(self, a):
        if self.headers is None:
            return "no headers folder"
        if not a["is_python_module"] or a["build_directory"] is not None:
            return "is_python_module=False or a build_directory"
        if a.get("sycl_sources") or any(a.get(k) for k in ("use_pch", "no_implicit_headers")):
            return "an option Kiln's build does not take"
        known = {"name", "cpp_sources", "cuda_sources", "sycl_sources", "functions",
                 "extra_cflags", "extra_cuda_cflags", "extra_sycl_cflags", "extra_ldflags",
                 "extra_include_paths", "build_directory", "verbose", "with_cuda", "with_sycl",
                 "is_python_module", "with_pytorch_error_handling", "keep_intermediates",
                 "use_pch", "no_implicit_headers"}
        if set(a) - known:
            return "options %s" % ", ".join(sorted(set(a) - known))
        if not a["functions"]:
            return "no functions= (the source binds itself)"
        if "PYBIND11_MODULE" in joined(a["cpp_sources"]) + joined(a["cuda_sources"]):
            return "the source binds itself"
        if a["extra_include_paths"]:
            return "extra_include_paths"
        return None

    def fast(self, a):
        reason = self.refusal(a)
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
        key = hashlib.sha256(repr((name, cpp_source, cuda_source, sorted(docs.items()),
                                   a["extra_cflags"], a["extra_cuda_cflags"], a["extra_ldflags"],
                                   with_cuda, a["with_pytorch_error_handling"])).encode())
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

        if not re.fullmatch(r"[A-Za-z_]\w*", name):
            raise Declined("a module name that is not an identifier")
        device = None
        host_source = cuda_source
        if with_cuda:
            try:
                device, host_source, _ = split(cuda_source)
            except SplitRefused as refused:
                raise Declined("the CUDA source: %s" % refused)
        os.makedirs(folder, exist_ok=True)
        flags = TorchFlags(self.cpp, name, a["extra_cflags"] or [], a["extra_cuda_cflags"] or [],
                           a["extra_ldflags"] or [], [], with_cuda, folder)
        running = []
        objects = []
        if device is not None:
            write(os.path.join(folder, "device.cu"), device)
            running.append(("device part", run_command(
                flags.nvcc + flags.cuda_flags + ["-c", "device.cu", "-o", "device.o"], folder)))
            objects.append("device.o")
        write(os.path.join(folder, "host.cpp"), host_part(name, cpp_source, host_source, docs))
        host_flags = self.headers.host_flags(flags.cflags) + ["-Winvalid-pch"]
        running.append(("host part", run_command(
            flags.cxx + host_flags + ["-c", "host.cpp", "-o", "host.o"], folder)))
        objects.insert(0, "host.o")
        failures = []
        for label, process in running:
            output = process.communicate()[0]
            if process.returncode != 0:
                failures.append("%s: %s" % (label, first_error(output)))
        if failures:
            raise Declined("; ".join(failures))
        bridge = self.headers.bridge()
        if not os.path.exists(bridge):
            raise Declined("Kiln's tensor bridge is not built for this torch")
        shutil.copyfile(bridge, os.path.join(folder, BRIDGE_LIBRARY))
        link = run_command(flags.cxx + objects + flags.ldflags + [
            "-L.", "-l" + BRIDGE_LIBRARY[3:-3], "-Wl,-rpath,$ORIGIN", "-o", library + ".tmp"],
            folder)
        output = link.communicate()[0]
        if link.returncode != 0:
            raise Declined("the link: %s" % first_error(output))
        os.replace(library + ".tmp", library)


def write(path, text):
    with open(path, "w") as out:
        out.write(text)


def host_part(name, cpp_source, cuda_host, docs):
    """load_inline's main.cpp (torch/extension.h and the C++ source), the CUDA source's host
    part, and the module of the functions."""
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
        cuda_host,
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
