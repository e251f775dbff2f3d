#pragma once
// What the tests of the accountant's events share (test_release_events.cpp, test_coordinate_product.cpp): an event
// from key/value text, its certified bounds, the discrete Laplace and Gaussian written out, the sampled mixture, and
// the check that a bracket holds an exact value. Include after catch.hpp.
#include <cmath>
#include <string>
#include <vector>

#include "accounting/release_events.hpp"

namespace noiselearn::testing {

inline ReleaseEvent event(const std::string& mechanism, EventFields fields, const TableReader& read = {}) {
  fields.insert(fields.begin(), {"mechanism", mechanism});
  return parse_release_event(fields, "test", read);
}

inline PairBounds account_one(const ReleaseEvent& e, RecordRelation relation = RecordRelation::kAddOrRemove,
                              const AccountantOptions& options = {}) {
  ReleaseDescription d;
  d.relation = relation;
  d.events.push_back(e);
  return account_events(d, options);
}

// The discrete Laplace pmf with scale t, centred at c, on [lo, hi] (what lies beyond is left out: the tests choose
// supports where it is below 1e-17).
inline std::vector<double> discrete_laplace(double t, int c, int lo, int hi) {
  const double r = std::exp(-1.0 / t), norm = (1.0 - r) / (1.0 + r);
  std::vector<double> p;
  for (int x = lo; x <= hi; ++x) p.push_back(norm * std::pow(r, std::abs(x - c)));
  return p;
}

// The discrete Gaussian pmf with sigma, centred at c, on [lo, hi] (normalised over [-400, 400]).
inline std::vector<double> discrete_gaussian(double sigma, int c, int lo, int hi) {
  double z = 0.0;
  for (int x = -400; x <= 400; ++x) z += std::exp(-x * x / (2.0 * sigma * sigma));
  std::vector<double> p;
  for (int x = lo; x <= hi; ++x) p.push_back(std::exp(-(x - c) * (x - c) / (2.0 * sigma * sigma)) / z);
  return p;
}

// (1 - q) Q + q P, entry by entry.
inline std::vector<double> mix(const std::vector<double>& q_pmf, const std::vector<double>& p_pmf, double q) {
  std::vector<double> a(q_pmf.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = (1.0 - q) * q_pmf[i] + q * p_pmf[i];
  return a;
}

// The bracket [lower, upper] of delta(eps) holds `exact` (up to 1e-12 relative and `slack` absolute).
inline void check_bracket(const PairBounds& b, double exact, double eps, double slack = 1e-13) {
  INFO("eps " << eps << ": [" << b.delta_lower(eps) << ", " << b.delta_upper(eps) << "], exact " << exact);
  CHECK(b.delta_lower(eps) <= exact * (1.0 + 1e-12) + slack);
  CHECK(b.delta_upper(eps) >= exact * (1.0 - 1e-12) - slack);
}

}  // namespace noiselearn::testing
