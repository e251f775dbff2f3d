#pragma once
// loss.kind = privacy-buckets-adp and privacy-buckets-pdp (Sommer et al., PrivacyBuckets): their options and their
// registrations. The losses live in losses/privacy_buckets_loss.
#include <cstdint>
#include <vector>

#include "io/config_schema.hpp"
#include "io/training_kinds.hpp"

namespace noiselearn {

struct PrivacyBucketsConfig {
  int64_t buckets = 1000;      // 2h, even
  double bucket_factor = 0.0;  // f > 1; 0: automatic

  static const std::vector<ConfigKey<PrivacyBucketsConfig>>& keys();
  void validate() const;
};

LossKind privacy_buckets_adp_loss_kind();
LossKind privacy_buckets_pdp_loss_kind();

}  // namespace noiselearn
