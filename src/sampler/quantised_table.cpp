#include "sampler/quantised_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace noiselearn::sampler {

namespace {

// Long double (64-bit mantissa on x86) for the ideal weights: q_i up to 2^62 keeps its units digit.
long double compensated_total(const std::vector<double>& p) {
  long double sum = 0.0L, compensation = 0.0L;
  for (double v : p) {
    const long double t = sum + v;
    compensation += std::fabs(sum) >= v ? (sum - t) + v : (v - t) + sum;
    sum = t;
  }
  return sum + compensation;
}

}  // namespace

double QuantisedTable::probability(size_t i) const { return std::ldexp(static_cast<double>(weights[i]), -total_bits); }

std::vector<double> QuantisedTable::probabilities() const {
  std::vector<double> p(weights.size());
  for (size_t i = 0; i < p.size(); ++i) p[i] = probability(i);
  return p;
}

QuantisedTable quantise(const std::vector<double>& probabilities, int total_bits) {
  if (probabilities.empty()) throw std::invalid_argument("quantise: empty table");
  if (total_bits < 1 || total_bits > kMaxTotalBits)
    throw std::invalid_argument(fmt::format("quantise: total_bits {} outside [1, {}]", total_bits, kMaxTotalBits));
  size_t positive = 0;
  for (double v : probabilities) {
    if (!std::isfinite(v) || v < 0.0)
      throw std::invalid_argument(fmt::format("quantise: probability {} is not finite and >= 0", v));
    if (v > 0.0) ++positive;
  }
  const uint64_t total = uint64_t{1} << total_bits;
  if (positive == 0) throw std::invalid_argument("quantise: the probabilities sum to 0");
  if (positive > total)
    throw std::invalid_argument(
        fmt::format("quantise: {} positive cells do not fit {} units (raise total_bits)", positive, total));

  const long double sum = compensated_total(probabilities);
  const size_t n = probabilities.size();
  QuantisedTable out;
  out.total_bits = total_bits;
  out.weights.assign(n, 0);
  std::vector<long double> remainder(n, -1.0L);  // -1: not eligible for adjustment (zero or lifted cells)
  std::vector<bool> lifted(n, false);
  uint64_t assigned = 0;
  for (size_t i = 0; i < n; ++i) {
    if (probabilities[i] == 0.0) continue;
    const long double ideal = static_cast<long double>(probabilities[i]) / sum * static_cast<long double>(total);
    const long double whole = std::floor(ideal);
    if (whole < 1.0L) {
      out.weights[i] = 1;
      lifted[i] = true;
      ++out.cells_lifted;
    } else {
      out.weights[i] = static_cast<uint64_t>(whole);
      remainder[i] = ideal - whole;
    }
    assigned += out.weights[i];
  }

  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  if (assigned < total) {
    // Largest remainders first; repeat the pass if the deficit exceeds the eligible cells (it cannot by more
    // than rounding, but the loop must not depend on that).
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return remainder[a] > remainder[b]; });
    uint64_t missing = total - assigned;
    while (missing > 0) {
      bool any = false;
      for (size_t i : order) {
        if (missing == 0) break;
        if (remainder[i] < 0.0L) continue;
        ++out.weights[i];
        --missing;
        any = true;
      }
      if (!any) throw std::logic_error("quantise: no cell can take the missing units");
    }
  } else if (assigned > total) {
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return remainder[a] < remainder[b]; });
    uint64_t excess = assigned - total;
    while (excess > 0) {
      bool any = false;
      for (size_t i : order) {
        if (excess == 0) break;
        if (remainder[i] < 0.0L || out.weights[i] < 2) continue;
        --out.weights[i];
        --excess;
        any = true;
      }
      if (!any)
        throw std::invalid_argument(
            "quantise: too few units to keep every positive cell at least 1 (raise total_bits)");
    }
  }

  for (size_t i = 0; i < n; ++i) {
    const long double q = static_cast<long double>(out.weights[i]) / static_cast<long double>(total);
    const long double p = probabilities[i];
    out.max_abs_change = std::max(out.max_abs_change, static_cast<double>(std::fabs(q - p)));
    if (p > 0.0L) out.max_ratio = std::max(out.max_ratio, static_cast<double>(std::max(q / p, p / q)));
  }
  return out;
}

}  // namespace noiselearn::sampler
