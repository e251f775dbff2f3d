#include "run/quantised_table_certificate.hpp"

#include <fmt/format.h>

#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "accounting/certificate.hpp"
#include "accounting/pair_accountant.hpp"
#include "core/errors.hpp"
#include "core/noise_table.hpp"
#include "io/certificate_files.hpp"
#include "io/table_files.hpp"

namespace noiselearn {

namespace {

// The source's own accounting parameters (noise.json "pair" and "certificate"), for the options not given.
struct SourceParameters {
  std::optional<double> sensitivity;
  std::optional<int64_t> compositions;
  std::vector<double> epsilons, deltas;
};

SourceParameters source_parameters(const nlohmann::json& metadata) {
  SourceParameters out;
  if (const auto pair = metadata.find("pair"); pair != metadata.end() && pair->is_object()) {
    if (const auto s = pair->find("sensitivity"); s != pair->end() && s->is_number()) out.sensitivity = s->get<double>();
  }
  const auto certificate = metadata.find("certificate");
  if (certificate == metadata.end() || !certificate->is_object()) return out;
  if (const auto n = certificate->find("compositions"); n != certificate->end() && n->is_number_integer())
    out.compositions = n->get<int64_t>();
  for (const auto& d : certificate->value("delta_at_epsilon", nlohmann::json::array()))
    if (d.is_object() && d.contains("epsilon") && d["epsilon"].is_number()) out.epsilons.push_back(d["epsilon"].get<double>());
  for (const auto& e : certificate->value("epsilon_at_delta", nlohmann::json::array()))
    if (e.is_object() && e.contains("delta") && e["delta"].is_number()) out.deltas.push_back(e["delta"].get<double>());
  return out;
}

Grid grid_of(const sampler::SamplerTable& table) {
  return Grid{table.origin, table.step, static_cast<int64_t>(table.size())};
}

nlohmann::json quantisation_json(const sampler::QuantisedTable& q) {
  return {{"total_bits", q.total_bits},
          {"total_units", q.total()},
          {"rule", "largest remainder with a floor of 1 unit for every positive cell"},
          {"max_abs_change", q.max_abs_change},
          {"max_ratio", q.max_ratio},
          {"cells_lifted", q.cells_lifted}};
}

}  // namespace

// Certifies the source and the quantised table with the same pair and request, writes the quantised table
// with its certificate, and prints the two side by side.
std::string certify_and_write_quantised(const QuantisedCertificateOptions& o, const sampler::SecureSampler& secure) {
  std::ostringstream report;
  const SourceParameters source = source_parameters(secure.table().metadata);
  PairSpecification pair;
  if (o.sensitivity)
    pair.sensitivity = *o.sensitivity;
  else if (source.sensitivity)
    pair.sensitivity = *source.sensitivity;
  else
    throw InputError(fmt::format("--quantised-out certifies the quantised table: give --sensitivity ({} states none)",
                                 o.source_name));
  if (!(pair.sensitivity > 0.0 && std::isfinite(pair.sensitivity)))
    throw InputError(fmt::format("--sensitivity {}: must be positive and finite", pair.sensitivity));
  CertificateRequest request;
  request.compositions = o.compositions.value_or(source.compositions.value_or(1));
  request.epsilons = o.epsilons.empty() ? source.epsilons : o.epsilons;
  request.deltas = o.deltas.empty() ? source.deltas : o.deltas;
  if (request.epsilons.empty() && request.deltas.empty()) request.deltas = {1e-3, 1e-6, 1e-9};
  request.curve_points = 0;
  request.validate();
  const AccountantOptions& accountant = o.accountant;

  const NoiseTable source_table(grid_of(secure.table()), secure.table().probabilities);
  TableProvenance provenance{"sample --quantised-out",
                             {{"total_bits", secure.quantised().total_bits}},
                             fmt::format("{} quantised to integer weights summing to 2^{}", o.source_name, secure.quantised().total_bits)};
  const NoiseTable quantised_table(grid_of(secure.table()), secure.quantised().probabilities(), std::nullopt, provenance);
  const auto certify = [&](const NoiseTable& table) {
    const PairFamily family = make_pair_family(table, pair);
    return make_certificate(account(family, request.compositions, accountant), request, accountant);
  };
  const Certificate source_certificate = certify(source_table);
  const Certificate quantised_certificate = certify(quantised_table);

  nlohmann::json extra;
  extra["certificate"] = certificate_json(quantised_certificate);
  extra["pair"] = {{"kind", "additive"}, {"sensitivity", pair.sensitivity}};
  extra["quantisation"] = quantisation_json(secure.quantised());
  extra["quantised_from"] = {{"table", o.source_name}, {"certificate", certificate_json(source_certificate)}};
  write_noise_table(quantised_table, o.out, extra, o.force);

  report << fmt::format("certificates: {} composition(s), sensitivity {:g}, {}\n", request.compositions, pair.sensitivity,
                        quantised_certificate.pair_description);
  for (size_t i = 0; i < request.epsilons.size(); ++i)
    report << fmt::format("  delta(eps = {:g}):  source <= {:.6g} (>= {:.6g}),  quantised <= {:.6g} (>= {:.6g})\n",
                          request.epsilons[i], source_certificate.deltas[i].delta_upper,
                          source_certificate.deltas[i].delta_lower, quantised_certificate.deltas[i].delta_upper,
                          quantised_certificate.deltas[i].delta_lower);
  for (size_t i = 0; i < request.deltas.size(); ++i)
    report << fmt::format("  eps(delta = {:g}):  source <= {:.6g} (>= {:.6g}),  quantised <= {:.6g} (>= {:.6g})\n",
                          request.deltas[i], source_certificate.epsilons[i].epsilon_upper,
                          source_certificate.epsilons[i].epsilon_lower, quantised_certificate.epsilons[i].epsilon_upper,
                          quantised_certificate.epsilons[i].epsilon_lower);
  report << fmt::format("wrote the quantised table (what is sampled) with its certificate to {}\n",
                        o.out.string());
  return report.str();
}


}  // namespace noiselearn
