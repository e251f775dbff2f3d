#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "core/log_math.hpp"

using namespace noiselearn;

// Reference values: log Phi(x) and log(Phi(b) - Phi(a)) evaluated with 1000-digit decimal arithmetic from the
// Taylor series of erf (Python's decimal module; no floating-point step and no asymptotic series, so they are
// independent of the formulas in log_math.cpp). Printed to 21 significant digits.
namespace {

struct Reference {
  double x;
  double log_cdf;
};

const std::vector<Reference> kLogNormalCdf = {
    {-40.0, -8.04608442013753788167e+2}, {-37.5, -7.07668989317507191066e+2}, {-30.0, -4.54321243956343197107e+2},
    {-25.0, -3.16639408008020258935e+2}, {-20.0, -2.03917155371097263937e+2}, {-8.0, -3.50134371599145498955e+1},
    {-5.0, -1.50649983939887257361e+1},  {-3.0, -6.60772622151034954328e+0},  {-2.0, -3.78318433368203194884e+0},
    {-1.0, -1.84102164500926350577e+0},  {0.0, -6.93147180559945309417e-1},   {6.0, -9.86587645524375731691e-10},
    {8.0, -6.22096057427178605853e-16},  {10.0, -7.61985302416052606597e-24},
};

double relative_error(double computed, double reference) {
  return std::abs(computed - reference) / std::abs(reference);
}

}  // namespace

TEST_CASE("log_normal_cdf matches 1000-digit references from -40 to 10", "[log_math]") {
  // glibc's erfc/log are accurate to a few ulps and the asymptotic series (x <= -20) is truncated below 1e-17
  // relative, so the log-CDF must be within 1e-14 relative (about 45 ulps of headroom) of the exact value.
  for (const auto& reference : kLogNormalCdf) {
    INFO("x = " << reference.x);
    CHECK(relative_error(log_normal_cdf(reference.x), reference.log_cdf) <= 1e-14);
  }
  // Phi(-1) itself, the value every statistics table prints.
  CHECK(std::exp(log_normal_cdf(-1.0)) == Approx(0.15865525393145707).epsilon(1e-15));
}

TEST_CASE("log_normal_cdf is accurate relative to its (tiny) value for 0 < x <= 5", "[log_math]") {
  // log(Phi(x)) with Phi(x) close to 1 would be exact only to ~1e-16 absolute, i.e. 1e-16 / (1 - Phi(x))
  // relative; the log1p(-Q(x)) form used for every x > 0 keeps it relative. Same 1e-14 tolerance as above.
  const std::vector<Reference> positive = {
      {2.0, -2.30129093289634884653e-2}, {3.0, -1.35080996474819379884e-3}, {5.0, -2.86651612963763593385e-7}};
  for (const auto& reference : positive) {
    INFO("x = " << reference.x);
    CHECK(relative_error(log_normal_cdf(reference.x), reference.log_cdf) <= 1e-14);
  }
  const double below = log_normal_cdf(std::nextafter(5.0, 0.0)), above = log_normal_cdf(std::nextafter(5.0, 10.0));
  CHECK(relative_error(below, above) <= 1e-14);
}

TEST_CASE("log_normal_cdf is continuous and increasing across its branch points", "[log_math]") {
  // At x = -20 the erfc formula hands over to the asymptotic series. One ulp of x moves log Phi by
  // |d log Phi/dx| * ulp ~ 20 * 3.6e-15 = 7e-14, i.e. 4e-16 relative; each branch is within 1e-14 relative of
  // the truth, so the two sides must agree to 1e-14 relative and both match the reference.
  const double below = log_normal_cdf(std::nextafter(-20.0, -30.0)), above = log_normal_cdf(std::nextafter(-20.0, 0.0));
  CHECK(relative_error(below, above) <= 1e-14);
  CHECK(relative_error(above, -2.03917155371097263937e+2) <= 1e-14);
  CHECK(relative_error(below, -2.03917155371097263937e+2) <= 1e-14);
  // At x = 5 the absolute jump must stay at rounding level (the relative accuracy is checked above).
  CHECK(std::abs(log_normal_cdf(std::nextafter(5.0, 0.0)) - log_normal_cdf(std::nextafter(5.0, 10.0))) <= 1e-15);
  // Phi is strictly increasing; a branch that disagrees with its neighbour by more than the step shows up as a
  // decrease. Steps of 1e-3 move log Phi by at least 1e-3 * phi(5)/Phi(5) ~ 1.5e-9 near x = 5 (>> rounding).
  for (double centre : {-20.0, 5.0}) {
    double previous = log_normal_cdf(centre - 0.1);
    for (int k = -99; k <= 100; ++k) {
      const double value = log_normal_cdf(centre + 1e-3 * k);
      INFO("x = " << centre + 1e-3 * k);
      CHECK(value > previous);
      previous = value;
    }
  }
}

TEST_CASE("log_normal_cdf at the extremes of its range", "[log_math]") {
  CHECK(log_normal_cdf(std::numeric_limits<double>::infinity()) == 0.0);
  CHECK(log_normal_cdf(-std::numeric_limits<double>::infinity()) == kNegativeInfinity);
  // For x = -1e150 the series is 1 - 1e-300: log Phi = -x^2/2 - log(-x) - log sqrt(2 pi) in float64.
  const double x = -1e150;
  CHECK(log_normal_cdf(x) == Approx(-0.5 * x * x - std::log(-x) - 0.5 * std::log(2.0 * M_PI)).epsilon(1e-15));
  // Phi(x) + Phi(-x) = 1 where both are representable: an identity between the two branches' regions.
  // Summing two probabilities each with relative error ~1e-15 leaves an absolute error below 2e-15.
  for (double y : {0.5, 1.0, 2.5, 4.0, 6.0, 8.0}) {
    INFO("x = " << y);
    CHECK(std::abs(std::exp(log_normal_cdf(y)) + std::exp(log_normal_cdf(-y)) - 1.0) <= 2e-15);
  }
}

