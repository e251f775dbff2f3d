// Random allocation (accounting/random_allocation.hpp): each record in exactly one of k steps per epoch. The epoch's
// likelihood ratio is the mean of the k steps' ratios Y_j = (P/Q)(x_j), independent under Q, so for small k the
// exact delta(eps) of one epoch is an integral that quadrature computes to far below the bracket's width:
//   remove (A||Q): delta = E_Q[(S/k - e^eps)_+],     add (Q||A): delta = E_Q[(1 - e^eps S/k)_+],     S = sum_j Y_j,
// with ln Y ~ N(-1/(2 m^2), 1/m^2) under Q for the Gaussian of multiplier m. The last step's expectation is in closed
// form (Black and Scholes' call and put), the others by Simpson's rule in long double. k = 1 is the Gaussian itself,
// composed over epochs in closed form (Balle and Wang).
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "accounting/allocation_lattice.hpp"
#include "accounting/closed_forms.hpp"
#include "accounting/pair_accountant.hpp"
#include "accounting/random_allocation.hpp"
#include "accounting/release_events.hpp"
#include "core/errors.hpp"

using namespace noiselearn;

namespace {

using Real = long double;

Real normal_cdf(Real z) { return 0.5L * std::erfc(-z / std::sqrt(2.0L)); }
Real normal_density(Real z) { return std::exp(-0.5L * z * z) / std::sqrt(2.0L * static_cast<Real>(M_PI)); }

// One step's ratio Y = exp(z s - s^2 / 2), z ~ N(0, 1) under Q, s = 1 / m.
struct StepRatio {
  Real s;
  Real at(Real z) const { return std::exp(z * s - s * s / 2.0L); }
  // E[(Y - c)_+] and E[(c - Y)_+] (E[Y] = 1).
  Real call(Real c) const {
    if (c <= 0.0L) return 1.0L - c;
    const Real d1 = (s * s / 2.0L - std::log(c)) / s;
    return normal_cdf(d1) - c * normal_cdf(d1 - s);
  }
  Real put(Real c) const {
    if (c <= 0.0L) return 0.0L;
    const Real d1 = (s * s / 2.0L - std::log(c)) / s;
    return c * normal_cdf(-(d1 - s)) - normal_cdf(-d1);
  }
};

// Simpson's rule over z in [-13, 13] for each of the first k - 1 steps (their density below 1e-37 outside).
Real integrate(int dimensions, int intervals, const std::function<Real(Real)>& f_of_partial_sum, const StepRatio& y,
               Real partial = 0.0L) {
  if (dimensions == 0) return f_of_partial_sum(partial);
  const Real a = -13.0L, b = 13.0L, h = (b - a) / intervals;
  Real sum = 0.0L;
  for (int i = 0; i <= intervals; ++i) {
    const Real z = a + h * i;
    const Real weight = (i == 0 || i == intervals) ? 1.0L : (i % 2 == 1 ? 4.0L : 2.0L);
    sum += weight * normal_density(z) * integrate(dimensions - 1, intervals, f_of_partial_sum, y, partial + y.at(z));
  }
  return sum * h / 3.0L;
}

// Exact delta of one epoch (remove: A||Q; add: Q||A).
Real epoch_delta(double multiplier, int k, double epsilon, bool remove, int intervals) {
  const StepRatio y{1.0L / multiplier};
  const Real threshold = static_cast<Real>(k) * std::exp(static_cast<Real>(epsilon));
  if (remove)  // E[(S/k - e^eps)_+] = E[(Y_k - (k e^eps - partial))_+] / k
    return integrate(
               k - 1, intervals, [&](Real partial) { return y.call(threshold - partial); }, y) /
           k;
  // E[(1 - e^eps S/k)_+] = (e^eps / k) E[(k e^-eps - partial - Y_k)_+]
  const Real e = std::exp(static_cast<Real>(epsilon)), below = static_cast<Real>(k) / e;
  return e / k *
         integrate(
             k - 1, intervals, [&](Real partial) { return y.put(below - partial); }, y);
}

std::shared_ptr<const MechanismPair> gaussian(double multiplier) {
  return mechanism_kind("gaussian").make({{"noise_multiplier", multiplier}}, {});
}

double direction_delta(const PairBounds& bounds, bool upper, bool remove, double epsilon) {
  if (upper) return bounds.upper.direction(!remove).delta_for_epsilon(epsilon);
  return bounds.lower.front().direction(!remove).delta_for_epsilon(epsilon);
}

}  // namespace

