// PB-GRR (Jiang et al., Prop. 7, Remark 5): the vector, the two ends of the budget split, rows that sum to
// 1, and the pure eps-LDP guarantee checked by enumerating every pair of inputs and every output.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "core/errors.hpp"
#include "core/privacy_boosting_grr.hpp"

using namespace noiselearn;

TEST_CASE("PB-GRR at |X| = 91, |S| = 10, eps = 5, eps0 = 2 gives the issue's probabilities", "[privacy-boosting]") {
  const PbGrrProbabilities r = pb_grr_probabilities(91, 10, 5.0, 2.0);
  CHECK(r.p == Approx(0.361822).margin(5e-7));
  CHECK(r.p_s == Approx(0.048967).margin(5e-7));
  CHECK(r.p_sbar == Approx(0.002438).margin(5e-7));
  CHECK(r.rho == Approx(0.802527).margin(5e-7));
  CHECK(r.p + 9 * r.p_s + 81 * r.p_sbar == Approx(1.0).epsilon(1e-14));
}

TEST_CASE("PB-GRR with eps0 = eps is plain GRR, with eps0 = 0 it spends everything on the region",
          "[privacy-boosting]") {
  const double e = std::exp(3.0);
  const PbGrrProbabilities grr = pb_grr_probabilities(20, 4, 3.0, 3.0);
  CHECK(grr.p == Approx(e / (e + 19.0)).epsilon(1e-14));
  CHECK(grr.p_sbar == Approx(1.0 / (e + 19.0)).epsilon(1e-14));
  const PbGrrProbabilities all = pb_grr_probabilities(20, 4, 3.0, 0.0);
  CHECK(all.p == Approx(e / (4.0 * e + 16.0)).epsilon(1e-14));
  CHECK(all.p_s == all.p);
}

TEST_CASE("PB-GRR is exactly eps-LDP for categories and for rotating windows (enumeration)", "[privacy-boosting]") {
  for (double eps0 : {0.0, 1.0, 2.0, 5.0}) {
    INFO("eps0 " << eps0);
    for (const auto& regions : {category_regions(90, 10), window_regions(91, 10), window_regions(91, 5)}) {
      const auto matrix = pb_grr_matrix(regions, 5.0, eps0);
      for (const auto& row : matrix) CHECK(std::accumulate(row.begin(), row.end(), 0.0) == Approx(1.0).epsilon(1e-13));
      CHECK(exact_local_epsilon(matrix) == Approx(5.0).epsilon(1e-12));
    }
  }
  CHECK_THROWS_AS(category_regions(91, 10), InputError);
  CHECK_THROWS_AS(pb_grr_probabilities(91, 10, 5.0, 6.0), InputError);
}
