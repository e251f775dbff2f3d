// One-sided baselines of Xiao et al.: the test vectors (ours, float64), brute-force hockey-stick divergences
// of the shift by the sensitivity, the errata (Thm 1 with omega rounded down is not DP; the TBL rows of Tables 1-2
// are mu*^2 + lambda^2 at the exact minimal shift), and exact moments against numerical integration.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "core/errors.hpp"
#include "core/one_sided_baselines.hpp"

using namespace noiselearn;

namespace {

// delta(eps) of P against P shifted by one step (Q(x) = P(x - 1)), in both directions, by enumeration. These tables
// have neighbouring ratios of exactly e^(+-eps) in exact arithmetic; in float64 such a pair can come out a rounding
// above e^eps, so a pair counts only if its log ratio exceeds eps by more than 1e-12 (a real excess, like c > 1 in
// the erratum's table, is many orders larger).
std::pair<double, double> shift_deltas(const std::vector<double>& p, double epsilon) {
  const int64_t n = static_cast<int64_t>(p.size());
  double forward = 0.0, backward = 0.0;
  const auto excess = [epsilon](double a, double b) {  // (a - e^eps b)_+ with the tolerance above
    if (a <= 0.0) return 0.0;
    if (b <= 0.0) return a;
    return std::log(a) - std::log(b) > epsilon + 1e-12 ? a - std::exp(epsilon) * b : 0.0;
  };
  for (int64_t x = 0; x <= n; ++x) {
    const double px = x < n ? p[static_cast<size_t>(x)] : 0.0;
    const double qx = x >= 1 ? p[static_cast<size_t>(x - 1)] : 0.0;
    forward += excess(px, qx);
    backward += excess(qx, px);
  }
  return {forward, backward};
}

std::vector<double> probabilities(const NoiseTable& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.size(); ++i) out.push_back(t.p(i));
  return out;
}

double moment(const NoiseTable& t, int k) {
  double m = 0.0;
  for (int64_t i = 0; i < t.size(); ++i) m += std::pow(t.grid().x(i), k) * t.p(i);
  return m;
}

}  // namespace

TEST_CASE("Thm 1 at epsilon 1, delta 1e-4: the issue's test vector, and its hockey-stick sums are p_0 and p_omega'",
          "[one-sided]") {
  const SingleReleaseOptimum o = single_release_optimum(1.0, 1e-4);
  CHECK(o.omega_real == Approx(8.43852).margin(5e-6));
  CHECK(o.omega == 9);
  // The vector says c = 0.412277 (and p_9 = 0.334070); with it the masses sum to 1 - 8.2e-6. The value that
  // normalises, c (e^10 - 1) delta = e - 1 - (e^9 - 1) delta, is 0.4122834, and the same vector's E[e] = 8.56191 and
  // E[e^2] = 75.3850 are those of this c to every printed digit (and not of 0.412277): its c and p_9 are off in
  // the sixth digit.
  CHECK(o.c == Approx(0.4122834196).margin(1e-9));
  CHECK(o.omega_prime == 18);
  const NoiseTable t = o.table();
  REQUIRE(t.size() == 19);
  CHECK(t.support_kind() == SupportKind::kOneSided);
  CHECK(t.p(0) == Approx(1e-4).epsilon(1e-13));
  CHECK(t.p(8) == Approx(0.298096).margin(5e-7));
  CHECK(t.p(9) == Approx(0.3340767151).margin(1e-9));
  CHECK(t.p(18) == Approx(4.12e-5).margin(5e-8));
  CHECK(moment(t, 0) == Approx(1.0).epsilon(1e-14));
  CHECK(moment(t, 1) == Approx(8.56191).margin(5e-6));
  CHECK(moment(t, 2) == Approx(75.3850).margin(5e-5));
  const auto [forward, backward] = shift_deltas(probabilities(t), 1.0);
  CHECK(forward == Approx(t.p(0)).epsilon(1e-12));
  CHECK(backward == Approx(t.p(18)).epsilon(1e-12));
}

TEST_CASE("Thm 1 (corrected) second moments at delta 1e-4 and DP by enumeration for every setting of Tables 1-2",
          "[one-sided]") {
  const double epsilons[] = {0.5, 1.0, 2.0, 4.0, 8.0};
  const double second[] = {253.409, 75.385, 22.697, 7.556, 3.106};
  for (int k = 0; k < 5; ++k) {
    INFO("epsilon " << epsilons[k]);
    CHECK(moment(single_release_optimum(epsilons[k], 1e-4).table(), 2) == Approx(second[k]).margin(5e-4));
  }
  for (double delta : {1e-4, 1e-6, 1e-12}) {
    for (double epsilon : epsilons) {
      const SingleReleaseOptimum o = single_release_optimum(epsilon, delta);
      INFO("epsilon " << epsilon << ", delta " << delta << ", omega " << o.omega << ", c " << o.c);
      CHECK(o.c >= std::exp(-2.0 * epsilon) * (1.0 - 1e-12));
      CHECK(o.c <= 1.0);
      const auto [forward, backward] = shift_deltas(o.probabilities, epsilon);
      CHECK(std::max(forward, backward) <= delta * (1.0 + 1e-12));
      CHECK(forward == Approx(delta).epsilon(1e-12));  // p_0 = delta: the unavoidable distinguishing mass
    }
  }
}

