#include "core/privacy_boosting_grr.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/errors.hpp"

namespace noiselearn {

PbGrrProbabilities pb_grr_probabilities(int64_t domain_size, int64_t region_size, double epsilon, double epsilon0) {
  if (domain_size < 1 || region_size < 1 || region_size > domain_size)
    throw InputError(fmt::format("PB-GRR: region size {} must be in 1..domain size {}", region_size, domain_size));
  if (!(std::isfinite(epsilon) && epsilon >= 0.0))
    throw InputError(fmt::format("PB-GRR: epsilon {} must be finite and >= 0", epsilon));
  if (!(epsilon0 >= 0.0 && epsilon0 <= epsilon))
    throw InputError(fmt::format("PB-GRR: epsilon0 {} must be in [0, epsilon = {}]", epsilon0, epsilon));
  // Scaled by e^-eps to stay finite for large eps: D e^-eps = 1 + (|S| - 1) e^-eps0 + (|X| - |S|) e^-eps.
  const double s = static_cast<double>(region_size), x = static_cast<double>(domain_size);
  const double scaled = 1.0 + (s - 1.0) * std::exp(-epsilon0) + (x - s) * std::exp(-epsilon);
  PbGrrProbabilities r;
  r.p = 1.0 / scaled;
  r.p_s = std::exp(-epsilon0) / scaled;
  r.p_sbar = std::exp(-epsilon) / scaled;
  r.rho = (1.0 + (s - 1.0) * std::exp(-epsilon0)) / scaled;
  return r;
}

std::vector<std::vector<int64_t>> category_regions(int64_t domain_size, int64_t size) {
  if (size < 1 || domain_size % size != 0)
    throw InputError(
        fmt::format("PB-GRR categories: domain size {} is not a multiple of the category size {}", domain_size, size));
  std::vector<std::vector<int64_t>> regions(domain_size);
  for (int64_t x = 0; x < domain_size; ++x)
    for (int64_t y = (x / size) * size; y < (x / size + 1) * size; ++y) regions[x].push_back(y);
  return regions;
}

std::vector<std::vector<int64_t>> window_regions(int64_t domain_size, int64_t size) {
  if (size < 1 || size > domain_size)
    throw InputError(fmt::format("PB-GRR windows: size {} must be in 1..{}", size, domain_size));
  std::vector<std::vector<int64_t>> regions(domain_size);
  const int64_t before = (size - 1) / 2;
  for (int64_t x = 0; x < domain_size; ++x)
    for (int64_t k = 0; k < size; ++k)
      regions[x].push_back(((x - before + k) % domain_size + domain_size) % domain_size);
  return regions;
}

std::vector<std::vector<double>> pb_grr_matrix(const std::vector<std::vector<int64_t>>& regions, double epsilon,
                                               double epsilon0) {
  const auto n = static_cast<int64_t>(regions.size());
  if (n == 0) throw InputError("PB-GRR: empty domain");
  const auto size = static_cast<int64_t>(regions.front().size());
  const PbGrrProbabilities r = pb_grr_probabilities(n, size, epsilon, epsilon0);
  std::vector<std::vector<double>> matrix(n, std::vector<double>(n, r.p_sbar));
  for (int64_t x = 0; x < n; ++x) {
    if (static_cast<int64_t>(regions[x].size()) != size ||
        std::find(regions[x].begin(), regions[x].end(), x) == regions[x].end())
      throw InputError(fmt::format("PB-GRR: region of item {} must contain it and have {} items", x, size));
    for (int64_t y : regions[x]) matrix[x][y] = r.p_s;
    matrix[x][x] = r.p;
  }
  return matrix;
}

double exact_local_epsilon(const std::vector<std::vector<double>>& matrix) {
  double worst = 0.0;
  const size_t n = matrix.size();
  for (size_t y = 0; y < n; ++y) {
    double largest = 0.0, smallest = 1.0;
    for (size_t x = 0; x < n; ++x) {
      largest = std::max(largest, matrix[x][y]);
      smallest = std::min(smallest, matrix[x][y]);
    }
    worst = std::max(worst, std::log(largest / smallest));
  }
  return worst;
}

}  // namespace noiselearn
