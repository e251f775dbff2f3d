#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/branch_free.hpp"

using namespace noiselearn;

namespace {

uint64_t bits(double x) {
  uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

}  // namespace

TEST_CASE("select_kept returns the kept value where asked and the other elsewhere, bit for bit",
          "[core][branch-free]") {
  // The blend must carry every bit pattern through: signed zeros, subnormals, infinities and NaN payloads.
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> values = {0.0,
                                      -0.0,
                                      1.0,
                                      -2.5,
                                      std::numeric_limits<double>::denorm_min(),
                                      -inf,
                                      inf,
                                      std::numeric_limits<double>::quiet_NaN(),
                                      1e308,
                                      -1e-300};
  for (const double a : values)
    for (const double b : values) {
      CHECK(bits(select_kept(true, a, b)) == bits(a));
      CHECK(bits(select_kept(false, a, b)) == bits(b));
    }
}

TEST_CASE("a running sum through select_kept equals the branching one", "[core][branch-free]") {
  // The use in the bucket fills: per-slot sums in index order, the slot being filled held in a register.
  const std::vector<int64_t> slot = {1, 1, 2, 2, 2, 1, 3, 3, 1, 1, 2};
  const std::vector<double> add = {0.1, 0.2, 0.3, 1e-17, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1};
  std::vector<double> direct(4, 0.0), blended(4, 0.0);
  for (size_t i = 0; i < slot.size(); ++i) direct[static_cast<size_t>(slot[i])] += add[i];
  int64_t current = 0;
  double acc = 0.0;
  for (size_t i = 0; i < slot.size(); ++i) {
    blended[static_cast<size_t>(current)] = acc;
    const double loaded = blended[static_cast<size_t>(slot[i])];
    acc = select_kept(slot[i] == current, acc, loaded) + add[i];
    current = slot[i];
  }
  blended[static_cast<size_t>(current)] = acc;
  blended[0] = 0.0;  // the starting slot, written by the caller afterwards
  for (size_t k = 1; k < 4; ++k) CHECK(bits(blended[k]) == bits(direct[k]));
}
