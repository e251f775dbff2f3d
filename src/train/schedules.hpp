#pragma once
// Training schedules of Sommer et al. (section 3.2): the utility weight of eq. (3),
//   w_t = max(w_start / 2^{t / gamma}, w_min)   (decay on), or w_start throughout (decay off),
// and the exponential learning-rate decay per epoch of section 4.1 (lr_t = lr_0 * decay^t).
#include <cstdint>

namespace noiselearn {

struct UtilityWeightSchedule {
  double start = 0.5;              // w_start
  double halving_epochs = 2500.0;  // gamma: epochs per halving
  double minimum = 1e-7;           // w_min
  bool decay = true;
  double at(int64_t epoch) const;
  void validate() const;  // InputError naming the field
};

struct LearningRateSchedule {
  double initial = 1e-3;
  double decay = 0.99995;  // factor per epoch
  double at(int64_t epoch) const;
  void validate() const;
};

}  // namespace noiselearn
