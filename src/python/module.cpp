// The compiled core of the Python package `noiselearn` (noiselearn._noiselearn; the package's __init__.py exports its
// names): noise tables as numpy arrays, the certified accountant (both bounds, the neighbour
// relation, heterogeneous sequences), the baselines and the secure sampler. Bad input raises ValueError with the
// same one-line message the CLI prints (the C++ InputError).
#include <pybind11/pybind11.h>

#include "core/errors.hpp"
#include "python/bindings.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_noiselearn, m) {
  m.doc() =
      "noiselearn: certified noise tables for differential privacy (tables, accountant, baselines, secure sampler)";
  py::register_exception_translator([](std::exception_ptr error) {
    try {
      if (error) std::rethrow_exception(error);
    } catch (const noiselearn::InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  noiselearn::python::bind_tables(m);
  noiselearn::python::bind_accountant(m);
  noiselearn::python::bind_baselines(m);
  noiselearn::python::bind_sampler(m);
  noiselearn::python::bind_events(m);
}