TEST_CASE("the quadrature reference reproduces the Gaussian's closed form at one step") {
  // k = 1: the epoch is one Gaussian release; both directions are Balle and Wang's delta.
  for (double eps : {0.0, 0.5, 2.0}) {
    const RoundedDelta exact = gaussian_delta(1.0 / 1.3, eps);
    CHECK(std::abs(epoch_delta(1.3, 1, eps, true, 2) / std::exp(exact.log_value) - 1.0L) < 1e-12L);
    CHECK(std::abs(epoch_delta(1.3, 1, eps, false, 2) / std::exp(exact.log_value) - 1.0L) < 1e-12L);
  }
  // k = 2 and 3: Simpson's rule has converged at the step used below (halving it moves the value by less than 1e-8
  // relative, a hundredth of the brackets' widths; the containment checks allow for 1e-7).
  for (bool remove : {true, false}) {
    CHECK(std::abs(epoch_delta(1.0, 2, 0.5, remove, 6000) / epoch_delta(1.0, 2, 0.5, remove, 12000) - 1.0L) < 1e-8L);
    CHECK(std::abs(epoch_delta(2.0, 3, 0.1, remove, 1200) / epoch_delta(2.0, 3, 0.1, remove, 2400) - 1.0L) < 1e-8L);
  }
}

TEST_CASE("one epoch's bracket contains the exact delta of two and three steps, both directions") {
  AccountantOptions options;
  options.loss_step = 1e-4;
  struct Case {
    double multiplier;
    int k;
    int intervals;
  };
  for (const Case c : {Case{1.0, 2, 6000}, Case{0.8, 2, 6000}, Case{2.0, 3, 1200}}) {
    const PairBounds epoch = random_allocation_bounds(gaussian(c.multiplier), c.k, options);
    for (bool remove : {true, false})
      for (double eps : {0.0, 0.1, 0.5, 1.5}) {
        const double exact = static_cast<double>(epoch_delta(c.multiplier, c.k, eps, remove, c.intervals));
        const double lower = direction_delta(epoch, false, remove, eps);
        const double upper = direction_delta(epoch, true, remove, eps);
        INFO("multiplier " << c.multiplier << ", k " << c.k << (remove ? ", remove" : ", add") << ", eps " << eps
                           << ": [" << lower << ", " << upper << "], exact " << exact);
        CHECK(lower <= exact * (1.0 + 1e-7));
        CHECK(upper >= exact * (1.0 - 1e-7));
      }
  }
}

TEST_CASE("the upper bound's excess falls with the square of the lattice step") {
  // Multiplier 0.8: Y's heavy tail makes max_points limit the upper bound's lattice (step 1/8 at 2^20, 1/32 at 2^22;
  // the lower bound's cells keep the step 1/64 and stop at the top instead). Two steps per epoch is where the
  // lattice's resolution shows most (the ratio sum is near 0 to 2, not near k). The spread adds at most g^2 / 4 to
  // each step's variance, so a step 4 times finer should cut the excess over the exact delta about 16 times (measured:
  // 16.2 and 15.5).
  auto excess = [](int64_t max_points, double eps) {
    AccountantOptions options;
    options.loss_step = 1e-4;
    options.max_points = max_points;
    const PairBounds epoch = random_allocation_bounds(gaussian(0.8), 2, options);
    return direction_delta(epoch, true, true, eps) - static_cast<double>(epoch_delta(0.8, 2, eps, true, 6000));
  };
  for (double eps : {0.0, 0.5}) {
    const double coarse = excess(int64_t{1} << 20, eps), fine = excess(int64_t{1} << 22, eps);
    INFO("eps " << eps << ": upper minus exact " << coarse << " at step 1/8, " << fine << " at 1/32");
    CHECK(fine > 0.0);
    CHECK(coarse / fine >= 10.0);
  }
}

