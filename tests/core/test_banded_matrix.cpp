// The symmetric banded Cholesky solve against a dense Gaussian elimination (the naive reference), on random
// diagonally dominant banded matrices and on a grounded graph Laplacian (the Newton direction's case).
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "core/banded_matrix.hpp"

using namespace noiselearn;

namespace {

// Dense Gaussian elimination with partial pivoting: the reference.
std::vector<double> dense_solve(std::vector<std::vector<double>> a, std::vector<double> b) {
  const size_t n = b.size();
  for (size_t c = 0; c < n; ++c) {
    size_t pivot = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::abs(a[r][c]) > std::abs(a[pivot][c])) pivot = r;
    std::swap(a[c], a[pivot]);
    std::swap(b[c], b[pivot]);
    for (size_t r = c + 1; r < n; ++r) {
      const double f = a[r][c] / a[c][c];
      for (size_t j = c; j < n; ++j) a[r][j] -= f * a[c][j];
      b[r] -= f * b[c];
    }
  }
  std::vector<double> x(n);
  for (size_t i = n; i-- > 0;) {
    double s = b[i];
    for (size_t j = i + 1; j < n; ++j) s -= a[i][j] * x[j];
    x[i] = s / a[i][i];
  }
  return x;
}

std::vector<std::vector<double>> dense(const SymmetricBandedMatrix& m) {
  std::vector<std::vector<double>> out(static_cast<size_t>(m.size()),
                                       std::vector<double>(static_cast<size_t>(m.size())));
  for (int64_t i = 0; i < m.size(); ++i)
    for (int64_t j = 0; j < m.size(); ++j) out[i][j] = m.at(i, j);
  return out;
}

}  // namespace

TEST_CASE("banded Cholesky solves agree with dense elimination, for several bandwidths and right-hand sides",
          "[banded]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int64_t bandwidth : {0, 1, 3, 20}) {
    const int64_t n = 57;
    SymmetricBandedMatrix m(n, bandwidth);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = std::max<int64_t>(0, i - bandwidth); j < i; ++j) m.add(i, j, u(rng));
      m.add(i, i, 2.0 * static_cast<double>(bandwidth) + 1.0 + u(rng));  // diagonally dominant: positive definite
    }
    std::vector<std::vector<double>> rhs(3, std::vector<double>(static_cast<size_t>(n)));
    for (auto& v : rhs)
      for (double& x : v) x = u(rng);
    const auto original = rhs;
    REQUIRE(m.solve(rhs));
    for (size_t k = 0; k < rhs.size(); ++k) {
      const std::vector<double> reference = dense_solve(dense(m), original[k]);
      for (int64_t i = 0; i < n; ++i) CHECK(rhs[k][i] == Approx(reference[i]).margin(1e-13));
    }
  }
}

TEST_CASE("entries are symmetric, outside the band zero, and adding outside the band is refused", "[banded]") {
  SymmetricBandedMatrix m(5, 2);
  m.add(3, 1, 2.5);
  CHECK(m.at(1, 3) == 2.5);
  CHECK(m.at(3, 1) == 2.5);
  CHECK(m.at(4, 0) == 0.0);
  CHECK_THROWS_AS(m.add(4, 0, 1.0), std::invalid_argument);
}

TEST_CASE("a graph Laplacian is singular (the solve says so) and grounded at one node it solves exactly", "[banded]") {
  // Path graph with weights 1 .. n-1: L 1 = 0, so Cholesky must fail; grounding node 0 makes it definite.
  const int64_t n = 12;
  SymmetricBandedMatrix laplacian(n, 1);
  for (int64_t i = 0; i + 1 < n; ++i) {
    const double w = static_cast<double>(i + 1);
    laplacian.add(i, i, w);
    laplacian.add(i + 1, i + 1, w);
    laplacian.add(i + 1, i, -w);
  }
  std::vector<std::vector<double>> rhs{std::vector<double>(static_cast<size_t>(n), 1.0)};
  CHECK_FALSE(laplacian.solve(rhs));
  SymmetricBandedMatrix grounded = laplacian;
  grounded.add(1, 0, -grounded.at(1, 0));
  grounded.add(0, 0, 1.0 - grounded.at(0, 0));
  // Current injection 1 at node n-1, ground at 0: the potential at node k is sum_{i<k} 1 / w_i (resistances in series).
  std::vector<std::vector<double>> injection{std::vector<double>(static_cast<size_t>(n), 0.0)};
  injection[0].back() = 1.0;
  REQUIRE(grounded.solve(injection));
  double potential = 0.0;
  for (int64_t k = 0; k < n; ++k) {
    CHECK(injection[0][k] == Approx(potential).epsilon(1e-14));
    potential += 1.0 / static_cast<double>(k + 1);
  }
}
