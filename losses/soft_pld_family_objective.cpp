#include "losses/soft_pld_family_objective.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/errors.hpp"
#include "losses/geometric_tail_pair.hpp"

namespace noiselearn {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::vector<double> to_vector(const torch::Tensor& t) {
  const torch::Tensor cpu = t.detach().to(torch::kCPU).to(torch::kDouble).contiguous();
  return std::vector<double>(cpu.data_ptr<double>(), cpu.data_ptr<double>() + cpu.numel());
}

// Reverse cumulative sum along dim 1 shifted by one: out[., j] = sum_{k > j} x[., k].
torch::Tensor sum_above(const torch::Tensor& x) {
  const torch::Tensor inclusive = x.flip(1).cumsum(1).flip(1);
  return torch::cat({inclusive.narrow(1, 1, x.size(1) - 1), torch::zeros({x.size(0), 1}, x.options())}, 1);
}

}  // namespace

std::string to_string(ShiftCombination combination) {
  return combination == ShiftCombination::kEnvelope ? "envelope" : "worst-shift";
}

ShiftCombination parse_shift_combination(const std::string& text) {
  if (text == "envelope") return ShiftCombination::kEnvelope;
  if (text == "worst-shift") return ShiftCombination::kWorstShift;
  throw InputError(fmt::format("loss.soft_pld_shifts '{}' is not one of: envelope, worst-shift", text));
}

std::string to_string(SoftPldTarget target) { return target == SoftPldTarget::kEpsilon ? "epsilon" : "log-delta"; }

SoftPldTarget parse_soft_pld_target(const std::string& text) {
  if (text == "epsilon") return SoftPldTarget::kEpsilon;
  if (text == "log-delta") return SoftPldTarget::kLogDelta;
  throw InputError(fmt::format("loss.soft_pld_minimise '{}' is not one of: epsilon, log-delta", text));
}

void SoftPldFamilyObjectiveOptions::validate() const {
  if (max_shift < 1)
    throw InputError(fmt::format("soft PLD objective: max_shift (s / Delta) {} must be at least 1", max_shift));
  if (compositions < 1) throw InputError(fmt::format("loss.compositions {} must be at least 1", compositions));
  if (!(delta > 0.0 && delta < 1.0)) throw InputError(fmt::format("loss.delta {} must lie in (0, 1)", delta));
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon))
    throw InputError(fmt::format("loss.epsilon {} must be finite and >= 0", epsilon));
  if (!(loss_step > 0.0 && loss_step <= 1.0))
    throw InputError(fmt::format("loss.soft_pld_loss_step {} must be in (0, 1]", loss_step));
  if (!(tail_mass >= 0.0 && tail_mass < 1e-3))
    throw InputError(fmt::format("soft PLD tail mass {} must be in [0, 1e-3)", tail_mass));
  if (max_points < 1024) throw InputError(fmt::format("soft PLD max_points {} must be at least 1024", max_points));
}

double soft_pld_epsilon(const SoftPld& pld, double loss_step, double delta, double* excess) {
  const std::vector<double> m = to_vector(pld.masses);
  const double omega = pld.infinity_mass.detach().item<double>();
  if (omega >= delta) {
    if (excess) *excess = 0.0;
    return kInfinity;
  }
  const double decay = std::exp(-loss_step);
  const int64_t size = static_cast<int64_t>(m.size());
  // From the top: S = sum_{k > j} m_k, E = sum_{k > j} m_k e^{l_{j+1} - l_k} (all terms >= 0, no cancellation);
  // delta(l_j) = omega + S - e^{-step} E. The first j (from the top) with delta(l_j) >= delta brackets eps in
  // [l_j, l_{j+1}), where delta(eps) = omega + S - e^{eps - l_{j+1}} E. Below the grid (j = -1) the same formula
  // holds for every eps < l_0.
  double s = 0.0, e = 0.0;
  for (int64_t j = size - 1; j >= -1; --j) {
    if (j + 1 < size) {
      const double mass = std::max(m[static_cast<size_t>(j + 1)], 0.0);
      s += mass;
      e = mass + decay * e;
    }
    const double at_point = omega + s - decay * e;
    if (j >= 0 && at_point < delta) continue;
    const double surplus = omega + s - delta;
    if (excess) *excess = surplus;
    if (!(surplus > 0.0) || !(e > 0.0)) return -kInfinity;  // the whole curve lies below delta
    return static_cast<double>(pld.first + j + 1) * loss_step + std::log(surplus / e);
  }
  return -kInfinity;
}

