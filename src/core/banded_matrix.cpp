#include "core/banded_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace noiselearn {

SymmetricBandedMatrix::SymmetricBandedMatrix(int64_t size, int64_t bandwidth)
    : size_(size), bandwidth_(bandwidth), lower_(static_cast<size_t>(size * (bandwidth + 1)), 0.0) {
  if (size < 0 || bandwidth < 0) throw std::invalid_argument("SymmetricBandedMatrix: negative size or bandwidth");
}

double SymmetricBandedMatrix::at(int64_t i, int64_t j) const {
  if (i < j) std::swap(i, j);
  if (j < 0 || i >= size_ || i - j > bandwidth_) return 0.0;
  return lower_[static_cast<size_t>(i * (bandwidth_ + 1) + (i - j))];
}

void SymmetricBandedMatrix::throw_outside_band() {
  throw std::invalid_argument("SymmetricBandedMatrix::add outside the band");
}

double SymmetricBandedMatrix::largest_diagonal() const {
  double out = 0.0;
  for (int64_t i = 0; i < size_; ++i) out = std::max(out, lower_[static_cast<size_t>(i * (bandwidth_ + 1))]);
  return out;
}

bool SymmetricBandedMatrix::solve(std::vector<std::vector<double>>& right_hand_sides) const {
  const int64_t n = size_, b = bandwidth_, w = b + 1;
  for (const auto& x : right_hand_sides)
    if (static_cast<int64_t>(x.size()) != n) throw std::invalid_argument("SymmetricBandedMatrix::solve: wrong length");
  std::vector<double> l = lower_;  // becomes L with A = L L^T, same band
  const auto el = [&](int64_t i, int64_t j) -> double& { return l[static_cast<size_t>(i * w + (i - j))]; };
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = std::max<int64_t>(0, i - b); j <= i; ++j) {
      double s = el(i, j);
      for (int64_t k = std::max<int64_t>(0, i - b); k < j; ++k) s -= el(i, k) * el(j, k);
      if (i == j) {
        if (!(s > 0.0) || !std::isfinite(s)) return false;
        el(i, i) = std::sqrt(s);
      } else {
        el(i, j) = s / el(j, j);
      }
    }
  }
  // All right-hand sides advance together, row by row: their recursions (a division after each row's sum, for a
  // narrow band one division after another) are independent, so they overlap. The same operations as solving them
  // one after another, so the same bits.
  const size_t m = right_hand_sides.size();
  std::vector<double*> xs(m);
  for (size_t r = 0; r < m; ++r) xs[r] = right_hand_sides[r].data();
  for (int64_t i = 0; i < n; ++i) {  // L y = x
    const int64_t first = std::max<int64_t>(0, i - b);
    for (size_t r = 0; r < m; ++r) {
      double* x = xs[r];
      double s = x[i];
      for (int64_t k = first; k < i; ++k) s -= el(i, k) * x[k];
      x[i] = s / el(i, i);
    }
  }
  for (int64_t i = n - 1; i >= 0; --i) {  // L^T z = y
    const int64_t last = std::min(n - 1, i + b);
    for (size_t r = 0; r < m; ++r) {
      double* x = xs[r];
      double s = x[i];
      for (int64_t k = i + 1; k <= last; ++k) s -= el(k, i) * x[k];
      x[i] = s / el(i, i);
    }
  }
  return true;
}

}  // namespace noiselearn
