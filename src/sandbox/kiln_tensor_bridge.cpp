// kiln_tensor_bridge.cpp: torch's Python tensor conversions behind a C interface, built once
// per set of flags with Kiln's host headers (kiln_inline_build.py). torch's own declarations
// of them come with pybind11, which would double the precompiled header every host part of a
// fast inline build loads; the host parts declare these three functions instead.
#include <torch/csrc/autograd/python_variable.h>
#include <torch/extension.h>

extern "C" {

int kiln_is_tensor(PyObject *value)
{
    return THPVariable_Check(value) ? 1 : 0;
}

// *out becomes the tensor value holds (value must pass kiln_is_tensor).
void kiln_unpack_tensor(PyObject *value, at::Tensor *out)
{
    *out = THPVariable_Unpack(value);
}

PyObject *kiln_wrap_tensor(const at::Tensor *value)
{
    return THPVariable_Wrap(*value);
}
}