TEST_CASE("erratum: Thm 1 with omega rounded down (Tables 1-2 as printed) has c > 1 and is not (epsilon, delta)-DP",
          "[one-sided]") {
  const SingleReleaseOptimum corrected = single_release_optimum(1.0, 1e-4);
  const SingleReleaseOptimum printed = single_release_optimum_at(1.0, 1e-4, corrected.omega - 1);
  CHECK(printed.c > 1.0);
  const auto [forward, backward] = shift_deltas(printed.probabilities, 1.0);
  CHECK(std::max(forward, backward) > 1.5e-4);  // the last mass delta c exceeds delta
  // It is what the printed row shows (68.9 at epsilon 1), below the true optimum's 75.385.
  CHECK(moment(printed.table(), 2) == Approx(68.9).margin(0.05));
  CHECK(moment(printed.table(), 2) < moment(corrected.table(), 2));
}

TEST_CASE("TBL: the exact minimal shift gives distinguishing mass delta exactly, exact moments, Lemma 1 overshoots",
          "[one-sided]") {
  const double epsilons[] = {0.5, 1.0, 2.0, 4.0, 8.0};
  const double exact[] = {269.35, 84.05, 27.39, 9.889, 4.294};  // the test vector (exact moments)
  const double printed[] = {265.5, 83.0, 27.1, 9.8, 4.3};       // Table 1's TBL row: mu*^2 + lambda^2
  for (int k = 0; k < 5; ++k) {
    const double eps = epsilons[k];
    const TruncatedBiasedLaplace t = calibrated_tbl(eps, 1e-4, 1.0);
    INFO("epsilon " << eps << ", mu* " << t.mu);
    CHECK(t.range == 2.0 * t.mu);
    CHECK(t.distinguishing_mass(1.0) == Approx(1e-4).epsilon(1e-12));
    CHECK(t.second_moment() == Approx(exact[k]).margin(exact[k] < 10.0 ? 5e-4 : 5e-3));
    // Four of the five printed values are mu*^2 + lambda^2 rounded to the printed digit; at epsilon = 1 it is 83.06,
    // printed 83.0 (it would round to 83.1): within 0.06, and we found no variant of the formula that gives 83.0
    // while keeping the other four.
    CHECK(t.mu * t.mu + t.lambda * t.lambda == Approx(printed[k]).margin(eps == 1.0 ? 0.06 : 0.05 + 1e-9));
    CHECK(t.mean() == Approx(t.mu).epsilon(1e-12));  // symmetric about mu on [0, 2 mu]
    CHECK(tbl_lemma1_shift(eps, 1e-4, 1.0) > t.mu);
    // A smaller shift is not enough.
    TruncatedBiasedLaplace smaller = t;
    smaller.mu *= 0.99;
    smaller.range = 2.0 * smaller.mu;
    CHECK(smaller.distinguishing_mass(1.0) > 1e-4);
  }
}

TEST_CASE("TBL moments and masses agree with numerical integration, also off-centre and for tiny lambda / mu",
          "[one-sided]") {
  for (const TruncatedBiasedLaplace t : {TruncatedBiasedLaplace{3.0, 1.5, 10.0}, TruncatedBiasedLaplace{0.01, 2.0, 0.5},
                                         TruncatedBiasedLaplace{7.0, 0.3, 7.5}}) {
    const int cells = 400000;
    const double h = t.range / cells;
    double z = 0.0, m1 = 0.0, m2 = 0.0, below = 0.0;
    for (int i = 0; i < cells; ++i) {
      const double x = (i + 0.5) * h;
      const double f = std::exp(-std::abs(x - t.mu) / t.lambda) * h;
      z += f, m1 += x * f, m2 += x * x * f;
      if (x < 0.4 * t.range) below += f;
    }
    INFO("mu " << t.mu << " lambda " << t.lambda << " range " << t.range);
    CHECK(t.normaliser() == Approx(z).epsilon(1e-8));
    CHECK(t.mean() == Approx(m1 / z).epsilon(1e-8));
    CHECK(t.second_moment() == Approx(m2 / z).epsilon(1e-8));
    CHECK(t.mass_below(0.4 * t.range) == Approx(below / z).epsilon(1e-6));
  }
  // The binned table: sums to 1, one-sided, and its second moment is the law's up to the binning (h^2 / 12 order).
  const TruncatedBiasedLaplace t = calibrated_tbl(1.0, 1e-4, 1.0);
  const TruncatedBiasedLaplace on_grid{t.mu, t.lambda, 18.0};
  const NoiseTable table = on_grid.table(0.01);
  CHECK(table.support_kind() == SupportKind::kOneSided);
  CHECK(moment(table, 0) == Approx(1.0).epsilon(1e-13));
  CHECK(moment(table, 2) == Approx(on_grid.second_moment()).margin(1e-3));
  CHECK_THROWS_AS(on_grid.table(0.007), InputError);  // 18 is not a whole number of steps of 0.007
}

