// The default accountant (several_pairs auto) decides per query: the exact adaptive programme runs where the
// envelope's bracket at a query is wider than adaptive_skip_width and not where it is narrow already; and a table that
// is symmetric only up to rounding is accounted through its exactly symmetric copy where the difference, paid for in
// every bound, costs the queries nothing measurable. Reference values: brute force over every adaptive strategy on the
// real table (brute_force.hpp: the history tree enumerated in long double, no privacy loss, no discretisation).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "accounting/certificate.hpp"
#include "accounting/pair_accountant.hpp"
#include "brute_force.hpp"
#include "core/dominating_pair.hpp"

using namespace noiselearn;
using noiselearn::testing::brute_force_adaptive;

namespace {

// A skewed 7-point table whose envelope bracket at epsilon 1 (sensitivity 2, n = 3) is 6 % wide while the exact
// adaptive programme brackets it to 3e-6 (found by a random search).
const std::vector<double> kSkewed{0.14163192877177827,  0.026741812862291218, 0.2778018584097398, 0.1202540024123008,
                                  0.040171722941238476, 0.35673664672449895,  0.03666202787815256};

PairFamily skewed_family() {
  PairSpecification specification;
  specification.sensitivity = 2.0;
  double total = 0.0;
  for (double v : kSkewed) total += v;
  std::vector<double> p = kSkewed;
  for (double& v : p) v /= total;
  return make_pair_family(NoiseTable(Grid{0.0, 1.0, 7}, p), specification);
}

}  // namespace

TEST_CASE(
    "default per query: the skewed table's bracket at its query is 1e-3 wide at most and holds the exact "
    "adaptive worst case",
    "[accounting][default]") {
  const PairFamily family = skewed_family();
  CertificateRequest request;
  request.compositions = 3;
  request.epsilons = {1.0};
  request.curve_points = 0;
  const AccountantOptions options;  // several_pairs auto
  const Certificate certificate = certify_family(family, request, options);
  const auto& d = certificate.deltas.front();
  double total = 0.0;
  for (double v : kSkewed) total += v;
  std::vector<double> p = kSkewed;
  for (double& v : p) v /= total;
  const double exact = brute_force_adaptive(p, {-2, -1, 1, 2}, 3, 1.0);
  INFO("lower " << d.delta_lower << " exact " << exact << " upper " << d.delta_upper);
  CHECK(d.delta_lower <= exact * (1 + 1e-12));
  CHECK(exact <= d.delta_upper * (1 + 1e-12));
  CHECK((d.delta_upper - d.delta_lower) / d.delta_upper <= 1e-3);
  CHECK(d.upper_method == "exact adaptive programme");
  CHECK_THAT(certificate.several_pairs, Catch::Contains("run because the envelope's bracket at epsilon 1 is"));
  // Composed without the query (the fixed-deltas rule keeps the envelope here), the certificate still asks for it.
  const Certificate later = make_certificate(account(family, 3, options), request, options);
  CHECK(later.deltas.front().delta_upper == d.delta_upper);
  // The envelope alone, for comparison (--several-pairs envelope).
  AccountantOptions envelope = options;
  envelope.several_pairs = SeveralPairsMethod::kEnvelope;
  const PairBounds wide = account(family, 3, envelope);
  CHECK((wide.delta_upper(1.0) - wide.delta_lower(1.0)) / wide.delta_upper(1.0) > 0.05);
}

TEST_CASE("default per query: the programme is not run where the envelope's bracket at every query is narrow already",
          "[accounting][default]") {
  // A discrete Laplace moved off symmetry by one cell of mass: asymmetric (candidates for the programme), but at
  // epsilon 3 the envelope's bracket is narrow.
  std::vector<double> p(41);
  double total = 0.0;
  for (int i = 0; i < 41; ++i)
    total += p[static_cast<size_t>(i)] = std::exp(-std::abs(i - 20) / 4.0) * (i == 25 ? 1.3 : 1.0);
  for (double& v : p) v /= total;
  PairSpecification specification;
  specification.sensitivity = 2.0;
  const PairFamily family = make_pair_family(NoiseTable(Grid{-20.0, 1.0, 41}, p), specification);
  const AccountantOptions options;
  const PairBounds bounds = account(family, 2, options, AccountingQueries{{3.0}, {}});
  CHECK(bounds.alternatives.adaptive.empty());
  CHECK_THAT(bounds.alternatives.several_pairs_note, Catch::Contains("within 0.0001 relative at every query"));
  CHECK((bounds.delta_upper(3.0) - bounds.delta_lower(3.0)) / bounds.delta_upper(3.0) <= 1e-4);
  const double exact = brute_force_adaptive(p, {-2, -1, 1, 2}, 2, 3.0);
  CHECK(bounds.delta_lower(3.0) <= exact * (1 + 1e-12));
  CHECK(exact <= bounds.delta_upper(3.0) * (1 + 1e-12));
}