TEST_CASE("ten steps per epoch: brackets within 1e-4 of delta") {
  // Measured 7e-5, 7e-5 and 2e-5 relative (multiplier 1, one epoch); the containment is the quadrature tests' above.
  AccountantOptions options;
  options.loss_step = 1e-4;
  const PairBounds epoch = random_allocation_bounds(gaussian(1.0), 10, options);
  for (double eps : {0.1, 0.5, 1.5}) {
    INFO("eps " << eps << ": [" << epoch.delta_lower(eps) << ", " << epoch.delta_upper(eps) << "]");
    CHECK(epoch.delta_lower(eps) > 0.0);
    CHECK(epoch.delta_upper(eps) - epoch.delta_lower(eps) <= 1e-4 * epoch.delta_upper(eps));
  }
}

TEST_CASE("one step per epoch composed over epochs contains the Gaussian's closed form") {
  // k = 1 is the unsampled Gaussian; E epochs compose to the Gaussian of mu = sqrt(E) / m.
  AccountantOptions options;
  options.loss_step = 1e-4;
  const double m = 2.0;
  const int64_t epochs = 50;
  const PairBounds composed = compose_bounds(random_allocation_bounds(gaussian(m), 1, options), epochs, options);
  const double mu = std::sqrt(static_cast<double>(epochs)) / m;
  for (double eps : {0.5, 1.0, 3.0}) {
    const RoundedDelta exact = gaussian_delta(mu, eps);
    const double truth = std::exp(exact.log_value);
    INFO("eps " << eps << ": [" << composed.delta_lower(eps) << ", " << composed.delta_upper(eps) << "], exact "
                << truth);
    CHECK(composed.delta_lower(eps) <= truth * (1.0 + 1e-12));
    CHECK(composed.delta_upper(eps) >= truth * (1.0 - 1e-12));
    CHECK(composed.delta_upper(eps) - composed.delta_lower(eps) <= 1e-3 * truth);
  }
}

