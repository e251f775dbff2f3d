#include "run/quantised_table_certificate.hpp"

#include <fmt/format.h>

#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "accounting/certificate.hpp"
#include "accounting/pair_accountant.hpp"
#include "core/directed_format.hpp"
#include "core/errors.hpp"
#include "core/noise_table.hpp"
#include "io/certificate_files.hpp"
#include "io/table_files.hpp"

namespace noiselearn {

namespace {

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
  const PairSpecification& pair = o.pair;
  const CertificateRequest& request = o.request;
  request.validate();
  const AccountantOptions& accountant = o.accountant;

  const NoiseTable source_table(grid_of(secure.table()), secure.table().probabilities);
  TableProvenance provenance{
      "sample --quantised-out",
      {{"total_bits", secure.quantised().total_bits}},
      fmt::format("{} quantised to integer weights summing to 2^{}", o.source_name, secure.quantised().total_bits)};
  const NoiseTable quantised_table(grid_of(secure.table()), secure.quantised().probabilities(), std::nullopt,
                                   provenance);
  const auto certify = [&](const NoiseTable& table) {
    const PairFamily family = make_pair_family(table, pair);
    return make_certificate(account(family, request.compositions, accountant, queries_of(request)), request,
                            accountant);
  };
  const Certificate source_certificate = certify(source_table);
  const Certificate quantised_certificate = certify(quantised_table);

  nlohmann::json extra;
  extra["certificate"] = certificate_json(quantised_certificate);
  extra["pair"] = {
      {"kind", to_string(pair.kind)}, {"sensitivity", pair.sensitivity}, {"sampling_rate", pair.sampling_rate}};
  extra["quantisation"] = quantisation_json(secure.quantised());
  extra["quantised_from"] = {{"table", o.source_name}, {"certificate", certificate_json(source_certificate)}};
  write_noise_table(quantised_table, o.out, extra, o.force);

  report << fmt::format("certificates: {} composition(s), sensitivity {:g}, {}; {}\n", request.compositions,
                        pair.sensitivity, quantised_certificate.accounted.pair,
                        quantised_certificate.accounted.pairs_checked);
  // How releases with several candidate pairs were accounted (the exact programme, its blocks, or the envelope), for
  // each table when they differ.
  if (!quantised_certificate.several_pairs.empty()) {
    if (source_certificate.several_pairs == quantised_certificate.several_pairs)
      report << fmt::format("  several candidate pairs per release: {}\n", quantised_certificate.several_pairs);
    else
      report << fmt::format("  several candidate pairs per release: source: {}; quantised: {}\n",
                            source_certificate.several_pairs, quantised_certificate.several_pairs);
  }
  // Upper bounds rounded up and lower bounds down at the printed digits, as every certificate prints them.
  const auto up = [](double v) { return format_general(v, 6, Rounding::kUp); };
  const auto down = [](double v) { return format_general(v, 6, Rounding::kDown); };
  for (size_t i = 0; i < request.epsilons.size(); ++i)
    report << fmt::format("  delta(eps = {:g}):  source <= {} (>= {}),  quantised <= {} (>= {})\n", request.epsilons[i],
                          up(source_certificate.deltas[i].delta_upper), down(source_certificate.deltas[i].delta_lower),
                          up(quantised_certificate.deltas[i].delta_upper),
                          down(quantised_certificate.deltas[i].delta_lower));
  for (size_t i = 0; i < request.deltas.size(); ++i)
    report << fmt::format(
        "  eps(delta = {:g}):  source <= {} (>= {}),  quantised <= {} (>= {})\n", request.deltas[i],
        up(source_certificate.epsilons[i].epsilon_upper), down(source_certificate.epsilons[i].epsilon_lower),
        up(quantised_certificate.epsilons[i].epsilon_upper), down(quantised_certificate.epsilons[i].epsilon_lower));
  // An infinite bound is no number to compare: say why there is none, as `train` does.
  for (const Certificate* c : {&source_certificate, &quantised_certificate})
    for (const auto& e : c->epsilons)
      if (!std::isfinite(e.epsilon_upper)) {
        report << fmt::format("  {} table: {}\n", c == &source_certificate ? "source" : "quantised",
                              c->no_epsilon_reason(e.delta));
      }
  report << fmt::format("wrote the quantised table (what is sampled) with its certificate to {}\n", o.out.string());
  return report.str();
}

}  // namespace noiselearn
