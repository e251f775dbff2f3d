#pragma once
// Log-space arithmetic for probabilities that span hundreds of orders of magnitude (src/README.md, numerical
// rules; Gilani et al. erratum E-Gilani-4 of experiments/errata.md: naive differences of the normal CDF underflow
// to 0 beyond about 8 sigma).
#include <cmath>
#include <limits>
#include <vector>

namespace noiselearn {

inline constexpr double kNegativeInfinity = -std::numeric_limits<double>::infinity();

// log(1 - exp(-d)) for d >= 0, accurate for small and large d (Maechler 2012).
double log1mexp(double d);

// log(exp(a) - exp(b)) for a >= b; -inf if a == b.
double log_diff_exp(double a, double b);

// log(exp(a) + exp(b)).
double log_add_exp(double a, double b);

// log(sum_i exp(v_i)); -inf for an empty vector or all -inf.
double log_sum_exp(const std::vector<double>& values);

// log Phi(x), the standard normal log-CDF, accurate from x = -1e150 to +inf.
double log_normal_cdf(double x);

// log(Phi(b) - Phi(a)) for a <= b, accurate in both tails (uses the symmetry of Phi so that the two CDF
// values subtracted are both small).
double log_normal_interval(double a, double b);

}  // namespace noiselearn
