// Which neighbour sequences a certificate covers (core/dominating_pair.hpp, NeighbourRelation), checked against
// exact worst cases by enumeration: every sequence of query differences d_1..d_n in {-k..-1, 1..k} on small
// asymmetric tables, each composed pair (prod p, prod p shifted by d_i) enumerated outcome by outcome.
//
// Invariants: for the any-sequence relation, lower <= the adaptive worst case <= upper, and the adaptive worst case is
// at least the worst fixed sequence; for same-direction, the same with constant-sign sequences. The adaptive worst
// cases are enumerated over the whole history tree (brute_force.hpp, brute_force_adaptive).
#include <catch2/catch.hpp>

#include <random>

#include "accounting/heterogeneous_composition.hpp"
#include "accounting/pair_accountant.hpp"
#include "brute_force.hpp"
#include "core/dominating_pair.hpp"
#include "core/errors.hpp"

using namespace noiselearn;

namespace {

PairBounds account_relation(const NoiseTable& table, double sensitivity, int64_t n, NeighbourRelation relation,
                            ShiftPolicy shifts = ShiftPolicy::kAuto) {
  PairSpecification specification;
  specification.sensitivity = sensitivity;
  specification.shifts = shifts;
  specification.neighbours = relation;
  return account(make_pair_family(table, specification), n, AccountantOptions{});
}

std::vector<double> random_table(std::mt19937_64& rng, size_t size) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> p(size);
  double total = 0.0;
  for (double& v : p) total += (v = 0.02 + u(rng));
  for (double& v : p) v /= total;
  return p;
}

}  // namespace

TEST_CASE("an asymmetric table, k = 1, one release up and one down, k = 1, one release up and one down",
          "[accountant][neighbours][brute-force]") {
  // The exact delta(1) of the sequence (+s, -s) is 0.383848 (6 x 6 product space), above 0.311100, the worst
  // same-direction value: a certificate of same-direction sequences alone would be too low.
  const std::vector<double> p{0.04, 0.10, 0.41, 0.28, 0.17};
  const NoiseTable table(Grid{-2.0, 1.0, 5}, p);
  double same = 0.0;
  const double exact = testing::brute_force_worst_sequence(p, 1, 2, 1.0, &same);
  CHECK(exact == Approx(0.383848).margin(5e-7));
  CHECK(same == Approx(0.311100).margin(5e-7));
  const PairBounds any = account_relation(table, 1.0, 2, NeighbourRelation::kAnySequence);
  // The any-sequence relation lets the adversary choose each difference from the outputs so far: its exact worst
  // case is 0.4020482 (brute_force_adaptive), above the best fixed sequence, and the certificate brackets that (the
  // exact adaptive programme, accounting/adaptive_composition.hpp).
  const double adaptive = testing::brute_force_adaptive(p, {-1, 1}, 2, 1.0);
  CHECK(adaptive == Approx(0.4020482).margin(5e-8));
  CHECK(any.delta_upper(1.0) >= adaptive);
  CHECK(any.delta_lower(1.0) <= adaptive);
  CHECK(any.delta_lower(1.0) >= exact);  // at least the best fixed sequence
  CHECK(any.delta_lower(1.0) == Approx(adaptive).epsilon(1e-4));
  AccountantOptions fine;
  fine.loss_step = 1e-6;
  PairSpecification specification;
  const PairBounds refined = account(make_pair_family(table, specification), 2, fine);
  CHECK(refined.delta_lower(1.0) == Approx(adaptive).epsilon(2e-6));
  CHECK(refined.delta_upper(1.0) >= adaptive);
  // eps(0.35): exact 1.180363 for the mixed sequence.
  CHECK(any.epsilon_upper(0.35) >= 1.180363 - 1e-6);
  const PairBounds narrow = account_relation(table, 1.0, 2, NeighbourRelation::kSameDirection);
  CHECK(narrow.delta_upper(1.0) >= same);
  CHECK(narrow.delta_lower(1.0) <= same + 1e-15);
  CHECK(narrow.delta_upper(1.0) < exact);  // the narrower relation really is narrower here
}

TEST_CASE("any-sequence certificates hold for every adaptive sign and shift sequence (random tables, k = 1..3)",
          "[accountant][neighbours][brute-force]") {
  std::mt19937_64 rng(7);
  struct Case {
    int k, n;
    size_t size;
  };
  // Product spaces stay below ~2e4 outcomes and (2k)^n sequences below ~1300.
  for (const Case c : {Case{1, 1, 5}, Case{1, 2, 6}, Case{1, 3, 5}, Case{1, 4, 5}, Case{2, 2, 5}, Case{2, 3, 4},
                       Case{3, 2, 5}, Case{3, 3, 4}}) {
    for (int trial = 0; trial < 2; ++trial) {
      const std::vector<double> p = random_table(rng, c.size);
      const NoiseTable table(Grid{0.0, 1.0, static_cast<int64_t>(c.size)}, p);
      const PairBounds any = account_relation(table, static_cast<double>(c.k), c.n, NeighbourRelation::kAnySequence);
      const PairBounds same = account_relation(table, static_cast<double>(c.k), c.n, NeighbourRelation::kSameDirection);
      std::vector<int> differences;
      for (int j = -c.k; j <= c.k; ++j)
        if (j != 0) differences.push_back(j);
      for (double eps : {0.0, 0.3, 1.0, 2.5}) {
        double exact_same = 0.0;
        const double exact_any = testing::brute_force_worst_sequence(p, c.k, c.n, eps, &exact_same);
        INFO("k " << c.k << " n " << c.n << " trial " << trial << " eps " << eps << " exact " << exact_any << " same "
                  << exact_same);
        // The any-sequence certificate covers adaptively chosen sequences: its bracket holds the adaptive worst
        // case, which is at least the worst fixed sequence.
        const double exact_adaptive = testing::brute_force_adaptive(p, differences, c.n, eps);
        CHECK(exact_adaptive >= exact_any - 1e-13);
        CHECK(any.delta_lower(eps) <= exact_adaptive + 1e-13);
        CHECK(any.delta_upper(eps) >= exact_adaptive - 1e-13);
        // Same direction: all releases up (or all down), each magnitude chosen adaptively.
        std::vector<int> up, down;
        for (int d : differences) (d > 0 ? up : down).push_back(d);
        const double adaptive_same =
            std::max(testing::brute_force_adaptive(p, up, c.n, eps), testing::brute_force_adaptive(p, down, c.n, eps));
        CHECK(adaptive_same >= exact_same - 1e-13);
        CHECK(same.delta_lower(eps) <= adaptive_same + 1e-13);
        CHECK(same.delta_upper(eps) >= adaptive_same - 1e-13);
      }
    }
  }
}

