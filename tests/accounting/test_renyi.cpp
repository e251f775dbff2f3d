// Renyi divergence and the RDP comparison accountant: closed forms (Gaussian, Laplace, randomized response),
// the KL limit, infinite divergence on missing support, and the Gaussian RDP -> DP numbers of both conversions.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "accounting/pair_accountant.hpp"
#include "accounting/renyi.hpp"
#include "core/errors.hpp"
#include "core/log_math.hpp"

using namespace noiselearn;

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// log of the mass a law puts on [lower, upper); lower = -inf / upper = +inf allowed.
using LogIntervalMass = std::function<double(double lower, double upper)>;

// Two laws binned on the same uniform grid, the outermost cells absorbing the tails. Binning is a deterministic
// map of the output (a post-processing), so every Renyi divergence of the binned pair is <= that of the laws
// (data-processing inequality), and close to it for a fine grid.
DominatingPair binned_pair(const Grid& grid, const LogIntervalMass& first, const LogIntervalMass& second) {
  DominatingPair pair{grid, {}, {}, "binned laws", {}, {}};
  for (int64_t i = 0; i < grid.size; ++i) {
    const double lower = i == 0 ? -kInfinity : grid.x(i) - 0.5 * grid.step;
    const double upper = i + 1 == grid.size ? kInfinity : grid.x(i) + 0.5 * grid.step;
    pair.a.push_back(std::exp(first(lower, upper)));
    pair.b.push_back(std::exp(second(lower, upper)));
  }
  return pair;
}

LogIntervalMass gaussian(double mean, double sigma) {
  return [=](double lower, double upper) {
    if (lower == -kInfinity) return log_normal_cdf((upper - mean) / sigma);
    if (upper == kInfinity) return log_normal_cdf(-(lower - mean) / sigma);
    return log_normal_interval((lower - mean) / sigma, (upper - mean) / sigma);
  };
}

// Laplace(mean, scale): F(x) = e^{(x-m)/b}/2 below the mean, 1 - e^{-(x-m)/b}/2 above.
LogIntervalMass laplace(double mean, double scale) {
  return [=](double lower, double upper) {
    const double l = (lower - mean) / scale, u = (upper - mean) / scale;
    if (u <= 0.0) return std::log(0.5) + u + (l == -kInfinity ? 0.0 : log1mexp(u - l));
    if (l >= 0.0) return std::log(0.5) - l + (u == kInfinity ? 0.0 : log1mexp(u - l));
    return std::log1p(-0.5 * (std::exp(-u) + std::exp(l)));
  };
}

// Mironov 2017, Prop. 6: Laplace with scale b, sensitivity 1.
double laplace_renyi(double alpha, double b) {
  return std::log(alpha / (2.0 * alpha - 1.0) * std::exp((alpha - 1.0) / b) +
                  (alpha - 1.0) / (2.0 * alpha - 1.0) * std::exp(-alpha / b)) /
         (alpha - 1.0);
}

// Balle & Wang 2018, Thm 8: exact delta(eps) of the Gaussian mechanism with mu = sensitivity / sigma,
// Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu), in log space.
double exact_gaussian_delta(double mu, double epsilon) {
  return std::exp(
      log_diff_exp(log_normal_cdf(0.5 * mu - epsilon / mu), epsilon + log_normal_cdf(-0.5 * mu - epsilon / mu)));
}

}  // namespace

