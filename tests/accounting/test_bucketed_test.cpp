// The threshold test on bucket labels (accounting/bucketed_test.hpp), a lower bound second order in the loss step:
// - below the exact delta of the n-fold product pairs by enumeration (discrete Laplace and discrete Gaussian,
//   unsampled and Poisson-sampled, both directions, n <= 3), and at or above merge-to-grid's bound there;
// - below the n-fold Gaussian's closed form (Balle and Wang) and within 1e-4 of it at the default step;
// - issue 52's Poisson-sampled Laplace (scale 2, q = 0.01, 1,000 steps, delta 1e-6): its lower end within 1e-4 of the
//   truth, which lies in [0.6138530, 0.6138534] (an independent bound the issue reports; ours, the upper end,
//   0.613854);
// - the refinement makes it only where a query's bracket is wide, and the certificate names it where it wins.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <vector>

#include "accounting/bucketed_test.hpp"
#include "accounting/certificate.hpp"
#include "accounting/closed_forms.hpp"
#include "accounting/pair_accountant.hpp"
#include "accounting/refinement.hpp"
#include "accounting/release_events.hpp"
#include "brute_force.hpp"
#include "event_helpers.hpp"

using namespace noiselearn;
using namespace noiselearn::testing;

namespace {

// The directions' bucketed tests of n releases of the event, composed.
std::vector<BucketedTest> composed_tests(const ReleaseEvent& e, int64_t n, double tilted_for = 0.0) {
  const PairBounds single = event_release_bounds(e, RecordRelation::kAddOrRemove, AccountantOptions{});
  std::vector<BucketedTest> out;
  for (const auto& t : single.alternatives.bucketed) {
    auto composed = composed_bucketed_test(t, n, AccountantOptions{}, tilted_for);
    REQUIRE(composed);
    out.push_back(std::move(*composed));
  }
  return out;
}

}  // namespace

TEST_CASE("bucketed test: below the enumerated delta of discrete mechanisms, sampled or not, both directions",
          "[accountant][bucketed][brute-force]") {
  const int lo = -60, hi = 62;
  struct Case {
    std::string mechanism;
    EventFields fields;
    std::vector<double> q_pmf, p_pmf;
  };
  const std::vector<Case> cases{
      {"discrete_laplace",
       {{"scale", "1.5"}, {"sensitivity", "2"}},
       discrete_laplace(1.5, 0, lo, hi),
       discrete_laplace(1.5, 2, lo, hi)},
      {"discrete_gaussian", {{"sigma", "1.3"}}, discrete_gaussian(1.3, 0, lo, hi), discrete_gaussian(1.3, 1, lo, hi)}};
  for (const auto& c : cases)
    for (int n : {1, 2, 3}) {
      INFO(c.mechanism << ", n " << n);
      const std::vector<BucketedTest> plain = composed_tests(event(c.mechanism, c.fields), n);
      EventFields poisson = c.fields;
      poisson.push_back({"sampling_rate", "0.3"});
      const std::vector<BucketedTest> sampled = composed_tests(event(c.mechanism, poisson), n);
      REQUIRE(plain.size() == 1);    // mirror-symmetric noise: P||Q = Q||P
      REQUIRE(sampled.size() == 2);  // remove A||Q, add Q||A
      const auto a = mix(c.q_pmf, c.p_pmf, 0.3);
      for (double eps : {0.0, 0.3, 1.0, 2.0}) {
        INFO("eps " << eps);
        const double exact_plain = brute_force_delta(c.p_pmf, c.q_pmf, n, eps);
        const double remove = brute_force_delta(a, c.q_pmf, n, eps), add = brute_force_delta(c.q_pmf, a, n, eps);
        CHECK(plain[0].delta_lower(eps) <= exact_plain);
        CHECK(sampled[0].delta_lower(eps) <= remove);
        CHECK(sampled[1].delta_lower(eps) <= add);
        // Discrete losses lie on few points: the labels' test is close to the exact one.
        CHECK(plain[0].delta_lower(eps) >= exact_plain - 2e-3);
        CHECK(sampled[0].delta_lower(eps) >= remove - 2e-3);
      }
    }
}

TEST_CASE("bucketed test: below the n-fold Gaussian's closed form and within 1e-4 of it", "[accountant][bucketed]") {
  for (double m : {2.0, 5.0})
    for (int64_t n : {10, 100}) {
      const std::vector<BucketedTest> tests =
          composed_tests(event("gaussian", {{"noise_multiplier", std::to_string(m)}}), n);
      REQUIRE(tests.size() == 1);
      const double mu = std::sqrt(static_cast<double>(n)) / m;
      const ClosedFormBounds exact = gaussian_closed_form(GaussianMu{mu, mu});
      for (double eps : {0.5, 2.0, 5.0}) {
        const double truth = exact.delta_lower(eps);
        if (truth < 1e-12) continue;
        INFO("m " << m << ", n " << n << ", eps " << eps << ": bucketed " << tests[0].delta_lower(eps) << ", exact "
                  << truth);
        CHECK(tests[0].delta_lower(eps) <= exact.delta_upper(eps));
        CHECK(tests[0].delta_lower(eps) >= truth * (1.0 - 1e-4) - 1e-12);
      }
    }
}

