#include "losses/renyi_objective.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/errors.hpp"
#include "losses/geometric_tail_pair.hpp"

namespace noiselearn {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// gamma from G for a conversion, as a tensor (G and alpha may carry gradients).
torch::Tensor convert(RdpConversion conversion, const torch::Tensor& log_moment, const torch::Tensor& alpha,
                      int64_t compositions, double delta) {
  const double log_inverse_delta = -std::log(delta);
  const torch::Tensor alpha_minus_one = alpha - 1.0;
  const torch::Tensor composed = static_cast<double>(compositions) * log_moment / alpha_minus_one;
  if (conversion == RdpConversion::kMironov) return composed + log_inverse_delta / alpha_minus_one;
  return composed + torch::log(alpha_minus_one / alpha) + (log_inverse_delta - torch::log(alpha)) / alpha_minus_one;
}

}  // namespace

torch::Tensor log_renyi_moment(const LogPair& pair, const torch::Tensor& alpha) {
  const MaskedLogPair m = masked_log_pair(pair);
  const torch::Tensor a = alpha.to(pair.log_first.device());
  const torch::Tensor terms = a * m.log_first + (1.0 - a) * m.log_second;
  const torch::Tensor log_moment =
      torch::logsumexp(torch::where(m.both_finite, terms, torch::full_like(terms, -kInfinity)), 0);
  // A distinguishing event (second = 0 < first) has first^alpha second^(1 - alpha) = +inf for alpha > 1.
  const torch::Tensor any_infinite = m.infinite_loss.any();
  return torch::where(any_infinite, torch::full_like(log_moment, kInfinity), log_moment);
}

torch::Tensor log_renyi_moment(const LogPair& pair, double alpha) {
  return log_renyi_moment(pair, torch::full({}, alpha, pair.log_first.options().requires_grad(false)));
}

RenyiMomentDerivatives renyi_moment_derivatives(const LogPair& pair, double alpha) {
  torch::NoGradGuard no_grad;
  const MaskedLogPair m = masked_log_pair(pair);
  if (m.infinite_loss.any().item<bool>()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {kInfinity, nan, nan};
  }
  const torch::Tensor terms = torch::where(m.both_finite, alpha * m.log_first + (1.0 - alpha) * m.log_second,
                                           torch::full_like(m.log_first, -kInfinity));
  const torch::Tensor log_moment = torch::logsumexp(terms, 0);
  // pi = normalised summands; G' = E_pi[l], G'' = E_pi[(l - G')^2] (centred: no cancellation).
  const torch::Tensor pi = torch::exp(terms - log_moment);
  const torch::Tensor loss = m.log_first - m.log_second;
  const double mean = (pi * loss).sum().item<double>();
  const double variance = (pi * (loss - mean).square()).sum().item<double>();
  return {log_moment.item<double>(), mean, variance};
}

ConvertedEpsilon converted_epsilon(RdpConversion conversion, double alpha, int64_t compositions, double delta,
                                   const RenyiMomentDerivatives& moment) {
  const double n = static_cast<double>(compositions), am1 = alpha - 1.0, log_inverse_delta = -std::log(delta);
  const double u = n * moment.log_moment / am1;
  const double u1 = (n * moment.first - u) / am1;
  const double u2 = (n * moment.second - 2.0 * u1) / am1;
  if (conversion == RdpConversion::kMironov) {
    const double h = log_inverse_delta / am1;
    return {u + h, u1 - h / am1, u2 + 2.0 * h / (am1 * am1)};
  }
  const double k = log_inverse_delta - std::log(alpha);
  const double h = std::log(am1 / alpha) + k / am1;
  const double h1 = -k / (am1 * am1);
  const double h2 = 1.0 / (alpha * am1 * am1) + 2.0 * k / (am1 * am1 * am1);
  return {u + h, u1 + h1, u2 + h2};
}

double guarded_newton_alpha(double alpha, double first_derivative, double second_derivative) {
  if (!std::isfinite(first_derivative) || !std::isfinite(second_derivative) || !(second_derivative > 0.0)) return alpha;
  const double candidate = alpha - first_derivative / second_derivative;
  if (!std::isfinite(candidate)) return alpha;
  return candidate > 1.0 ? candidate : 1.0 + 0.5 * (alpha - 1.0);
}