TEST_CASE("Renyi divergence of a binned Gaussian pair is just below alpha mu^2 / (2 s^2)", "[renyi]") {
  const double sigma = 1.0, mu = 1.0;
  // The Renyi moment of order alpha weighs x around alpha * mu: the grid reaches 8 mu + 15 sigma.
  const DominatingPair pair = binned_pair(Grid{-15.0, 0.01, 4001}, gaussian(0.0, sigma), gaussian(mu, sigma));
  for (double alpha : {1.0, 1.01, 1.5, 2.0, 4.0, 8.0}) {
    const double closed_form = alpha * mu * mu / (2.0 * sigma * sigma);  // alpha = 1: KL = mu^2 / (2 s^2)
    for (bool reverse : {false, true}) {
      const double divergence =
          reverse ? renyi_divergence(pair.b, pair.a, alpha) : renyi_divergence(pair.a, pair.b, alpha);
      INFO("alpha " << alpha << " reverse " << reverse << " divergence " << divergence);
      CHECK(divergence <= closed_form * (1.0 + 1e-12));
      // Binning at h = sigma / 100 loses a fraction h^2 / (12 sigma^2) = 8.3e-6 of the divergence (measured: 8.3e-6).
      CHECK(divergence >= closed_form * (1.0 - 2e-5));
    }
    CHECK(renyi_dp(pair, alpha) <= closed_form * (1.0 + 1e-12));
    CHECK(renyi_dp(pair, alpha) >= closed_form * (1.0 - 2e-5));
  }
}

TEST_CASE("Renyi divergence of a binned Laplace pair matches Mironov's Prop. 6", "[renyi]") {
  for (double b : {0.5, 1.0, 2.0}) {
    const Grid grid{-40.0 * b, 0.005, std::lround(80.0 * b / 0.005) + 1};
    const DominatingPair pair = binned_pair(grid, laplace(0.0, b), laplace(1.0, b));
    for (double alpha : {1.5, 2.0, 5.0, 20.0}) {
      const double closed_form = laplace_renyi(alpha, b);
      const double divergence = renyi_divergence(pair.a, pair.b, alpha);
      INFO("b " << b << " alpha " << alpha << " divergence " << divergence << " closed form " << closed_form);
      CHECK(divergence <= closed_form * (1.0 + 1e-12));
      // Binning at h = 0.005 (measured relative loss <= 6.3e-6 over these b and alpha).
      CHECK(divergence >= closed_form * (1.0 - 2e-5));
      // Laplace is symmetric: both directions agree up to the binning.
      CHECK(renyi_divergence(pair.b, pair.a, alpha) == Approx(divergence).epsilon(1e-9));
    }
    // KL(Lap(0, b) || Lap(1, b)) = 1/b + e^{-1/b} - 1 (the alpha -> 1 limit of Prop. 6).
    const double kl = 1.0 / b + std::exp(-1.0 / b) - 1.0;
    CHECK(renyi_divergence(pair.a, pair.b, 1.0) <= kl * (1.0 + 1e-12));
    CHECK(renyi_divergence(pair.a, pair.b, 1.0) >= kl * (1.0 - 2e-5));
    // alpha = inf: the pure-DP epsilon 1/b, attained exactly by every cell on one side of both means.
    // (Rounding: the cell log-masses reach -80 nats, where an ulp is 1.4e-14; differences of them keep ~1e-12.)
    INFO("D_inf - 1/b = " << renyi_divergence(pair.a, pair.b, kInfinity) - 1.0 / b);
    CHECK(renyi_divergence(pair.a, pair.b, kInfinity) == Approx(1.0 / b).epsilon(1e-10));
  }
}

TEST_CASE("randomized response: Renyi divergence, KL and max-divergence in closed form", "[renyi]") {
  for (double eps : {0.1, 1.0, 3.0}) {
    const double p = 1.0 / (1.0 + std::exp(-eps)), q = 1.0 / (1.0 + std::exp(eps));
    const DominatingPair pair{Grid{0.0, 1.0, 2}, {p, q}, {q, p}, "randomized response", {}, {}};
    for (double alpha : {1.01, 1.5, 2.0, 10.0, 100.0}) {
      // D_alpha = 1/(alpha-1) log((e^{alpha eps} + e^{(1-alpha) eps}) / (1 + e^eps)).
      const double closed_form =
          (log_add_exp(alpha * eps, (1.0 - alpha) * eps) - log_add_exp(0.0, eps)) / (alpha - 1.0);
      INFO("eps " << eps << " alpha " << alpha);
      CHECK(renyi_divergence(pair.a, pair.b, alpha) == Approx(closed_form).epsilon(1e-12));
      CHECK(renyi_dp(pair, alpha) == Approx(closed_form).epsilon(1e-12));
      CHECK(renyi_dp(pair, alpha) <= eps * (1.0 + 1e-15));  // D_alpha <= D_inf = eps
    }
    // KL = (p - q) eps = eps tanh(eps / 2).
    CHECK(renyi_divergence(pair.a, pair.b, 1.0) == Approx(eps * std::tanh(eps / 2.0)).epsilon(1e-13));
    CHECK(renyi_divergence(pair.a, pair.b, kInfinity) == Approx(eps).epsilon(1e-13));
  }
}