TEST_CASE("heterogeneous parts with k = 1 and opposite signs (brute force)", "[accountant][neighbours][brute-force]") {
  // Two different asymmetric tables, released n1 = 2 and n2 = 1 times; every release may move up or down.
  std::mt19937_64 rng(11);
  const std::vector<double> p1 = random_table(rng, 5), p2 = random_table(rng, 6);
  const NoiseTable t1(Grid{0.0, 1.0, 5}, p1), t2(Grid{0.0, 1.0, 6}, p2);
  PairSpecification specification;
  const PairBounds bounds =
      account_heterogeneous({{make_pair_family(t1, specification), 2}, {make_pair_family(t2, specification), 1}}, {});
  for (double eps : {0.0, 0.5, 1.0, 2.0}) {
    double worst = 0.0;
    for (int d1 : {-1, 1})
      for (int d2 : {-1, 1})
        for (int d3 : {-1, 1}) {
          auto [a1, b1] = testing::shifted_release(p1, d1, 1);
          auto [a2, b2] = testing::shifted_release(p1, d2, 1);
          auto [a3, b3] = testing::shifted_release(p2, d3, 1);
          worst = std::max(worst, testing::brute_force_delta_mixed({a1, a2, a3}, {b1, b2, b3}, eps));
        }
    INFO("eps " << eps << " exact " << worst);
    CHECK(bounds.delta_upper(eps) >= worst - 1e-13);
    CHECK(bounds.delta_lower(eps) <= worst + 1e-13);
  }
}

TEST_CASE("subsampled mixture of an asymmetric table: both signs of the clipped contribution",
          "[accountant][neighbours][mixture]") {
  // Remove/add the same record in every release, its contribution +C or -C per release, the sign chosen adaptively:
  // the exact adaptive worst case of n = 2 (for each fixed direction) must lie inside the bracket, and it is at
  // least the worst of the four fixed sequences.
  const std::vector<double> p{0.05, 0.3, 0.4, 0.1, 0.15};
  const NoiseTable table(Grid{-2.0, 1.0, 5}, p);
  PairSpecification mixture;
  mixture.kind = PairKind::kSubsampledMixture;
  mixture.sampling_rate = 0.4;
  const PairBounds bounds = account(make_pair_family(table, mixture), 2, {});
  auto release = [&](int j) {  // A = p, B = 0.6 p + 0.4 p shifted by j, common grid of 7 cells
    auto [a, shifted] = testing::shifted_release(p, j, 1);
    std::vector<double> b(a.size());
    for (size_t i = 0; i < b.size(); ++i) b[i] = 0.6 * a[i] + 0.4 * shifted[i];
    return std::pair{a, b};
  };
  for (double eps : {0.0, 0.2, 0.6}) {
    double worst = 0.0;
    for (int d1 : {-1, 1})
      for (int d2 : {-1, 1}) {
        auto [a1, b1] = release(d1);
        auto [a2, b2] = release(d2);
        worst = std::max({worst, testing::brute_force_delta_mixed({a1, a2}, {b1, b2}, eps),
                          testing::brute_force_delta_mixed({b1, b2}, {a1, a2}, eps)});
      }
    auto [a_up, b_up] = release(1);
    auto [a_down, b_down] = release(-1);
    const double adaptive =
        std::max(testing::brute_force_adaptive_pairs({std::pair{a_up, b_up}, std::pair{a_down, b_down}}, 2, eps),
                 testing::brute_force_adaptive_pairs({std::pair{b_up, a_up}, std::pair{b_down, a_down}}, 2, eps));
    INFO("eps " << eps << " fixed " << worst << " adaptive " << adaptive);
    CHECK(adaptive >= worst - 1e-13);
    CHECK(bounds.delta_upper(eps) >= adaptive - 1e-13);
    CHECK(bounds.delta_lower(eps) <= adaptive + 1e-13);
    CHECK(bounds.delta_upper(eps) - bounds.delta_lower(eps) <= 1e-3 * adaptive);
  }
}

TEST_CASE("a sensitivity as wide as the table is refused", "[accountant][neighbours]") {
  const NoiseTable table(Grid{0.0, 1.0, 5}, {0.2, 0.2, 0.2, 0.2, 0.2});
  PairSpecification specification;
  specification.sensitivity = 5.0;
  CHECK_THROWS_AS(make_pair_family(table, specification), InputError);
  specification.sensitivity = 4.0;
  CHECK_NOTHROW(make_pair_family(table, specification));
}
