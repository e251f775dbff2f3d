// Hybrid Renyi DP (Xiao et al., Def. 7, Thm 2): partial moments and degenerate masses against enumeration, the two
// neighbour readings, and soundness against the certified accountant (HRDP's epsilon is never below the exact
// epsilon's certified lower bound).
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "accounting/hybrid_renyi.hpp"
#include "accounting/pair_accountant.hpp"
#include "core/dominating_pair.hpp"
#include "core/errors.hpp"
#include "core/one_sided_baselines.hpp"

using namespace noiselearn;

TEST_CASE("HRDP partial moments and degenerate masses equal a direct enumeration (shift 1 and 2)", "[hrdp]") {
  const std::vector<double> p = {0.05, 0.2, 0.3, 0.25, 0.15, 0.05};
  const NoiseTable table(Grid::spanning(0.0, 5.0, 1.0), p);
  for (int64_t shift : {1, 2}) {
    for (double alpha : {1.5, 4.0, 11.0}) {
      double up = 0.0, down = 0.0;
      for (int64_t x = shift; x < 6; ++x) {
        up += std::pow(p[x], alpha) * std::pow(p[x - shift], 1.0 - alpha);
        down += std::pow(p[x - shift], alpha) * std::pow(p[x], 1.0 - alpha);
      }
      INFO("shift " << shift << ", alpha " << alpha);
      const HybridRenyiDirection u = hybrid_renyi_direction(table, shift, alpha, true);
      const HybridRenyiDirection d = hybrid_renyi_direction(table, shift, alpha, false);
      CHECK(u.log_partial_moment == Approx(std::log(up)).epsilon(1e-13));
      CHECK(d.log_partial_moment == Approx(std::log(down)).epsilon(1e-13));
      double low = 0.0, high = 0.0;
      for (int64_t x = 0; x < shift; ++x) low += p[x], high += p[5 - x];
      CHECK(u.degenerate_mass == Approx(low).epsilon(1e-15));
      CHECK(d.degenerate_mass == Approx(high).epsilon(1e-15));
      // eq. 24 by hand, both readings.
      const int64_t t = 3;
      const double delta = 0.9;
      const double same = std::max((t * std::log(up) - std::log(delta - t * low)) / (alpha - 1.0),
                                   (t * std::log(down) - std::log(delta - t * high)) / (alpha - 1.0));
      const double any = (t * std::log(std::max(up, down)) - std::log(delta - t * std::max(low, high))) / (alpha - 1.0);
      CHECK(hybrid_renyi_epsilon_at(table, shift, t, delta, alpha, NeighbourRelation::kSameDirection) ==
            Approx(same).epsilon(1e-12));
      CHECK(hybrid_renyi_epsilon_at(table, shift, t, delta, alpha, NeighbourRelation::kAnySequence) ==
            Approx(any).epsilon(1e-12));
      CHECK(any >= same - 1e-12);
      CHECK(hybrid_renyi_epsilon(table, shift, t, delta, {alpha}).epsilon == Approx(any).epsilon(1e-12));
    }
  }
  // Too much degenerate mass for the budget: infinite.
  CHECK(std::isinf(hybrid_renyi_epsilon_at(table, 1, 20, 0.9, 2.0)));
  CHECK_THROWS_AS(hybrid_renyi_epsilon_at(table, 1, 3, 0.5, 1.0), InputError);
}

TEST_CASE("HRDP is sound: never below the certified lower bound of the exact epsilon (discrete TBL, Thm 1 optimum)",
          "[hrdp]") {
  AccountantOptions options;
  PairSpecification pair;
  pair.sensitivity = 1.0;
  const NoiseTable tbl = discrete_tbl_table(60, 30.0, 4.0);
  const NoiseTable optimum = single_release_optimum(0.5, 1e-5).table();
  for (const NoiseTable* table : {&tbl, &optimum}) {
    for (int64_t t : {1, 10, 50}) {
      const double delta = 1e-3;
      const PairBounds bounds = account(make_pair_family(*table, pair), t, options);
      const HybridRenyiEpsilon hrdp = hybrid_renyi_epsilon(*table, 1, t, delta, paper_integer_alphas());
      INFO("table of " << table->size() << " points, T = " << t << ": HRDP " << hrdp.epsilon << " at alpha "
                       << hrdp.alpha << ", certified [" << bounds.epsilon_lower(delta) << ", "
                       << bounds.epsilon_upper(delta) << "]");
      CHECK(hrdp.epsilon >= bounds.epsilon_lower(delta));
    }
  }
}

TEST_CASE("HRDP from the pair family equals HRDP from the table (additive shift, any direction)", "[hrdp]") {
  const NoiseTable table = discrete_tbl_table(40, 17.0, 3.0);  // off-centre: the two directions differ
  PairSpecification pair;
  pair.sensitivity = 1.0;
  const PairFamily family = make_pair_family(table, pair);
  for (int64_t t : {1, 25}) {
    const HybridRenyiEpsilon a = hybrid_renyi_epsilon(table, 1, t, 1e-2, paper_integer_alphas());
    const HybridRenyiEpsilon b = hybrid_renyi_epsilon(family.pairs, t, 1e-2, paper_integer_alphas());
    INFO("T = " << t);
    CHECK(b.epsilon == Approx(a.epsilon).epsilon(1e-12));
    CHECK(b.alpha == a.alpha);
  }
}
