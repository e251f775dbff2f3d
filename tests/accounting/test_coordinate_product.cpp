// The d-fold product pair (accounting/coordinate_product.hpp): a mechanism on each of d coordinates, neighbours
// differing by at most the sensitivity in each, sampled and composed, checked against what it means computed another
// way:
// - the direct d-dimensional computation: the product distributions written out over every d-tuple of outcomes, mixed
//   by the sampling, and their n-fold hockey-stick divergence enumerated (tests/accounting/brute_force.hpp);
// - the Gaussian: d coordinates of noise multiplier m are the Gaussian of multiplier m / sqrt(d) (an L-infinity ball of
//   radius 1 has L2 radius sqrt(d), reached at a corner), against Balle and Wang's closed form, and sampled against the
//   one-coordinate accountant at m / sqrt(d);
// - the table mechanism against the discrete Laplace it tabulates;
// - bad input.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <tuple>
#include <vector>

#include "accounting/continuous_mechanisms.hpp"
#include "accounting/release_events.hpp"
#include "brute_force.hpp"
#include "computed_product_only.hpp"
#include "core/errors.hpp"
#include "core/noise_table.hpp"
#include "event_helpers.hpp"

using namespace noiselearn;
using noiselearn::testing::brute_force_delta;
using namespace noiselearn::testing;

namespace {

// The distribution of d independent coordinates, each distributed as `one`, over every d-tuple.
std::vector<double> product(const std::vector<double>& one, int d) {
  std::vector<double> out{1.0};
  for (int i = 0; i < d; ++i) {
    std::vector<double> next;
    next.reserve(out.size() * one.size());
    for (double a : out)
      for (double b : one) next.push_back(a * b);
    out = std::move(next);
  }
  return out;
}

PairBounds computed_product(double m, const Sampling& sampling, int64_t d) {
  auto gaussian = mechanism_kind("gaussian").make({{"noise_multiplier", m}}, {});
  return sampled_release_bounds(std::make_shared<ComputedProductOnly>(std::move(gaussian)), sampling,
                                RecordRelation::kAddOrRemove, AccountantOptions{}, d);
}

}  // namespace

TEST_CASE(
    "coordinate product: d = 2 and 3 coordinates, unsampled, Poisson and without replacement, n <= 2, bracket "
    "the direct d-dimensional enumeration",
    "[accountant][events][product][brute-force]") {
  struct Case {
    std::string mechanism;
    EventFields fields;
    std::vector<double> q_pmf, p_pmf;  // one coordinate, supports wide enough that what is left out is below 1e-17
  };
  const std::vector<Case> cases{
      {"discrete_gaussian", {{"sigma", "0.6"}}, discrete_gaussian(0.6, 0, -8, 9), discrete_gaussian(0.6, 1, -8, 9)},
      {"discrete_laplace",
       {{"scale", "1"}, {"sensitivity", "2"}},
       discrete_laplace(1.0, 0, -40, 42),
       discrete_laplace(1.0, 2, -40, 42)},
  };
  for (const auto& c : cases)
    for (int d : {2, 3}) {
      const std::vector<double> qd = product(c.q_pmf, d), pd = product(c.p_pmf, d);
      for (int n : {1, 2}) {
        if (static_cast<double>(qd.size()) * static_cast<double>(n == 2 ? qd.size() : 1) > 5e7) continue;
        INFO(c.mechanism << ", d " << d << ", n " << n);
        EventFields plain = c.fields;
        plain.push_back({"coordinates", std::to_string(d)});
        plain.push_back({"count", std::to_string(n)});
        const PairBounds none = account_one(event(c.mechanism, plain));
        EventFields poisson = plain;
        poisson.push_back({"sampling_rate", "0.3"});
        const PairBounds sampled = account_one(event(c.mechanism, poisson));
        EventFields wor = plain;
        wor.push_back({"batch_size", "3"});
        wor.push_back({"dataset_size", "10"});
        const PairBounds without = account_one(event(c.mechanism, wor), RecordRelation::kReplaceOne);
        const auto a = mix(qd, pd, 0.3);
        for (double eps : {0.0, 0.5, 1.5}) {
          const double plain_exact = brute_force_delta(pd, qd, n, eps);
          check_bracket(none, plain_exact, eps);
          CHECK(none.delta_lower(eps) >= 0.99 * plain_exact);  // tight, not only valid
          const double remove = brute_force_delta(a, qd, n, eps), add = brute_force_delta(qd, a, n, eps);
          check_bracket(sampled, std::max(remove, add), eps);
          CHECK(sampled.delta_lower(eps) >= 0.99 * std::max(remove, add));
          CHECK(without.delta_upper(eps) >= std::max(remove, add) * (1.0 - 1e-12) - 1e-13);
          CHECK(without.delta_lower(eps) <= std::max(remove, add) * (1.0 + 1e-12) + 1e-13);
        }
      }
    }
}

