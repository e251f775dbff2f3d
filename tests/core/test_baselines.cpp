#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "core/baseline_factory.hpp"
#include "core/baselines.hpp"
#include "core/errors.hpp"
#include "core/log_math.hpp"
#include "core/utility.hpp"

using namespace noiselearn;

namespace {

double mean(const NoiseTable& table) {
  std::vector<double> terms;
  for (int64_t i = 0; i < table.size(); ++i) terms.push_back(table.x(i) * table.p(i));
  return compensated_sum(terms);
}

bool exactly_mirrored(const NoiseTable& table) {
  for (int64_t i = 0; i < table.size(); ++i)
    if (table.p(i) != table.p(table.size() - 1 - i)) return false;
  return true;
}

double relative_error(double computed, double reference) {
  return std::abs(computed - reference) / std::abs(reference);
}

double standard_normal_density(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2.0 * M_PI); }

// Index of grid point x on a grid (x must be a grid point).
int64_t index_of(const Grid& grid, double x) {
  return static_cast<int64_t>(std::llround((x - grid.origin) / grid.step));
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// Gaussian

TEST_CASE("Gaussian table: mean 0 and variance sigma^2 + h^2/12 (Sheppard)", "[baselines]") {
  // Rounding X ~ N(0, sigma^2) to the cell centres adds h^2/12 to the variance; by Poisson summation the error
  // of Sheppard's correction is ~2 exp(-2 pi^2 sigma^2 / h^2), here exp(-2e5) = 0. The grid drops ~1e-350 beyond
  // 40 sigma. What remains is rounding: a few ulps per mass and a compensated sum, so 1e-13 relative.
  for (const auto& [sigma, step] : std::vector<std::pair<double, double>>{{1.0, 0.01}, {2.5, 0.05}}) {
    INFO("sigma = " << sigma << ", h = " << step);
    const NoiseTable table = gaussian_table(Grid::symmetric(40.0 * sigma, step), sigma);
    // The mirror image is exact; only x_i = origin + i h differs from -x_{n-1-i} by rounding (ulp(40) = 7e-15).
    CHECK(std::abs(mean(table)) <= 1e-13 * sigma);
    CHECK(second_moment(table) == Approx(sigma * sigma + step * step / 12.0).epsilon(1e-13));
    CHECK(table.support_kind() == SupportKind::kSymmetric);
    CHECK(exactly_mirrored(table));
    CHECK(table.is_symmetric_monotone());
    CHECK(table.provenance().source == "baseline gaussian");
    CHECK(table.provenance().parameters.at("sigma") == sigma);
    CHECK(table.provenance().parameters.at("dropped_tail_mass") <= 1e-300);
  }
}

TEST_CASE("Gaussian mass at 30 sigma is the correct ~1e-198, not 0", "[baselines]") {
  const Grid grid = Grid::symmetric(40.0, 0.01);
  const NoiseTable table = gaussian_table(grid, 1.0);
  // Reference: log(Phi(30.005) - Phi(29.995)) from 1000-digit arithmetic. The table's normaliser is
  // 1 - 2 Phi(-40.005) = 1 - 1e-350, so log p must equal it. The log-mass ~ -455.5 carries an absolute rounding
  // of a few ulps (ulp = 5.7e-14), hence 1e-12 on the log, i.e. 1e-12 relative on p.
  const double log_reference = -4.55520365706814656660e+2;
  for (double x : {30.0, -30.0}) {
    const double p = table.p(index_of(grid, x));
    INFO("x = " << x << ", p = " << p);
    REQUIRE(p > 0.0);
    CHECK(std::abs(std::log(p) - log_reference) <= 1e-12);
  }
  // The naive CDF difference on the upper side is 1 - 1 = 0 in float64 (Gilani et al. erratum).
  CHECK(0.5 * std::erfc(-30.005 / M_SQRT2) - 0.5 * std::erfc(-29.995 / M_SQRT2) == 0.0);
  // At 39 sigma the mass, e^{-765}, is below the smallest float64 (4.9e-324): the log-mass is finite and exact,
  // only the stored probability underflows to 0 (documented in baselines.hpp).
  CHECK(std::isfinite(log_gaussian_cell_mass(39.0, 0.01, 1.0)));
  CHECK(log_gaussian_cell_mass(39.0, 0.01, 1.0) < -745.2);
  CHECK(table.p(index_of(grid, 39.0)) == 0.0);
}

TEST_CASE("log_gaussian_cell_mass matches 1000-digit references for narrow cells", "[baselines]") {
  // Narrow cells are where differences of two CDF values lose precision (by a factor ~1 / (width (1 + |c|)));
  // the Taylor series keeps a few ulps. References: log(Phi(b) - Phi(a)) with 1000 digits. 1e-14 relative on the
  // log-mass (a few ulps of exp's argument).
  struct Cell {
    double centre, width, log_mass;
  };
  const std::vector<Cell> cells = {
      {0.0, 0.001, -7.82669385385347576606e+0},  {0.0, 0.01, -5.52411288585248633755e+0},
      {1.0, 0.001, -8.32669381218681083550e+0},  {3.0, 0.02, -9.33082821168793664874e+0},
      {10.0, 0.001, -5.78266896871904202047e+1}, {30.0, 0.001, -4.57826656354135971721e+2},
      {30.0, 0.01, -4.55520365706814656660e+2},  {-10.0, 0.001, -5.78266896871904202047e+1},
  };
  for (const auto& cell : cells) {
    INFO("centre " << cell.centre << ", width " << cell.width);
    CHECK(relative_error(log_gaussian_cell_mass(cell.centre, cell.width, 1.0), cell.log_mass) <= 1e-14);
  }
  // Scale invariance: N(0, sigma^2) on [c - w/2, c + w/2) is N(0, 1) on the cell divided by sigma. sigma = 4 is
  // a power of two, so the division is exact and the results are identical.
  CHECK(log_gaussian_cell_mass(40.0, 0.04, 4.0) == log_gaussian_cell_mass(10.0, 0.01, 1.0));
  // Both evaluation paths (series below w (1 + |c|) = 0.5, log_normal_interval above) agree where both are
  // accurate, so there is no step at the switch: 1e-14 relative.
  for (double centre : {0.0, 2.0, 8.0}) {
    INFO("centre " << centre);
    const double switch_width = 0.5 / (1.0 + centre);
    const double below_width = std::nextafter(switch_width, 0.0), above_width = std::nextafter(switch_width, 1.0);
    const double below = log_gaussian_cell_mass(centre, below_width, 1.0);
    const double above = log_gaussian_cell_mass(centre, above_width, 1.0);
    CHECK(relative_error(below, log_normal_interval(centre - 0.5 * below_width, centre + 0.5 * below_width)) <= 1e-14);
    CHECK(relative_error(above, below) <= 1e-14);
  }
}

TEST_CASE("Gaussian on a one-sided grid: the same cell masses, not mirrored", "[baselines]") {
  const double step = 0.01;
  const NoiseTable one_sided = gaussian_table(Grid::spanning(0.0, 10.0, step), 1.0);
  const NoiseTable symmetric = gaussian_table(Grid::symmetric(10.0, step), 1.0);
  CHECK(one_sided.support_kind() == SupportKind::kOneSided);
  // Both are the half-normal's cells up to normalisation: p_i / p_0 agree (log-masses up to 50, so the ratios
  // agree to ~50 ulps of the log: 1e-13).
  const int64_t centre = symmetric.size() / 2;
  for (int64_t i : {1, 10, 100, 500, 1000}) {
    INFO("i = " << i);
    CHECK(relative_error(one_sided.p(i) / one_sided.p(0), symmetric.p(centre + i) / symmetric.p(centre)) <= 1e-13);
  }
  // The cells cover [-h/2, 10 + h/2): the half below -h/2 (Phi(-0.005)) and the tail beyond 10 are dropped.
  CHECK(one_sided.provenance().parameters.at("dropped_tail_mass") ==
        Approx(0.5 * std::erfc(0.005 / M_SQRT2)).epsilon(1e-14));
}

// ---------------------------------------------------------------------------------------------------------------
// Laplace

TEST_CASE("Laplace table: E|x| = h / (2 sinh(h / 2b)) -> b, ratio e^{-h/b} between cells", "[baselines]") {
  // On cells centred at m h the masses are p_m = e^{-|m| h/b} sinh(h/2b) (m != 0), and the sum
  // 2 sum_m m h p_m = h / (2 sinh(h / 2b)) = b (1 - h^2 / 24 b^2 + ...). The grid drops e^{-60} beyond 60 b;
  // the rest is rounding: 1e-13 relative.
  for (const auto& [scale, step] : std::vector<std::pair<double, double>>{{1.0, 0.01}, {2.5, 0.05}}) {
    INFO("b = " << scale << ", h = " << step);
    const NoiseTable table = laplace_table(Grid::symmetric(60.0 * scale, step), scale);
    const double exact = step / (2.0 * std::sinh(step / (2.0 * scale)));
    CHECK(l1_utility(table) == Approx(exact).epsilon(1e-13));
    CHECK(std::abs(l1_utility(table) - scale) <= step * step / (24.0 * scale) * 1.001);
    CHECK(exactly_mirrored(table));
    CHECK(table.is_symmetric_monotone());
    // One cell further out on the same side: mass times e^{-h/b}. The log-masses reach ~60, so their rounding is
    // ~60 ulps of 1: 1e-13 relative on the ratio.
    const int64_t centre = table.size() / 2;
    for (int64_t m : {1, 2, 50, 1000, 2998}) {
      INFO("m = " << m);
      CHECK(relative_error(table.p(centre + m + 1) / table.p(centre + m), std::exp(-step / scale)) <= 1e-13);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Truncated Gaussian and Laplace

TEST_CASE("truncated Gaussian: variance of N(0, sigma^2) truncated to [-R, R], R = range + h/2", "[baselines]") {
  // The outermost kept cells end at R = range + h/2. Closed form (beta = R / sigma, Z = 2 Phi(beta) - 1):
  //   Var = sigma^2 (1 - 2 beta phi(beta) / Z).
  // Discretising to cell centres (Euler-Maclaurin, cells exactly tiling [-R, R]):
  //   sum x_i^2 p_i = Var + h^2/12 (1 - 4 R f(R)) + O(h^4),  f(R) = phi(beta) / (sigma Z)
  // (sum_i int_cell (x^2 - x_i^2) f = h^2/12 int (f + 2 x f') + O(h^4), and int_{-R}^{R} 2 x f' = 4 R f(R) - 2).
  // With h = 0.001 the O(h^4) term is ~1e-12 sigma^2: tolerance 1e-11 absolute.
  for (const auto& [sigma, range] : std::vector<std::pair<double, double>>{{1.0, 2.0}, {1.5, 1.0}}) {
    const double step = 0.001;
    INFO("sigma = " << sigma << ", range = " << range);
    const NoiseTable table = truncated_gaussian_table(Grid::symmetric(10.0, step), sigma, range);
    const double edge = range + 0.5 * step, beta = edge / sigma;
    const double z = std::erf(beta / M_SQRT2);
    const double variance = sigma * sigma * (1.0 - 2.0 * beta * standard_normal_density(beta) / z);
    const double density_at_edge = standard_normal_density(beta) / (sigma * z);
    const double sheppard = step * step / 12.0 * (1.0 - 4.0 * edge * density_at_edge);
    CHECK(second_moment(table) == Approx(variance + sheppard).margin(1e-11).epsilon(0));
    // Without the discretisation term the check would fail: it is ~1e-8 here, far above the tolerance.
    CHECK(std::abs(sheppard) > 1e-9);
    // The law's mass outside [-R, R] was dropped: 2 Phi(-beta).
    CHECK(table.provenance().parameters.at("dropped_tail_mass") == Approx(std::erfc(beta / M_SQRT2)).epsilon(1e-13));
    // Support: exactly the points with |x| <= range, each with its untruncated bin mass times one constant.
    CHECK(max_abs_error(table) == Approx(range).epsilon(1e-12));
    CHECK(tail_probability(table, range) == 0.0);
    const NoiseTable untruncated = gaussian_table(table.grid(), sigma);
    const int64_t centre = table.size() / 2;
    const double factor = table.p(centre) / untruncated.p(centre);
    for (int64_t m : {int64_t{1}, int64_t{100}, static_cast<int64_t>(std::llround(range / step))})
      CHECK(relative_error(table.p(centre + m) / untruncated.p(centre + m), factor) <= 1e-13);
    CHECK(exactly_mirrored(table));
    CHECK(table.is_symmetric_monotone());
  }
}

TEST_CASE("truncated Laplace: E|x| of Laplace truncated to [-R, R], ratios e^{-h/b}", "[baselines]") {
  // Closed form for Laplace(b) truncated to [-R, R]: E|x| = b - R e^{-R/b} / (1 - e^{-R/b}), R = range + h/2.
  // Cell centres lose int_cell |x| f ~ f(0) h^2/4 at the kink and h^2/12 (f(R) - f(0)) on each side
  // (Euler-Maclaurin): sum |x_i| p_i = E|x| - h^2 (f(0)/12 + f(R)/6) + O(h^4 / b^3), f(0) = 1 / (2b (1 - e^{-R/b})),
  // f(R) = e^{-R/b} f(0). With h = 0.001, b >= 0.5 the remainder is below 1e-11.
  for (double scale : {1.0, 0.5}) {
    const double step = 0.001, range = 2.0;
    INFO("b = " << scale);
    const NoiseTable table = truncated_laplace_table(Grid::symmetric(10.0, step), scale, range);
    const double edge = range + 0.5 * step, tail = std::exp(-edge / scale);
    const double density_at_0 = 1.0 / (2.0 * scale * (1.0 - tail)), density_at_edge = tail * density_at_0;
    const double expected =
        scale - edge * tail / (1.0 - tail) - step * step * (density_at_0 / 12.0 + density_at_edge / 6.0);
    CHECK(l1_utility(table) == Approx(expected).margin(1e-11).epsilon(0));
    const int64_t centre = table.size() / 2, last = centre + std::llround(range / step);
    CHECK(table.p(last) > 0.0);
    CHECK(table.p(last + 1) == 0.0);
    CHECK(relative_error(table.p(last) / table.p(last - 1), std::exp(-step / scale)) <= 1e-13);
    CHECK(table.is_symmetric_monotone());
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Staircase

namespace {

// E|x| of the untruncated staircase, from its density: on one side period k holds a b^k over [kD, (k+gamma)D)
// and a b^{k+1} over [(k+gamma)D, (k+1)D). Integrating x over the two pieces gives D^2/2 (2k gamma + gamma^2) and
// D^2/2 (2k (1-gamma) + 1 - gamma^2); summing the geometric series (sum b^k = 1/(1-b), sum k b^k = b/(1-b)^2)
// and substituting a = (1-b) / (2D (gamma + (1-gamma) b)):
//   E|x| = D [ b / (1-b) + (gamma^2 + b (1 - gamma^2)) / (2 (gamma + (1-gamma) b)) ].
double staircase_l1(double epsilon, double sensitivity, double gamma) {
  const double b = std::exp(-epsilon);
  return sensitivity *
         (b / (1.0 - b) + (gamma * gamma + b * (1.0 - gamma * gamma)) / (2.0 * (gamma + (1.0 - gamma) * b)));
}

double staircase_peak_density(double epsilon, double sensitivity, double gamma) {
  const double b = std::exp(-epsilon);
  return (1.0 - b) / (2.0 * sensitivity * (gamma + (1.0 - gamma) * b));
}

}  // namespace

TEST_CASE("staircase: E|x| matches the closed form, at gamma* Geng et al.'s D e^{eps/2} / (e^eps - 1)", "[baselines]") {
  const double epsilon = 1.0, sensitivity = 1.0, step = 0.001, range = 40.0;
  const double gamma_star = staircase_optimal_gamma_l1(epsilon);
  CHECK(gamma_star == Approx(1.0 / (1.0 + std::exp(0.5))).epsilon(1e-15));
  // Geng et al.: the minimum of E|x| over gamma, attained at gamma*.
  const double geng = sensitivity * std::exp(0.5 * epsilon) / (std::exp(epsilon) - 1.0);
  CHECK(staircase_l1(epsilon, sensitivity, gamma_star) == Approx(geng).epsilon(1e-14));
  // Discretisation bound: a cell inside one constant piece has sum |x_i| p_i = int |x| f exactly (the density is
  // constant and |x| linear); the centre cell misses a h^2/4; a cell straddling a jump d1 -> d2 misses at most
  // (d1 - d2) h^2/8, and the jumps on both sides add up to 2a. So |error| <= a h^2/2 (2.6e-7 here), plus the
  // grid's truncation at 40 D (mass 4e-18, contribution < 2e-16).
  for (double gamma : {gamma_star, 0.25, 0.8}) {
    INFO("gamma = " << gamma);
    const NoiseTable table = staircase_table(Grid::symmetric(range, step), epsilon, sensitivity, gamma, range);
    const double bound = staircase_peak_density(epsilon, sensitivity, gamma) * step * step / 2.0 + 1e-15;
    CHECK(std::abs(l1_utility(table) - staircase_l1(epsilon, sensitivity, gamma)) <= bound);
    if (gamma != gamma_star) CHECK(l1_utility(table) > geng + bound);  // gamma* is the minimiser
  }
}

TEST_CASE("staircase: cells one period apart have ratio e^{-eps} and cells in one piece are equal", "[baselines]") {
  const double epsilon = 0.7, sensitivity = 1.0, step = 0.01, range = 12.0;
  const double gamma = staircase_optimal_gamma_l1(epsilon);
  const Grid grid = Grid::symmetric(range, step);
  const NoiseTable table = staircase_table(grid, epsilon, sensitivity, gamma, range);
  const int64_t period = 100, centre = table.size() / 2, last = table.size() - 1;
  const auto inside_one_piece = [&](int64_t first_cell, int64_t last_cell) {
    // No breakpoint (j + gamma) D strictly inside [x_first - h/2, x_last + h/2].
    const double lower = table.x(first_cell) - 0.5 * step, upper = table.x(last_cell) + 0.5 * step;
    for (int j = 0; j <= 20; ++j) {
      const double t = (j + gamma) * sensitivity;
      if (t > lower + 1e-9 && t < upper - 1e-9) return false;
    }
    return true;
  };
  int64_t equal_pairs = 0, straddling = 0;
  for (int64_t i = centre + 1; i + period <= last; ++i) {
    INFO("x = " << table.x(i));
    const double ratio = table.p(i + period) / table.p(i);
    if (inside_one_piece(i, i)) {
      // Density a b^j times h, then a b^{j+1} times h: the only rounding is in exp of log-masses of size ~10
      // (a few ulps of 10): 1e-13 relative.
      CHECK(relative_error(ratio, std::exp(-epsilon)) <= 1e-13);
    } else {
      // A straddling cell's overlap lengths t - (x - h/2) carry an absolute rounding ~eps |x|, i.e. ~eps |x| / h
      // relative (< 1e-12 here): 1e-11.
      CHECK(relative_error(ratio, std::exp(-epsilon)) <= 1e-11);
      ++straddling;
    }
    // Two neighbouring cells inside one constant piece get bit-identical masses (density times h, no CDF
    // differences), so a monotonicity check cannot be fooled by rounding.
    if (inside_one_piece(i, i + 1)) {
      CHECK(table.p(i) == table.p(i + 1));
      ++equal_pairs;
    }
  }
  CHECK(equal_pairs > 500);
  CHECK(straddling > 10);
  CHECK(table.support_kind() == SupportKind::kSymmetric);
  CHECK(exactly_mirrored(table));
  CHECK(table.is_symmetric_monotone());
  // Absolute level: the central cell is inside the piece of density a, so p = a h / (1 - dropped).
  const double dropped = table.provenance().parameters.at("dropped_tail_mass");
  CHECK(relative_error(table.p(centre), staircase_peak_density(epsilon, sensitivity, gamma) * step / (1.0 - dropped)) <=
        1e-13);
}

TEST_CASE("staircase: survival function and truncation", "[baselines]") {
  const StaircaseLaw law{0.5, 2.0, 0.3};
  const double b = std::exp(-law.epsilon), a = staircase_peak_density(law.epsilon, law.sensitivity, law.gamma);
  // Pr[X >= 0] = 1/2; Pr[X >= kD] = b^k / 2 (each period on one side holds (1-b) b^k / 2);
  // Pr[X >= (k + gamma) D] = b^{k+1}/2 + a b^{k+1} (1 - gamma) D. 1e-14: a few ulps of logs of size <= 5.
  CHECK(law.log_survival(0.0) == Approx(-M_LN2).epsilon(1e-15));
  for (int k : {1, 3, 10}) {
    INFO("k = " << k);
    CHECK(law.log_survival(k * law.sensitivity) == Approx(-k * law.epsilon - M_LN2).epsilon(1e-14));
    const double at_jump = std::pow(b, k + 1) * (0.5 + a * (1.0 - law.gamma) * law.sensitivity);
    CHECK(law.log_survival((k + law.gamma) * law.sensitivity) == Approx(std::log(at_jump)).epsilon(1e-14));
  }
  // Symmetry: Pr[X >= -x] = 1 - Pr[X >= x].
  CHECK(std::exp(law.log_survival(-3.1)) == Approx(1.0 - std::exp(law.log_survival(3.1))).epsilon(1e-15));
  // Cell masses are integrals of the density: sum of cells tiling [0, 2D) = Pr[0 <= X < 2D] = (1 - b^2)/2.
  std::vector<double> cells;
  for (int m = 0; m < 40; ++m) cells.push_back(std::exp(law.log_cell_mass((m + 0.5) * 0.1, 0.1)));
  CHECK(compensated_sum(cells) == Approx(0.5 * (1.0 - b * b)).epsilon(1e-14));
  // A cell meeting more than 16 breakpoints ([-25, 25) meets 24) is a difference of survival values; it must
  // equal the sum of the narrow cells tiling it (density times length). 1e-14: compensated sum of 500 masses.
  std::vector<double> narrow;
  for (int m = 0; m < 500; ++m) narrow.push_back(std::exp(law.log_cell_mass(-25.0 + (m + 0.5) * 0.1, 0.1)));
  CHECK(std::exp(law.log_cell_mass(0.0, 50.0)) == Approx(compensated_sum(narrow)).epsilon(1e-14));
  CHECK(std::exp(law.log_cell_mass(0.0, 50.0)) == Approx(1.0 - 2.0 * std::exp(law.log_survival(25.0))).epsilon(1e-15));

  // Truncation to [-range, range]: zeros beyond, renormalised, dropped mass 2 Pr[X >= range + h/2].
  const double step = 0.05, range = 6.0;
  const NoiseTable table = staircase_table(Grid::symmetric(10.0, step), law.epsilon, law.sensitivity, law.gamma, range);
  CHECK(max_abs_error(table) == Approx(range).epsilon(1e-12));
  CHECK(table.p(table.size() - 1) == 0.0);
  CHECK(table.provenance().parameters.at("dropped_tail_mass") ==
        Approx(2.0 * std::exp(law.log_survival(range + 0.5 * step))).epsilon(1e-14));
  CHECK(table.is_symmetric_monotone());
}

// ---------------------------------------------------------------------------------------------------------------
// Discrete families

TEST_CASE("discrete Gaussian: normaliser sigma sqrt(2 pi), variance sigma^2, ratios", "[baselines]") {
  // On the integers sum_m exp(-m^2 / 2 sigma^2) = sigma sqrt(2 pi) (1 + 2 e^{-2 pi^2 sigma^2} + ...) (Poisson
  // summation) and the variance is sigma^2 (1 - O(sigma^2 e^{-2 pi^2 sigma^2})); for sigma = 3 the corrections are
  // e^{-177}. The grid [-60, 60] drops e^{-200}. So p(0) = 1 / (sigma sqrt(2 pi)) and E x^2 = sigma^2 to rounding.
  const double sigma = 3.0;
  const NoiseTable table = discrete_gaussian_table(Grid::symmetric(60.0, 1.0), sigma);
  const int64_t centre = 60;
  CHECK(table.p(centre) == Approx(1.0 / (sigma * std::sqrt(2.0 * M_PI))).epsilon(1e-14));
  CHECK(second_moment(table) == Approx(sigma * sigma).epsilon(1e-13));
  // p(x + 1) / p(x) = exp(-(2x + 1) / (2 sigma^2)); log-weights up to ~200, so 1e-13 relative.
  for (int x : {0, 1, 5, 20, -7}) {
    INFO("x = " << x);
    const double expected = std::exp(-(2.0 * x + 1.0) / (2.0 * sigma * sigma));
    CHECK(relative_error(table.p(centre + x + 1) / table.p(centre + x), expected) <= 1e-13);
  }
  CHECK(exactly_mirrored(table));
  CHECK(table.is_symmetric_monotone());
}

TEST_CASE("discrete Laplace: p(x) = tanh(1/2b) e^{-|x|/b}, E|x| = 1 / sinh(1/b)", "[baselines]") {
  // Normaliser sum_m e^{-|m|/b} = (1 + q)/(1 - q) = coth(1/2b), q = e^{-1/b}; E|x| = 2 tanh(1/2b) q/(1-q)^2
  // = 1/sinh(1/b). The grid [-100, 100] drops e^{-50} for b = 2. 1e-13 relative (log-weights up to 50).
  const double scale = 2.0;
  const NoiseTable table = discrete_laplace_table(Grid::symmetric(100.0, 1.0), scale);
  const int64_t centre = 100;
  for (int x : {0, 1, 10, -30}) {
    INFO("x = " << x);
    CHECK(relative_error(table.p(centre + x), std::tanh(0.5 / scale) * std::exp(-std::abs(x) / scale)) <= 1e-13);
    CHECK(relative_error(table.p(centre + x + 1) / table.p(centre + x), std::exp((x >= 0 ? -1.0 : 1.0) / scale)) <=
          1e-13);
  }
  CHECK(l1_utility(table) == Approx(1.0 / std::sinh(1.0 / scale)).epsilon(1e-13));
  CHECK(table.is_symmetric_monotone());
}

TEST_CASE("uniform: equal mass on |x| <= range", "[baselines]") {
  const NoiseTable table = uniform_table(Grid::symmetric(5.0, 1.0), 3.0);
  for (int64_t i = 0; i < table.size(); ++i) {
    INFO("x = " << table.x(i));
    CHECK(table.p(i) == (std::abs(table.x(i)) <= 3.0 ? table.p(5) : 0.0));
  }
  CHECK(table.p(5) == Approx(1.0 / 7.0).epsilon(1e-15));
  CHECK(l1_utility(table) == Approx(12.0 / 7.0).epsilon(1e-15));  // 2 (1 + 2 + 3) / 7
  CHECK(table.is_symmetric_monotone());
}

// ---------------------------------------------------------------------------------------------------------------
// Parameters

TEST_CASE("bad baseline parameters are input errors naming the parameter", "[baselines]") {
  const Grid grid = Grid::symmetric(5.0, 0.1);
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  for (double bad : {0.0, -1.0, nan, inf}) {
    INFO("value " << bad);
    CHECK_THROWS_WITH(gaussian_table(grid, bad), Catch::Contains("sigma"));
    CHECK_THROWS_WITH(laplace_table(grid, bad), Catch::Contains("scale"));
    CHECK_THROWS_WITH(discrete_gaussian_table(grid, bad), Catch::Contains("sigma"));
    CHECK_THROWS_WITH(discrete_laplace_table(grid, bad), Catch::Contains("scale"));
    CHECK_THROWS_WITH(truncated_gaussian_table(grid, 1.0, bad), Catch::Contains("range"));
    CHECK_THROWS_WITH(staircase_table(grid, bad, 1.0, 0.5, 3.0), Catch::Contains("epsilon"));
    CHECK_THROWS_WITH(staircase_table(grid, 1.0, bad, 0.5, 3.0), Catch::Contains("sensitivity"));
    CHECK_THROWS_AS(staircase_optimal_gamma_l1(bad), InputError);
  }
  // Whole numbers of steps: a range of 1.25 on a 0.1 grid, a sensitivity of 0.15.
  CHECK_THROWS_WITH(truncated_laplace_table(grid, 1.0, 1.25), Catch::Contains("range 1.25"));
  CHECK_THROWS_WITH(uniform_table(grid, 1.25), Catch::Contains("range 1.25"));
  CHECK_THROWS_WITH(staircase_table(grid, 1.0, 0.15, 0.5, 3.0), Catch::Contains("sensitivity 0.15"));
  CHECK_THROWS_WITH(staircase_table(grid, 1.0, 1.0, 1.5, 3.0), Catch::Contains("gamma"));
  CHECK_THROWS_WITH(staircase_table(grid, 1.0, 1.0, -0.1, 3.0), Catch::Contains("gamma"));
  // A range that keeps no grid point (one-sided grid starting above it).
  CHECK_THROWS_AS(uniform_table(Grid::spanning(5.0, 10.0, 1.0), 3.0), InputError);
  CHECK_THROWS_AS(gaussian_table(Grid{0.0, 0.0, 3}, 1.0), InputError);
}

TEST_CASE("make_baseline builds every family by name and checks its parameters", "[baselines]") {
  const Grid grid = Grid::symmetric(10.0, 0.5);
  REQUIRE(baseline_names().size() == 12);
  const Grid one_sided_grid = Grid::spanning(0.0, 20.0, 0.5);
  BaselineParameters full;
  full.sigma = 2.0;
  full.scale = 1.5;
  full.epsilon = 1.0;
  full.sensitivity = 1.0;
  full.range = 5.0;
  for (const std::string& name : baseline_names()) {
    INFO(name);
    CHECK_FALSE(baseline_description(name).empty());
    // Exactly the family's own parameters (sensitivity may always be passed).
    BaselineParameters own;
    own.sensitivity = full.sensitivity;
    for (const std::string& key : baseline_parameter_names(name)) {
      if (key == "sigma") own.sigma = full.sigma;
      if (key == "scale") own.scale = full.scale;
      if (key == "epsilon") own.epsilon = full.epsilon;
      if (key == "range") own.range = full.range;
      if (key == "optimum-delta") own.delta = 1e-3;
    }
    const NoiseTable table = make_baseline(name, is_one_sided_baseline(name) ? one_sided_grid : grid, own);
    CHECK(table.provenance().source == "baseline " + name);
    if (is_one_sided_baseline(name))
      CHECK(table.support_kind() == SupportKind::kOneSided);
    else
      CHECK(table.is_symmetric_monotone());
  }
  // The factory gives the same table as the named function.
  CHECK(make_baseline("gaussian", grid, BaselineParameters{2.0, {}, {}, {}, {}, {}, {}, {}}).probabilities() ==
        gaussian_table(grid, 2.0).probabilities());
  // Staircase gamma defaults to the L1-optimal one.
  BaselineParameters staircase;
  staircase.epsilon = 1.0;
  staircase.sensitivity = 1.0;
  staircase.range = 5.0;
  CHECK(make_baseline("staircase", grid, staircase).provenance().parameters.at("gamma") ==
        staircase_optimal_gamma_l1(1.0));

  BaselineParameters only_range;
  only_range.range = 5.0;
  CHECK_THROWS_WITH(make_baseline("truncated-gaussian", grid, only_range),
                    Catch::Equals("baseline truncated-gaussian needs --sigma"));
  BaselineParameters staircase_without_sensitivity = staircase;
  staircase_without_sensitivity.sensitivity.reset();
  CHECK_THROWS_WITH(make_baseline("staircase", grid, staircase_without_sensitivity),
                    Catch::Equals("baseline staircase needs --sensitivity"));
  BaselineParameters wrong;
  wrong.scale = 1.0;
  CHECK_THROWS_WITH(make_baseline("gaussian", grid, wrong),
                    Catch::Contains("gaussian does not take --scale") && Catch::Contains("--sigma"));
  BaselineParameters negative;
  negative.scale = -1.0;
  CHECK_THROWS_WITH(make_baseline("laplace", grid, negative), Catch::Contains("scale"));
  CHECK_THROWS_WITH(make_baseline("cauchy", grid, full),
                    Catch::Contains("unknown baseline 'cauchy'") && Catch::Contains("discrete-laplace"));
  CHECK_THROWS_AS(baseline_description("cauchy"), InputError);
}
