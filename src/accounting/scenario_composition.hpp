#pragma once
// How a pair's scenarios are composed (pair_accountant.hpp's bounds, before and after refinement): the upper scenario
// and every lower one n times, each direction a job of the accountant's threads; the per-release distinguishing
// events as the composition sees them; and the fixed sequences that mix releases up and down (lower bounds).
#include <cstdint>
#include <utility>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "accounting/pair_accountant.hpp"

namespace noiselearn {

// The upper scenario and every lower one composed n times.
std::pair<DirectionalPLDs, std::vector<DirectionalPLDs>> compose_scenarios(const DirectionalPLDs& upper,
                                                                           const std::vector<DirectionalPLDs>& lowers,
                                                                           int64_t n, const AccountantOptions& options);
// The per-release omega of each direction as the composition sees it.
std::pair<double, double> composition_omegas(const PairBounds& single);
// log((1 - omega)^n).
double log_survival(double omega, int64_t n);
// A copy of single-release PLDs with each direction tilted by its Chernoff-optimal lambda for eps after n compositions
// (exponential_tilt.hpp): the error of every composition made from it is relative to the tail delta at eps depends on.
DirectionalPLDs tilted_for(const DirectionalPLDs& single, int64_t n, double epsilon);
// Scenarios with a releases shifted up and n - a down (a = n/4, n/2).
std::vector<DirectionalPLDs> mixed_sign_scenarios(const DirectionalPLDs& single, int64_t n,
                                                  const AccountantOptions& options);

}  // namespace noiselearn