double gaussian_optimal_alpha(double sigma_over_sensitivity, int64_t compositions, double delta) {
  return std::sqrt(2.0 * std::log(1.0 / delta) / static_cast<double>(compositions)) * sigma_over_sensitivity + 1.0;
}

void RenyiFamilyObjectiveOptions::validate() const {
  if (max_shift < 1)
    throw InputError(fmt::format("renyi objective: max_shift (s / Delta) {} must be at least 1", max_shift));
  if (compositions < 1) throw InputError(fmt::format("loss.compositions {} must be at least 1", compositions));
  if (!(delta > 0.0 && delta < 1.0)) throw InputError(fmt::format("loss.delta {} must lie in (0, 1)", delta));
  if (!(alpha > 1.0) || !std::isfinite(alpha))
    throw InputError(fmt::format("loss.alpha {} must be finite and > 1", alpha));
  if (!(smooth_max_temperature >= 0.0) || !std::isfinite(smooth_max_temperature))
    throw InputError(fmt::format("loss.smooth_max_temperature {} must be finite and >= 0", smooth_max_temperature));
}

RenyiFamilyObjective::RenyiFamilyObjective(int64_t window, double tail_ratio, RenyiFamilyObjectiveOptions options)
    : window_(window), tail_ratio_(tail_ratio), options_(options) {
  options_.validate();
  if (window < 1) throw InputError(fmt::format("model.window {} must be at least 1", window));
  if (!(tail_ratio > 0.0 && tail_ratio < 1.0))
    throw InputError(fmt::format("model.tail_ratio {} must lie in (0, 1)", tail_ratio));
  const int64_t m = options_.max_shift, cells = 2 * window + m - 1;
  // Shared explicit range j = -N - m + 1 .. N - 1 (column e = j + N + m - 1). For shift a the cells with
  // j <= -N - a (e < m - a) have both j and j + a in the left tail: the tail outcome already holds them.
  const torch::Tensor column = torch::arange(cells, torch::kLong).unsqueeze(0);
  const torch::Tensor shift = torch::arange(1, m + 1, torch::kLong).unsqueeze(1);
  left_tail_mask_ = column < (m - shift);
  shifts_ = torch::arange(1, m + 1, torch::TensorOptions().dtype(torch::kDouble));
}

void RenyiFamilyObjective::set_alpha(double alpha) {
  if (!(alpha > 1.0) || !std::isfinite(alpha))
    throw InputError(fmt::format("loss.alpha {} must be finite and > 1", alpha));
  options_.alpha = alpha;
}

namespace {

// The [m, 2N + m + 1] summand matrix of the batched objective: explicit cells, then left and right tails,
// and the privacy loss of every cell.
struct BatchedSummands {
  torch::Tensor log_terms;  // alpha first + (1 - alpha) second, -inf for the masked cells
  torch::Tensor losses;     // first - second (0 on masked cells)
};

BatchedSummands batched_summands(const torch::Tensor& theta, double tail_ratio, int64_t m, const torch::Tensor& mask,
                                 const torch::Tensor& shifts, const torch::Tensor& alpha, bool with_losses) {
  const int64_t n = theta.size(0) - 1, cells = 2 * n + m - 1;
  const torch::Tensor extended = extended_log_probabilities(theta, tail_ratio, m);  // i = -N - m + 1 .. N + m - 1
  const torch::Tensor first = extended.unfold(0, cells, 1).narrow(0, 1, m);         // row a - 1: P(j + a)
  const torch::Tensor second = extended.narrow(0, 0, cells).unsqueeze(0);           // P(j)
  const torch::Tensor device_mask = mask.to(theta.device());
  torch::Tensor terms = alpha * first + (1.0 - alpha) * second;
  terms = terms.masked_fill(device_mask, -kInfinity);
  // Tails (geometric_tail_pair.hpp): left first = p_N / (1 - r), second = p_N r^a / (1 - r), loss a ln(1/r);
  // right: first and second exchanged, loss -a ln(1/r). Summands p_N r^(a (1 - alpha)) / (1 - r) and
  // p_N r^(a alpha) / (1 - r).
  const double log_r = std::log(tail_ratio);
  const torch::Tensor a = shifts.to(theta.device()).unsqueeze(1);
  const torch::Tensor base = theta.narrow(0, n, 1) - std::log1p(-tail_ratio);
  const torch::Tensor left = base + (1.0 - alpha) * a * log_r;
  const torch::Tensor right = base + alpha * a * log_r;
  BatchedSummands out;
  out.log_terms = torch::cat({terms, left, right}, 1);
  if (with_losses) {
    const torch::Tensor explicit_losses = (first - second).masked_fill(device_mask, 0.0);
    out.losses = torch::cat({explicit_losses, -a * log_r, a * log_r}, 1);
  }
  return out;
}

}  // namespace

