// Mechanisms without a grid, sampled the ways training samples (accounting/sampled_release.hpp, release_events.hpp),
// checked against what they mean, computed another way:
// - the unsampled Gaussian against Balle and Wang's closed form, n releases;
// - the unsampled Laplace against its closed form 1 - e^{(eps - a)/2};
// - the Poisson-sampled Gaussian (one release) against numerical integration of max(0, A - e^eps Q);
// - the discrete Laplace and discrete Gaussian, unsampled and sampled, n <= 3, against enumeration of every outcome
//   tuple of the n-fold product pairs (tests/accounting/brute_force.hpp), both directions;
// - Poisson sampling and sampling without replacement against their definitions: every subset of a small data set
//   with its probability, the query's output distribution on both neighbours, the exact delta by enumeration;
// - bad input: one InputError naming the culprit.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <vector>

#include "accounting/continuous_mechanisms.hpp"
#include "accounting/release_events.hpp"
#include "brute_force.hpp"
#include "core/errors.hpp"
#include "event_helpers.hpp"

using namespace noiselearn;
using noiselearn::testing::brute_force_delta;
using namespace noiselearn::testing;

TEST_CASE("events: the unsampled Gaussian brackets Balle and Wang's closed form within 1e-6 relative, n releases",
          "[accountant][events][closed-form]") {
  for (double m : {0.5, 1.0, 3.0})
    for (int64_t n : {1, 10, 1000}) {
      const PairBounds b =
          account_one(event("gaussian", {{"noise_multiplier", std::to_string(m)}, {"count", std::to_string(n)}}));
      for (double eps : {0.1, 1.0, 4.0}) {
        const double exact = gaussian_mechanism_delta(m, 1.0, n, eps);
        if (exact < 1e-12) continue;
        check_bracket(b, exact, eps);
        CHECK(b.delta_upper(eps) - b.delta_lower(eps) <= 1e-6 * exact);
      }
    }
}

TEST_CASE("events: the unsampled Laplace brackets its closed form 1 - e^((eps - a)/2) for one release",
          "[accountant][events][closed-form]") {
  for (double m : {0.5, 2.0}) {
    const PairBounds b = account_one(event("laplace", {{"noise_multiplier", std::to_string(m)}}));
    const double a = 1.0 / m;
    for (double eps : {0.0, 0.1, 0.3, 0.9 * a}) {
      const double exact = -std::expm1((eps - a) / 2.0);
      check_bracket(b, exact, eps);
      CHECK(b.delta_upper(eps) - b.delta_lower(eps) <= 1e-6 * exact);
    }
    CHECK(b.delta_upper(a * 1.001) == 0.0);  // pure a-DP
  }
}

TEST_CASE(
    "events: one release of the Poisson-sampled Gaussian brackets the integral of max(0, A - e^eps Q), both "
    "directions",
    "[accountant][events][sampled]") {
  const double m = 0.8, q = 0.1;
  const PairBounds b =
      account_one(event("gaussian", {{"noise_multiplier", std::to_string(m)}, {"sampling_rate", std::to_string(q)}}));
  // Trapezoid on [-40, 41] with 4e6 intervals (error far below 1e-10 for these smooth integrands).
  auto integral = [&](double eps, bool remove) {
    const int64_t steps = 4'000'000;
    const double lo = -40.0 * m, hi = 1.0 + 40.0 * m, h = (hi - lo) / static_cast<double>(steps);
    long double sum = 0.0L;
    for (int64_t i = 0; i <= steps; ++i) {
      const double x = lo + h * static_cast<double>(i);
      const double pq = std::exp(-x * x / (2 * m * m)), pp = std::exp(-(x - 1) * (x - 1) / (2 * m * m));
      const double a = (1 - q) * pq + q * pp;
      const double v = remove ? std::max(0.0, a - std::exp(eps) * pq) : std::max(0.0, pq - std::exp(eps) * a);
      sum += (i == 0 || i == steps ? 0.5L : 1.0L) * v;
    }
    return static_cast<double>(sum * h / (m * std::sqrt(2.0 * M_PI)));
  };
  for (double eps : {0.0, 0.05, 0.2}) {
    const double remove = integral(eps, true), add = integral(eps, false);
    INFO("remove " << remove << ", add " << add);
    check_bracket(b, std::max(remove, add), eps, 1e-10);
    CHECK(b.delta_upper_of_direction(false, eps) >= remove - 1e-10);
    CHECK(b.delta_upper_of_direction(true, eps) >= add - 1e-10);
  }
}

