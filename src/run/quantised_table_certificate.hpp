#pragma once
// Certifying what the secure sampler samples (`noiselearn sample --quantised-out`): the table quantised to integer
// weights summing to 2^total_bits is a different table from its source, so it gets its own certificate, computed with
// the same pair and request as the source's and written beside the quantised table (noise.json: "certificate",
// "quantisation", and the source's certificate under "quantised_from").
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "sampler/secure_sampler.hpp"

namespace noiselearn {

struct QuantisedCertificateOptions {
  std::string source_name;             // the source table as the user named it (provenance, messages)
  std::filesystem::path out;           // the quantised table's CSV (its JSON beside it)
  bool force = false;                  // overwrite `out`
  // Unset: the source's own (noise.json "pair" and "certificate"); then 1 release, deltas 1e-3, 1e-6, 1e-9.
  std::optional<double> sensitivity;
  std::optional<int64_t> compositions;
  std::vector<double> epsilons, deltas;
  AccountantOptions accountant;
};

// Certifies the source and the quantised table of `sampler` alike, writes the quantised table with its certificate,
// and returns the two side by side, for a reader. InputError when no sensitivity is given or recorded.
std::string certify_and_write_quantised(const QuantisedCertificateOptions& options, const sampler::SecureSampler& sampler);

}  // namespace noiselearn