torch::Tensor RenyiFamilyObjective::log_moments(const torch::Tensor& theta, const torch::Tensor& alpha) const {
  if (theta.dim() != 1 || theta.size(0) != window_ + 1)
    throw std::invalid_argument("RenyiFamilyObjective: theta must have N + 1 entries");
  const torch::Tensor a = alpha.to(theta.device());
  return torch::logsumexp(
      batched_summands(theta, tail_ratio_, options_.max_shift, left_tail_mask_, shifts_, a, false).log_terms, 1);
}

torch::Tensor RenyiFamilyObjective::gamma(const torch::Tensor& theta) const {
  const torch::Tensor alpha = torch::full({}, options_.alpha, theta.options().requires_grad(false));
  const torch::Tensor moments = log_moments(theta, alpha);
  const double tau = options_.smooth_max_temperature;
  // Danskin: the gradient of the max is the gradient of the active shift.
  const torch::Tensor worst = tau > 0.0 ? tau * torch::logsumexp(moments / tau, 0) : moments.max();
  return convert(options_.conversion, worst, alpha, options_.compositions, options_.delta);
}

RenyiFamilyEvaluation RenyiFamilyObjective::evaluate(const torch::Tensor& theta) const {
  torch::NoGradGuard no_grad;
  const torch::Tensor alpha = torch::full({}, options_.alpha, theta.options());
  const torch::Tensor moments = log_moments(theta, alpha).to(torch::kCPU).contiguous();
  RenyiFamilyEvaluation e;
  e.log_moments.assign(moments.data_ptr<double>(), moments.data_ptr<double>() + moments.numel());
  e.worst_shift = moments.argmax().item<int64_t>() + 1;
  const double tau = options_.smooth_max_temperature;
  e.log_moment = tau > 0.0 ? tau * torch::logsumexp(moments / tau, 0).item<double>() : moments.max().item<double>();
  e.gamma = convert(options_.conversion, torch::full({}, e.log_moment, torch::kDouble),
                    torch::full({}, options_.alpha, torch::kDouble), options_.compositions, options_.delta)
                .item<double>();
  return e;
}

double RenyiFamilyObjective::value(const torch::Tensor& theta) const {
  torch::NoGradGuard no_grad;
  return gamma(theta).item<double>();
}

std::pair<double, torch::Tensor> RenyiFamilyObjective::value_and_gradient(const torch::Tensor& theta) const {
  const torch::Tensor leaf = theta.detach().requires_grad_(true);
  const torch::Tensor g = gamma(leaf);
  const torch::Tensor gradient = torch::autograd::grad({g}, {leaf})[0];
  return {g.item<double>(), gradient};
}