TEST_CASE("the lattices keep what the constructions promise") {
  const auto mechanism = gaussian(1.0);
  const LossLaw law = mechanism->loss_law(1e-15);
  const LatticeChoice lattice = ratio_lattice(law, 1e-15, fine_ratio_step(law), int64_t{1} << 19, false);
  const double g = lattice.step;
  // A power of two, and the top's P-tail at most the tail mass: ln Y ~ N(1/2, 1) under P.
  CHECK(std::exp2(std::round(std::log2(g))) == g);
  const double top = static_cast<double>(lattice.top) * g;
  CHECK(0.5 * std::erfc((std::log(top) - 0.5) / std::sqrt(2.0)) <= 1e-15);
  // The spread keeps Q's mass and mean: sum q = 1, sum y q = sum p = 1 - p_infinity (E_Q[Y] = 1).
  const RatioLattice spread = spread_lattice(law, mechanism->mass_relative_error(), lattice);
  long double q_sum = 0.0L, mean = 0.0L, p_sum = 0.0L;
  for (size_t i = 0; i < spread.q_masses.size(); ++i) {
    q_sum += spread.q_masses[i];
    mean += static_cast<long double>(i) * g * spread.q_masses[i];
    p_sum += spread.p_masses[i];
  }
  CHECK(std::abs(q_sum - 1.0L) < 1e-12L);
  CHECK(std::abs(mean + spread.p_infinity - 1.0L) < 1e-12L);
  CHECK(std::abs(p_sum - mean) < 1e-12L);
  // Its variance exceeds Y's (e - 1 for m = 1) by at most g^2 / 4 on the fine cells, and the widening cells' share.
  long double second = 0.0L;
  for (size_t i = 0; i < spread.q_masses.size(); ++i)
    second += std::pow(static_cast<long double>(i) * g, 2) * spread.q_masses[i];
  const long double y_second = std::exp(1.0L);  // E_Q[Y^2] = e^{1/m^2}
  CHECK(second >= y_second * (1.0L - 1e-9L) - 1e-9L);
  CHECK(second <= y_second + g * g);
  // The cells: a post-processing keeps both masses, and each label is at most (at least) its cell's mean, so the
  // label mean is just below (above) 1.
  for (CellLabel label : {CellLabel::kMeansAtOrAbove, CellLabel::kMeansAtOrBelow}) {
    const RatioLattice cells = cell_lattice(law, mechanism->mass_relative_error(), lattice, label);
    long double q = 0.0L, p = 0.0L, labels = 0.0L;
    for (size_t i = 0; i < cells.q_masses.size(); ++i) {
      q += cells.q_masses[i];
      p += cells.p_masses[i];
      labels += static_cast<long double>(i) * g * cells.q_masses[i];
      // Each label's P/Q is its cells' mean: at or above the label (at or below).
      if (cells.q_masses[i] > 1e-300) {
        const long double ratio = static_cast<long double>(cells.p_masses[i]) / cells.q_masses[i];
        const long double at = static_cast<long double>(i) * g;
        if (label == CellLabel::kMeansAtOrAbove)
          CHECK(ratio >= at * (1.0L - 1e-12L));
        else
          CHECK(ratio <= at * (1.0L + 1e-12L));
      }
    }
    if (label == CellLabel::kMeansAtOrAbove) {
      CHECK(std::abs(q - 1.0L) < 1e-12L);
      CHECK(labels <= p);
      CHECK(labels >= p - 1e-6L);  // the labels sit at the means to a relative 4e-13 but for the first cells
    } else {
      CHECK(q <= 1.0L + 1e-12L);
      CHECK(q >= 1.0L - 1e-14L);  // only the last cell's mass (Q-probability of Y above the top) is left out
      CHECK(labels >= p);
    }
  }
}

TEST_CASE("random allocation events: keys, whole epochs and the relation") {
  const EventFields fields{
      {"mechanism", "gaussian"}, {"noise_multiplier", "1"}, {"steps_per_epoch", "100"}, {"count", "300"}};
  const ReleaseEvent event = parse_release_event(fields, "test");
  CHECK(event.sampling.kind == SamplingKind::kRandomAllocation);
  CHECK(event.sampling.steps_per_epoch == 100);
  CHECK(event.compositions() == 3);
  CHECK_THROWS_WITH(
      parse_release_event(
          {{"mechanism", "gaussian"}, {"noise_multiplier", "1"}, {"steps_per_epoch", "100"}, {"count", "250"}}, "test"),
      Catch::Contains("count 250 must be a whole number of epochs of steps_per_epoch 100"));
  CHECK_THROWS_WITH(
      parse_release_event({{"mechanism", "gaussian"}, {"noise_multiplier", "1"}, {"sampling", "random_allocation"}},
                          "test"),
      Catch::Contains("needs steps_per_epoch"));
  CHECK_THROWS_WITH(
      parse_release_event(
          {{"mechanism", "gaussian"}, {"noise_multiplier", "1"}, {"steps_per_epoch", "10"}, {"sampling_rate", "0.1"}},
          "test"),
      Catch::Contains("steps_per_epoch does not apply to sampling poisson"));
  ReleaseDescription replace;
  replace.relation = RecordRelation::kReplaceOne;
  replace.events.push_back(event);
  CHECK_THROWS_WITH(account_events(replace, AccountantOptions{}),
                    Catch::Contains("random_allocation is accounted under relation add_remove"));
}

