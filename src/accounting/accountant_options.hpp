#pragma once
// Options of the certified accountant (Ceres-style options struct: every field has a documented default).
#include <cstdint>
#include <string>

namespace noiselearn {

// How a privacy loss that falls between two grid points is moved onto the grid for an UPPER bound.
enum class PessimisticMethod {
  kConnectTheDots,  // split the outcome between both neighbours, keeping its A- and B-mass
                    // (Doroshenko et al. 2022); error O(step^2) per release
  kRoundUp,         // move it to the upper neighbour; error O(step) per release
};

// ... and for a LOWER bound.
enum class OptimisticMethod {
  kMergeToGrid,  // merge fractions of neighbouring outcomes so that each merged outcome's loss is exactly
                 // a grid point (a post-processing, hence never more informative); error O(step^2) for
                 // dense privacy-loss distributions
  kRoundDown,    // move it to the lower neighbour; error O(step) per release
};

// How a release with several candidate pairs (an asymmetric table under the any-sequence relation, the subsampled
// mixture with both signs) is accounted.
enum class SeveralPairsMethod {
  kAuto,      // per query: the exact adaptive programme where the envelope's bracket at a query is wider than
              // adaptive_skip_width and the programme's estimated cost is within adaptive_budget; over it, the
              // programme in blocks of as many releases as adaptive_block_budget allows (adaptive_blocks.hpp); the
              // envelope when not even 2 fit. A table symmetric up to rounding through its exact copy where the
              // difference is negligible (core/dominating_pair.hpp)
  kAdaptive,  // always the exact adaptive programme (adaptive_composition.hpp), beside the envelope
  kEnvelope,  // the profile envelope only (profile_envelope.hpp): fast, dominating, looser for asymmetric tables
};

std::string to_string(SeveralPairsMethod method);
SeveralPairsMethod parse_several_pairs_method(const std::string& text);
std::string to_string(PessimisticMethod method);
std::string to_string(OptimisticMethod method);
PessimisticMethod parse_pessimistic_method(const std::string& text);
OptimisticMethod parse_optimistic_method(const std::string& text);

// The largest number of compositions the accountant takes. The floating-point allowances grow about linearly in
// n (each release carries its rounding into the product), and at n = 1e9 they already reach 1e-6 relative on
// three-point tables; far beyond, they exceed 1 and every bound would be trivial. Larger n is refused (exit 2).
constexpr int64_t kMaxCompositions = 1'000'000'000;

struct AccountantOptions {
  // Spacing of the privacy-loss grid for a single release (nats). The composition may coarsen it (by
  // powers of two, one-directionally) when the distribution outgrows max_points.
  double loss_step = 1e-4;
  // Probability mass each tail may lose at each truncation (after discretisation and after every
  // convolution). Upper bounds move it to the infinity mass (so it is paid for in delta), lower bounds drop it.
  double tail_mass = 1e-15;
  // Largest number of loss-grid points kept; above it the grid is coarsened by 2.
  int64_t max_points = int64_t{1} << 20;
  PessimisticMethod upper_method = PessimisticMethod::kConnectTheDots;
  OptimisticMethod lower_method = OptimisticMethod::kMergeToGrid;
  // Certificates recompute the composition with exponential tilting (exponential_tilt.hpp) for every query whose
  // bracket is dominated by the floating-point allowance (small delta, many compositions). Off: one untilted
  // composition serves every query (faster, looser in the far tail).
  bool tilted_refinement = true;
  // Several candidate pairs per release (see SeveralPairsMethod).
  SeveralPairsMethod several_pairs = SeveralPairsMethod::kAuto;
  // Under kAuto: the envelope alone is kept when its bracket at every query (pair_accountant.hpp, AccountingQueries) is
  // at most this wide (relative to the upper bound); bounds composed without queries look at the epsilon bracket at
  // delta = omega + 1e-3, 1e-6 and 1e-10 (omega the composed distinguishing-event mass) instead.
  double adaptive_skip_width = 1e-4;
  // Under kAuto: the largest estimated cost of the adaptive programme (multiply-adds; about 1e10 per second on a core
  // with AVX2), whole or in blocks.
  double adaptive_budget = 1e11;
  // Under kAuto, when the whole programme is over adaptive_budget: the largest estimated cost of the programme in
  // blocks (multiply-adds). Separate from adaptive_budget because the two buy different things: the whole programme
  // gives the exact adaptive value (both bounds), a block only an upper bound that tightens slowly with the block's
  // length (tests/benchmarks/README.md: Vuvuzela's table by blocks).
  double adaptive_block_budget = 3e10;

  // n-fold compositions by one FFT power of a window chosen by Chernoff's bound (fft_power.hpp) instead of
  // square-and-multiply (composition.hpp). Off by default for tables (their pinned certificates were made by
  // square-and-multiply); account_events turns it on for mechanisms without a grid, and account() under the default
  // for a table of one pair composed 1,024 times or more (pair_accountant.cpp).
  bool fft_power = false;

  // Throws InputError naming the offending field.
  void validate() const;
};

}  // namespace noiselearn
