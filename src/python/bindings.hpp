#pragma once
// The pieces of the Python module `noiselearn` (module.cpp), one file per concept: tables and their files, the
// certified accountant, the baselines, the secure sampler. Training stays in the CLI and its configs.
#include <pybind11/pybind11.h>

namespace noiselearn::python {

void bind_tables(pybind11::module_& m);
void bind_accountant(pybind11::module_& m);
void bind_baselines(pybind11::module_& m);
void bind_sampler(pybind11::module_& m);
void bind_events(pybind11::module_& m);

}  // namespace noiselearn::python
