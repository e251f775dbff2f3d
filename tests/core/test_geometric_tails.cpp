// Tables with geometric tails (core/noise_table.hpp, GeometricTails; Gilani et al., Defs 3.3-3.4): the tail
// masses, the extended probabilities, the pairs of shifted tables and the utilities, each checked against a
// brute-force sum over a long explicit range (r = 1/2, so that what is left beyond 1100 cells is below 1e-300).
#include <catch2/catch.hpp>

#include <climits>
#include <cmath>
#include <map>

#include "core/dominating_pair.hpp"
#include "core/errors.hpp"
#include "core/utility.hpp"

using namespace noiselearn;

namespace {

// The discrete Laplace P(i) = (1 - r)/(1 + r) r^|i| on the integers, explicit on -w..w, geometric beyond.
NoiseTable discrete_laplace(double r, int64_t w) {
  std::vector<double> p;
  for (int64_t i = -w; i <= w; ++i) p.push_back((1.0 - r) / (1.0 + r) * std::pow(r, std::abs(static_cast<double>(i))));
  return NoiseTable(Grid::symmetric(static_cast<double>(w), 1.0), p, std::nullopt, {}, GeometricTails{r});
}

// An asymmetric table with tails: arbitrary window, the tail masses fixed by its end values.
NoiseTable asymmetric_tailed(double r) {
  std::vector<double> p{0.05, 0.3, 0.1, 0.2, 0.02, 0.15};
  const double tails = (p.front() + p.back()) * r / (1.0 - r);
  double window = 0.0;
  for (double v : p) window += v;
  for (double& v : p) v /= (window + tails);
  return NoiseTable(Grid{-2.0, 1.0, 6}, p, std::nullopt, {}, GeometricTails{r});
}

}  // namespace

TEST_CASE("a tailed table counts its geometric tails in the sum to 1, and refuses a ratio outside (0, 1)",
          "[core][tails]") {
  const NoiseTable t = discrete_laplace(0.5, 3);
  // Window mass plus p_3 r/(1-r) on each side is 1: (1-r)/(1+r) (1 + 2 sum_{i=1}^3 r^i) + 2 (1-r)/(1+r) r^4/(1-r).
  CHECK(t.left_tail_mass() == Approx(t.p(0) * 0.5 / 0.5).epsilon(1e-15));
  CHECK(t.left_tail_mass() == Approx(2.0 / 3.0 * std::pow(0.5, 4)).epsilon(1e-14));
  CHECK(t.support_kind() == SupportKind::kSymmetric);
  std::vector<double> p = t.probabilities();
  CHECK_THROWS_AS(NoiseTable(t.grid(), p), InputError);  // without its tails the window sums to less than 1
  CHECK_THROWS_AS(NoiseTable(t.grid(), p, std::nullopt, {}, GeometricTails{1.0}), InputError);
  CHECK_THROWS_AS(NoiseTable(t.grid(), p, std::nullopt, {}, GeometricTails{0.0}), InputError);
}

TEST_CASE("p_extended, mass_below and mass_from agree with brute-force sums of the tails", "[core][tails]") {
  const NoiseTable t = asymmetric_tailed(0.5);
  const int64_t last = t.size() - 1;
  for (int64_t i : {0, -1, -7}) {
    long double sum = 0.0L;
    for (int64_t j = i - 1; j > i - 1200; --j) sum += t.p_extended(j);
    CHECK(t.mass_below(i) == Approx(static_cast<double>(sum)).epsilon(1e-14));
  }
  for (int64_t i : {last, last + 1, last + 9}) {
    long double sum = 0.0L;
    for (int64_t j = i; j < i + 1200; ++j) sum += t.p_extended(j);
    CHECK(t.mass_from(i) == Approx(static_cast<double>(sum)).epsilon(1e-14));
  }
  long double total = 0.0L;
  for (int64_t j = -1200; j < last + 1200; ++j) total += t.p_extended(j);
  CHECK(static_cast<double>(total) == Approx(1.0).epsilon(1e-14));
  CHECK(t.p_extended(-3) == Approx(t.p(0) * 0.125));
  CHECK(t.p_extended(last + 2) == Approx(t.p(last) * 0.25));
}