TEST_CASE("alpha = 1 is the KL divergence, the limit of D_alpha, and D_alpha is non-decreasing in alpha", "[renyi]") {
  const std::vector<double> first{0.1, 0.2, 0.3, 0.4}, second{0.25, 0.25, 0.4, 0.1};
  double kl = 0.0;
  for (size_t i = 0; i < first.size(); ++i) kl += first[i] * std::log(first[i] / second[i]);
  CHECK(renyi_divergence(first, second, 1.0) == Approx(kl).epsilon(1e-14));
  // D_alpha = KL + (alpha - 1) Var_P[log P/Q] / 2 + O((alpha - 1)^2).
  CHECK(renyi_divergence(first, second, 1.0 + 1e-5) == Approx(kl).epsilon(1e-4));
  double previous = renyi_divergence(first, second, 1.0);
  for (double alpha : default_rdp_orders()) {
    const double divergence = renyi_divergence(first, second, alpha);
    INFO("alpha " << alpha);
    CHECK(divergence >= previous - 1e-12);
    previous = divergence;
  }
  // D_inf = log max P/Q = log 4 bounds every order.
  CHECK(previous <= std::log(4.0) + 1e-12);
  CHECK(renyi_divergence(first, second, kInfinity) == Approx(std::log(4.0)).epsilon(1e-15));
}

TEST_CASE("missing support: infinite divergence one way, zeros of P contribute nothing", "[renyi]") {
  // P/Q = 2 wherever P > 0, so D_alpha(P||Q) = log 2 for every alpha; Q puts 1/2 where P is 0.
  const std::vector<double> p{0.5, 0.5, 0.0}, q{0.25, 0.25, 0.5};
  for (double alpha : {1.0, 1.5, 2.0, 64.0, kInfinity}) {
    INFO("alpha " << alpha);
    CHECK(renyi_divergence(p, q, alpha) == Approx(std::log(2.0)).epsilon(1e-14));
    CHECK(renyi_divergence(q, p, alpha) == kInfinity);
  }
  const DominatingPair pair{Grid{0.0, 1.0, 3}, p, q, "missing support", {}, {}};
  CHECK(renyi_dp(pair, 2.0) == kInfinity);
  const RdpComparison epsilon = rdp_epsilon({pair}, 3, 1e-6);
  CHECK(epsilon.mironov.epsilon == kInfinity);
  CHECK(epsilon.balle.epsilon == kInfinity);
  CHECK(std::isnan(epsilon.balle.alpha));
  const RdpDeltaComparison delta = rdp_delta({pair}, 3, 1.0);
  CHECK(delta.mironov.delta == 1.0);
  CHECK(delta.balle.delta == 1.0);
}