struct SoftPldFamilyObjective::Singles {
  torch::Tensor masses;  // [m, K]: row a - 1 is shift a's single-release soft PLD
  int64_t first = 0;     // grid index of column 0
  double step = 0.0;
  torch::Tensor infinity_mass;  // scalar: the family is strictly positive, so 0
};

SoftPldFamilyObjective::SoftPldFamilyObjective(int64_t window, double tail_ratio, SoftPldFamilyObjectiveOptions options)
    : window_(window), tail_ratio_(tail_ratio), options_(options) {
  options_.validate();
  if (window < 1) throw InputError(fmt::format("model.window {} must be at least 1", window));
  if (!(tail_ratio > 0.0 && tail_ratio < 1.0))
    throw InputError(fmt::format("model.tail_ratio {} must lie in (0, 1)", tail_ratio));
  const int64_t m = options_.max_shift, cells = 2 * window + m - 1;
  // The shared explicit range j = -N - m + 1 .. N - 1 (column e = j + N + m - 1); for shift a the cells with
  // j <= -N - a lie in its left tail outcome (geometric_tail_pair.hpp).
  const torch::Tensor column = torch::arange(cells, torch::kLong).unsqueeze(0);
  const torch::Tensor shift = torch::arange(1, m + 1, torch::kLong).unsqueeze(1);
  left_tail_mask_ = column < (m - shift);
}

SoftPldFamilyObjective::Singles SoftPldFamilyObjective::singles(const torch::Tensor& theta) const {
  if (theta.dim() != 1 || theta.size(0) != window_ + 1)
    throw std::invalid_argument("SoftPldFamilyObjective: theta must have N + 1 entries");
  const int64_t n = window_, m = options_.max_shift, cells = 2 * n + m - 1;
  const auto options = theta.options();
  const torch::Tensor extended = extended_log_probabilities(theta, tail_ratio_, m);  // i = -N - m + 1 .. N + m - 1
  const torch::Tensor log_first = extended.unfold(0, cells, 1).narrow(0, 1, m);      // row a - 1: P(j + a)
  const torch::Tensor log_second = extended.narrow(0, 0, cells).unsqueeze(0);        // P(j)
  const torch::Tensor mask = left_tail_mask_.to(theta.device());
  // The two tail outcomes of every shift (closed form): left mass p_N / (1 - r), loss a ln(1/r); right mass
  // p_N r^a / (1 - r), loss -a ln(1/r).
  const double log_r = std::log(tail_ratio_);
  const torch::Tensor a = torch::arange(1, m + 1, options).unsqueeze(1);
  const torch::Tensor log_tail = theta.narrow(0, n, 1) - std::log1p(-tail_ratio_);
  const torch::Tensor masses = torch::cat({torch::exp(log_first).masked_fill(mask, 0.0),
                                           torch::exp(log_tail).expand({m, 1}), torch::exp(log_tail + a * log_r)},
                                          1);
  const torch::Tensor losses = torch::cat({(log_first - log_second).masked_fill(mask, 0.0), -a * log_r, a * log_r}, 1);

  Singles out;
  out.infinity_mass = torch::zeros({}, options);
  double lowest = 0.0, highest = 0.0, step = options_.loss_step;
  {
    torch::NoGradGuard guard;
    lowest = losses.min().item<double>();
    highest = losses.max().item<double>();
    if (!std::isfinite(lowest) || !std::isfinite(highest))
      throw std::invalid_argument("SoftPldFamilyObjective: theta must be finite");
    while ((highest - lowest) / step + 3.0 > static_cast<double>(options_.max_points)) step *= 2.0;
    if (step != options_.loss_step) {
      static bool warned = false;
      if (!warned)
        spdlog::warn("soft PLD objective: single-release losses span [{:.3g}, {:.3g}]; loss step raised to {:g}",
                     lowest, highest, step);
      warned = true;
    }
  }
  // The curves below weigh masses by e^{-(k - centre) step}; beyond 1300 nats they would overflow.
  if (highest - lowest > 1300.0)
    throw InputError(
        fmt::format("soft PLD objective: single-release privacy losses span {:.4g} nats (at most 1300 supported)",
                    highest - lowest));
  const torch::Tensor position = losses / step;
  const torch::Tensor cell = torch::floor(position).detach();
  const torch::Tensor fraction = position - cell;
  const int64_t first = static_cast<int64_t>(std::floor(lowest / step)) - 1;
  const int64_t size = static_cast<int64_t>(std::floor(highest / step)) - first + 3;
  const torch::Tensor row =
      torch::arange(m, torch::TensorOptions().dtype(torch::kLong).device(theta.device())).unsqueeze(1) * size;
  const torch::Tensor slot = ((cell - static_cast<double>(first)).to(torch::kLong) + row).view({-1});
  torch::Tensor pmf = torch::zeros({m * size}, options);
  pmf = pmf.scatter_add(0, slot, (masses * (1.0 - fraction)).view({-1}))
            .scatter_add(0, slot + 1, (masses * fraction).view({-1}));
  out.masses = pmf.view({m, size});
  out.first = first;
  out.step = step;
  return out;
}

