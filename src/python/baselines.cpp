// noiselearn.baselines: the textbook tables on a grid (core/baselines.hpp), as NoiseTable objects.
#include <pybind11/pybind11.h>

#include "core/baselines.hpp"
#include "python/bindings.hpp"

namespace py = pybind11;

namespace noiselearn::python {

void bind_baselines(py::module_& m) {
  py::module_ b = m.def_submodule("baselines", "The textbook noise tables on a grid");
  b.def("gaussian", &gaussian_table, py::arg("grid"), py::arg("sigma"), "N(0, sigma^2): the mass of each grid cell");
  b.def("laplace", &laplace_table, py::arg("grid"), py::arg("scale"), "Laplace(0, scale): the mass of each grid cell");
  b.def("truncated_gaussian", &truncated_gaussian_table, py::arg("grid"), py::arg("sigma"), py::arg("range"),
        "N(0, sigma^2) cell masses on the points with |x| <= range, renormalised");
  b.def("truncated_laplace", &truncated_laplace_table, py::arg("grid"), py::arg("scale"), py::arg("range"),
        "Laplace cell masses on the points with |x| <= range, renormalised");
  b.def("staircase", &staircase_table, py::arg("grid"), py::arg("epsilon"), py::arg("sensitivity"), py::arg("gamma"),
        py::arg("range"), "The staircase mechanism (Geng et al. 2015), truncated to [-range, range]");
  b.def("staircase_optimal_gamma_l1", &staircase_optimal_gamma_l1, py::arg("epsilon"), "gamma* = 1 / (1 + e^(eps/2))");
  b.def("discrete_gaussian", &discrete_gaussian_table, py::arg("grid"), py::arg("sigma"),
        "p(x) proportional to exp(-x^2 / (2 sigma^2))");
  b.def("discrete_laplace", &discrete_laplace_table, py::arg("grid"), py::arg("scale"),
        "p(x) proportional to exp(-|x| / scale)");
  b.def("uniform", &uniform_table, py::arg("grid"), py::arg("range"), "Equal mass on the points with |x| <= range");
}

}  // namespace noiselearn::python