TEST_CASE("log1mexp, log_diff_exp, log_add_exp and log_sum_exp keep precision at both ends", "[log_math]") {
  // log(1 - e^{-d}): d = 1e-20 gives log(1e-20) (the naive form gives log 0); d = 50 gives -e^{-50}.
  CHECK(log1mexp(1e-20) == Approx(std::log(1e-20)).epsilon(1e-15));
  CHECK(log1mexp(50.0) == Approx(-std::exp(-50.0)).epsilon(1e-15));
  CHECK(log1mexp(0.0) == kNegativeInfinity);
  // log(e^{-1000} - e^{-1001}) = -1000 + log(1 - e^{-1}); all three terms underflow as plain numbers.
  CHECK(log_diff_exp(-1000.0, -1001.0) == Approx(-1000.0 + std::log1p(-std::exp(-1.0))).epsilon(1e-15));
  CHECK(log_diff_exp(-3.0, -3.0) == kNegativeInfinity);
  CHECK(log_diff_exp(-3.0, kNegativeInfinity) == -3.0);
  CHECK(log_add_exp(-1000.0, -1000.0) == Approx(-1000.0 + M_LN2).epsilon(1e-15));
  CHECK(log_sum_exp({-2000.0, -2000.0, -2000.0, kNegativeInfinity}) == Approx(-2000.0 + std::log(3.0)).epsilon(1e-15));
  CHECK(log_sum_exp({}) == kNegativeInfinity);
}

TEST_CASE("log_normal_interval in both tails and around the centre", "[log_math]") {
  struct Interval {
    double a, b, log_mass;
  };
  // Intervals whose two CDF values differ by a factor > ~1.01: log_diff_exp loses at most a factor 100 of the
  // ~1e-16 relative accuracy of each log-CDF, so 1e-13 relative on the log-mass (|log mass| >= 0.4) holds.
  const std::vector<Interval> intervals = {
      {30.0, 31.0, -4.54321243956343252037e+2},     {-31.0, -30.0, -4.54321243956343252037e+2},
      {8.0, 8.5, -3.50287925085797478098e+1},       {-3.0, -2.0, -3.84435342633420562097e+0},
      {2.0, 3.0, -3.84435342633420562097e+0},       {-0.5, 2.0, -4.02401312338575120627e-1},
      {29.995, 30.005, -4.55520365706814656660e+2},
  };
  for (const auto& interval : intervals) {
    INFO("[" << interval.a << ", " << interval.b << "]");
    CHECK(relative_error(log_normal_interval(interval.a, interval.b), interval.log_mass) <= 1e-13);
  }
  // Where direct differences are accurate (no cancellation: Phi(-2) / Phi(-3) ~ 17) they agree too.
  const double direct = std::log(0.5 * (std::erfc(2.0 / M_SQRT2) - std::erfc(3.0 / M_SQRT2)));
  CHECK(log_normal_interval(2.0, 3.0) == Approx(direct).epsilon(1e-14));
  CHECK(log_normal_interval(-3.0, -2.0) == Approx(direct).epsilon(1e-14));
  // Beyond ~38 sigma the direct difference is 0 - 0, the log-space one the correct ~e^{-800}.
  CHECK(0.5 * (std::erfc(40.0 / M_SQRT2) - std::erfc(41.0 / M_SQRT2)) == 0.0);
  CHECK(log_normal_interval(40.0, 41.0) == Approx(-8.04608442013753788167e+2).epsilon(1e-13));
  // A narrow tail cell: the two log-CDFs differ by 0.012, so their ~1e-14 absolute errors become ~1e-12 on the
  // log-mass; 1e-11 absolute covers it.
  CHECK(log_normal_interval(12.0, 12.001) == Approx(-7.98326879783608665490e+1).margin(1e-11).epsilon(0));
  // Near the centre: the CDF values (~0.5) are 1250 times the mass 4e-4, so a few-ulp error in each becomes
  // ~1e-12 relative on the mass, i.e. 1e-12 absolute on its log.
  CHECK(log_normal_interval(0.001, 0.002) == Approx(-7.82669497885338201606e+0).margin(1.2e-12).epsilon(0));
  CHECK(log_normal_interval(1.0, 1.0) == kNegativeInfinity);
  CHECK(log_normal_interval(2.0, 1.0) == kNegativeInfinity);
}

TEST_CASE("log_normal_interval keeps relative precision for narrow intervals near the centre", "[log_math]") {
  // Near 0 both CDF values are ~1/2 and their difference would cancel, losing a factor ~1/(b - a) (3e-9
  // relative at width 2e-8; -inf for 1e-300-wide intervals); narrow intervals integrate the density's Taylor
  // series instead. Tolerance 1e-13.
  CHECK(relative_error(log_normal_interval(-1e-8, 1e-8), -1.86464720965970929212e+1) <= 1e-13);
  CHECK(relative_error(log_normal_interval(1e-300, 1e-299), -6.89497241854082158564e+2) <= 1e-13);
}
