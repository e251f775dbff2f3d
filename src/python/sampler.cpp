// noiselearn.SecureSampler: the production sampler (src/sampler/) from Python. Draws use the operating system's
// CSPRNG and an integer alias table of the quantised table; `seed` switches to a deterministic, NON-cryptographic
// source for tests only. add_noise snaps each answer to the table's lattice and adds the noise there.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <memory>
#include <optional>

#include "core/errors.hpp"
#include "core/noise_table.hpp"
#include "python/bindings.hpp"
#include "sampler/secure_sampler.hpp"

namespace py = pybind11;

namespace noiselearn::python {

namespace {

using sampler::SecureSampler;

std::unique_ptr<sampler::EntropySource> source_of(const std::optional<uint64_t>& seed) {
  if (seed) return std::make_unique<sampler::DeterministicTestEntropySource>(*seed);
  return sampler::make_os_entropy_source();
}

sampler::SamplerTable sampler_table_of(const NoiseTable& table) {
  if (table.tails())
    throw InputError("a table with geometric tails has infinite support: the sampler cannot draw from it");
  sampler::SamplerTable t;
  t.origin = table.grid().origin;
  t.step = table.grid().step;
  t.probabilities = table.probabilities();
  return t;
}

}  // namespace

void bind_sampler(py::module_& m) {
  py::class_<SecureSampler>(
      m, "SecureSampler",
      "Draws noise from a table with the OS CSPRNG (seed=None) through an exact integer alias table. "
      "What is sampled is `quantised`: the table rounded to weights summing to 2^total_bits.")
      .def(py::init([](const NoiseTable& table, std::optional<uint64_t> seed, int total_bits) {
             return std::make_unique<SecureSampler>(sampler_table_of(table), source_of(seed), total_bits);
           }),
           py::arg("table"), py::kw_only(), py::arg("seed") = py::none(),
           py::arg("total_bits") = sampler::kDefaultTotalBits,
           "seed: a deterministic, non-cryptographic source, for tests only.")
      .def_static(
          "from_file",
          [](const std::filesystem::path& path, std::optional<uint64_t> seed, int total_bits) {
            return std::make_unique<SecureSampler>(SecureSampler::from_file(path, source_of(seed), total_bits));
          },
          py::arg("path"), py::kw_only(), py::arg("seed") = py::none(),
          py::arg("total_bits") = sampler::kDefaultTotalBits,
          "A sampler of an exported noise.csv (checked against its noise.json), without LibTorch on the C++ side.")
      .def(
          "draw",
          [](SecureSampler& s, size_t count) {
            py::array_t<double> out(count);
            double* x = out.mutable_data();
            for (size_t i = 0; i < count; ++i) x[i] = s.draw();
            return out;
          },
          py::arg("count"), "count draws of the noise (grid points)")
      .def(
          "add_noise",
          [](SecureSampler& s, const py::array_t<double, py::array::forcecast>& answers) {
            const py::array_t<double, py::array::c_style | py::array::forcecast> contiguous(answers);
            py::array_t<double> out(std::vector<py::ssize_t>(answers.shape(), answers.shape() + answers.ndim()));
            double* x = out.mutable_data();
            const double* a = contiguous.data();
            for (py::ssize_t i = 0; i < contiguous.size(); ++i) x[i] = s.add_noise(a[i]);
            return out;
          },
          py::arg("answers"),
          "The noisy release of every answer (any shape): each snapped to the lattice, noise added there")
      .def_property_readonly("quantised",
                             [](const SecureSampler& s) {
                               const std::vector<double> p = s.quantised().probabilities();
                               return py::array_t<double>(p.size(), p.data());
                             })
      .def_property_readonly("origin", [](const SecureSampler& s) { return s.table().origin; })
      .def_property_readonly("step", [](const SecureSampler& s) { return s.table().step; })
      .def_property_readonly("is_cryptographic", &SecureSampler::is_cryptographic);
}

}  // namespace noiselearn::python
