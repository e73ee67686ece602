# kiln_inline_split.py: a load_inline CUDA source cut in two for Kiln's fast build
# (kiln_inline_build.py). The device part (kernels, device functions and variables, and the
# types and macros they share) compiles with nvcc without the torch headers, which is most of a
# load_inline build's time; the host part (the torch wrappers) compiles with g++ against
# precompiled headers. The host part reaches each kernel through a function of the device part
# that returns the kernel's address (nvcc keeps its kernel stubs and device variables local to
# their object file), and each `kernel<<<...>>>(...)` becomes a call of
# kiln::inline_module::launch. What this cannot cut with confidence it refuses (SplitRefused):
# the caller then builds the source as load_inline does, so a refusal costs time, never a
# verdict.

import re

TORCH_WORDS = re.compile(r"\b(?:torch|at|c10|pybind11|py)::|\b(?:AT|TORCH|C10)_[A-Z0-9_]+\b|\bTHC")
TORCH_INCLUDE = re.compile(r"#\s*include\s*[<\"](?:torch|ATen|c10|pybind11|THC|TH)/")
# Headers for device code only, which g++ cannot compile (the host part never needs them).
DEVICE_INCLUDE = re.compile(r"#\s*include\s*<(?:cooperative_groups|cuda_pipeline|cuda_awbarrier|"
                            r"cuda/|cub/|mma\.h|sm_\d+_intrinsics|crt/)")
# Namespaces of those headers: an alias or using-directive of one belongs to the device part.
DEVICE_NAMESPACE = re.compile(r"\b(cooperative_groups|nvcuda|cub|cuda)\b")
CUDA_KEYWORD = re.compile(r"\b__(global|device|constant|shared|managed|host)__\b")
DEVICE_VARIABLE = re.compile(r"\b__(constant|device|managed)__\b")
IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# The types AT_DISPATCH_* macros give scalar_t, by the macro's name (the _AND variants add the
# types named in their arguments).
DISPATCH_TYPES = {
    "FLOATING_TYPES": ["float", "double"],
    "FLOATING_TYPES_AND_HALF": ["float", "double", "c10::Half"],
    "ALL_TYPES": ["uint8_t", "int8_t", "int16_t", "int", "int64_t", "float", "double"],
    "INTEGRAL_TYPES": ["uint8_t", "int8_t", "int16_t", "int", "int64_t"],
    "REDUCED_FLOATING_TYPES": ["c10::Half", "c10::BFloat16"],
}
SCALAR_TYPE = {"Half": "c10::Half", "BFloat16": "c10::BFloat16", "Float": "float",
               "Double": "double", "Int": "int", "Long": "int64_t", "Bool": "bool",
               "Byte": "uint8_t", "Char": "int8_t", "Short": "int16_t"}


DEVICE_PRELUDE = ("cuda.h", "cuda_runtime.h", "cstdint", "cstddef", "cmath", "cfloat",
                  "climits", "algorithm", "limits", "type_traits", "utility")
TORCH_DEVICE_PRELUDE = ("c10/util/Half.h", "c10/util/BFloat16.h", "ATen/core/TensorAccessor.h")


class SplitRefused(Exception):
    pass


def masked(source):
    """The source with comments blanked and the insides of string and character literals
    replaced by 'x' (lengths and newlines kept), so that brackets are counted on code only."""
    out = list(source)
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            end = i
            while True:  # a backslash at the end continues the comment on the next line
                end = source.find("\n", end)
                if end < 0:
                    end = n
                    break
                if source[end - 1] != "\\":
                    break
                end += 1
            out[i:end] = [ch if ch == "\n" else " " for ch in source[i:end]]
            i = end
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out[i:end] = [ch if ch == "\n" else " " for ch in source[i:end]]
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and source[j] != c and source[j] != "\n":
                j += 2 if source[j] == "\\" else 1
            out[i + 1:j] = "x" * (j - i - 1)
            i = j + 1
        else:
            i += 1
    return "".join(out)