TEST_CASE(
    "events: discrete Laplace and discrete Gaussian, unsampled and sampled, n <= 3, bracket the enumeration of "
    "the product pairs",
    "[accountant][events][brute-force]") {
  // Supports wide enough that the tails left out are below 1e-17 (the discrete Laplace of scale 1.5 beyond 60).
  const int lo = -30, hi = 32, wide_lo = -60, wide_hi = 62;
  struct Case {
    std::string mechanism;
    EventFields fields;
    std::vector<double> q_pmf, p_pmf;
  };
  std::vector<Case> cases{
      {"discrete_laplace",
       {{"scale", "1.5"}, {"sensitivity", "2"}},
       discrete_laplace(1.5, 0, wide_lo, wide_hi),
       discrete_laplace(1.5, 2, wide_lo, wide_hi)},
      {"discrete_gaussian", {{"sigma", "1.3"}}, discrete_gaussian(1.3, 0, lo, hi), discrete_gaussian(1.3, 1, lo, hi)},
      {"discrete_gaussian",
       {{"sigma", "0.6"}, {"sensitivity", "1"}},
       discrete_gaussian(0.6, 0, lo, hi),
       discrete_gaussian(0.6, 1, lo, hi)},
  };
  for (const auto& c : cases)
    for (int n : {1, 2, 3}) {
      INFO(c.mechanism << " " << c.fields.front().second << ", n " << n);
      // Unsampled: P^n || Q^n (= Q^n || P^n by symmetry).
      EventFields plain = c.fields;
      plain.push_back({"count", std::to_string(n)});
      const PairBounds none = account_one(event(c.mechanism, plain));
      // Poisson at q = 0.3, add or remove: remove A^n || Q^n and add Q^n || A^n.
      EventFields poisson = plain;
      poisson.push_back({"sampling_rate", "0.3"});
      const PairBounds sampled = account_one(event(c.mechanism, poisson));
      // Without replacement, 3 of 10, replace one: the realisable remove and add pairs are below the upper bound and
      // above the lower one's worst.
      EventFields wor = plain;
      wor.push_back({"batch_size", "3"});
      wor.push_back({"dataset_size", "10"});
      const PairBounds without = account_one(event(c.mechanism, wor), RecordRelation::kReplaceOne);
      const auto a = mix(c.q_pmf, c.p_pmf, 0.3);
      for (double eps : {0.0, 0.3, 1.0}) {
        check_bracket(none, brute_force_delta(c.p_pmf, c.q_pmf, n, eps), eps);
        const double remove = brute_force_delta(a, c.q_pmf, n, eps), add = brute_force_delta(c.q_pmf, a, n, eps);
        check_bracket(sampled, std::max(remove, add), eps);
        CHECK(sampled.delta_lower(eps) >= 0.999 * std::max(remove, add));  // tight
        CHECK(without.delta_upper(eps) >= std::max(remove, add) * (1.0 - 1e-12) - 1e-13);
        CHECK(without.delta_lower(eps) <= std::max(remove, add) * (1.0 + 1e-12) + 1e-13);
      }
    }
}

namespace {

// The output distribution of "sum of the sampled records' values + discrete Laplace noise" on [lo, hi], for records
// with integer values, sampled by `subsets`: (probability, subset as a bit mask) pairs.
std::vector<double> output_distribution(const std::vector<int>& values,
                                        const std::vector<std::pair<double, unsigned>>& subsets, double scale, int lo,
                                        int hi) {
  std::vector<double> out(static_cast<size_t>(hi - lo + 1), 0.0);
  for (const auto& [probability, mask] : subsets) {
    int sum = 0;
    for (size_t i = 0; i < values.size(); ++i)
      if (mask & (1u << i)) sum += values[i];
    const auto noise = discrete_laplace(scale, sum, lo, hi);
    for (size_t k = 0; k < out.size(); ++k) out[k] += probability * noise[k];
  }
  return out;
}

double exact_delta(const std::vector<double>& a, const std::vector<double>& b, double eps) {
  double d = 0.0;
  for (size_t i = 0; i < a.size(); ++i) d += std::max(0.0, a[i] - std::exp(eps) * b[i]);
  return d;
}

}  // namespace

