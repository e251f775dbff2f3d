// Tight at small delta and many compositions (issue 7, item 3): exponentially tilted compositions turn the
// FFT's absolute error into an error relative to the tail that delta depends on. Checked against independent
// references: the analytic Gaussian (the table is its rounding to the grid, a post-processing, so lower <= the
// analytic eps) and randomized response, whose n-fold PLD is binomial (exact delta by a log-space sum).
#include <catch2/catch.hpp>

#include <cmath>

#include "accounting/certificate.hpp"
#include "accounting/pair_accountant.hpp"
#include "core/baselines.hpp"
#include "core/one_sided_baselines.hpp"

using namespace noiselearn;

namespace {

double normal_cdf(double x) { return 0.5 * std::erfc(-x / M_SQRT2); }

double analytic_gaussian_epsilon(double delta, double mu) {
  auto d = [&](double eps) { return normal_cdf(-eps / mu + mu / 2) - std::exp(eps) * normal_cdf(-eps / mu - mu / 2); };
  double lo = 0.0, hi = 200.0;
  for (int i = 0; i < 200; ++i) (d(0.5 * (lo + hi)) > delta ? lo : hi) = 0.5 * (lo + hi);
  return 0.5 * (lo + hi);
}

// Randomized response with log-odds a: losses +a (probability p = e^a / (1 + e^a)) and -a. After n releases the
// loss is a (2K - n), K ~ Binomial(n, p): delta(eps) = sum_k P(K = k) (1 - e^{eps - a (2k - n)})_+, summed in log
// space (long double) from the top.
long double binomial_delta(double a, int64_t n, double eps) {
  const long double p = std::exp(static_cast<long double>(a)) / (1.0L + std::exp(static_cast<long double>(a)));
  const long double log_p = std::log(p), log_q = std::log1p(-p);
  long double largest = -INFINITY;
  std::vector<long double> logs;
  for (int64_t k = n; k >= 0; --k) {
    const long double loss = static_cast<long double>(a) * static_cast<long double>(2 * k - n);
    if (loss <= eps) break;
    const long double log_term = std::lgamma(static_cast<long double>(n) + 1) -
                                 std::lgamma(static_cast<long double>(k) + 1) -
                                 std::lgamma(static_cast<long double>(n - k) + 1) + k * log_p + (n - k) * log_q +
                                 std::log(-std::expm1(static_cast<long double>(eps) - loss));
    logs.push_back(log_term);
    largest = std::max(largest, log_term);
  }
  long double sum = 0.0L;
  for (long double l : logs) sum += std::exp(l - largest);
  return logs.empty() ? 0.0L : std::exp(largest) * sum;
}

double binomial_epsilon(double a, int64_t n, double delta) {
  double lo = 0.0, hi = a * static_cast<double>(n);
  for (int i = 0; i < 80; ++i) (binomial_delta(a, n, 0.5 * (lo + hi)) > delta ? lo : hi) = 0.5 * (lo + hi);
  return hi;
}

Certificate certify(const PairFamily& family, int64_t n, double delta, bool refine, double epsilon = -1.0) {
  AccountantOptions options;
  options.tilted_refinement = refine;
  CertificateRequest request;
  request.compositions = n;
  request.deltas = {delta};
  if (epsilon >= 0.0) request.epsilons = {epsilon};
  request.curve_points = 0;
  return make_certificate(account(family, n, options), request, options);
}

double relative_width(const EpsilonAtDelta& e) { return (e.epsilon_upper - e.epsilon_lower) / e.epsilon_upper; }

}  // namespace

TEST_CASE("issue 7 reproducer: Gaussian sigma 60, n = 1024, delta = 1e-9 is tight to 1e-4",
          "[accountant][small-delta]") {
  // Before: eps in [3.115353, 3.120871] (1.8e-3 relative), the FFT allowance (2.5e-11) swamping delta.
  const NoiseTable table = gaussian_table(Grid::symmetric(1000.0, 1.0 / 60.0), 60.0);
  const PairFamily family = make_pair_family(table, PairSpecification{});
  const double analytic = analytic_gaussian_epsilon(1e-9, std::sqrt(1024.0) / 60.0);
  const EpsilonAtDelta untilted = certify(family, 1024, 1e-9, false).epsilons.front();
  const EpsilonAtDelta tilted = certify(family, 1024, 1e-9, true).epsilons.front();
  INFO("analytic " << analytic << " untilted [" << untilted.epsilon_lower << ", " << untilted.epsilon_upper
                   << "] tilted [" << tilted.epsilon_lower << ", " << tilted.epsilon_upper << "]");
  CHECK(relative_width(untilted) > 1e-3);
  CHECK(relative_width(tilted) < 1e-4);
  CHECK(tilted.epsilon_lower <= analytic);  // rounding to the grid is a post-processing
  CHECK(tilted.epsilon_upper == Approx(analytic).epsilon(1e-4));
  // Tilting never loosens: the tilted bracket lies inside the untilted one.
  CHECK(tilted.epsilon_upper <= untilted.epsilon_upper);
  CHECK(tilted.epsilon_lower >= untilted.epsilon_lower);
}