TEST_CASE(
    "the pair of a tailed table has the same privacy-loss distribution as the pair of its long explicit "
    "extension (additive shifts and subsampled mixtures of both signs)",
    "[core][tails]") {
  const NoiseTable tailed = asymmetric_tailed(0.5);
  // The same law written out on 1100 cells beyond each end (what remains there is below 1e-300).
  const int64_t pad = 1100;
  std::vector<double> explicit_p;
  for (int64_t i = -pad; i < tailed.size() + pad; ++i) explicit_p.push_back(tailed.p_extended(i));
  double sum = 0.0;
  for (double v : explicit_p) sum += v;
  for (double& v : explicit_p) v /= sum;
  const NoiseTable extension(Grid{tailed.grid().origin - pad, 1.0, static_cast<int64_t>(explicit_p.size())},
                             explicit_p);

  // Privacy-loss distribution of one direction, grouped by loss (rounded to 1e-9), ignoring outcomes the
  // explicit extension only has because it ends (mass below 1e-290).
  auto pld = [](const std::vector<double>& first, const std::vector<double>& second) {
    std::map<long long, double> out;
    for (size_t i = 0; i < first.size(); ++i) {
      if (first[i] < 1e-290) continue;
      const double loss = second[i] > 0.0 ? std::log(first[i] / second[i]) : INFINITY;
      out[std::isfinite(loss) ? std::llround(loss * 1e9) : LLONG_MAX] += first[i];
    }
    return out;
  };
  auto check_same = [&](const DominatingPair& x, const DominatingPair& y) {
    for (bool reverse : {false, true}) {
      const auto px = reverse ? pld(x.all_b(), x.all_a()) : pld(x.all_a(), x.all_b());
      const auto py = reverse ? pld(y.all_b(), y.all_a()) : pld(y.all_a(), y.all_b());
      REQUIRE(px.size() == py.size());
      for (const auto& [loss, mass] : px) {
        REQUIRE(py.count(loss) == 1);
        CHECK(py.at(loss) == Approx(mass).epsilon(1e-12));
      }
    }
  };
  for (int64_t shift : {1, 2, 3}) check_same(additive_shift_pair(tailed, shift), additive_shift_pair(extension, shift));
  for (int64_t shift : {2, -2, 1}) {
    check_same(subsampled_mixture_pair(tailed, shift, 0.3), subsampled_mixture_pair(extension, shift, 0.3));
    check_same(subsampled_mixture_pair(tailed, shift, 1.0), subsampled_mixture_pair(extension, shift, 1.0));
  }
  // Every outcome is accounted for: A and B sum to 1 over the grid and beyond it.
  const DominatingPair pair = additive_shift_pair(tailed, 3);
  double a = 0.0, b = 0.0;
  for (double v : pair.all_a()) a += v;
  for (double v : pair.all_b()) b += v;
  CHECK(a == Approx(1.0).epsilon(1e-14));
  CHECK(b == Approx(1.0).epsilon(1e-14));
}

TEST_CASE("utilities of a tailed table include the tails: the discrete Laplace's closed forms",
          "[core][tails][closed-form]") {
  for (double r : {0.5, 0.9, 0.999}) {
    const NoiseTable t = discrete_laplace(r, 4);
    // E|X| = 2r / ((1-r)(1+r)), E X^2 = 2r / (1-r)^2, Pr[|X| > 2] = 2 r^3 / (1+r).
    CHECK(l1_utility(t) == Approx(2.0 * r / ((1.0 - r) * (1.0 + r))).epsilon(1e-12));
    CHECK(second_moment(t) == Approx(2.0 * r / ((1.0 - r) * (1.0 - r))).epsilon(1e-12));
    CHECK(tail_probability(t, 2.0) == Approx(2.0 * std::pow(r, 3) / (1.0 + r)).epsilon(1e-12));
    CHECK(tail_probability(t, 6.0) == Approx(2.0 * std::pow(r, 7) / (1.0 + r)).epsilon(1e-12));
    CHECK(std::isinf(max_abs_error(t)));
  }
}
