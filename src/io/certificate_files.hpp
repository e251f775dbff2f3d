#pragma once
// Certificates on disk: the JSON object stored under "certificate" in noise.json and printed by
// `noiselearn evaluate --json`, and the certificate.csv curve (epsilon,delta_upper,delta_lower).
#include <filesystem>

#include <nlohmann/json.hpp>

#include "accounting/certificate.hpp"
#include "accounting/comparison.hpp"

namespace noiselearn {

// Every field of the certificate except the curve. Infinite epsilons (delta below the infinity mass) are null.
nlohmann::json certificate_json(const Certificate& certificate);

// The accountant's options, every field (noise.json certificate "accountant").
nlohmann::json accountant_options_json(const AccountantOptions& options);

// The comparison accountants; infinite values are null.
nlohmann::json comparisons_json(const Comparisons& comparisons);

// The curve as CSV with full precision; refuses to replace an existing file unless `overwrite`.
void write_certificate_curve(const Certificate& certificate, const std::filesystem::path& path, bool overwrite);

}  // namespace noiselearn