TEST_CASE(
    "coordinate product: d Gaussian coordinates of multiplier m are the Gaussian of multiplier m / sqrt(d), in "
    "closed form and through the computed product",
    "[accountant][events][product][closed-form]") {
  // The closed form the gaussian kind uses for its product, against Balle and Wang at sensitivity sqrt(d).
  for (const auto& [m, d, n] : std::vector<std::tuple<double, int64_t, int64_t>>{{3.0, 4, 1}, {30.0, 1000, 100}}) {
    INFO("closed form: m " << m << ", d " << d << ", n " << n);
    const PairBounds b = account_one(event(
        "gaussian",
        {{"noise_multiplier", std::to_string(m)}, {"coordinates", std::to_string(d)}, {"count", std::to_string(n)}}));
    for (double eps : {0.2, 1.0, 3.0}) {
      const double exact = gaussian_mechanism_delta(m, std::sqrt(static_cast<double>(d)), n, eps);
      if (exact < 1e-12) continue;
      check_bracket(b, exact, eps);
      CHECK(b.delta_upper(eps) - b.delta_lower(eps) <= 1e-6 * exact);
    }
  }
  // The computed product (coordinate_product.hpp) of the Gaussian's law, as for a mechanism without a closed form.
  AccountantOptions options;
  for (const auto& [m, d, n] :
       std::vector<std::tuple<double, int64_t, int64_t>>{{3.0, 4, 1}, {20.0, 400, 10}, {30.0, 1000, 100}}) {
    INFO("computed: m " << m << ", d " << d << ", n " << n);
    const PairBounds b = compose_bounds(computed_product(m, {}, d), n, options);
    for (double eps : {0.2, 1.0, 3.0}) {
      const double exact = gaussian_mechanism_delta(m, std::sqrt(static_cast<double>(d)), n, eps);
      if (exact < 1e-12) continue;
      check_bracket(b, exact, eps);
      CHECK(b.delta_upper(eps) - b.delta_lower(eps) <= 2e-3 * exact);
    }
  }
  // Sampled: the computed product's bracket and the one-coordinate accountant's at m / sqrt(d) both hold the exact
  // value, so they overlap; and the product's is narrow.
  const double m = 40.0, q = 0.01;
  const int64_t d = 1000, n = 1000;
  Sampling poisson;
  poisson.kind = SamplingKind::kPoisson;
  poisson.rate = q;
  const PairBounds prod = compose_bounds(computed_product(m, poisson, d), n, options);
  const PairBounds one =
      account_one(event("gaussian", {{"noise_multiplier", fmt::format("{:.17g}", m / std::sqrt(1000.0))},
                                     {"sampling_rate", std::to_string(q)},
                                     {"count", std::to_string(n)}}));
  for (double eps : {0.05, 0.2, 0.5, 1.0}) {
    INFO("eps " << eps << ": product [" << prod.delta_lower(eps) << ", " << prod.delta_upper(eps)
                << "], one coordinate [" << one.delta_lower(eps) << ", " << one.delta_upper(eps) << "]");
    CHECK(prod.delta_lower(eps) <= one.delta_upper(eps));
    CHECK(one.delta_lower(eps) <= prod.delta_upper(eps));
    CHECK(prod.delta_upper(eps) - prod.delta_lower(eps) <= 1e-2 * one.delta_upper(eps));
  }
}

TEST_CASE("coordinate product: the table mechanism is the mechanism it tabulates, alone and on d coordinates",
          "[accountant][events][product][table]") {
  // The discrete Laplace of scale 1.5 on [-70, 70] (what is left out: 2e-21), as a table with step 1.
  const std::vector<double> p = discrete_laplace(1.5, 0, -70, 70);
  double sum = 0.0;
  for (double v : p) sum += v;
  std::vector<double> normalised = p;
  for (double& v : normalised) v /= sum;
  const auto table = std::make_shared<const NoiseTable>(Grid{-70.0, 1.0, 141}, normalised);
  const TableReader read = [&](const std::string&) { return table; };
  for (int64_t d : {1, 3})
    for (const char* rate : {"1", "0.2"}) {
      INFO("d " << d << ", rate " << rate);
      const EventFields common{{"coordinates", std::to_string(d)}, {"count", "20"}, {"sampling_rate", rate}};
      EventFields t = common, l = common;
      t.push_back({"table", "laplace.csv"});
      t.push_back({"sensitivity", "2"});
      l.push_back({"scale", "1.5"});
      l.push_back({"sensitivity", "2"});
      const PairBounds tab = account_one(event("table", t, read)), lap = account_one(event("discrete_laplace", l));
      for (double eps : {0.5, 1.0, 2.0}) {
        INFO("eps " << eps << ": table [" << tab.delta_lower(eps) << ", " << tab.delta_upper(eps)
                    << "], discrete Laplace [" << lap.delta_lower(eps) << ", " << lap.delta_upper(eps) << "]");
        CHECK(tab.delta_lower(eps) <= lap.delta_upper(eps) * (1 + 1e-9) + 1e-15);
        CHECK(lap.delta_lower(eps) <= tab.delta_upper(eps) * (1 + 1e-9) + 1e-15);
      }
    }
}

