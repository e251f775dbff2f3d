#pragma once
// The soft PLD loss's two costly steps as autograd functions with hand-derived backward passes
// (soft_pld.hpp and soft_pld_loss.hpp have the mathematics; the tensor-operation versions stay there as the
// references):
//   - the single release: each finite loss L = log first - log second split linearly between the two loss-grid
//     points around L / step, in one pass over the outcomes (float64 CPU tensors);
//   - the n-fold composition: the same convolutions, clamps and tail truncations as compose_soft_pld, in the same
//     order (so the same values), recorded on a tape; the backward walks it in reverse, a correlation per
//     convolution (by FFT on the spectra kept from the forward pass, or directly for short ones, as the forward).
#include <optional>

#include "losses/differentiable_pair.hpp"
#include "losses/soft_pld.hpp"

namespace noiselearn {

// The single-release soft PLD of first||second on the grid {(first + i) step} (first chosen as the reference does:
// floor(lowest loss / step) - 1, three more points than the losses span), not truncated. nullopt unless both tensors
// are 1-D float64 CPU contiguous of equal length with at least one finite loss, and the span fits max_points at this
// step (otherwise the caller's reference raises the step, and says so).
std::optional<SoftPld> fused_soft_pld_single_release(const LogPair& pair, double step, int64_t max_points);

// Truncation of the single release (tails of at most tail_mass per side) and its n-fold composition, as
// truncate_soft_pld followed by compose_soft_pld.
SoftPld fused_compose_soft_pld(const SoftPld& single, int64_t compositions, double tail_mass);

}  // namespace noiselearn
