#include "losses/soft_pld_loss.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <limits>

#include "core/errors.hpp"
#include "losses/soft_pld_fused.hpp"

namespace noiselearn {

void SoftPldLossOptions::validate() const {
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon))
    throw InputError(fmt::format("loss.epsilon {} must be finite and >= 0", epsilon));
  if (compositions < 1) throw InputError(fmt::format("loss.compositions {} must be at least 1", compositions));
  if (!(loss_step > 0.0 && loss_step <= 1.0))
    throw InputError(fmt::format("loss.soft_pld_loss_step {} must be in (0, 1]", loss_step));
  if (!(tail_mass >= 0.0 && tail_mass < 1e-3))
    throw InputError(fmt::format("loss.soft_pld_tail_mass {} must be in [0, 1e-3)", tail_mass));
  if (max_points < 1024) throw InputError(fmt::format("loss.soft_pld_max_points {} must be at least 1024", max_points));
}

SoftPldLoss::SoftPldLoss(SoftPldLossOptions options) : options_(options) { options_.validate(); }

torch::Tensor SoftPldLoss::direction_delta(const LogPair& pair, int direction) {
  if (options_.fused)
    if (const std::optional<SoftPld> single =
            fused_soft_pld_single_release(pair, options_.loss_step, options_.max_points))
      return soft_pld_delta(fused_compose_soft_pld(*single, options_.compositions, options_.tail_mass),
                            options_.loss_step, options_.epsilon);
  const auto tensor_options = pair.log_first.options();
  const torch::Tensor finite = finite_loss_mask(pair), infinite = infinite_loss_mask(pair);
  const torch::Tensor losses = safe_privacy_losses(pair);
  const double minus_infinity = -std::numeric_limits<double>::infinity();
  const torch::Tensor masses =
      torch::exp(torch::where(finite, pair.log_first, torch::full_like(pair.log_first, minus_infinity)));
  const torch::Tensor omega =
      torch::exp(torch::where(infinite, pair.log_first, torch::full_like(pair.log_first, minus_infinity))).sum();

  // Keep the outcomes with positive mass; their loss range (without the negligible tails) sets the grid.
  const torch::Tensor index = torch::nonzero(finite).view({-1});
  if (index.numel() == 0) {
    return -torch::expm1(static_cast<double>(options_.compositions) *
                         torch::log1p(-torch::clamp_max(omega, 1.0 - 1e-16)));
  }
  const torch::Tensor l = losses.index_select(0, index), a = masses.index_select(0, index);
  double step = options_.loss_step;
  double lowest = 0.0, highest = 0.0;
  {
    torch::NoGradGuard guard;
    const torch::Tensor l_cpu = l.detach().to(torch::kCPU);
    lowest = l_cpu.min().item<double>();
    highest = l_cpu.max().item<double>();
    while ((highest - lowest) / step + 3.0 > static_cast<double>(options_.max_points)) step *= 2.0;
    if (step != options_.loss_step) {
      static bool warned = false;
      if (!warned)
        spdlog::warn("soft PLD loss: single-release losses span [{:.3g}, {:.3g}]; loss step raised to {:g}", lowest,
                     highest, step);
      warned = true;
    }
  }
  const torch::Tensor position = l / step;
  const torch::Tensor cell = torch::floor(position).detach();
  const torch::Tensor fraction = position - cell;
  const int64_t first = static_cast<int64_t>(std::floor(lowest / step)) - 1;
  const int64_t size = static_cast<int64_t>(std::floor(highest / step)) - first + 3;
  const torch::Tensor slot = (cell - static_cast<double>(first)).to(torch::kLong);
  torch::Tensor pmf = torch::zeros({size}, tensor_options);
  pmf = pmf.scatter_add(0, slot, a * (1.0 - fraction)).scatter_add(0, slot + 1, a * fraction);

  SoftPld single{pmf, first, omega};
  truncate_soft_pld(single, options_.tail_mass);
  (void)direction;
  return soft_pld_delta(compose_soft_pld(single, options_.compositions, options_.tail_mass), step, options_.epsilon);
}

}  // namespace noiselearn
