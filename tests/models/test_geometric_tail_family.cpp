// The geometric-tail families of Gilani et al. (Defs 3.3, 3.4; Prop. 3.5; Alg. 2): closed forms against brute
// force over a long explicit range of integers, and the test vectors.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "core/errors.hpp"
#include "models/geometric_tail_family.hpp"

using namespace noiselearn;

namespace {

// A normalised window with random positive masses (r = 0.5 tails): brute-force sums over |i| <= 2000 then
// miss less than r^1990 < 1e-590 of the mass.
std::vector<double> random_log_window(const GeometricTailShape& shape, uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> uniform(0.1, 1.0);
  std::vector<double> p(static_cast<size_t>(shape.window + 1));
  for (double& x : p) x = uniform(generator);
  const std::vector<double> n = normalisation_coefficients(shape);
  double total = 0.0;
  for (size_t k = 0; k < p.size(); ++k) total += n[k] * p[k];
  std::vector<double> log_p(p.size());
  for (size_t k = 0; k < p.size(); ++k) log_p[k] = std::log(p[k] / total);
  return log_p;
}

double family_p(const GeometricTailShape& shape, const std::vector<double>& log_window, int64_t i) {
  return std::exp(family_log_probability(shape, log_window, i));
}

// Length of (lo, hi) where |z| > tau: independent of the closed form's clamp arithmetic.
double exceeding_length(double lo, double hi, double tau) {
  return std::max(0.0, hi - std::max(lo, tau)) + std::max(0.0, std::min(hi, -tau) - lo);
}

// E[c(Z)] by brute force: every bin |i| <= 2000 with its exact integral (Simpson's rule on each half bin is
// exact for z^2 and for |z| on an interval that does not cross 0).
double brute_force_cost(const GeometricTailShape& shape, const std::vector<double>& log_window,
                        const CostSpecification& cost) {
  const double d = shape.bin_width;
  double total = 0.0;
  for (int64_t i = -2000; i <= 2000; ++i) {
    const double p = family_p(shape, log_window, i);
    double average = 0.0;
    if (shape.domain == FamilyDomain::kDiscrete) {
      const double x = static_cast<double>(i);
      average = cost.kind == CostKind::kSquare     ? x * x
                : cost.kind == CostKind::kAbsolute ? std::abs(x)
                                                   : (std::abs(x) > cost.threshold ? 1.0 : 0.0);
    } else {
      const double lo = (static_cast<double>(i) - 0.5) * d, hi = (static_cast<double>(i) + 0.5) * d;
      if (cost.kind == CostKind::kExceedance) {
        average = exceeding_length(lo, hi, cost.threshold) / d;
      } else {
        const auto c = [&](double z) { return cost.kind == CostKind::kSquare ? z * z : std::abs(z); };
        const auto simpson = [&](double a, double b) { return (b - a) / 6.0 * (c(a) + 4.0 * c(0.5 * (a + b)) + c(b)); };
        average = (i == 0 ? simpson(lo, 0.0) + simpson(0.0, hi) : simpson(lo, hi)) / d;
      }
    }
    total += p * average;
  }
  return total;
}

double coefficient_cost(const GeometricTailShape& shape, const std::vector<double>& log_window,
                        const CostSpecification& cost) {
  const std::vector<double> c = cost_coefficients(shape, cost);
  double total = 0.0;
  for (size_t k = 0; k < c.size(); ++k) total += c[k] * std::exp(log_window[k]);
  return total;
}

}  // namespace