TEST_CASE("Renyi arguments outside the domain are input errors", "[renyi]") {
  const std::vector<double> p{0.5, 0.5}, q{0.25, 0.75};
  CHECK_THROWS_AS(renyi_divergence(p, q, 0.5), InputError);
  CHECK_THROWS_AS(renyi_divergence(p, q, std::nan("")), InputError);
  CHECK_THROWS_AS(renyi_divergence(p, {1.0}, 2.0), InputError);
  CHECK_THROWS_AS(renyi_divergence({1.5, -0.5}, q, 2.0), InputError);
  const RdpCurve rho = [](double alpha) { return alpha / 50.0; };
  CHECK_THROWS_AS(optimal_rdp_epsilon(rho, 10, 0.0, RdpConversion::kMironov), InputError);
  CHECK_THROWS_AS(optimal_rdp_epsilon(rho, 10, 1.0, RdpConversion::kBalle), InputError);
  CHECK_THROWS_AS(optimal_rdp_epsilon(rho, 0, 1e-6, RdpConversion::kBalle), InputError);
  CHECK_THROWS_AS(optimal_rdp_delta(rho, 10, -1.0, RdpConversion::kBalle), InputError);
  CHECK_THROWS_AS(rdp_to_epsilon(RdpConversion::kMironov, 1.0, 0.1, 1e-6), InputError);
  RdpOrderOptions decreasing;
  decreasing.orders = {2.0, 1.5};
  CHECK_THROWS_AS(optimal_rdp_epsilon(rho, 10, 1e-6, RdpConversion::kMironov, decreasing), InputError);
  CHECK_THROWS_AS(rdp_epsilon({}, 10, 1e-6), InputError);
}

TEST_CASE("Gaussian sigma = 5, n = 10, delta = 1e-6: both conversions against closed forms and the exact epsilon",
          "[renyi]") {
  const double sigma = 5.0, delta = 1e-6;
  const int64_t n = 10;
  const RdpCurve rho = [sigma](double alpha) { return alpha / (2.0 * sigma * sigma); };
  const double c = n / (2.0 * sigma * sigma), log_inverse_delta = -std::log(delta);

  // Mironov: min_alpha c alpha + log(1/delta)/(alpha - 1) is attained at alpha = 1 + sqrt(log(1/delta)/c), where it
  // equals c + 2 sqrt(c log(1/delta)) = 3.52452.
  const double mironov_alpha = 1.0 + std::sqrt(log_inverse_delta / c);
  const double mironov_epsilon = c + 2.0 * std::sqrt(c * log_inverse_delta);
  const RdpEpsilon mironov = optimal_rdp_epsilon(rho, n, delta, RdpConversion::kMironov);
  CHECK(mironov.epsilon == Approx(mironov_epsilon).epsilon(1e-12));
  CHECK(mironov.alpha == Approx(mironov_alpha).epsilon(1e-5));
  CHECK(mironov_epsilon == Approx(3.524516).epsilon(1e-6));

  // Balle et al.: no closed-form optimum; a dense scan of the formula itself (step 1e-4 in alpha).
  double balle_epsilon = kInfinity, balle_alpha = 0.0;
  for (int i = 10; i <= 1000000; ++i) {
    const double alpha = 1.0 + i * 1e-4;
    const double value =
        c * alpha + std::log((alpha - 1.0) / alpha) - (std::log(delta) + std::log(alpha)) / (alpha - 1.0);
    if (value < balle_epsilon) balle_epsilon = value, balle_alpha = alpha;
  }
  const RdpEpsilon balle = optimal_rdp_epsilon(rho, n, delta, RdpConversion::kBalle);
  CHECK(balle.epsilon <= balle_epsilon + 1e-12);                // the scan is a grid: the library may only be better
  CHECK(balle.epsilon == Approx(balle_epsilon).epsilon(1e-9));  // ... by the scan's O(step^2)
  CHECK(balle.alpha == Approx(balle_alpha).margin(2e-4));
  CHECK(balle_epsilon == Approx(3.131056).epsilon(1e-6));

  // Gilani et al., Fig. 1: the exact epsilon of this composition (a Gaussian with mu = sqrt(n)/sigma) is 2.9216;
  // recomputed here from Balle & Wang's exact delta.
  const double mu = std::sqrt(static_cast<double>(n)) / sigma;
  CHECK(exact_gaussian_delta(mu, 2.9215) > delta);
  CHECK(exact_gaussian_delta(mu, 2.9217) < delta);
  CHECK(balle.epsilon >= 2.9216);
  CHECK(mironov.epsilon >= 2.9216);
  CHECK(balle.epsilon <= mironov.epsilon);

  // The reverse conversions at eps*(delta) give back delta: delta(alpha, eps) <= delta iff eps(alpha, delta) <= eps.
  CHECK(optimal_rdp_delta(rho, n, mironov.epsilon, RdpConversion::kMironov).delta == Approx(delta).epsilon(1e-8));
  CHECK(optimal_rdp_delta(rho, n, balle.epsilon, RdpConversion::kBalle).delta == Approx(delta).epsilon(1e-8));
  // Mironov's delta in closed form: min_alpha exp((alpha - 1)(c alpha - eps)) at alpha = (1 + eps/c) / 2.
  const double eps = 4.0, alpha_star = 0.5 * (1.0 + eps / c);
  CHECK(optimal_rdp_delta(rho, n, eps, RdpConversion::kMironov).delta ==
        Approx(std::exp((alpha_star - 1.0) * (c * alpha_star - eps))).epsilon(1e-9));
}

