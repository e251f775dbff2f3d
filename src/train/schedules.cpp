#include "train/schedules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/errors.hpp"

namespace noiselearn {

double UtilityWeightSchedule::at(int64_t epoch) const {
  if (!decay) return start;
  return std::max(start * std::exp2(-static_cast<double>(epoch) / halving_epochs), minimum);
}

void UtilityWeightSchedule::validate() const {
  if (!(start >= 0.0) || !std::isfinite(start))
    throw InputError(fmt::format("schedule.utility_weight_start {} must be finite and >= 0", start));
  if (!(halving_epochs > 0.0) || !std::isfinite(halving_epochs))
    throw InputError(fmt::format("schedule.utility_weight_halving_epochs {} must be positive", halving_epochs));
  if (!(minimum >= 0.0) || !std::isfinite(minimum))
    throw InputError(fmt::format("schedule.utility_weight_min {} must be finite and >= 0", minimum));
}

double LearningRateSchedule::at(int64_t epoch) const { return initial * std::pow(decay, static_cast<double>(epoch)); }

void LearningRateSchedule::validate() const {
  if (!(initial > 0.0) || !std::isfinite(initial))
    throw InputError(fmt::format("optimiser.learning_rate {} must be positive", initial));
  if (!(decay > 0.0 && decay <= 1.0))
    throw InputError(fmt::format("optimiser.learning_rate_decay {} must be in (0, 1]", decay));
}

}  // namespace noiselearn