TEST_CASE("family domain and cost names parse and print, and shapes are validated naming the key", "[geometric_tail]") {
  CHECK(parse_family_domain("continuous") == FamilyDomain::kContinuous);
  CHECK(parse_family_domain("discrete") == FamilyDomain::kDiscrete);
  CHECK(to_string(FamilyDomain::kDiscrete) == "discrete");
  CHECK_THROWS_AS(parse_family_domain("integer"), InputError);
  for (const char* name : {"square", "absolute", "exceedance"}) CHECK(to_string(parse_cost_kind(name)) == name);
  CHECK_THROWS_AS(parse_cost_kind("l2"), InputError);

  const auto message = [](const GeometricTailShape& shape) {
    try {
      shape.validate();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  GeometricTailShape shape;
  CHECK(message(shape).empty());
  shape.window = 0;
  CHECK_THAT(message(shape), Catch::Contains("model.window"));
  shape = {};
  shape.ratio = 1.0;
  CHECK_THAT(message(shape), Catch::Contains("model.tail_ratio"));
  shape = {};
  shape.bin_width = -0.1;
  CHECK_THAT(message(shape), Catch::Contains("model.bin_width"));
  shape = {};
  shape.domain = FamilyDomain::kDiscrete;  // Delta stays 0.05
  CHECK_THAT(message(shape), Catch::Contains("model.bin_width"));
  CHECK_THROWS_AS((CostSpecification{CostKind::kExceedance, -1.0}.validate()), InputError);
}

TEST_CASE("S_N = sum_{i >= N} r^(i-N) i^2 in closed form: the issue's vectors, brute force and eq. 50",
          "[geometric_tail]") {
  CHECK(geometric_square_series(5, 0.5) == 76.0);  // exactly
  CHECK(geometric_square_series(2000, 0.9999) == Approx(2.43966001e12).epsilon(1e-10));
  CHECK(geometric_square_series(100, 0.998) == Approx(3.0415050e8).epsilon(1e-8));
  for (const auto& [n, r] : std::vector<std::pair<int64_t, double>>{{1, 0.5}, {7, 0.3}, {40, 0.9}, {300, 0.97}}) {
    long double brute = 0.0L;
    for (int64_t i = n; i < n + 20000; ++i)
      brute += std::pow(static_cast<long double>(r), i - n) * static_cast<long double>(i) * i;
    CHECK(geometric_square_series(n, r) == Approx(static_cast<double>(brute)).epsilon(1e-13));
    // eq. 50 as printed (same value; it loses digits to cancellation for r close to 1, hence the other form)
    const double nd = static_cast<double>(n);
    const double eq50 = (r * r * (nd - 1) * (nd - 1) + nd * nd * (1 - 2 * r) + r * (2 * nd + 1)) / std::pow(1 - r, 3);
    CHECK(eq50 == Approx(geometric_square_series(n, r)).epsilon(1e-9));
  }
}

TEST_CASE("normalisation and cost coefficients equal brute-force sums over the whole family (Prop. 3.5)",
          "[geometric_tail]") {
  for (FamilyDomain domain : {FamilyDomain::kContinuous, FamilyDomain::kDiscrete}) {
    GeometricTailShape shape;
    shape.domain = domain;
    shape.window = 7;
    shape.ratio = 0.5;
    shape.bin_width = domain == FamilyDomain::kContinuous ? 0.3 : 1.0;
    const std::vector<double> log_window = random_log_window(shape, 11u + static_cast<uint32_t>(domain));
    INFO(to_string(domain));

    double mass = 0.0;
    for (int64_t i = -2000; i <= 2000; ++i) mass += family_p(shape, log_window, i);
    CHECK(mass == Approx(1.0).epsilon(1e-14));
    GeometricTailFamily family(shape, log_window);
    CHECK(family.normalisation() == Approx(1.0).epsilon(1e-15));

    std::vector<CostSpecification> costs = {{CostKind::kSquare, 0.0}, {CostKind::kAbsolute, 0.0}};
    // thresholds: 0, inside the centre bin, on a bin edge, inside the window, in the partial bin at the window's
    // end, inside the tail, far in the tail
    for (double t : {0.0, 0.05, 0.45, 1.0, 1.3, 2.0, 2.1, 2.2, 3.0, 4.4, 9.0, 30.0})
      costs.push_back({CostKind::kExceedance, t});
    for (const CostSpecification& cost : costs) {
      INFO(to_string(cost.kind) << " tau " << cost.threshold);
      const double brute = brute_force_cost(shape, log_window, cost);
      CHECK(coefficient_cost(shape, log_window, cost) == Approx(brute).epsilon(1e-13).margin(1e-300));
      CHECK(family.cost(cost) == Approx(brute).epsilon(1e-13).margin(1e-300));
    }
  }
  // eq. 21: Var = Delta^2/12 + 2 Delta^2 sum_{0<i<N} p_i i^2 + 2 p_N Delta^2 S_N for a normalised family.
  GeometricTailShape shape;
  shape.window = 5;
  shape.ratio = 0.5;
  shape.bin_width = 0.2;
  const std::vector<double> log_window = random_log_window(shape, 3u);
  double eq21 = shape.bin_width * shape.bin_width / 12.0;
  for (int i = 1; i < 5; ++i) eq21 += 2.0 * 0.04 * std::exp(log_window[i]) * i * i;
  eq21 += 2.0 * std::exp(log_window[5]) * 0.04 * geometric_square_series(5, 0.5);
  CHECK(coefficient_cost(shape, log_window, {}) == Approx(eq21).epsilon(1e-14));
  const std::vector<double> n = normalisation_coefficients(shape);
  CHECK(n == std::vector<double>{1.0, 2.0, 2.0, 2.0, 2.0, 4.0});
}

TEST_CASE("Alg. 2 reproduces the issue's variance parameters and matches sigma^2 to 1e-10", "[geometric_tail]") {
  GeometricTailShape shape;  // continuous, N = 2000, r = 0.9999, Delta = 0.05
  const GaussianInitialisation continuous = gaussian_initialisation(shape, 5.0);
  // Binning adds ~Delta^2/12 to the Gaussian's variance and the uniform density inside a bin another Delta^2/12:
  // C = 25 - Delta^2/6 = 24.999583.
  CHECK(continuous.variance_parameter == Approx(24.999583).margin(5e-7));
  GeometricTailFamily family(shape, continuous.log_probabilities);
  CHECK(family.cost({}) == Approx(25.0).epsilon(1e-10));
  CHECK(family.normalisation() == Approx(1.0).epsilon(1e-14));

  GeometricTailShape discrete_shape;
  discrete_shape.domain = FamilyDomain::kDiscrete;
  discrete_shape.bin_width = 1.0;
  const GaussianInitialisation discrete = gaussian_initialisation(discrete_shape, 5.0);
  CHECK(discrete.variance_parameter == Approx(24.916667).margin(5e-7));  // 25 - 1/12
  GeometricTailFamily discrete_family(discrete_shape, discrete.log_probabilities);
  CHECK(discrete_family.cost({}) == Approx(25.0).epsilon(1e-10));
  // The discrete window reaches 400 sigma: its far masses are e^-80000, representable only as logarithms.
  CHECK(discrete.log_probabilities.back() < -70000.0);
  for (double v : discrete.log_probabilities) CHECK(std::isfinite(v));

  // Masses in the upper tail against erfc (accurate there, unlike Phi(b) - Phi(a), which is exactly 0 beyond
  // ~8.3 sigma: the erratum).
  const double scale = shape.bin_width / std::sqrt(continuous.variance_parameter);
  for (int64_t i : {0, 1, 100, 900, 1000, 1500, 1999}) {
    const double a = (static_cast<double>(i) - 0.5) * scale, b = (static_cast<double>(i) + 0.5) * scale;
    const double reference = i == 0 ? std::erf(b / M_SQRT2) : 0.5 * (std::erfc(a / M_SQRT2) - std::erfc(b / M_SQRT2));
    INFO("bin " << i);
    CHECK(std::exp(continuous.log_probabilities[static_cast<size_t>(i)]) == Approx(reference).epsilon(1e-11));
  }
  const double naive =
      0.5 * (1.0 + std::erf(1000.5 * scale / M_SQRT2)) - 0.5 * (1.0 + std::erf(999.5 * scale / M_SQRT2));
  CHECK(naive == 0.0);  // why log space is needed: bin 1000 (10 sigma) has mass ~1e-24

  CHECK_THROWS_AS(gaussian_initialisation(shape, 0.01), InputError);  // sigma^2 < Delta^2 / 12
  CHECK_THROWS_AS(gaussian_initialisation(shape, -1.0), InputError);
}

TEST_CASE("the family's table: 2N + 1 grid points, P(|i|) at i Delta, geometric tails summing to 1",
          "[geometric_tail]") {
  GeometricTailShape shape;
  shape.window = 6;
  shape.ratio = 0.5;
  shape.bin_width = 0.25;
  const std::vector<double> log_window = random_log_window(shape, 5u);
  GeometricTailFamily family(shape, log_window);
  const NoiseTable table = family.table();
  REQUIRE(table.size() == 13);
  CHECK(table.grid().origin == Approx(-1.5));
  CHECK(table.grid().step == 0.25);
  CHECK(table.support_kind() == SupportKind::kSymmetric);
  REQUIRE(table.tails().has_value());
  CHECK(table.tails()->ratio == 0.5);
  for (int64_t i = -6; i <= 6; ++i)
    CHECK(table.p(i + 6) == Approx(std::exp(log_window[static_cast<size_t>(std::abs(i))])).epsilon(1e-15));
  CHECK(table.right_tail_mass() == Approx(std::exp(log_window[6]) * 0.5 / 0.5).epsilon(1e-15));
  for (int64_t i = -30; i <= 30; ++i)
    CHECK(table.p_extended(i + 6) == Approx(family_p(shape, log_window, i)).epsilon(1e-14));
}

TEST_CASE("the module holds theta = log p as one float64 parameter", "[geometric_tail]") {
  GeometricTailShape shape;
  shape.window = 4;
  shape.ratio = 0.5;
  shape.bin_width = 0.5;
  const std::vector<double> log_window = random_log_window(shape, 9u);
  GeometricTailFamily family(shape, log_window);
  const auto parameters = family.named_parameters();
  REQUIRE(parameters.size() == 1);
  CHECK(parameters.contains("theta"));
  CHECK(family.log_probabilities().dtype() == torch::kDouble);
  CHECK(family.log_probabilities().requires_grad());
  CHECK(family.log_window() == log_window);
  std::vector<double> bad = log_window;
  bad[2] = -std::numeric_limits<double>::infinity();
  CHECK_THROWS_AS(GeometricTailFamily(shape, bad), InputError);
  CHECK_THROWS_AS(GeometricTailFamily(shape, std::vector<double>(3, -1.0)), InputError);
}