TEST_CASE(
    "issue 19 reproducer: Gaussian sigma 60 on [-500, 500], n = 4096, delta = 1e-10: the truncations' mass no "
    "longer makes the bracket",
    "[accountant][small-delta]") {
  // Each release's tails of 1e-15 (and every composition's) moved to infinity compose to about 2 n 1e-15 = 8e-12,
  // 8 % of delta, which tilting does not narrow: the refinement discretises the release again with a tail mass of
  // 1e-4 delta / 2n.
  const NoiseTable table = gaussian_table(Grid::symmetric(500.0, 1.0 / 60.0), 60.0);
  const PairFamily family = make_pair_family(table, PairSpecification{});
  const double analytic = analytic_gaussian_epsilon(1e-10, std::sqrt(4096.0) / 60.0);
  const Certificate certificate = certify(family, 4096, 1e-10, true);
  const EpsilonAtDelta& e = certificate.epsilons.front();
  INFO("analytic " << analytic << " eps in [" << e.epsilon_lower << ", " << e.epsilon_upper << "]");
  CHECK(relative_width(e) < 1e-4);
  CHECK(e.epsilon_lower <= analytic);
  CHECK(e.epsilon_upper >=
        analytic);  // 3,600 cells per sigma, cut at 8.3 sigma: the analytic value to far below these digits
  CHECK(certificate.discretisation.tilted.tail_mass > 0.0);
  CHECK(certificate.discretisation.tilted.tail_mass < 1e-15);
}

TEST_CASE("issue 7 reproducer: a Gaussian table that is not exactly symmetric, n = 128, delta = 1e-6",
          "[accountant][small-delta]") {
  // The every-shift envelope is built in double-double and rounded up, so it carries no allowance of its own: the
  // bracket is the discretisation's.
  NoiseTable symmetric = gaussian_table(Grid::symmetric(1000.0, 1.0 / 60.0), 60.0);
  std::vector<double> p = symmetric.probabilities();
  p[10] *= 1.0 + 1e-12;
  double total = 0.0;
  for (double v : p) total += v;
  for (double& v : p) v /= total;
  const NoiseTable table(symmetric.grid(), p);
  const PairFamily family = make_pair_family(table, PairSpecification{});
  REQUIRE_FALSE(family.single_shift);  // not symmetric-monotone: every shift, both signs
  const EpsilonAtDelta e = certify(family, 128, 1e-6, true).epsilons.front();
  const double analytic = analytic_gaussian_epsilon(1e-6, std::sqrt(128.0) / 60.0);
  INFO("eps in [" << e.epsilon_lower << ", " << e.epsilon_upper << "], analytic " << analytic);
  CHECK(relative_width(e) < 1e-4);
  CHECK(e.epsilon_upper == Approx(analytic).epsilon(1e-4));
}

TEST_CASE("randomized response at n = 1e5 and delta = 1e-9: finite, and the bracket holds the binomial value",
          "[accountant][small-delta][closed-form]") {
  // Two outcomes, log-odds a = 0.1; the untilted FFT allowance (n times u) exceeds delta there.
  const double a = 0.1, p = std::exp(a) / (1.0 + std::exp(a));
  DominatingPair pair{Grid{0.0, 1.0, 2}, {p, 1.0 - p}, {1.0 - p, p}, "randomized response", {}, {}};
  const PairFamily family{PairKind::kAdditive, {pair}, 1, true, "randomized response", {}, {}};
  const int64_t n = 100'000;
  const double exact = binomial_epsilon(a, n, 1e-9);
  const Certificate certificate = certify(family, n, 1e-9, true, exact);
  const EpsilonAtDelta& e = certificate.epsilons.front();
  INFO("exact " << exact << " eps in [" << e.epsilon_lower << ", " << e.epsilon_upper << "]");
  CHECK(std::isfinite(e.epsilon_upper));
  CHECK(e.epsilon_lower <= exact);
  CHECK(e.epsilon_upper >= exact);
  // A lattice PLD (every loss a multiple of 2a) is the hard case for a uniform loss grid: the bracket is a few
  // loss steps per release wide, here below 1 % of eps.
  CHECK(relative_width(e) < 1e-2);
  const DeltaAtEpsilon& d = certificate.deltas.front();
  const double exact_delta = static_cast<double>(binomial_delta(a, n, exact));
  CHECK(d.delta_lower <= exact_delta);
  CHECK(d.delta_upper >= exact_delta);
}

TEST_CASE(
    "an asymmetric one-sided table at n = 1000, delta = 1e-8: the tilted mixed-sign scenarios compose (one tilt for "
    "both directions) and the refined bracket is consistent with the untilted one",
    "[accountant][small-delta]") {
  // The mixed-sign lower scenarios compose releases up with releases down: both must be tilted alike, or the
  // composition fails ("cannot compose PLDs with different tilts", exit 1 from `train` on one-sided tables).
  const NoiseTable table = discrete_tbl_table(1600, 700.0, 25.0);  // off-centre: up and down differ
  const PairFamily family = make_pair_family(table, PairSpecification{});
  REQUIRE_FALSE(family.mirror_symmetric);
  const EpsilonAtDelta refined = certify(family, 1000, 1e-8, true).epsilons.front();
  const EpsilonAtDelta plain = certify(family, 1000, 1e-8, false).epsilons.front();
  INFO("refined [" << refined.epsilon_lower << ", " << refined.epsilon_upper << "], untilted [" << plain.epsilon_lower
                   << ", " << plain.epsilon_upper << "]");
  REQUIRE(std::isfinite(refined.epsilon_upper));
  CHECK(refined.epsilon_lower <= refined.epsilon_upper);
  CHECK(refined.epsilon_upper <= plain.epsilon_upper * (1.0 + 1e-12));  // refinement only ever tightens
  CHECK(plain.epsilon_lower <= refined.epsilon_upper);
  CHECK(refined.epsilon_lower <= plain.epsilon_upper);
}