TEST_CASE("the issue's setting: 1,000 steps per epoch, 10 epochs, within 1e-3 and below Poisson's at the same rate") {
  // sigma 1, delta 1e-5. The bracket's rigour is the tests above; here its width, and the comparison a user asks for.
  ReleaseDescription allocation, poisson;
  allocation.events.push_back(parse_release_event(
      {{"mechanism", "gaussian"}, {"noise_multiplier", "1"}, {"steps_per_epoch", "1000"}, {"count", "10000"}}, "test"));
  poisson.events.push_back(parse_release_event(
      {{"mechanism", "gaussian"}, {"noise_multiplier", "1"}, {"sampling_rate", "0.001"}, {"count", "10000"}}, "test"));
  AccountingQueries queries;
  queries.deltas = {1e-5};
  const PairBounds a = account_events(allocation, AccountantOptions{}, queries);
  const PairBounds p = account_events(poisson, AccountantOptions{}, queries);
  INFO("allocation [" << a.epsilon_lower(1e-5) << ", " << a.epsilon_upper(1e-5) << "], Poisson ["
                      << p.epsilon_lower(1e-5) << ", " << p.epsilon_upper(1e-5) << "]");
  CHECK(a.compositions == 10);
  CHECK(a.epsilon_upper(1e-5) - a.epsilon_lower(1e-5) <= 1e-3 * a.epsilon_upper(1e-5));
  CHECK(a.epsilon_upper(1e-5) < p.epsilon_lower(1e-5));
}

TEST_CASE("small multipliers: an answer that holds, the upper bound at worst one Gaussian release per epoch") {
  // Below a multiplier of about 0.7 the ratios' tail is too heavy for a fine lattice; an epoch is a post-processing of
  // one unsampled Gaussian release, so the epochs compose to at most the Gaussian of mu = sqrt(epochs) / m. Where the
  // ratios overflow the doubles (0.02) no lattice is made at all: the lower bound is 0.
  for (double m : {0.5, 0.02}) {
    ReleaseDescription d;
    d.events.push_back(parse_release_event({{"mechanism", "gaussian"},
                                            {"noise_multiplier", std::to_string(m)},
                                            {"steps_per_epoch", "10"},
                                            {"count", "20"}},
                                           "test"));
    AccountingQueries queries;
    queries.deltas = {1e-5};
    const PairBounds bounds = account_events(d, AccountantOptions{}, queries);
    const ClosedFormBounds gaussian = gaussian_closed_form(composed_gaussian_mu({{m, 2.0, 1.0}}));
    INFO("multiplier " << m << ": [" << bounds.epsilon_lower(1e-5) << ", " << bounds.epsilon_upper(1e-5)
                       << "], one Gaussian per epoch " << gaussian.epsilon_upper(1e-5));
    CHECK(std::isfinite(bounds.epsilon_upper(1e-5)));
    CHECK(bounds.epsilon_upper(1e-5) <= gaussian.epsilon_upper(1e-5));
    CHECK(bounds.epsilon_lower(1e-5) <= bounds.epsilon_upper(1e-5));
    REQUIRE(bounds.alternatives.closed_form);
    CHECK_FALSE(bounds.alternatives.closed_form->exact);
  }
  // The fallback's lower ends are not used: the lower bound of a multiplier with a lattice is the lattice's.
  ReleaseDescription d;
  d.events.push_back(parse_release_event(
      {{"mechanism", "gaussian"}, {"noise_multiplier", "0.5"}, {"steps_per_epoch", "10"}, {"count", "20"}}, "test"));
  const PairBounds bounds = account_events(d, AccountantOptions{});
  CHECK(bounds.epsilon_lower(1e-5) > 10.0);  // measured 10.84; the Gaussian's lower end would be above the upper
  CHECK(bounds.epsilon_lower(1e-5) < gaussian_closed_form(composed_gaussian_mu({{0.5, 2.0, 1.0}})).epsilon_lower(1e-5));
}