TEST_CASE(
    "a table symmetric only up to rounding is certified through its symmetric copy, the difference paid for, and "
    "the bracket holds the real table's exact adaptive worst case",
    "[accounting][default]") {
  // A symmetric unimodal table, then a few entries moved by ulps of 1 (absolute: as a difference of CDF values near 1
  // is written by other tools): no longer symmetric nor monotone bit for bit.
  const int size = 21, centre = 10;
  std::vector<double> p(size);
  double total = 0.0;
  for (int i = 0; i < size; ++i) total += p[static_cast<size_t>(i)] = std::exp(-0.5 * std::pow((i - centre) / 3.0, 2));
  for (double& v : p) v /= total;
  std::mt19937_64 random(7);
  for (int i = centre + 1; i < size; ++i)
    if (random() % 2) p[static_cast<size_t>(i)] += (random() % 2 ? 1.0 : -1.0) * std::numeric_limits<double>::epsilon();
  const NoiseTable table(Grid{-10.0, 1.0, size}, p);
  PairSpecification specification;
  specification.sensitivity = 2.0;
  const PairFamily family = make_pair_family(table, specification);
  REQUIRE_FALSE(family.mirror_symmetric);
  REQUIRE(family.rounding_symmetric_copy);
  CHECK(family.rounding_symmetric_copy->single_shift);
  CHECK(family.rounding_symmetric_copy->substitution_tv > 0.0);
  CHECK(family.rounding_symmetric_copy->substitution_tv < 1e-14);

  CertificateRequest request;
  request.compositions = 2;
  request.epsilons = {0.5};
  request.deltas = {1e-2};  // above the distinguishing events (0.004 after two releases)
  request.curve_points = 0;
  const Certificate certificate = certify_family(family, request, AccountantOptions{});
  CHECK(certificate.substitution_tv > 0.0);
  CHECK_THAT(certificate.accounted.pairs_checked, Catch::Contains("copy accounted, the difference paid for"));
  CHECK_THAT(certificate.report(), Catch::Contains("symmetric copy accounted"));
  // The real (asymmetric) table against every adaptive strategy of shifts in [-2, 2].
  const double exact = brute_force_adaptive(p, {-2, -1, 1, 2}, 2, 0.5);
  const auto& d = certificate.deltas.front();
  INFO("lower " << d.delta_lower << " exact " << exact << " upper " << d.delta_upper);
  CHECK(d.delta_lower <= exact * (1 + 1e-12));
  CHECK(exact <= d.delta_upper * (1 + 1e-12));
  CHECK((d.delta_upper - d.delta_lower) / d.delta_upper <= 1e-4);

  // The allowance is what the bounds move by: the copy's own bounds, without it, are inside.
  const PairBounds copy = account(*family.rounding_symmetric_copy, 2, AccountantOptions{});
  CHECK(copy.substitution_tv == Approx(2 * family.rounding_symmetric_copy->substitution_tv).epsilon(1e-9));
  CHECK(d.delta_upper == Approx(copy.delta_upper(0.5)).epsilon(1e-12));  // the allowance is far below the bracket
  CHECK(copy.substitution_allowance(0.5) == Approx(copy.substitution_tv * (1 + std::exp(0.5))).epsilon(1e-9));

  // Where the allowance would be measurable (a query delta near it), the table's own pairs are accounted instead.
  CertificateRequest tiny = request;
  tiny.epsilons = {};
  tiny.deltas = {1e-16};
  const Certificate own = certify_family(family, tiny, AccountantOptions{});
  CHECK(own.substitution_tv == 0.0);
  CHECK_THAT(own.accounted.pairs_checked, !Catch::Contains("copy accounted"));
}