int64_t SoftPldFamilyObjective::dominant_single_release_shift(const torch::Tensor& theta) const {
  torch::NoGradGuard guard;
  const Singles s = singles(theta);
  const int64_t size = s.masses.size(1);
  const double centre = static_cast<double>(size / 2);
  const torch::Tensor j = torch::arange(size, s.masses.options());
  const torch::Tensor g =
      torch::exp((j + 1.0 - centre) * s.step) * sum_above(s.masses * torch::exp(-(j - centre) * s.step));
  const auto [largest, argmax] = (sum_above(s.masses) - std::exp(-s.step) * g).max(0);
  const torch::Tensor counts = torch::bincount(argmax.masked_select(largest > 0.0), {}, options_.max_shift);
  return 1 + counts.argmax().item<int64_t>();
}

SoftPld SoftPldFamilyObjective::envelope_pld(const torch::Tensor& theta, double* loss_step) const {
  const Singles s = singles(theta);
  if (loss_step) *loss_step = s.step;
  const int64_t size = s.masses.size(1);
  const auto options = s.masses.options();
  const double decay = std::exp(-s.step);
  // Curves at the grid points j: G_j = sum_{k > j} e^{-(k - j - 1) step} m_k, delta_j = omega + sum_{k > j} m_k -
  // e^{-step} G_j (profile_envelope.hpp), via sums of non-negative terms weighed around the grid's centre.
  const double centre = static_cast<double>(size / 2);
  const torch::Tensor j = torch::arange(size, options);
  const torch::Tensor weighted_above = sum_above(s.masses * torch::exp(-(j - centre) * s.step));
  const torch::Tensor g = torch::exp((j + 1.0 - centre) * s.step) * weighted_above;
  const torch::Tensor curves = s.infinity_mass + sum_above(s.masses) - decay * g;  // [m, K]

  // The envelope (Danskin at every point: the maximising shift's value and gradient).
  const torch::Tensor argmax = curves.detach().argmax(0);  // [K]
  const torch::Tensor index = argmax.unsqueeze(0);
  const torch::Tensor envelope = curves.gather(0, index).squeeze(0);
  const torch::Tensor g_attained = g.gather(0, index).squeeze(0);
  const torch::Tensor m_attained = s.masses.gather(0, index).squeeze(0);
  // G of the envelope: the attaining shift's own G where it attains both j and j + 1 (exactly equal there), else
  // the difference (delta_j - delta_{j+1}) / (1 - e^-step) at a change of shift.
  const torch::Tensor same_next = argmax.narrow(0, 0, size - 1) == argmax.narrow(0, 1, size - 1);
  const torch::Tensor g_envelope = torch::cat(
      {torch::where(same_next, g_attained.narrow(0, 0, size - 1),
                    (envelope.narrow(0, 0, size - 1) - envelope.narrow(0, 1, size - 1)) / -std::expm1(-s.step)),
       g_attained.narrow(0, size - 1, 1)});
  // m_{j+1} = G_j - e^-step G_{j+1}: the attaining shift's own mass where one shift attains j, j + 1 and j + 2.
  const torch::Tensor extended_argmax = torch::cat({argmax, argmax.narrow(0, size - 1, 1)});
  const torch::Tensor same_three =
      torch::logical_and(extended_argmax.narrow(0, 0, size - 1) == extended_argmax.narrow(0, 1, size - 1),
                         extended_argmax.narrow(0, 1, size - 1) == extended_argmax.narrow(0, 2, size - 1));
  const torch::Tensor upper_masses = torch::where(
      same_three, m_attained.narrow(0, 1, size - 1),
      torch::clamp_min(g_envelope.narrow(0, 0, size - 1) - decay * g_envelope.narrow(0, 1, size - 1), 0.0));
  // The envelope's total is the largest input total (its curve at eps = -inf); what the chord leaves goes to the
  // lowest point (no input has mass there, so no curve value changes).
  const torch::Tensor largest_total = (s.masses.sum(1) + s.infinity_mass).max();
  const torch::Tensor lowest_mass =
      torch::clamp_min(largest_total - s.infinity_mass - upper_masses.sum(), 0.0).unsqueeze(0);
  return SoftPld{torch::cat({lowest_mass, upper_masses}), s.first, s.infinity_mass};
}