namespace {

// Exact delta of `epochs` epochs of k steps for a mechanism whose law is atoms only (loss l with masses p, q), by
// enumerating every tuple of atoms of every step: the epochs' ratio is the product of (sum of the steps' e^l) / k.
Real enumerated_delta(const LossLaw& law, int k, int epochs, double epsilon, bool remove) {
  std::vector<std::pair<Real, Real>> atoms;  // (ratio, Q-mass)
  double cut = 0.0;  // the discrete Gaussian's cut tails (cells to an infinite loss), at most 1e-18 each
  for (const LossCell& c : law.cells) {
    if (c.low != c.high) {
      cut += std::max(c.p_mass, c.q_mass);
      continue;
    }
    if (c.q_mass > 0.0) atoms.emplace_back(std::exp(static_cast<Real>(c.low)), c.q_mass);
  }
  REQUIRE(cut < 1e-16);
  const int steps = k * epochs;
  std::vector<size_t> index(static_cast<size_t>(steps), 0);
  Real delta = 0.0L;
  const Real e = std::exp(static_cast<Real>(epsilon));
  while (true) {
    Real q = 1.0L, ratio = 1.0L;
    for (int epoch = 0; epoch < epochs; ++epoch) {
      Real sum = 0.0L;
      for (int j = 0; j < k; ++j) {
        const auto& [y, mass] = atoms[index[static_cast<size_t>(epoch * k + j)]];
        sum += y;
        q *= mass;
      }
      ratio *= sum / k;
    }
    delta += q * (remove ? std::max(ratio - e, 0.0L) : std::max(1.0L - e * ratio, 0.0L));
    int position = 0;  // the next tuple
    while (position < steps && ++index[static_cast<size_t>(position)] == atoms.size())
      index[static_cast<size_t>(position++)] = 0;
    if (position == steps) break;
  }
  return delta;
}

}  // namespace

TEST_CASE("discrete noise: the bracket contains the exact delta enumerated over every step's atoms") {
  // The discrete Laplace (two atoms of loss, +-1/scale) and the discrete Gaussian (sigma 1.2, its atoms to 1e-18),
  // 2 and 3 steps per epoch, 1 and 2 epochs: the exact delta by enumeration of every step's atom, both directions.
  struct Case {
    std::string mechanism, key;
    double value;
    int k, epochs;
  };
  for (const Case& c : {Case{"discrete_laplace", "scale", 1.0, 2, 1}, Case{"discrete_laplace", "scale", 1.0, 3, 2},
                        Case{"discrete_laplace", "scale", 3.0, 3, 2}, Case{"discrete_gaussian", "sigma", 1.2, 2, 1}}) {
    ReleaseDescription d;
    d.events.push_back(parse_release_event({{"mechanism", c.mechanism},
                                            {c.key, std::to_string(c.value)},
                                            {"steps_per_epoch", std::to_string(c.k)},
                                            {"count", std::to_string(c.k * c.epochs)}},
                                           "test"));
    AccountingQueries queries;
    queries.epsilons = {0.0, 0.2, 0.5, 1.0};
    const PairBounds bounds = account_events(d, AccountantOptions{}, queries);
    const LossLaw law = mechanism_kind(c.mechanism).make({{c.key, c.value}, {"sensitivity", 1.0}}, {})->loss_law(1e-15);
    for (double eps : queries.epsilons) {
      const double exact = static_cast<double>(
          std::max(enumerated_delta(law, c.k, c.epochs, eps, true), enumerated_delta(law, c.k, c.epochs, eps, false)));
      INFO(c.mechanism << " " << c.value << ", k " << c.k << ", " << c.epochs << " epochs, eps " << eps << ": ["
                       << bounds.delta_lower(eps) << ", " << bounds.delta_upper(eps) << "], exact " << exact);
      CHECK(bounds.delta_lower(eps) <= exact * (1.0 + 1e-12) + 1e-15);
      CHECK(bounds.delta_upper(eps) >= exact * (1.0 - 1e-12) - 1e-15);
      // Measured 3e-5 to 2e-4 relative; at the largest loss (scale 1, two steps, eps 1: delta exactly 0) the top
      // atom spread a lattice step above it leaves 1.3e-5.
      CHECK(bounds.delta_upper(eps) - bounds.delta_lower(eps) <= 1e-3 * exact + 2e-5);
    }
  }
}
