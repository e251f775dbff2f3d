#include "accounting/scenario_composition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "accounting/accountant_threads.hpp"
#include "accounting/composition.hpp"
#include "accounting/exponential_tilt.hpp"

namespace noiselearn {

// The upper scenario and every lower one composed n times: every direction of every scenario is a job of its own
// (run_jobs: on the accountant's threads; each composition is the same whatever their number).
std::pair<DirectionalPLDs, std::vector<DirectionalPLDs>> compose_scenarios(const DirectionalPLDs& upper,
                                                                           const std::vector<DirectionalPLDs>& lowers,
                                                                           int64_t n,
                                                                           const AccountantOptions& options) {
  std::pair<DirectionalPLDs, std::vector<DirectionalPLDs>> result;
  result.first.name = upper.name;
  result.second.resize(lowers.size());
  std::vector<std::function<void()>> jobs;
  auto add = [&](const DirectionalPLDs& in, DirectionalPLDs& out) {
    out.name = in.name;
    jobs.emplace_back([&in, &out, n, &options] { out.first_to_second = self_compose(in.first_to_second, n, options); });
    if (in.second_to_first) {
      out.second_to_first.emplace();
      jobs.emplace_back(
          [&in, &out, n, &options] { *out.second_to_first = self_compose(*in.second_to_first, n, options); });
    }
  };
  add(upper, result.first);
  for (size_t i = 0; i < lowers.size(); ++i) add(lowers[i], result.second[i]);
  run_jobs(jobs);
  return result;
}

// The per-release omega of each direction as the composition sees it: an upper bound without a separate B||A
// (a mirror pair, or the envelope of both signs) lets every release take the worse of the two.
std::pair<double, double> composition_omegas(const PairBounds& single) {
  const double first = single.single_release_infinity_mass.first, second = single.single_release_infinity_mass.second;
  if (single.upper.second_to_first) return {first, second};
  return {std::max(first, second), std::max(first, second)};
}

DirectionalPLDs tilted_for(const DirectionalPLDs& single, int64_t n, double epsilon) {
  DirectionalPLDs result = single;
  apply_tilt(result.first_to_second, chernoff_tilt_for_epsilon(result.first_to_second, n, epsilon));
  if (result.second_to_first)
    apply_tilt(*result.second_to_first, chernoff_tilt_for_epsilon(*result.second_to_first, n, epsilon));
  return result;
}

// log(1 - omega)^n, kept in log space so that a tiny omega composed many times is not lost.
double log_survival(double omega, int64_t n) { return static_cast<double>(n) * std::log1p(-omega); }

// Scenarios with a releases shifted up and n - a down (a = n/4, n/2; their mirror images n - a are the second
// direction): every such sequence can happen under the any-sequence relation, so each is a lower bound.
std::vector<DirectionalPLDs> mixed_sign_scenarios(const DirectionalPLDs& single, int64_t n,
                                                  const AccountantOptions& options) {
  std::vector<DirectionalPLDs> scenarios;
  const PrivacyLossDistribution& up = single.first_to_second;
  const PrivacyLossDistribution& down = *single.second_to_first;
  std::map<std::pair<bool, int64_t>, PrivacyLossDistribution> powers;
  auto power = [&](bool is_up, int64_t count) -> const PrivacyLossDistribution& {
    auto key = std::make_pair(is_up, count);
    auto found = powers.find(key);
    if (found == powers.end()) found = powers.emplace(key, self_compose(is_up ? up : down, count, options)).first;
    return found->second;
  };
  std::vector<int64_t> splits;
  for (int64_t a : {n / 4, n / 2})
    if (a >= 1 && a <= n - 1 && std::find(splits.begin(), splits.end(), a) == splits.end()) splits.push_back(a);
  for (int64_t a : splits) {
    DirectionalPLDs scenario;
    scenario.name = fmt::format("{} releases up, {} down", a, n - a);
    scenario.first_to_second = compose(power(true, a), power(false, n - a), options);
    scenario.second_to_first = compose(power(true, n - a), power(false, a), options);
    scenarios.push_back(std::move(scenario));
  }
  return scenarios;
}

}  // namespace noiselearn
