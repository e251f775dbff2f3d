#include "io/kinds/privacy_buckets.hpp"

#include <fmt/format.h>

#include <cmath>

namespace noiselearn {

const std::vector<ConfigKey<PrivacyBucketsConfig>>& PrivacyBucketsConfig::keys() {
  using B = PrivacyBucketsConfig;
  static const std::vector<ConfigKey<B>> keys = {
      {"loss.buckets", &B::buckets, "", "PrivacyBuckets: number of buckets 2h (even, 2 to 1,000,000)",
       WholeRange{2, 1000000}},
      {"loss.bucket_factor", &B::bucket_factor, "", "PrivacyBuckets: factor f > 1; 0 = automatic"},
  };
  return keys;
}

void PrivacyBucketsConfig::validate() const {
  config_schema::require(buckets % 2 == 0, "loss.buckets", fmt::format("must be even (2h buckets; got {})", buckets));
  config_schema::require(bucket_factor == 0.0 || (bucket_factor > 1.0 && std::isfinite(bucket_factor)),
                         "loss.bucket_factor", "must be 0 (automatic) or > 1");
}

LossKind privacy_buckets_adp_loss_kind() { return named_kind("privacy-buckets-adp", ""); }

LossKind privacy_buckets_pdp_loss_kind() { return named_kind("privacy-buckets-pdp", ""); }

}  // namespace noiselearn
