#include "accounting/loss_step_choice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "accounting/exponential_tilt.hpp"

namespace noiselearn {

namespace {

// The mean of the privacy loss of a PLD's finite part under the tilt lambda (the law that decides the tail at the
// epsilon the tilt is made for).
double tilted_mean(const PrivacyLossDistribution& pld, double lambda) {
  long double sum = 0.0L, weight = 0.0L;
  const double top = pld.loss(pld.masses.empty() ? 0 : pld.masses.size() - 1);
  for (size_t i = 0; i < pld.masses.size(); ++i) {
    if (pld.masses[i] <= 0.0) continue;
    const long double w = pld.masses[i] * std::exp(lambda * (pld.loss(i) - top));
    sum += w * pld.loss(i);
    weight += w;
  }
  return weight > 0.0L ? static_cast<double>(sum / weight) : 0.0;
}

// The discretisation's part of the bracket after n releases, predicted from one release: n times the difference of the
// tilted means of the upper and lower PLDs (a shift of the composed loss that the tail follows), relative to epsilon
// (epsilon queries: times lambda, relative to delta).
double predicted_relative_width(const PairBounds& single, int64_t n, const AccountingQueries& queries) {
  std::vector<bool> directions{false};
  if (single.upper.second_to_first) directions.push_back(true);
  auto width_at = [&](bool reverse, double lambda) {
    return static_cast<double>(n) * (tilted_mean(single.upper.direction(reverse), lambda) -
                                     tilted_mean(single.lower.front().direction(reverse), lambda));
  };
  double widest = 0.0;
  // epsilon at delta: the guarantee is the larger direction's epsilon; each direction's width relative to it.
  for (double delta : queries.deltas) {
    double eps = 0.0;
    for (bool reverse : directions) eps = std::max(eps, chernoff_epsilon(single.upper.direction(reverse), n, delta));
    if (!(eps > 0.0) || !std::isfinite(eps)) continue;
    for (bool reverse : directions) {
      const double lambda = chernoff_tilt_for_epsilon(single.upper.direction(reverse), n, eps);
      if (lambda > 0.0) widest = std::max(widest, width_at(reverse, lambda) / eps);
    }
  }
  // delta at epsilon: the direction with the larger Chernoff bound decides delta; its width times lambda, relative.
  for (double eps : queries.epsilons) {
    double best_log_bound = -INFINITY, width = 0.0;
    for (bool reverse : directions) {
      const PrivacyLossDistribution& up = single.upper.direction(reverse);
      const double lambda = chernoff_tilt_for_epsilon(up, n, eps);
      if (!(lambda > 0.0)) continue;
      const double log_bound = static_cast<double>(n) * log_moment(up, lambda) - lambda * eps;
      if (log_bound > best_log_bound) {
        best_log_bound = log_bound;
        width = width_at(reverse, lambda) * lambda;
      }
    }
    widest = std::max(widest, width);
  }
  return widest;
}

// The largest standard deviation of one release's privacy loss over the upper bound's directions (finite part).
double loss_spread(const PairBounds& single) {
  double widest = 0.0;
  for (bool reverse : {false, true}) {
    if (reverse && !single.upper.second_to_first) break;
    const PrivacyLossDistribution& p = single.upper.direction(reverse);
    long double mass = 0.0L, mean = 0.0L, square = 0.0L;
    for (size_t i = 0; i < p.masses.size(); ++i) {
      mass += p.masses[i];
      mean += p.masses[i] * p.loss(i);
      square += p.masses[i] * p.loss(i) * p.loss(i);
    }
    if (mass <= 0.0L) continue;
    const long double m = mean / mass;
    widest = std::max(widest, static_cast<double>(std::sqrt(std::max(0.0L, square / mass - m * m))));
  }
  return widest;
}

// The grid points the n-fold composition will span (16 standard deviations of the composed loss of the wider
// direction): a finer step than max_points allows would only be coarsened again.
double predicted_points(const PairBounds& single, int64_t n) {
  return 16.0 * loss_spread(single) * std::sqrt(static_cast<double>(n)) / single.upper.first_to_second.loss_step;
}

constexpr int kMostHalvings = 24;

}  // namespace

LossStepChoice choose_loss_step(PairBounds single, int64_t n, const AccountingQueries& queries,
                                const AccountantOptions& options, double tolerance,
                                const std::function<PairBounds(const AccountantOptions&)>& discretise) {
  LossStepChoice choice{std::move(single), options, 0.0};
  AccountantOptions aim = options;
  aim.adaptive_skip_width = tolerance;
  int halvings = loss_step_halvings(choice.single, n, queries, aim);
  if (halvings > 0) {
    choice.options.loss_step = std::ldexp(options.loss_step, -halvings);
    choice.single = discretise(choice.options);
  }
  for (; halvings < kMostHalvings; ++halvings) {
    const double spread = loss_spread(choice.single);
    if (!(spread > 0.0) || choice.options.loss_step <= spread / 8.0) break;
    if (2.0 * 2.0 * predicted_points(choice.single, n) > static_cast<double>(options.max_points)) {
      choice.loss_step_wanted = choice.options.loss_step;
      while (choice.loss_step_wanted > spread / 8.0) choice.loss_step_wanted /= 2.0;
      break;
    }
    choice.options.loss_step /= 2.0;
    choice.single = discretise(choice.options);
  }
  return choice;
}

int loss_step_halvings(const PairBounds& single, int64_t n, const AccountingQueries& queries,
                       const AccountantOptions& options) {
  double width = predicted_relative_width(single, n, queries), points = predicted_points(single, n);
  int halvings = 0;
  while (halvings < 3 && width > options.adaptive_skip_width &&
         2.0 * points <= static_cast<double>(options.max_points)) {
    ++halvings;
    width /= 4.0;
    points *= 2.0;
  }
  return halvings;
}

std::string halved_loss_step_line(const AccountantOptions& used, const AccountantOptions& requested) {
  if (used.loss_step == requested.loss_step) return "";
  return fmt::format(
      "loss step {:g} (the default halved it from {:g}: the bracket at a query was predicted wider than "
      "{:g} relative, or the step was above an eighth of one release's loss spread)\n",
      used.loss_step, requested.loss_step, requested.adaptive_skip_width);
}

}  // namespace noiselearn