TEST_CASE("a table event reports its distinguishing events: the outputs one input cannot produce",
          "[accountant][events][table]") {
  // Uniform on {-1, 0, 1}, sensitivity 1: P = uniform on {0, 1, 2}. Unsampled, P puts 1/3 where Q is 0 (and Q puts
  // 1/3 where P is 0): omega = 1/3 a release, 1 - (2/3)^2 = 5/9 after two. Poisson at rate 1/2: remove, A = (Q + P)/2
  // puts 1/6 on x = 2 where Q is 0; add, Q puts nothing where A is 0. The certificate prints these (it printed 0).
  const auto table =
      std::make_shared<const NoiseTable>(Grid{-1.0, 1.0, 3}, std::vector<double>{1.0 / 3, 1.0 / 3, 1.0 / 3});
  const TableReader read = [&](const std::string&) { return table; };
  const PairBounds alone =
      account_one(event("table", {{"table", "u.csv"}, {"sensitivity", "1"}, {"count", "2"}}, read));
  CHECK(alone.single_release_infinity_mass.first == Approx(1.0 / 3).epsilon(1e-12));
  CHECK(alone.composed_infinity_mass.first == Approx(5.0 / 9).epsilon(1e-12));
  CHECK(alone.delta_lower(1.0) >= 5.0 / 9 * (1 - 1e-12));  // the floor it reports is a floor of delta
  CHECK(std::isinf(alone.epsilon_upper(0.5)));
  const PairBounds sampled = account_one(
      event("table", {{"table", "u.csv"}, {"sensitivity", "1"}, {"count", "2"}, {"sampling_rate", "0.5"}}, read));
  CHECK(sampled.single_release_infinity_mass.first == Approx(1.0 / 6).epsilon(1e-12));
  CHECK(sampled.single_release_infinity_mass.second == 0.0);
  CHECK(sampled.composed_infinity_mass.first == Approx(1.0 - 25.0 / 36).epsilon(1e-12));
}

TEST_CASE("coordinate product: bad input is one InputError naming the culprit",
          "[accountant][events][product][input]") {
  auto message = [](const EventFields& f, const TableReader& read = {}) {
    try {
      event("gaussian", f, read);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(message({{"noise_multiplier", "1"}, {"coordinates", "0"}}), Catch::Contains("coordinates"));
  CHECK_THAT(message({{"noise_multiplier", "1"}, {"coordinates", "2.5"}}), Catch::Contains("coordinates"));
  CHECK_THAT(message({{"noise_multiplier", "1"}, {"coordinates", "many"}}), Catch::Contains("coordinates"));
  // A table that is not symmetric and monotone has no single worst shift.
  const auto skewed = std::make_shared<const NoiseTable>(Grid{0.0, 1.0, 4}, std::vector<double>{0.1, 0.2, 0.3, 0.4});
  const TableReader read = [&](const std::string&) { return skewed; };
  try {
    ReleaseDescription d;
    d.events.push_back(
        parse_release_event({{"mechanism", "table"}, {"table", "skewed.csv"}, {"sensitivity", "1"}}, "e", read));
    account_events(d, {});
    FAIL("accepted a skewed table");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("not mirror-symmetric and monotone"));
  }
  // No reader (a library caller that did not pass one), no table: one line each.
  try {
    parse_release_event({{"mechanism", "table"}, {"table", "t.csv"}, {"sensitivity", "1"}}, "e");
    FAIL("read a table without a reader");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("table"));
  }
  try {
    parse_release_event({{"mechanism", "table"}, {"sensitivity", "1"}}, "e", read);
    FAIL("accepted a table event without a table");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("needs table"));
  }
}

TEST_CASE(
    "coordinate product: masses that underflow at losses of a thousand nats are left out of the lower bound, "
    "never called infinite",
    "[accountant][events][product][extreme]") {
  // The Laplace of noise multiplier 0.001: per coordinate the loss is +-1000 nats, where e^{-1000} underflows to 0.
  // Taken as infinite losses, those outcomes would put the lower bound above the upper bound.
  AccountantOptions coarse;
  coarse.loss_step = 0.01;
  const PairBounds b = account_one(event("laplace", {{"noise_multiplier", "0.001"}, {"coordinates", "2"}}),
                                   RecordRelation::kAddOrRemove, coarse);
  for (double delta : {1e-5, 0.1}) {
    INFO("delta " << delta << ": [" << b.epsilon_lower(delta) << ", " << b.epsilon_upper(delta) << "]");
    CHECK(b.epsilon_lower(delta) <= b.epsilon_upper(delta));
    CHECK(b.epsilon_upper(delta) <= 2000.0 * (1 + 1e-3));  // two coordinates of at most 1000 nats each
  }
  for (double eps : {1.0, 1000.0, 1999.0}) CHECK(b.delta_lower(eps) <= b.delta_upper(eps));
}