ConvertedEpsilon RenyiFamilyObjective::alpha_derivatives(const torch::Tensor& theta) const {
  torch::NoGradGuard no_grad;
  const torch::Tensor alpha = torch::full({}, options_.alpha, theta.options());
  const BatchedSummands s =
      batched_summands(theta, tail_ratio_, options_.max_shift, left_tail_mask_, shifts_, alpha, true);
  const torch::Tensor moments = torch::logsumexp(s.log_terms, 1, true);  // [m, 1]
  const torch::Tensor pi = torch::exp(s.log_terms - moments);
  const torch::Tensor mean = (pi * s.losses).sum(1, true);
  const torch::Tensor variance = (pi * (s.losses - mean).square()).sum(1);
  const torch::Tensor g = moments.squeeze(1), g1 = mean.squeeze(1);
  RenyiMomentDerivatives d;
  const double tau = options_.smooth_max_temperature;
  if (tau > 0.0) {
    // G_s = tau log sum_a exp(G_a / tau), w = softmax(G / tau): G_s' = E_w[G_a'],
    // G_s'' = E_w[G_a''] + Var_w[G_a'] / tau.
    const torch::Tensor w = torch::softmax(g / tau, 0);
    const double first = (w * g1).sum().item<double>();
    d = {tau * torch::logsumexp(g / tau, 0).item<double>(), first,
         (w * variance).sum().item<double>() + (w * (g1 - first).square()).sum().item<double>() / tau};
  } else {
    const int64_t worst = g.argmax().item<int64_t>();
    d = {g[worst].item<double>(), g1[worst].item<double>(), variance[worst].item<double>()};
  }
  return converted_epsilon(options_.conversion, options_.alpha, options_.compositions, options_.delta, d);
}

double RenyiFamilyObjective::newton_update(const torch::Tensor& theta) {
  const ConvertedEpsilon d = alpha_derivatives(theta);
  return accept_alpha(theta, guarded_newton_alpha(options_.alpha, d.first, d.second), d.value);
}

double RenyiFamilyObjective::accept_alpha(const torch::Tensor& theta, double candidate, double value_before) {
  // The Newton step uses the worst shift's G (or the smooth max's); the max over shifts is convex in alpha too
  // but has kinks where the worst shift changes, and a step across one can increase gamma. So the step is
  // halved until gamma (the max over every shift) decreases, at most 30 times; otherwise alpha stays.
  const double before = options_.alpha;
  for (int halving = 0; halving < 30 && candidate != before; ++halving) {
    options_.alpha = candidate;
    if (value(theta) < value_before) return options_.alpha;
    candidate = before + 0.5 * (candidate - before);
  }
  options_.alpha = before;
  return before;
}

double RenyiFamilyObjective::minimise_alpha(const torch::Tensor& theta) {
  for (int step = 0; step < 50; ++step) {
    const double before = options_.alpha;
    newton_update(theta);
    if (!(std::abs(options_.alpha - before) > 1e-12 * before)) break;
  }
  return options_.alpha;
}

