// kiln_inline_module.h: the Python module of a fast-built extension's functions (kiln_inline_
// build.py), made with Python's C API instead of pybind11, whose templates are most of the cost
// of compiling load_inline's bindings. Precompiled, with Python.h and torch/types.h (both in
// the torch/extension.h that load_inline's main.cpp includes), for the file of the candidate's
// C++ source. A function is called as load_inline's binding calls it: positional arguments
// converted as pybind11 converts them, C++ exceptions raised as torch raises them.
#ifndef KILN_INLINE_MODULE_H
#define KILN_INLINE_MODULE_H

#include <Python.h>

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <torch/types.h>

// kiln_tensor_bridge.cpp, linked into every fast-built extension.
extern "C" {
int kiln_is_tensor(PyObject *value);
void kiln_unpack_tensor(PyObject *value, at::Tensor *out);
PyObject *kiln_wrap_tensor(const at::Tensor *value);
}

namespace kiln::inline_module {

// -- Python to C++ ----------------------------------------------------------------------
inline bool convert(PyObject *value, at::Tensor &out)
{
    if (!kiln_is_tensor(value))
        return false;
    kiln_unpack_tensor(value, &out);
    return true;
}

inline bool convert(PyObject *value, double &out)
{
    if (!PyFloat_Check(value) && !PyLong_Check(value) && !PyNumber_Check(value))
        return false;
    out = PyFloat_AsDouble(value);
    if (out == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
    }
    return true;
}

inline bool convert(PyObject *value, float &out)
{
    double wide = 0;
    if (!convert(value, wide))
        return false;
    out = static_cast<float>(wide);
    return true;
}

// pybind11 binds one function with conversions allowed: a bool also takes None (false) and
// anything with __bool__, an integer anything with __index__ or __int__ but not a float, a
// string also bytes.
inline bool convert(PyObject *value, bool &out)
{
    if (value == Py_None) {
        out = false;
        return true;
    }
    if (value != Py_True && value != Py_False &&
        !(Py_TYPE(value)->tp_as_number && Py_TYPE(value)->tp_as_number->nb_bool))
        return false;
    const int truth = PyObject_IsTrue(value);
    if (truth < 0) {
        PyErr_Clear();
        return false;
    }
    out = truth == 1;
    return true;
}

template <typename Integer>
std::enable_if_t<std::is_integral_v<Integer> && !std::is_same_v<Integer, bool>, bool>
convert(PyObject *value, Integer &out)
{
    if (PyFloat_Check(value))
        return false; // pybind11 does not truncate a float into an integer parameter
    PyObject *index = PyNumber_Index(value);
    if (!index) {
        PyErr_Clear();
        index = PyNumber_Long(value);
    }
    if (!index) {
        PyErr_Clear();
        return false;
    }
    const long long wide = PyLong_AsLongLong(index);
    Py_DECREF(index);
    if (wide == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
    }
    out = static_cast<Integer>(wide);
    return static_cast<long long>(out) == wide;
}

inline bool convert(PyObject *value, std::string &out)
{
    if (PyBytes_Check(value)) {
        out.assign(PyBytes_AS_STRING(value), size_t(PyBytes_GET_SIZE(value)));
        return true;
    }
    if (!PyUnicode_Check(value))
        return false;
    Py_ssize_t size = 0;
    const char *text = PyUnicode_AsUTF8AndSize(value, &size);
    if (!text) {
        PyErr_Clear();
        return false;
    }
    out.assign(text, size_t(size));
    return true;
}

template <typename T> bool convert(PyObject *value, std::optional<T> &out)
{
    if (value == Py_None) {
        out.reset();
        return true;
    }
    T inner{};
    if (!convert(value, inner))
        return false;
    out = std::move(inner);
    return true;
}

template <typename T> bool convert(PyObject *value, std::vector<T> &out)
{
    if (!PySequence_Check(value) || PyUnicode_Check(value) || PyBytes_Check(value))
        return false;
    PyObject *items = PySequence_Fast(value, "a sequence");
    if (!items) {
        PyErr_Clear();
        return false;
    }
    const Py_ssize_t size = PySequence_Fast_GET_SIZE(items);
    out.resize(size_t(size));
    bool ok = true;
    for (Py_ssize_t i = 0; ok && i < size; ++i)
        ok = convert(PySequence_Fast_GET_ITEM(items, i), out[size_t(i)]);
    Py_DECREF(items);
    return ok;
}

// -- C++ to Python ----------------------------------------------------------------------
inline PyObject *to_python(const at::Tensor &value)
{
    return kiln_wrap_tensor(&value);
}
inline PyObject *to_python(double value)
{
    return PyFloat_FromDouble(value);
}
inline PyObject *to_python(float value)
{
    return PyFloat_FromDouble(value);
}
inline PyObject *to_python(bool value)
{
    return PyBool_FromLong(value);
}
inline PyObject *to_python(const std::string &value)
{
    return PyUnicode_FromStringAndSize(value.data(), Py_ssize_t(value.size()));
}

template <typename Integer>
std::enable_if_t<std::is_integral_v<Integer> && !std::is_same_v<Integer, bool>, PyObject *>
to_python(Integer value)
{
    return PyLong_FromLongLong(static_cast<long long>(value));
}

template <typename T> PyObject *to_python(const std::optional<T> &value)
{
    if (!value)
        Py_RETURN_NONE;
    return to_python(*value);
}

template <typename T> PyObject *to_python(const std::vector<T> &values)
{
    PyObject *list = PyList_New(Py_ssize_t(values.size()));
    for (size_t i = 0; list && i < values.size(); ++i) {
        PyObject *item = to_python(values[i]);
        if (!item) {
            Py_DECREF(list);
            return nullptr;
        }
        PyList_SET_ITEM(list, Py_ssize_t(i), item);
    }
    return list;
}

template <typename... T> PyObject *to_python(const std::tuple<T...> &values)
{
    PyObject *tuple = PyTuple_New(Py_ssize_t(sizeof...(T)));
    bool ok = tuple != nullptr;
    Py_ssize_t i = 0;
    std::apply(
        [&](const auto &...value) {
            ((ok = ok &&
                   [&] {
                       PyObject *item = to_python(value);
                       if (item)
                           PyTuple_SET_ITEM(tuple, i++, item);
                       return item != nullptr;
                   }()),
             ...);
        },
        values);
    if (!ok) {
        Py_XDECREF(tuple);
        return nullptr;
    }
    return tuple;
}

// -- calls ------------------------------------------------------------------------------
// The Python exception torch's bindings raise for a C++ exception (torch/csrc/Exceptions.h).
inline PyObject *raise_current(const char *name)
{
    try {
        throw;
    } catch (const c10::IndexError &e) {
        PyErr_SetString(PyExc_IndexError, e.what_without_backtrace());
    } catch (const c10::ValueError &e) {
        PyErr_SetString(PyExc_ValueError, e.what_without_backtrace());
    } catch (const c10::TypeError &e) {
        PyErr_SetString(PyExc_TypeError, e.what_without_backtrace());
    } catch (const c10::NotImplementedError &e) {
        PyErr_SetString(PyExc_NotImplementedError, e.what_without_backtrace());
    } catch (const c10::Error &e) {
        PyErr_SetString(PyExc_RuntimeError, e.what_without_backtrace());
    } catch (const std::exception &e) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (...) {
        PyErr_Format(PyExc_RuntimeError, "%s(): an unknown C++ exception", name);
    }
    return nullptr;
}

template <typename R, typename... P, size_t... I>
PyObject *call_with(R (*function)(P...), const char *name, PyObject *args,
                    std::index_sequence<I...>)
{
    std::tuple<std::remove_cv_t<std::remove_reference_t<P>>...> values;
    const bool converted = (convert(PyTuple_GET_ITEM(args, I), std::get<I>(values)) && ...);
    if (!converted) {
        PyErr_Format(PyExc_TypeError, "%s(): incompatible function arguments.", name);
        return nullptr;
    }
    if constexpr (std::is_void_v<R>) {
        function(std::get<I>(values)...);
        Py_RETURN_NONE;
    } else {
        return to_python(function(std::get<I>(values)...));
    }
}

template <typename R, typename... P>
PyObject *call(R (*function)(P...), const char *name, PyObject *args)
{
    if (PyTuple_GET_SIZE(args) != Py_ssize_t(sizeof...(P))) {
        PyErr_Format(PyExc_TypeError,
                     "%s(): incompatible function arguments. %zd given, %zu expected", name,
                     PyTuple_GET_SIZE(args), sizeof...(P));
        return nullptr;
    }
    try {
        return call_with(function, name, args, std::index_sequence_for<P...>{});
    } catch (...) {
        return raise_current(name);
    }
}

} // namespace kiln::inline_module

#endif // KILN_INLINE_MODULE_H
