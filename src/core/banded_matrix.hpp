#pragma once
// A symmetric banded matrix and its Cholesky solve, for Newton directions whose Hessian couples only unknowns a
// few places apart (the q-space Hessian of a shifted Renyi moment couples p_k with p_(k +- a), a <= m:
// losses/renyi_objective.hpp). Storage: the lower band, entry (i, i - k) for k = 0 .. bandwidth at
// lower[i * (bandwidth + 1) + k]. Factorisation O(n b^2), solve O(n b): at n = 2001, b = 20 about a million
// flops, against 2.7e9 for a dense Cholesky of the same matrix.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace noiselearn {

class SymmetricBandedMatrix {
 public:
  SymmetricBandedMatrix() = default;
  SymmetricBandedMatrix(int64_t size, int64_t bandwidth);

  int64_t size() const { return size_; }
  int64_t bandwidth() const { return bandwidth_; }
  // Entry (i, j) with |i - j| <= bandwidth (0 outside the band).
  double at(int64_t i, int64_t j) const;
  // Adds value to (i, j) (and so to (j, i)); std::invalid_argument outside the band. Inline: Hessians are
  // assembled an entry at a time.
  void add(int64_t i, int64_t j, double value) {
    if (i < j) std::swap(i, j);
    if (j < 0 || i >= size_ || i - j > bandwidth_) throw_outside_band();
    lower_[static_cast<std::size_t>(i * (bandwidth_ + 1) + (i - j))] += value;
  }
  double largest_diagonal() const;

  // Solves (this) x = rhs for each right-hand side by a banded Cholesky factorisation (done once, on a copy).
  // Returns false if the matrix is not numerically positive definite (a pivot <= 0 or not finite).
  bool solve(std::vector<std::vector<double>>& right_hand_sides) const;

 private:
  [[noreturn]] static void throw_outside_band();
  int64_t size_ = 0, bandwidth_ = 0;
  std::vector<double> lower_;
};

}  // namespace noiselearn