MaxNewtonModel RenyiFamilyObjective::newton_model(const torch::Tensor& theta,
                                                  const std::vector<double>& weights) const {
  const RenyiFamilyEvaluation e = evaluate(theta);
  const torch::Tensor cpu = theta.detach().to(torch::kCPU).to(torch::kDouble).contiguous();
  const int64_t n = window_, m = options_.max_shift;
  const double* log_p = cpu.data_ptr<double>();
  const double log_r = std::log(tail_ratio_), alpha = options_.alpha, log_tail = -std::log1p(-tail_ratio_);
  const auto index = [n](int64_t i) { return std::min<int64_t>(i < 0 ? -i : i, n); };
  const auto log_probability = [&](int64_t i) {
    const int64_t k = i < 0 ? -i : i;
    return k <= n ? log_p[k] : log_p[n] + static_cast<double>(k - n) * log_r;
  };
  const double tau = options_.smooth_max_temperature;
  std::vector<double> weight(static_cast<size_t>(m), 0.0);
  if (tau > 0.0) {
    double total = 0.0;
    for (int64_t a = 0; a < m; ++a) total += weight[a] = std::exp((e.log_moments[a] - e.log_moment) / tau);
    for (double& w : weight) w /= total;
  } else if (static_cast<int64_t>(weights.size()) == m) {
    for (int64_t a = 0; a < m; ++a) weight[a] = weights[a] + options_.other_shift_curvature;
  } else {
    for (int64_t a = 0; a < m; ++a) weight[a] = a == e.worst_shift - 1 ? 1.0 : options_.other_shift_curvature;
  }
  const double c = static_cast<double>(options_.compositions) / (alpha - 1.0);
  MaxNewtonModel model;
  model.curvature = SymmetricBandedMatrix(n + 1, m);
  std::vector<std::vector<double>> gradients(static_cast<size_t>(m),
                                             std::vector<double>(static_cast<size_t>(n + 1), 0.0));
  std::vector<double> values(static_cast<size_t>(m));
  for (int64_t a = 1; a <= m; ++a) {
    const double w = weight[static_cast<size_t>(a - 1)];
    const double log_g = e.log_moments[static_cast<size_t>(a - 1)];
    std::vector<double>& gradient = gradients[static_cast<size_t>(a - 1)];
    values[static_cast<size_t>(a - 1)] =
        convert(options_.conversion, torch::full({}, log_g, torch::kDouble), torch::full({}, alpha, torch::kDouble),
                options_.compositions, options_.delta)
            .item<double>();
    for (int64_t j = -n - a + 1; j <= n - 1; ++j) {
      const int64_t u = index(j + a), v = index(j);
      const double pi = std::exp(alpha * log_probability(j + a) + (1.0 - alpha) * log_probability(j) - log_g);
      if (!(pi > 0.0)) continue;
      gradient[static_cast<size_t>(u)] += c * alpha * pi;
      gradient[static_cast<size_t>(v)] += c * (1.0 - alpha) * pi;
      if (u == v || !(w > 0.0)) continue;
      const double h = c * alpha * (alpha - 1.0) * w * pi;
      model.curvature.add(u, u, h);
      model.curvature.add(v, v, h);
      model.curvature.add(u, v, -h);
    }
    // The two tail outcomes scale with p_N (both sides in the same tail: linear in q_N, no curvature).
    const double base = log_p[n] + log_tail;
    const double left = std::exp(base + (1.0 - alpha) * static_cast<double>(a) * log_r - log_g);
    const double right = std::exp(base + alpha * static_cast<double>(a) * log_r - log_g);
    gradient[static_cast<size_t>(n)] += c * (left + right);
  }
  if (tau > 0.0) {
    // One piece: the smooth max, gradient sum_a weight_a grad gamma_a.
    std::vector<double> smooth(static_cast<size_t>(n + 1), 0.0);
    for (int64_t a = 0; a < m; ++a)
      for (int64_t k = 0; k <= n; ++k)
        smooth[static_cast<size_t>(k)] += weight[a] * gradients[a][static_cast<size_t>(k)];
    model.gradients.push_back(std::move(smooth));
    model.values.push_back(value(theta));
  } else {
    model.gradients = std::move(gradients);
    model.values = std::move(values);
  }
  return model;
}

double reference_log_renyi_moment(const std::vector<double>& log_window, double tail_ratio, int64_t shift,
                                  double alpha) {
  const int64_t n = static_cast<int64_t>(log_window.size()) - 1;
  const double log_r = std::log(tail_ratio), log_tail = -std::log1p(-tail_ratio);
  const auto log_p = [&](int64_t i) {
    const int64_t k = i < 0 ? -i : i;
    return k <= n ? log_window[static_cast<size_t>(k)] : log_window.back() + static_cast<double>(k - n) * log_r;
  };
  std::vector<double> terms;
  terms.reserve(static_cast<size_t>(2 * n + shift + 1));
  const double a = static_cast<double>(shift);
  terms.push_back(log_window.back() + log_tail + (1.0 - alpha) * a * log_r);  // left tail, j <= -N - a
  for (int64_t j = -n - shift + 1; j <= n - 1; ++j)
    terms.push_back(alpha * log_p(j + shift) + (1.0 - alpha) * log_p(j));
  terms.push_back(log_window.back() + log_tail + alpha * a * log_r);  // right tail, j >= N
  double largest = -kInfinity;
  for (double t : terms) largest = std::max(largest, t);
  double sum = 0.0;
  for (double t : terms) sum += std::exp(t - largest);
  return largest + std::log(sum);
}

}  // namespace noiselearn