TEST_CASE(
    "bucketed test: the Poisson-sampled Laplace's lower end within 1e-4 of the truth, where merge-to-grid's was "
    "5e-3 below",
    "[accountant][bucketed]") {
  ReleaseDescription d;
  d.events.push_back(event("laplace", {{"noise_multiplier", "2"}, {"sampling_rate", "0.01"}, {"count", "1000"}}));
  const AccountingQueries queries{{}, {1e-6}};
  const PairBounds composed = account_events(d, AccountantOptions{}, queries);
  const PairBounds refined = with_bucketed_tests(refined_for_delta(composed, 1e-6), queries);
  REQUIRE_FALSE(refined.alternatives.bucketed.empty());
  const double low = refined.epsilon_lower(1e-6), high = refined.epsilon_upper(1e-6);
  INFO("[" << low << ", " << high << "], before " << composed.epsilon_lower(1e-6));
  // The truth lies in [0.6138530, 0.6138534] (issue 52, rounded to 7 digits): a rigorous bracket meets that interval
  // (its lower end at most 0.6138534, its upper at least 0.6138530), and its lower end is within 1e-4 of it.
  CHECK(low <= 0.6138534);
  CHECK(high >= 0.6138530);
  CHECK(high >= low);
  CHECK(low >= 0.6138530 * (1.0 - 1e-4));
  // The certificate names the method of the lower end.
  const Certificate c = make_certificate(composed, CertificateRequest{1000, {}, {1e-6}}, AccountantOptions{});
  CHECK(c.epsilons.front().lower_method == "threshold test on bucket labels");
  CHECK(c.epsilons.front().epsilon_lower == Approx(low).epsilon(1e-12));
}

TEST_CASE("bucketed test: made only where a query's bracket is wide", "[accountant][bucketed]") {
  // Abadi et al.'s MNIST setting: the bracket is 3e-5 wide without it.
  ReleaseDescription d;
  d.events.push_back(
      event("gaussian", {{"noise_multiplier", "1.1"}, {"sampling_rate", "0.0042666667"}, {"count", "14063"}}));
  const AccountingQueries queries{{}, {1e-5}};
  const PairBounds mnist =
      with_bucketed_tests(refined_for_delta(account_events(d, AccountantOptions{}, queries), 1e-5), queries);
  CHECK(mnist.alternatives.bucketed.empty());
}

TEST_CASE("bucketed test: an infinite epsilon (distinguishing events above delta) is answered, not tested",
          "[accountant][bucketed][errors]") {
  // The table {-1, 0, 1} with masses (1/4, 1/2, 1/4) and sensitivity 1: one release's outcome -1 (or 1) only one
  // input produces, with probability 1/4, so eps(delta) is infinite for every delta < 1/4. Its bracket's lower end is
  // infinite before the bucketed test is asked, which thresholds at eps / h could not index (this crashed the
  // certificate, a segmentation fault, before).
  const auto table = std::make_shared<const NoiseTable>(Grid{-1.0, 1.0, 3}, std::vector<double>{0.25, 0.5, 0.25});
  const TableReader read = [&](const std::string&) { return table; };
  ReleaseDescription d;
  d.events.push_back(event("table", {{"table", "t.csv"}, {"sensitivity", "1"}}, read));
  const AccountingQueries queries{{}, {0.1}};
  const Certificate c =
      make_certificate(account_events(d, AccountantOptions{}, queries), CertificateRequest{1, {}, {0.1}, 0}, {});
  CHECK(std::isinf(c.epsilons.front().epsilon_lower));
  CHECK(std::isinf(c.epsilons.front().epsilon_upper));
  // Each test alone: nothing to test at an infinite epsilon, and an infinite lower end kept.
  const PairBounds single = event_release_bounds(d.events.front(), RecordRelation::kAddOrRemove, AccountantOptions{});
  REQUIRE_FALSE(single.alternatives.bucketed.empty());
  for (BucketedTest t : single.alternatives.bucketed) {
    t.prepare_tails();
    CHECK(t.delta_lower(INFINITY) == 0.0);
    CHECK(std::isinf(t.epsilon_lower(0.1, INFINITY)));
    CHECK(t.delta_lower(1e300) == 0.0);
  }
}