double SoftPldFamilyObjective::composed_value(const SoftPld& composed, double step,
                                              torch::Tensor* differentiable) const {
  if (options_.target == SoftPldTarget::kEpsilon) {
    double excess = 0.0;
    const double epsilon = soft_pld_epsilon(composed, step, options_.delta, &excess);
    // Implicit function: d eps / d theta = (d delta(eps*) / d theta) / (omega + S - delta).
    if (differentiable && std::isfinite(epsilon)) *differentiable = soft_pld_delta(composed, step, epsilon) / excess;
    return epsilon;
  }
  const torch::Tensor log_delta = torch::log(soft_pld_delta(composed, step, options_.epsilon));
  if (differentiable) *differentiable = log_delta;
  return log_delta.item<double>();
}

namespace {

SoftPld composed_row(const torch::Tensor& masses, int64_t row, int64_t first, const torch::Tensor& omega,
                     const SoftPldFamilyObjectiveOptions& options) {
  SoftPld single{masses.select(0, row), first, omega};
  truncate_soft_pld(single, options.tail_mass);
  return compose_soft_pld(single, options.compositions, options.tail_mass);
}

}  // namespace

SoftPldFamilyEvaluation SoftPldFamilyObjective::evaluate(const torch::Tensor& theta) const {
  torch::NoGradGuard guard;
  SoftPldFamilyEvaluation e;
  const int64_t m = options_.max_shift;
  if (options_.combination == ShiftCombination::kEnvelope) {
    double step = 0.0;
    SoftPld single = envelope_pld(theta, &step);
    e.loss_step = step;
    {
      // Which shifts attain the envelope (recomputed cheaply from the curves' argmax).
      const Singles s = singles(theta);
      const torch::Tensor j = torch::arange(s.masses.size(1), s.masses.options());
      const double centre = static_cast<double>(s.masses.size(1) / 2);
      const torch::Tensor g =
          torch::exp((j + 1.0 - centre) * s.step) * sum_above(s.masses * torch::exp(-(j - centre) * s.step));
      const torch::Tensor curves = sum_above(s.masses) - std::exp(-s.step) * g;
      const std::vector<double> argmax = to_vector(curves.argmax(0).to(torch::kDouble));
      const std::vector<double> mass = to_vector(single.masses);
      e.points_attained.assign(static_cast<size_t>(m), 0);
      for (size_t k = 1; k < argmax.size(); ++k)
        if (mass[k] > 0.0) ++e.points_attained[static_cast<size_t>(argmax[k - 1])];
      e.worst_shift = 1 + static_cast<int64_t>(std::max_element(e.points_attained.begin(), e.points_attained.end()) -
                                               e.points_attained.begin());
    }
    truncate_soft_pld(single, options_.tail_mass);
    e.value = composed_value(compose_soft_pld(single, options_.compositions, options_.tail_mass), step, nullptr);
  } else {
    const Singles s = singles(theta);
    e.loss_step = s.step;
    e.value = -kInfinity;
    for (int64_t a = 0; a < m; ++a) {
      const double v = composed_value(composed_row(s.masses, a, s.first, s.infinity_mass, options_), s.step, nullptr);
      e.shift_values.push_back(v);
      if (v > e.value) e.value = v, e.worst_shift = a + 1;
    }
  }
  if (options_.target == SoftPldTarget::kEpsilon) {
    e.epsilon = e.value, e.delta = options_.delta;
  } else {
    e.epsilon = options_.epsilon, e.delta = std::exp(e.value);
  }
  return e;
}