TEST_CASE(
    "events: Poisson sampling and sampling without replacement against their definitions (every subset of a "
    "small data set)",
    "[accountant][events][sampling]") {
  const double scale = 1.0;
  const int lo = -40, hi = 46;
  // Poisson at q = 0.25 over 4 records: D has records with values {1, 0, 1}; D' adds a record of value 1 (the
  // sensitivity). Every subset with probability q^|S| (1-q)^(N-|S|).
  {
    const double q = 0.25;
    auto poisson_subsets = [q](size_t n) {
      std::vector<std::pair<double, unsigned>> s;
      for (unsigned mask = 0; mask < (1u << n); ++mask) {
        const int k = __builtin_popcount(mask);
        s.emplace_back(std::pow(q, k) * std::pow(1.0 - q, static_cast<double>(n) - k), mask);
      }
      return s;
    };
    for (const std::vector<int>& others : {std::vector<int>{0, 0, 0}, std::vector<int>{1, 0, 1}}) {
      std::vector<int> with = others;
      with.push_back(1);
      const auto d = output_distribution(others, poisson_subsets(others.size()), scale, lo, hi);
      const auto d_prime = output_distribution(with, poisson_subsets(with.size()), scale, lo, hi);
      const PairBounds b = account_one(event("discrete_laplace", {{"scale", "1"}, {"sampling_rate", "0.25"}}));
      for (double eps : {0.0, 0.1, 0.3}) {
        const double truth = std::max(exact_delta(d_prime, d, eps), exact_delta(d, d_prime, eps));
        INFO("others " << others[0] << others[1] << others[2] << ", eps " << eps << ": truth " << truth);
        CHECK(b.delta_upper(eps) >= truth - 1e-13);
        // All other records 0: the worst case itself, so the bracket holds it.
        if (others == std::vector<int>{0, 0, 0}) check_bracket(b, truth, eps);
      }
    }
  }
  // Without replacement, batches of 2 of 5, replace one: D has values {0, 0, 0, 0, 1}, D' replaces the last by 0.
  {
    std::vector<std::pair<double, unsigned>> batches;
    for (unsigned mask = 0; mask < 32u; ++mask)
      if (__builtin_popcount(mask) == 2) batches.emplace_back(1.0 / 10.0, mask);
    const auto d = output_distribution({0, 0, 0, 0, 1}, batches, scale, lo, hi);
    const auto d_prime = output_distribution({0, 0, 0, 0, 0}, batches, scale, lo, hi);
    const PairBounds b =
        account_one(event("discrete_laplace", {{"scale", "1"}, {"batch_size", "2"}, {"dataset_size", "5"}}),
                    RecordRelation::kReplaceOne);
    for (double eps : {0.0, 0.1, 0.3}) {
      const double truth = std::max(exact_delta(d, d_prime, eps), exact_delta(d_prime, d, eps));
      check_bracket(b, truth, eps);
    }
  }
}

TEST_CASE("events: phases compose as one heterogeneous composition, and Poisson at rate 1 is no sampling",
          "[accountant][events]") {
  // Two phases of the unsampled Gaussian: n1 releases at m1 and n2 at m2 are one Gaussian of 1/m^2 = n1/m1^2 + n2/m2^2.
  ReleaseDescription d;
  d.events.push_back(event("gaussian", {{"noise_multiplier", "1"}, {"count", "3"}}));
  d.events.push_back(event("gaussian", {{"noise_multiplier", "2"}, {"count", "8"}}));
  const PairBounds b = account_events(d, AccountantOptions{});
  const double m = 1.0 / std::sqrt(3.0 + 8.0 / 4.0);
  for (double eps : {0.5, 1.5}) {
    const double exact = gaussian_mechanism_delta(m, 1.0, 1, eps);
    check_bracket(b, exact, eps);
    CHECK(b.delta_upper(eps) - b.delta_lower(eps) <= 1e-6 * exact);
  }
  const PairBounds rate_one =
      account_one(event("gaussian", {{"noise_multiplier", "1.5"}, {"sampling_rate", "1"}, {"count", "4"}}));
  const PairBounds none = account_one(event("gaussian", {{"noise_multiplier", "1.5"}, {"count", "4"}}));
  CHECK(rate_one.delta_upper(0.7) == none.delta_upper(0.7));
}

