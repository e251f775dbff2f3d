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
#include "accounting/certificate.hpp"
#include "core/dominating_pair.hpp"
#include "sampler/secure_sampler.hpp"

namespace noiselearn {

struct QuantisedCertificateOptions {
  std::string source_name;    // the source table as the user named it (provenance, messages)
  std::filesystem::path out;  // the quantised table's CSV (its JSON beside it)
  bool force = false;         // overwrite `out`
  // The pair, the queries and the accountant, resolved by the caller: by `noiselearn sample`, the source's own
  // (noise.json, io/recorded_certification.hpp) where no option replaces them.
  PairSpecification pair;
  CertificateRequest request;
  AccountantOptions accountant;
};

// Certifies the source and the quantised table of `sampler` alike, writes the quantised table with its certificate,
// and returns the two side by side, for a reader, with the reason of every infinite bound and how releases with
// several candidate pairs were accounted.
std::string certify_and_write_quantised(const QuantisedCertificateOptions& options,
                                        const sampler::SecureSampler& sampler);

}  // namespace noiselearn