double SoftPldFamilyObjective::value(const torch::Tensor& theta) const {
  torch::NoGradGuard guard;
  if (!torch::isfinite(theta).all().item<bool>()) return kInfinity;
  if (options_.combination == ShiftCombination::kWorstShift) return evaluate(theta).value;
  double step = 0.0;
  SoftPld single = envelope_pld(theta, &step);
  truncate_soft_pld(single, options_.tail_mass);
  return composed_value(compose_soft_pld(single, options_.compositions, options_.tail_mass), step, nullptr);
}

std::pair<double, torch::Tensor> SoftPldFamilyObjective::value_and_gradient(const torch::Tensor& theta) const {
  if (options_.combination == ShiftCombination::kWorstShift) {
    // Danskin: the value of the worst shift, and its gradient alone.
    const SoftPldFamilyEvaluation e = evaluate(theta);
    return shift_value_and_gradient(theta, e.worst_shift);
  }
  const torch::Tensor leaf = theta.detach().requires_grad_(true);
  double step = 0.0;
  SoftPld single = envelope_pld(leaf, &step);
  truncate_soft_pld(single, options_.tail_mass);
  torch::Tensor differentiable;
  const double value =
      composed_value(compose_soft_pld(single, options_.compositions, options_.tail_mass), step, &differentiable);
  if (!differentiable.defined()) return {value, torch::full_like(theta, std::numeric_limits<double>::quiet_NaN())};
  return {value, torch::autograd::grad({differentiable}, {leaf})[0]};
}

std::pair<double, torch::Tensor> SoftPldFamilyObjective::shift_value_and_gradient(const torch::Tensor& theta,
                                                                                  int64_t shift) const {
  if (shift < 1 || shift > options_.max_shift)
    throw std::invalid_argument(
        fmt::format("SoftPldFamilyObjective: shift {} is not in 1 .. {}", shift, options_.max_shift));
  const torch::Tensor leaf = theta.detach().requires_grad_(true);
  const Singles s = singles(leaf);
  torch::Tensor differentiable;
  const double value =
      composed_value(composed_row(s.masses, shift - 1, s.first, s.infinity_mass, options_), s.step, &differentiable);
  if (!differentiable.defined()) return {value, torch::full_like(theta, std::numeric_limits<double>::quiet_NaN())};
  return {value, torch::autograd::grad({differentiable}, {leaf})[0]};
}

}  // namespace noiselearn