TEST_CASE("events: bad input is one InputError naming the culprit", "[accountant][events][input]") {
  auto message = [](const EventFields& f, const std::string& where = "events.yaml, event 1") {
    try {
      parse_release_event(f, where);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  using Catch::Matchers::Contains;
  CHECK_THAT(message({{"mechanism", "gausian"}, {"noise_multiplier", "1"}}), Contains("did you mean 'gaussian'"));
  CHECK_THAT(message({{"mechanism", "gaussian"}}), Contains("needs noise_multiplier"));
  CHECK_THAT(message({{"mechanism", "gaussian"}, {"noise_multiplier", "0"}}),
             Contains("noise_multiplier must be positive"));
  CHECK_THAT(message({{"mechanism", "gaussian"}, {"noise_multiplier", "-1"}}),
             Contains("noise_multiplier must be positive"));
  CHECK_THAT(message({{"mechanism", "gaussian"}, {"noise_multiplier", "nan"}}), Contains("noise_multiplier"));
  CHECK_THAT(message({{"mechanism", "gaussian"}, {"noise_multiplier", "1"}, {"sampling_rate", "1.5"}}),
             Contains("sampling_rate 1.5 must be in (0, 1]"));
  CHECK_THAT(message({{"mechanism", "gaussian"}, {"noise_multiplier", "1"}, {"sampling_rate", "0"}}),
             Contains("sampling_rate"));
  CHECK_THAT(
      message({{"mechanism", "gaussian"}, {"noise_multiplier", "1"}, {"batch_size", "70"}, {"dataset_size", "60"}}),
      Contains("batch_size 70 must be between 1 and dataset_size 60"));
  CHECK_THAT(message({{"mechanism", "gaussian"}, {"noise_multiplier", "1"}, {"count", "2.5"}}),
             Contains("count must be a whole number"));
  CHECK_THAT(message({{"mechanism", "gaussian"}, {"noise_multiplier", "1"}, {"count", "-3"}}),
             Contains("count must be a whole number"));
  CHECK_THAT(message({{"mechanism", "gaussian"}, {"noise_multiplier", "1"}, {"sigma", "2"}}),
             Contains("unknown key 'sigma'"));
  CHECK_THAT(message({{"mechanism", "gaussian"}, {"noise_multiplier", "1"}, {"samplng_rate", "0.1"}}),
             Contains("did you mean 'sampling_rate'"));
  CHECK_THAT(message({{"mechanism", "discrete_laplace"}, {"scale", "1"}, {"sensitivity", "1.5"}}),
             Contains("sensitivity must be a whole number"));
  CHECK_THAT(message({{"mechanism", "gaussian"}, {"noise_multiplier", "1"}, {"sampling", "poison"}}),
             Contains("did you mean 'poisson'"));
  CHECK_THAT(
      message({{"mechanism", "gaussian"}, {"noise_multiplier", "1"}, {"sampling", "none"}, {"sampling_rate", "0.1"}}),
      Contains("sampling_rate does not apply to sampling none"));
  CHECK_THAT(message({{"noise_multiplier", "1"}}), Contains("no mechanism"));
  CHECK_THAT(message({{"mechanism", "gaussian"}, {"noise_multiplier", "1"}}, "events.yaml, event 3"),
             Contains("accepted"));
  // Sampling and relation that do not go together.
  ReleaseDescription d;
  d.relation = RecordRelation::kReplaceOne;
  d.events.push_back(
      parse_release_event({{"mechanism", "gaussian"}, {"noise_multiplier", "1"}, {"sampling_rate", "0.1"}}, "e"));
  CHECK_THROWS_WITH(account_events(d, AccountantOptions{}),
                    Contains("event 1: Poisson sampling is accounted under relation add_remove"));
  CHECK_THROWS_WITH(account_events(ReleaseDescription{}, AccountantOptions{}), Contains("no events"));
  CHECK_THROWS_WITH(parse_record_relation("replace_on"), Contains("did you mean 'replace_one'"));
}

TEST_CASE(
    "events: losses of hundreds or thousands of nats (where e^loss overflows and the second mass underflows) "
    "are bracketed, not lost",
    "[accountant][events][extreme]") {
  // Laplace with a = 1000: the closed form 1 - e^((eps - a)/2) near a; 5 releases are pure 5000-DP.
  const PairBounds one = account_one(event("laplace", {{"noise_multiplier", "0.001"}}));
  for (double eps : {999.0, 999.9}) check_bracket(one, -std::expm1((eps - 1000.0) / 2.0), eps);
  const PairBounds five = account_one(event("laplace", {{"noise_multiplier", "0.001"}, {"count", "5"}}));
  CHECK(five.delta_lower(4999.0) > 0.05);
  CHECK(five.delta_lower(5001.0) == 0.0);
  CHECK(five.delta_upper(5001.0) <= 1e-9);
  // The Gaussian with mu = 100: Balle and Wang's delta where it is between 1e-6 and 0.5.
  const PairBounds g = account_one(event("gaussian", {{"noise_multiplier", "0.01"}}));
  for (double z : {0.0, 2.0, 4.5}) {
    const double eps = 5000.0 + z * 100.0;
    check_bracket(g, gaussian_mechanism_delta(0.01, 1.0, 1, eps), eps);
  }
}

TEST_CASE(
    "events: the Poisson-sampled discrete Laplace of sensitivity 1, composed thousands of times, brackets its "
    "binomial closed form",
    "[accountant][events]") {
  // With sensitivity 1, P(x) / Q(x) is e^{-1/t} for x <= 0 and e^{1/t} for x >= 1 (P = Q shifted by 1), so one release
  // of A = (1 - q) Q + q P against Q has two outcomes that matter: x <= 0, with Q-mass 1 / (1 + r) and A-mass
  // (1 - q + q r) / (1 + r), and x >= 1, with r / (1 + r) and ((1 - q) r + q) / (1 + r), r = e^{-1/t}. After n releases
  // the number k of outcomes x >= 1 is binomial under both, and delta(eps) of either direction is the sum over k of
  // max(0, A_n(k) - e^eps Q_n(k)) (or with A and Q exchanged): exact, in O(n), written here independently of the
  // accountant's two-outcome bound. The accountant sees the mixture as two atoms of loss that its loss grid does not
  // hold: this checks its discretisation of atoms over long compositions (the FFT power) against the truth, far beyond
  // the n <= 3 of the enumeration above.
  const double t = 3.983, q = 0.002, r = std::exp(-1.0 / t);
  const double q_low = 1.0 / (1.0 + r), q_high = r / (1.0 + r);
  const double a_low = (1.0 - q + q * r) / (1.0 + r), a_high = ((1.0 - q) * r + q) / (1.0 + r);
  auto exact_delta_of = [&](int64_t n, double eps) {
    auto direction = [&](double first_low, double first_high, double second_low, double second_high) {
      long double sum = 0.0L;
      for (int64_t k = 0; k <= n; ++k) {
        const double log_choose =
            std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(static_cast<double>(n - k) + 1.0);
        const double log_first = log_choose + k * std::log(first_high) + (n - k) * std::log(first_low);
        const double log_second = log_choose + k * std::log(second_high) + (n - k) * std::log(second_low);
        if (log_first > eps + log_second) sum += std::exp(log_first) * -std::expm1(eps + log_second - log_first);
      }
      return static_cast<double>(sum);
    };
    return std::max(direction(a_low, a_high, q_low, q_high), direction(q_low, q_high, a_low, a_high));
  };
  for (const int64_t n : {int64_t{2000}, int64_t{14063}}) {
    const PairBounds b = account_one(
        event("discrete_laplace", {{"scale", "3.983"}, {"sampling_rate", "0.002"}, {"count", std::to_string(n)}}));
    for (double eps : {0.01, 0.03, 0.1}) {
      const double exact = exact_delta_of(n, eps);
      INFO("n " << n);
      check_bracket(b, exact, eps);
    }
  }
  // epsilon at delta = 1e-3, n = 2,000: the exact value by bisection on the closed form.
  const PairBounds b =
      account_one(event("discrete_laplace", {{"scale", "3.983"}, {"sampling_rate", "0.002"}, {"count", "2000"}}));
  double low = 0.0, high = 1.0;
  for (int i = 0; i < 60; ++i) {
    const double middle = 0.5 * (low + high);
    (exact_delta_of(2000, middle) <= 1e-3 ? high : low) = middle;
  }
  INFO("exact epsilon " << high << ", bracket [" << b.epsilon_lower(1e-3) << ", " << b.epsilon_upper(1e-3) << "]");
  CHECK(b.epsilon_lower(1e-3) <= high);
  CHECK(b.epsilon_upper(1e-3) >= low);
  // The lower bound composes the releases' post-processing to two outcomes (two_outcome_bound.hpp), here the pair
  // itself: exact up to its padding. Merge-to-grid alone gives 0.0045066 (0.025707 by the per-query route) against the
  // exact 0.0297368: it merges a share of one atom into the other at every release (src/accounting/README.md, "Atoms of
  // loss"). The upper bound is connect-the-dots at loss step 1e-4: 0.0299164.
  CHECK(b.epsilon_lower(1e-3) >= high * (1.0 - 1e-6));
  for (double eps : {0.01, 0.03}) CHECK(b.delta_lower(eps) >= exact_delta_of(2000, eps) * (1.0 - 1e-6));
  CHECK(b.epsilon_upper(1e-3) <= high * (1.0 + 1e-2));
}
