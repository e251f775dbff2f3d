// The certified accountant on tables with geometric tails (infinite support): the tails are two outcomes of
// known mass and constant loss, so the certificate of the discrete Laplace (the geometric mechanism) must
// bracket its exact delta(eps), a binomial sum: with a = ln(1/r) and a shift of one cell the privacy loss is
// +a on the outcomes <= 0 (probability 1/(1+r) under A) and -a above, so after n releases it is a(2K - n),
// K ~ Binomial(n, 1/(1+r)), and delta(eps) = E[(1 - e^(eps - L))_+].
#include <catch2/catch.hpp>

#include <cmath>

#include "accounting/pair_accountant.hpp"
#include "core/dominating_pair.hpp"

using namespace noiselearn;

namespace {

NoiseTable discrete_laplace(double r, int64_t w) {
  std::vector<double> p;
  for (int64_t i = -w; i <= w; ++i) p.push_back((1.0 - r) / (1.0 + r) * std::pow(r, std::abs(static_cast<double>(i))));
  return NoiseTable(Grid::symmetric(static_cast<double>(w), 1.0), p, std::nullopt, {}, GeometricTails{r});
}

double binomial_delta(double r, int n, double eps) {
  const double a = std::log(1.0 / r), pi = 1.0 / (1.0 + r);
  long double delta = 0.0L;
  for (int k = 0; k <= n; ++k) {
    const double loss = a * (2.0 * k - n);
    if (loss <= eps) continue;
    const long double log_weight = std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) +
                                   k * std::log(pi) + (n - k) * std::log1p(-pi);
    delta += std::exp(log_weight) * -std::expm1(static_cast<long double>(eps - loss));
  }
  return static_cast<double>(delta);
}

}  // namespace

TEST_CASE(
    "the discrete Laplace with geometric tails: lower <= exact binomial delta <= upper, for a window far "
    "narrower than the noise",
    "[accountant][tails][closed-form]") {
  for (double r : {0.5, 0.8}) {
    // A window of 2 cells each side: most of the mass (and all of the +-a losses' structure) is in the tails.
    const NoiseTable table = discrete_laplace(r, 2);
    PairSpecification specification;
    specification.sensitivity = 1.0;
    for (int n : {1, 7, 40}) {
      const PairBounds bounds = account(make_pair_family(table, specification), n, AccountantOptions{});
      for (double eps : {0.0, 0.3, 1.0, 2.5}) {
        const double exact = binomial_delta(r, n, eps);
        INFO("r = " << r << ", n = " << n << ", eps = " << eps << ", exact " << exact);
        CHECK(bounds.delta_lower(eps) <= exact * (1.0 + 1e-12) + 1e-300);
        CHECK(bounds.delta_upper(eps) >= exact * (1.0 - 1e-12));
        // Tight to the discretisation: the losses +-a lie between loss-grid points, and each bound moves every
        // release's loss by less than one step h (down for the lower bound, up for the upper one), so after n
        // releases the bounds lie between the exact deltas at eps + n h and eps - n h.
        const double nh = n * AccountantOptions{}.loss_step;
        CHECK(bounds.delta_lower(eps) >= binomial_delta(r, n, eps + nh) * (1.0 - 1e-9) - 1e-12);
        CHECK(bounds.delta_upper(eps) <= binomial_delta(r, n, eps - nh) * (1.0 + 1e-9) + 1e-12);
      }
    }
  }
}

TEST_CASE(
    "a tailed table's distinguishing events are none: a sensitivity wider than the window is accepted and "
    "certified against the exact value",
    "[accountant][tails][closed-form]") {
  const double r = 0.7;
  const NoiseTable table = discrete_laplace(r, 1);  // 3 explicit points
  PairSpecification specification;
  specification.sensitivity = 4.0;  // 4 cells: wider than the window; the discrete Laplace's loss is in {-4a .. 4a}
  specification.shifts = ShiftPolicy::kAll;
  const PairBounds bounds = account(make_pair_family(table, specification), 1, AccountantOptions{});
  CHECK(bounds.single_release_infinity_mass.first == 0.0);
  // Exact delta of one release at shift k = 4: sum over outcomes i of (P(i) - e^eps P(i-4))_+, by brute force.
  const double eps = 1.0;
  long double exact = 0.0L;
  for (int64_t i = -2000; i <= 2000; ++i) {
    const long double pi = table.p_extended(i), shifted = table.p_extended(i - 4);
    exact += std::max(0.0L, pi - std::exp(static_cast<long double>(eps)) * shifted);
  }
  CHECK(bounds.delta_lower(eps) <= static_cast<double>(exact) * (1.0 + 1e-12));
  CHECK(bounds.delta_upper(eps) >= static_cast<double>(exact) * (1.0 - 1e-12));
  CHECK(bounds.delta_upper(eps) - bounds.delta_lower(eps) <= 1e-3 * static_cast<double>(exact));
}