TEST_CASE("Gaussian RDP -> DP from a binned pair: just below the closed form, both conversions", "[renyi]") {
  const double sigma = 5.0, delta = 1e-6;
  const int64_t n = 10;
  // Orders near the optimum (alpha ~ 9) weigh x around alpha * mu = 9: the grid reaches 60 = 9 + 10 sigma.
  const DominatingPair pair = binned_pair(Grid{-50.0, 0.01, 11001}, gaussian(0.0, sigma), gaussian(1.0, sigma));
  const RdpComparison binned = rdp_epsilon({pair}, n, delta);
  const RdpCurve rho = [sigma](double alpha) { return alpha / (2.0 * sigma * sigma); };
  const RdpEpsilon mironov = optimal_rdp_epsilon(rho, n, delta, RdpConversion::kMironov);
  const RdpEpsilon balle = optimal_rdp_epsilon(rho, n, delta, RdpConversion::kBalle);
  // Post-processing: rho_binned <= rho at every order, hence at the optimum.
  CHECK(binned.mironov.epsilon <= mironov.epsilon + 1e-12);
  CHECK(binned.balle.epsilon <= balle.epsilon + 1e-12);
  CHECK(binned.mironov.epsilon == Approx(mironov.epsilon).epsilon(1e-5));
  CHECK(binned.balle.epsilon == Approx(balle.epsilon).epsilon(1e-5));
  CHECK(binned.mironov.alpha == Approx(mironov.alpha).epsilon(1e-3));
  CHECK(binned.balle.epsilon <= binned.mironov.epsilon);
  // Same pair family through the explicit curve.
  CHECK(optimal_rdp_epsilon(rdp_curve({pair}), n, delta, RdpConversion::kBalle).epsilon == binned.balle.epsilon);

  const RdpDeltaComparison deltas = rdp_delta({pair}, n, binned.balle.epsilon);
  CHECK(deltas.balle.delta == Approx(delta).epsilon(1e-6));
  CHECK(deltas.mironov.delta > deltas.balle.delta);

  // Against the certified accountant on the same pair: RDP conversions are valid upper bounds, so never below the
  // certified lower bound, and (RDP is loose for the Gaussian) above the certified upper bound, which is near 2.92.
  const PairFamily family{PairKind::kAdditive, {pair}, 100, true, "binned Gaussian"};
  const PairBounds certified = account(family, n, AccountantOptions{});
  INFO("certified [" << certified.epsilon_lower(delta) << ", " << certified.epsilon_upper(delta) << "]");
  CHECK(certified.epsilon_lower(delta) <= binned.balle.epsilon);
  CHECK(certified.epsilon_upper(delta) < binned.balle.epsilon);
  CHECK(certified.epsilon_upper(delta) == Approx(2.9216).epsilon(1e-3));
}
