// noiselearn.Grid and noiselearn.NoiseTable: a probability vector on a uniform grid, validated like every table
// noiselearn reads (finite, non-negative, sums to 1 within 1e-12); read_table / write_table for noise.csv + noise.json.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/grid.hpp"
#include "core/noise_table.hpp"
#include "core/utility.hpp"
#include "io/table_files.hpp"
#include "python/bindings.hpp"

namespace py = pybind11;

namespace noiselearn::python {

namespace {

// A one-dimensional array of numbers (float, int or unsigned dtype). Anything else is refused, not converted: numpy
// would turn ["0.5", "0.5"] into floats and a list of booleans into 0 and 1, silently.
std::vector<double> vector_of(const py::object& values, const char* what) {
  py::array any = py::array::ensure(values);
  if (!any)
    throw InputError(fmt::format("{} must be an array of numbers (got {})", what,
                                 py::str(py::type::of(values).attr("__name__")).cast<std::string>()));
  const char kind = any.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u')
    throw InputError(fmt::format(
        "{} must be an array of numbers (got an array of dtype {}{})", what, py::str(any.dtype()).cast<std::string>(),
        kind == 'U' || kind == 'S' || kind == 'O' ? ": convert the values to float first" : ""));
  if (any.ndim() != 1)
    throw InputError(fmt::format("{} must be a one-dimensional array (got {} dimensions)", what, any.ndim()));
  const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(any);
  return std::vector<double>(a.data(), a.data() + a.size());
}

py::array_t<double> array_of(const std::vector<double>& v) { return py::array_t<double>(v.size(), v.data()); }

// The uniform grid through the points x (the first and last fix it; every point must lie on it within 1e-9 step).
Grid grid_through(const std::vector<double>& x) {
  if (x.empty()) throw InputError("x is empty");
  if (x.size() == 1) return Grid{x[0], 1.0, 1};
  const double step = (x.back() - x.front()) / static_cast<double>(x.size() - 1);
  if (!(step > 0.0) || !std::isfinite(step)) throw InputError("x must increase strictly");
  const Grid grid{x.front(), step, static_cast<int64_t>(x.size())};
  for (size_t i = 0; i < x.size(); ++i)
    if (std::abs(x[i] - grid.x(static_cast<int64_t>(i))) > 1e-9 * step)
      throw InputError(
          fmt::format("x is not a uniform grid: x[{}] = {} but the grid through the first and last points has {}", i,
                      x[i], grid.x(static_cast<int64_t>(i))));
  return grid;
}

std::optional<SupportKind> support_of(const std::optional<std::string>& support) {
  if (!support) return std::nullopt;
  return parse_support_kind(*support);
}

}  // namespace

void bind_tables(py::module_& m) {
  py::class_<Grid>(m, "Grid", "A uniform grid: x_i = origin + i * step, i = 0 .. size - 1.")
      .def(py::init([](double origin, double step, int64_t size) {
             Grid g{origin, step, size};
             g.validate();
             return g;
           }),
           py::arg("origin"), py::arg("step"), py::arg("size"))
      .def_static("symmetric", &Grid::symmetric, py::arg("range"), py::arg("step"),
                  "The grid on [-range, range]; range must be a whole number of steps.")
      .def_static("spanning", &Grid::spanning, py::arg("lower"), py::arg("upper"), py::arg("step"),
                  "The grid on [lower, upper]; upper - lower must be a whole number of steps.")
      .def_readonly("origin", &Grid::origin)
      .def_readonly("step", &Grid::step)
      .def_readonly("size", &Grid::size)
      .def_property_readonly("x",
                             [](const Grid& g) {
                               std::vector<double> x(static_cast<size_t>(g.size));
                               for (int64_t i = 0; i < g.size; ++i) x[static_cast<size_t>(i)] = g.x(i);
                               return array_of(x);
                             })
      .def("__repr__", [](const Grid& g) { return "<noiselearn.Grid " + describe(g) + ">"; });

  py::class_<NoiseTable>(m, "NoiseTable",
                         "A noise distribution: probabilities p on a uniform grid. Validated on construction: finite, "
                         "non-negative, summing to 1 within 1e-12 (ValueError otherwise).")
      .def(py::init([](const Grid& grid, const py::object& p, const std::optional<std::string>& support) {
             return NoiseTable(grid, vector_of(p, "p"), support_of(support));
           }),
           py::arg("grid"), py::arg("p"), py::arg("support") = py::none(),
           "support: 'symmetric', 'one-sided' or 'general'; inferred when omitted.")
      .def(py::init([](const py::object& x, const py::object& p, const std::optional<std::string>& support) {
             const std::vector<double> xs = vector_of(x, "x"), ps = vector_of(p, "p");
             if (xs.size() != ps.size())
               throw InputError(fmt::format("x has {} points but p has {}", xs.size(), ps.size()));
             return NoiseTable(grid_through(xs), ps, support_of(support));
           }),
           py::arg("x"), py::arg("p"), py::arg("support") = py::none(),
           "A table from its points x (a uniform grid) and probabilities p.")
      .def_property_readonly("grid", &NoiseTable::grid)
      .def_property_readonly("x",
                             [](const NoiseTable& t) {
                               std::vector<double> x(static_cast<size_t>(t.size()));
                               for (int64_t i = 0; i < t.size(); ++i) x[static_cast<size_t>(i)] = t.x(i);
                               return array_of(x);
                             })
      .def_property_readonly("p", [](const NoiseTable& t) { return array_of(t.probabilities()); })
      .def_property_readonly("support", [](const NoiseTable& t) { return to_string(t.support_kind()); })
      .def("__len__", &NoiseTable::size)
      .def("l1", &l1_utility, "E|e|")
      .def("second_moment", &second_moment, "E[e^2]")
      .def("tail_probability", &tail_probability, py::arg("tau"), "Pr[|e| > tau]")
      .def("max_abs_error", &max_abs_error, "The largest |x| with p > 0")
      .def("__repr__", [](const NoiseTable& t) {
        return fmt::format("<noiselearn.NoiseTable {} points on {}, {}>", t.size(), describe(t.grid()),
                           to_string(t.support_kind()));
      });

  m.def(
      "read_table",
      [](const std::filesystem::path& path, bool renormalise, double sum_tolerance) {
        TableReadOptions options;
        options.renormalise = renormalise;
        options.sum_tolerance = sum_tolerance;
        return read_noise_table(path, options).table;
      },
      py::arg("path"), py::arg("renormalise") = TableReadOptions{}.renormalise,
      py::arg("sum_tolerance") = TableReadOptions{}.sum_tolerance,
      "Reads noise.csv (and noise.json beside it, whose grid and checksum it checks) or a bare x,p CSV. renormalise: "
      "divide by the sum when it is within sum_tolerance of 1.");
  m.def(
      "write_table",
      [](const NoiseTable& table, const std::filesystem::path& path, bool overwrite) {
        try {
          write_noise_table(table, path, nlohmann::json::object(), overwrite);
        } catch (const InputError& e) {  // say it in Python's words, not the CLI's
          std::string message = e.what();
          const std::string cli = "(use --force)";
          if (const size_t at = message.find(cli); at != std::string::npos)
            message.replace(at, cli.size(), "(pass overwrite=True)");
          throw InputError(message);
        }
      },
      py::arg("table"), py::arg("path"), py::arg("overwrite") = false,
      "Writes path (x,p CSV at full precision) and its .json metadata, atomically; refuses an existing file unless "
      "overwrite.");
}

}  // namespace noiselearn::python