TEST_CASE("discrete TBL: the least range for (epsilon, delta = 1e-4), its second moment, and DP by enumeration",
          "[one-sided]") {
  const double epsilons[] = {0.5, 1.0, 2.0, 4.0, 8.0};
  const int64_t ranges[] = {32, 18, 10, 6, 4};
  const double second[] = {263.749, 82.834, 25.362, 9.038, 4.001};
  for (int k = 0; k < 5; ++k) {
    const double eps = epsilons[k];
    const DiscreteTblCalibration c = calibrated_discrete_tbl(eps, 1e-4);
    INFO("epsilon " << eps);
    CHECK(c.range == ranges[k]);
    const NoiseTable t = c.table();
    CHECK(moment(t, 2) == Approx(second[k]).margin(5e-4));
    const auto [forward, backward] = shift_deltas(probabilities(t), eps);
    CHECK(std::max(forward, backward) <= 1e-4);
    CHECK(forward == Approx(t.p(0)).epsilon(1e-9));
    // One less range is not DP.
    const NoiseTable shorter = discrete_tbl_table(c.range - 1, 0.5 * static_cast<double>(c.range - 1), 1.0 / eps);
    const auto [f2, b2] = shift_deltas(probabilities(shorter), eps);
    CHECK(std::max(f2, b2) > 1e-4);
    // Thm 1's optimum is no worse.
    CHECK(moment(single_release_optimum(eps, 1e-4).table(), 2) <= moment(t, 2));
  }
}

TEST_CASE("one-sided baselines refuse bad parameters, naming them", "[one-sided]") {
  CHECK_THROWS_WITH(single_release_optimum(0.0, 1e-4), Catch::Contains("epsilon"));
  CHECK_THROWS_WITH(single_release_optimum(1.0, 1.0), Catch::Contains("delta"));
  CHECK_THROWS_WITH(calibrated_tbl(1.0, 0.0, 1.0), Catch::Contains("delta"));
  CHECK_THROWS_WITH(discrete_tbl_table(10, 11.0, 1.0), Catch::Contains("mu"));
  CHECK_THROWS_WITH((TruncatedBiasedLaplace{1.0, -1.0, 2.0}.table(0.5)), Catch::Contains("lambda"));
}

TEST_CASE("TBG: exact truncated-normal moments against numerical integration, and its binned table", "[one-sided]") {
  for (const TruncatedBiasedGaussian t :
       {TruncatedBiasedGaussian{5.0, 2.0, 10.0}, TruncatedBiasedGaussian{1.0, 3.0, 4.0},
        TruncatedBiasedGaussian{30.0, 1.5, 32.0}}) {
    const int cells = 400000;
    const double h = t.range / cells;
    double z = 0.0, m1 = 0.0, m2 = 0.0;
    for (int i = 0; i < cells; ++i) {
      const double x = (i + 0.5) * h;
      const double f = std::exp(-0.5 * (x - t.mu) * (x - t.mu) / (t.lambda * t.lambda)) * h;
      z += f, m1 += x * f, m2 += x * x * f;
    }
    INFO("mu " << t.mu << " lambda " << t.lambda << " range " << t.range);
    CHECK(t.mean() == Approx(m1 / z).epsilon(1e-8));
    CHECK(t.second_moment() == Approx(m2 / z).epsilon(1e-8));
  }
  const TruncatedBiasedGaussian t{10.0, 2.0, 20.0};
  const NoiseTable table = t.table(0.01);
  CHECK(table.support_kind() == SupportKind::kOneSided);
  CHECK(moment(table, 0) == Approx(1.0).epsilon(1e-13));
  CHECK(moment(table, 1) == Approx(10.0).epsilon(1e-12));  // symmetric about mu
  CHECK(moment(table, 2) == Approx(t.second_moment()).margin(1e-3));
  CHECK_THROWS_WITH((TruncatedBiasedGaussian{25.0, 1.0, 20.0}.table(0.5)), Catch::Contains("mu"));
}