def closing(text, start, opening="(", close=")"):
    """The index just past the bracket that closes the one at text[start]."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == opening:
            depth += 1
        elif text[i] == close:
            depth -= 1
            if depth == 0:
                return i + 1
    raise SplitRefused("unbalanced %s%s" % (opening, close))


def assigns(head):
    """An initialiser (`= {...}`) in a declaration's head: an `=` outside parentheses (a default
    argument is inside them)."""
    depth = 0
    for i, c in enumerate(head):
        depth += c in "(<"
        depth -= c in ")>"
        if c == "=" and depth <= 0 and head[i + 1:i + 2] != "=" and head[i - 1:i] not in "=!<>":
            return True
    return False


class Chunk:
    """One top-level piece: a preprocessor line, a declaration or a definition."""

    def __init__(self, text, code, namespace, start):
        self.start = start  # where it begins in the source
        self.text = text  # as written
        self.code = code  # masked (masked())
        self.namespace = namespace  # the enclosing namespaces' names, outermost first
        brace = code.find("{")
        self.head = code if brace < 0 else code[:brace]

    def is_preprocessor(self):
        return self.code.lstrip().startswith("#")

    def has_body(self):
        return "{" in self.code


class Splitter:
    """Cuts one CUDA source (split()); the device and host parts are in self.device and
    self.host, the kernels' names in self.kernels."""

    def __init__(self, source):
        self.source = source
        self.code = masked(source)
        self.kernels = {}  # name -> (template header or "", qualified name)
        self.device = []
        self.host = []
        self.instances = []  # explicit instantiations the host's launches need
        self.anonymous = 0
        self.device_uses_torch = False

    # -- cutting -------------------------------------------------------------------------
    def chunks(self, start, end, namespace):
        i = start
        code = self.code
        while i < end:
            while i < end and code[i].isspace():
                i += 1
            if i >= end:
                break
            if code[i] == "#":
                j = i
                while True:
                    j = code.find("\n", j)
                    if j < 0 or j >= end:
                        j = end
                        break
                    if code[j - 1] != "\\":
                        break
                    j += 1
                yield Chunk(self.source[i:j], code[i:j], namespace, i)
                i = j
                continue
            j = self.chunk_end(i, end)
            yield Chunk(self.source[i:j], code[i:j], namespace, i)
            i = j

    def chunk_end(self, i, end):
        code = self.code
        depth = 0
        head_end = None
        j = i
        while j < end:
            c = code[j]
            if c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
            elif c == "{":
                if depth == 0 and head_end is None:
                    head_end = j
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    head = code[i:head_end]
                    if (assigns(head) or re.search(r"\b(struct|class|union|enum|typedef)\b", head)) \
                            and not re.match(r"\s*(inline\s+)?namespace\b|\s*extern\s", head):
                        semicolon = code.find(";", j)
                        return end if semicolon < 0 else semicolon + 1
                    return j + 1
            elif c == ";" and depth == 0:
                return j + 1
            j += 1
        if depth != 0:
            raise SplitRefused("unbalanced brackets")
        return end

    def split(self):
        # Code that would compile differently under g++ than in load_inline's nvcc pass.
        compiler = re.search(r"\b__(CUDACC|NVCC|CUDACC_VER_\w+|CUDACC_RTC)__?\b", self.code)
        if compiler:
            raise SplitRefused("the source tests %s" % compiler.group(0))
        for define in re.finditer(r"^[ \t]*#[ \t]*define\b.*$", self.code, re.M):
            if CUDA_KEYWORD.search(define.group(0)):
                raise SplitRefused("a macro that expands to a CUDA keyword")
        self.place(self.chunks(0, len(self.code), []))
        if re.search(r"\b__global__\b", masked("\n".join(self.host))):
            raise SplitRefused("a kernel the cut did not recognise")
        return self

    def place(self, chunks):
        for chunk in chunks:
            if re.match(r"\s*(inline\s+)?namespace\s+\w+\s*::", chunk.head) and chunk.has_body():
                raise SplitRefused("a nested namespace definition (a::b)")
            namespace = re.match(r"\s*(inline\s+)?namespace\s*(\w*)\s*$", chunk.head)
            if namespace and chunk.has_body():
                self.enter_namespace(chunk, namespace.group(2))
                continue
            if not chunk.is_preprocessor() and re.search(
                    r"^[ \t]*#[ \t]*(?!pragma\b)\w", chunk.code, re.M):
                # A directive inside a definition would act in one part only.
                raise SplitRefused("a preprocessor directive inside a definition")
            if chunk.is_preprocessor():
                self.place_directive(chunk)
            elif re.match(r"\s*extern\s*\"", chunk.head):
                if CUDA_KEYWORD.search(chunk.code):
                    raise SplitRefused("CUDA code inside extern \"C\"")
                self.host.append(chunk.text)
            elif re.search(r"\b__global__\b", chunk.head):
                self.place_kernel(chunk)
            elif CUDA_KEYWORD.search(chunk.head):
                self.place_device_code(chunk)
            else:
                self.place_host_or_shared(chunk)

    def enter_namespace(self, chunk, name):
        open_at = chunk.code.index("{")
        body_start = chunk.start + open_at + 1
        body_end = chunk.start + chunk.code.rindex("}")
        if not name:  # anonymous: named, and used, so that both parts can refer into it
            self.anonymous += 1
            name = "kiln_anonymous_%d" % self.anonymous
        opening = "namespace %s {" % name
        self.device.append(opening)
        self.host.append(opening)
        outer = chunk.namespace + [name]
        self.place(self.chunks(body_start, body_end, outer))
        closing_text = "}" + (" using namespace %s;" % name if name.startswith("kiln_anonymous")
                              else "")
        self.device.append(closing_text)
        self.host.append(closing_text)

    def place_directive(self, chunk):
        if TORCH_INCLUDE.match(chunk.code.strip()):
            self.host.append(chunk.text)
        elif DEVICE_INCLUDE.match(chunk.code.strip()):
            self.device.append(chunk.text)
        elif re.match(r"\s*#\s*include\s*\"", chunk.code):
            raise SplitRefused("a local #include")
        else:
            self.device.append(chunk.text)
            self.host.append(chunk.text)

    def place_kernel(self, chunk):
        head = chunk.head
        name = self.function_name(head)
        if name in self.kernels:
            raise SplitRefused("two kernels named %s" % name)
        template = re.match(r"\s*(template\s*<)", head)
        header = ""
        arguments = ""
        if template:
            end = closing(head, template.end(1) - 1, "<", ">")
            header = chunk.text[template.start(1):end]
            arguments = "<%s>" % ", ".join(self.template_parameter_names(header))
        qualified = "::".join(chunk.namespace + [name])
        self.kernels[name] = (header, qualified)
        if TORCH_WORDS.search(chunk.code):
            self.device_uses_torch = True
        device_text = re.sub(r"^(\s*(?:template\s*<[^{]*?>\s*)?)static\s+", r"\1", chunk.text, count=1)
        self.device.append(device_text)
        self.device.append("%s void* kiln_kernel_%s() { return reinterpret_cast<void*>(&%s%s); }"
                           % (header, name, name, arguments))
        declaration = chunk.text[:len(head)]
        declaration = re.sub(r"\b(__global__|static|inline|__forceinline__|__noinline__)\b", "",
                             declaration)
        declaration = self.without_launch_bounds(declaration)
        # Named apart, for decltype only: a direct call of the kernel (not a launch) stays the
        # compile error it is under nvcc.
        at = [m for m in re.finditer(r"\b%s(\s*\()" % re.escape(name), declaration)][-1]
        declaration = declaration[:at.start()] + "kiln_signature_" + declaration[at.start():]
        self.host.append(declaration.rstrip() + ";")
        self.host.append("%s void* kiln_kernel_%s();" % (header, name))

    def place_device_code(self, chunk):
        head = chunk.head
        if TORCH_WORDS.search(chunk.code):
            self.device_uses_torch = True
        both_sides = re.search(r"\b__host__\b", head) and re.search(r"\b__device__\b", head)
        if both_sides:
            if re.search(r"\b(template|inline|__forceinline__|constexpr|static)\b", head):
                self.device.append(chunk.text)
                self.host.append(chunk.text)
            else:  # one definition, in the device part; the host part declares it
                self.device.append(chunk.text)
                self.host.append(chunk.text[:len(head)].rstrip() + ";")
            return
        if re.search(r"\b__host__\b", head):
            self.host.append(chunk.text)
            return
        # A variable: no parameter list before its initialiser, or no body at all.
        variable = not chunk.has_body() or "(" not in head.split("=")[0]
        if variable and DEVICE_VARIABLE.search(head) and not re.search(r"\b__shared__\b", head):
            self.place_device_variable(chunk)
        else:
            self.device.append(chunk.text)

    def place_device_variable(self, chunk):
        """A __constant__ / __device__ variable: defined in the device part; the host part
        gets a reference of the same type to nvcc's host copy, which cudaMemcpyToSymbol and
        its kin take."""
        text = re.sub(r"\bstatic\s+", "", chunk.text, count=1)
        self.device.append(text)
        declarator = re.sub(r"\b(__constant__|__device__|__managed__|extern)\b", "", chunk.code)
        declarator = declarator.split("=")[0].rstrip().rstrip(";").strip()
        names = IDENTIFIER.findall(declarator.split("[")[0])
        if not names or "," in declarator:
            raise SplitRefused("a device variable declaration: " + declarator[:60])
        name = names[-1]
        self.device.append("void* kiln_symbol_%s() { return reinterpret_cast<void*>(&%s); }"
                           % (name, name))
        self.host.append("struct kiln_type_of_%s { %s; };" % (name, declarator))
        self.host.append("void* kiln_symbol_%s();" % name)
        self.host.append("static decltype(kiln_type_of_%s::%s)& %s = *reinterpret_cast<"
                         "decltype(kiln_type_of_%s::%s)*>(kiln_symbol_%s());"
                         % (name, name, name, name, name, name))

    def place_host_or_shared(self, chunk):
        head = chunk.head.strip()
        alias = re.match(r"(namespace\s+\w+\s*=|using\s+namespace\b)", head)
        if alias and DEVICE_NAMESPACE.search(head) and not TORCH_WORDS.search(head):
            self.device.append(chunk.text)
            return
        if alias and not TORCH_WORDS.search(head):
            self.device.append(chunk.text)
            self.host.append(chunk.text)
            return
        shared = re.match(r"(template\s*<.*?>\s*)?(struct|class|union|enum|typedef|using|"
                          r"constexpr|static\s+constexpr|const\b|static\s+const\b)", head, re.S)
        if shared and not TORCH_WORDS.search(chunk.code):
            self.device.append(chunk.text)
        self.host.append(chunk.text)

    # -- names ---------------------------------------------------------------------------
    @staticmethod
    def function_name(head):
        paren = head.find("(")
        while paren >= 0:
            before = IDENTIFIER.findall(head[:paren])
            if before and before[-1] not in ("__launch_bounds__", "__align__", "alignas"):
                return before[-1]
            paren = head.find("(", closing(head, paren))
        raise SplitRefused("a kernel without a name")

    @staticmethod
    def template_parameter_names(header):
        inside = header[header.index("<") + 1:header.rindex(">")]
        names, depth, part = [], 0, ""
        for c in inside + ",":
            if c == "," and depth == 0:
                words = IDENTIFIER.findall(part.split("=")[0])
                if not words or "..." in part:
                    raise SplitRefused("a template parameter: " + part.strip())
                names.append(words[-1])
                part = ""
                continue
            depth += c in "<("
            depth -= c in ">)"
            part += c
        return names

    @staticmethod
    def without_launch_bounds(text):
        at = text.find("__launch_bounds__")
        if at < 0:
            return text
        paren = text.index("(", at)
        return text[:at] + text[closing(text, paren):]

    # -- launches ------------------------------------------------------------------------
    def rewrite_launches(self, host):
        """Every kernel<<<grid, block[, shared[, stream]]>>>(args) of the host part as
        kiln::inline_module::launch<decltype(kernel)>(address, grid, block, shared, stream,
        args); the explicit instantiations a template kernel's launches need are noted."""
        code = masked(host)
        out, last = [], 0
        for match in re.finditer(r"<<<", code):
            start = match.start()
            if start < last:
                continue
            callee_start, callee = self.callee(code, start)
            qualified_name = callee.split("<")[0].replace(" ", "")
            name = qualified_name.split("::")[-1]
            if not name:
                raise SplitRefused("a launch whose kernel is not named directly (a macro?)")
            if name not in self.kernels:
                raise SplitRefused("a launch of %s, which is not a kernel of this source" % callee)
            config_end = code.find(">>>", start)
            if config_end < 0:
                raise SplitRefused("<<< without >>>")
            config = self.arguments(host[start + 3:config_end], code[start + 3:config_end])
            if not 2 <= len(config) <= 4:
                raise SplitRefused("a launch configuration of %d values" % len(config))
            config += ["0"] * (4 - len(config))
            paren = config_end + 3
            while code[paren].isspace():
                paren += 1
            if code[paren] != "(":
                raise SplitRefused("a launch without arguments")
            args_end = closing(code, paren)
            arguments = host[paren + 1:args_end - 1].strip()
            template = host[callee_start:start].strip()[len(callee.split("<")[0]):].strip()
            prefix = qualified_name[:len(qualified_name) - len(name)]
            address = "%skiln_kernel_%s%s()" % (prefix, name, template)
            if self.kernels[name][0]:
                self.note_instances(name, template, code, start)
            signature = "%skiln_signature_%s%s" % (prefix, name, template)
            call = "kiln::inline_module::launch<decltype(%s)>(%s, %s%s)" % (
                signature, address, ", ".join(c.strip() for c in config),
                ", " + arguments if arguments else "")
            out.append(host[last:callee_start])
            out.append(call)
            last = args_end
        out.append(host[last:])
        return "".join(out)

    @staticmethod
    def callee(code, start):
        j = start
        while j > 0 and code[j - 1].isspace():
            j -= 1
        if code[j - 1] == ">":  # template arguments
            depth = 0
            while j > 0:
                j -= 1
                depth += code[j] == ">"
                depth -= code[j] == "<"
                if depth == 0:
                    break
        while j > 0 and (code[j - 1].isalnum() or code[j - 1] in "_:" or code[j - 1].isspace()):
            j -= 1
        while code[j].isspace():
            j += 1
        return j, re.sub(r"\s+", "", code[j:start])

    @staticmethod
    def arguments(text, code):
        parts, depth, begin = [], 0, 0
        for i, c in enumerate(code):
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
            if c == "," and depth == 0:
                parts.append(text[begin:i])
                begin = i + 1
        parts.append(text[begin:])
        return parts

    def note_instances(self, name, template, code, launch_at):
        header, qualified = self.kernels[name]
        inside = template.strip()[1:-1]
        types = [inside]
        if re.search(r"\bscalar_t\b", inside):
            types = [re.sub(r"\bscalar_t\b", t, inside) for t in self.dispatch_types(code, launch_at)]
        for arguments in types:
            words = set(IDENTIFIER.findall(arguments)) - {"c10", "at", "Half", "BFloat16",
                                                           "float", "double", "int", "long",
                                                           "unsigned", "short", "char", "bool",
                                                           "true", "false", "int64_t", "int32_t",
                                                           "int8_t", "uint8_t", "int16_t",
                                                           "uint32_t", "uint64_t", "size_t",
                                                           "half", "__half", "__nv_bfloat16"}
            if words and not all(self.is_shared_name(w) for w in words):
                raise SplitRefused("template arguments the device part cannot name: " + arguments)
            prefix = qualified[:len(qualified) - len(name)]
            self.instances.append("template void* %skiln_kernel_%s<%s>();"
                                  % (prefix, name, arguments))
            if "c10::" in arguments or "at::" in arguments:
                self.device_uses_torch = True

    def is_shared_name(self, word):
        return any(re.search(r"\b%s\b" % re.escape(word), d) for d in self.device
                   if re.match(r"\s*(constexpr|static\s+constexpr|const|#\s*define|enum|struct)", d))

    @staticmethod
    def dispatch_types(code, launch_at):
        found = None
        for match in re.finditer(r"\b(?:AT_DISPATCH_(\w+?)(?:_AND(\d?))?)\s*\(", code[:launch_at]):
            found = match
        if not found:
            raise SplitRefused("scalar_t outside an AT_DISPATCH macro")
        base = DISPATCH_TYPES.get(found.group(1))
        if base is None:
            raise SplitRefused("AT_DISPATCH_%s" % found.group(1))
        types = list(base)
        if found.group(2) is not None:
            count = int(found.group(2) or 1)
            end = closing(code, found.end() - 1)
            named = re.findall(r"(?:ScalarType::|\bk)(\w+)", code[found.end():end])[:count]
            for word in named:
                if word not in SCALAR_TYPE:
                    raise SplitRefused("a dispatch type %s" % word)
                types.append(SCALAR_TYPE[word])
        return types


def split(source):
    """(device part or None where there is no kernel, host part, kernel names). The device part
    starts with what load_inline's torch/types.h would have brought it of the standard library
    and, where it names them, torch's scalar and accessor types (a few small headers)."""
    splitter = Splitter(source).split()
    if not splitter.kernels:
        return None, source, []
    host = splitter.rewrite_launches("\n".join(splitter.host))
    prelude = "".join("#include <%s>\n" % h for h in DEVICE_PRELUDE)
    if splitter.device_uses_torch:
        prelude += "".join("#include <%s>\n" % h for h in TORCH_DEVICE_PRELUDE)
        prelude += "namespace torch { using namespace at; }\n"
    device = "\n".join([prelude] + splitter.device + list(dict.fromkeys(splitter.instances)))
    return device + "\n", host + "\n", sorted(splitter.kernels)