TEST_CASE(
    "the 60,001-point Gaussian written as CDF differences (symmetric only up to rounding) goes through its "
    "symmetric copy at the paper's scale, its bracket within the tolerance and overlapping the table's own pairs'",
    "[accounting][default]") {
  // sigma 60 on [-500, 500], step 1/60, as another tool writes it: Phi differences, right-tail entries differences of
  // numbers near 1 (an absolute error of an ulp of 1), normalised.
  const int64_t half = 30000;
  const double step = 500.0 / static_cast<double>(half);
  std::vector<double> p;
  double total = 0.0;
  for (int64_t i = -half; i <= half; ++i) {
    const double x = static_cast<double>(i) * step;
    const double v = 0.5 * std::erfc(-(x + 0.5 * step) / (60.0 * std::sqrt(2.0))) -
                     0.5 * std::erfc(-(x - 0.5 * step) / (60.0 * std::sqrt(2.0)));
    p.push_back(std::max(0.0, v));
    total += p.back();
  }
  for (double& v : p) v /= total;
  const NoiseTable table(Grid::symmetric(500.0, step), p);
  PairSpecification specification;
  specification.sensitivity = 1.0;  // 60 cells
  const PairFamily family = make_pair_family(table, specification);
  REQUIRE_FALSE(family.mirror_symmetric);
  REQUIRE(family.rounding_symmetric_copy);
  CertificateRequest request;
  request.compositions = 128;
  request.deltas = {1e-6};
  request.curve_points = 0;
  const Certificate copy = certify_family(family, request, AccountantOptions{});
  CHECK(copy.substitution_tv > 0.0);
  CHECK_THAT(copy.report(), Catch::Contains("symmetric copy accounted"));
  const auto& e = copy.epsilons.front();
  CHECK((e.epsilon_upper - e.epsilon_lower) / e.epsilon_upper <= 1e-4);  // the default's tolerance
  // The table's own pairs (every shift, both signs: the envelope) give another rigorous bracket: they overlap.
  AccountantOptions envelope;
  envelope.several_pairs = SeveralPairsMethod::kEnvelope;
  const Certificate own = certify_family(family, request, envelope);
  CHECK(own.substitution_tv == 0.0);
  const auto& o = own.epsilons.front();
  INFO("copy [" << e.epsilon_lower << ", " << e.epsilon_upper << "], own [" << o.epsilon_lower << ", "
                << o.epsilon_upper << "]");
  CHECK(e.epsilon_lower <= o.epsilon_upper);
  CHECK(o.epsilon_lower <= e.epsilon_upper);
}

TEST_CASE(
    "DP-SGD on a table (14,063 releases): the default chooses the loss step for the query and composes by one FFT "
    "power, its bracket within the tolerance and overlapping square-and-multiply's",
    "[accounting][default]") {
  // The Gaussian sigma 1.1 on step 0.01 as `noiselearn baseline gaussian` writes it (bin masses, exactly symmetric),
  // the subsampled mixture at q = 256/60000, delta 1e-5: square-and-multiply at loss step 1e-4 gives a bracket of
  // 2.8e-4 relative (the loss step's), more than the default's tolerance.
  const int64_t half = 1000;
  const double step = 0.01, sigma = 1.1;
  std::vector<double> p(static_cast<size_t>(2 * half + 1));
  for (int64_t i = 0; i <= half; ++i) {
    const double x = static_cast<double>(i) * step;
    const double v = 0.5 * (std::erfc((x - 0.5 * step) / (sigma * std::sqrt(2.0))) -
                            std::erfc((x + 0.5 * step) / (sigma * std::sqrt(2.0))));
    p[static_cast<size_t>(half + i)] = p[static_cast<size_t>(half - i)] = v;
  }
  double total = 0.0;
  for (double v : p) total += v;
  for (double& v : p) v /= total;
  PairSpecification dpsgd;
  dpsgd.kind = PairKind::kSubsampledMixture;
  dpsgd.sensitivity = 1.0;
  dpsgd.sampling_rate = 256.0 / 60000.0;
  const PairFamily family = make_pair_family(NoiseTable(Grid::symmetric(10.0, step), p), dpsgd);
  REQUIRE(family.mirror_symmetric);
  CertificateRequest request;
  request.compositions = 14063;
  request.deltas = {1e-5};
  request.curve_points = 0;
  const AccountantOptions requested;
  const Certificate chosen = certify_family(family, request, requested);
  CHECK(chosen.accountant.fft_power);
  CHECK(chosen.discretisation.loss_step < requested.loss_step);  // halved for the query
  const auto& e = chosen.epsilons.front();
  CHECK((e.epsilon_upper - e.epsilon_lower) / e.epsilon_upper <= requested.adaptive_skip_width);
  AccountantOptions envelope;
  envelope.several_pairs = SeveralPairsMethod::kEnvelope;
  const Certificate squared = certify_family(family, request, envelope);
  CHECK_FALSE(squared.accountant.fft_power);
  const auto& o = squared.epsilons.front();
  INFO("default [" << e.epsilon_lower << ", " << e.epsilon_upper << "], square-and-multiply [" << o.epsilon_lower
                   << ", " << o.epsilon_upper << "]");
  CHECK(e.epsilon_lower <= o.epsilon_upper);
  CHECK(o.epsilon_lower <= e.epsilon_upper);
  CHECK(o.epsilon_upper - o.epsilon_lower > e.epsilon_upper - e.epsilon_lower);
  // Bounds composed without queries (Python's account(), `compare`) are composed again for the certificate's query:
  // the same certificate as with the query from the start.
  const Certificate later = make_certificate(account(family, request.compositions, requested), request, requested);
  CHECK(later.accountant.fft_power);
  CHECK(later.discretisation.loss_step == chosen.discretisation.loss_step);
  CHECK(later.epsilons.front().epsilon_lower == e.epsilon_lower);
  CHECK(later.epsilons.front().epsilon_upper == e.epsilon_upper);
}
