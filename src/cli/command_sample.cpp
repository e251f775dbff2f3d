// noiselearn sample TABLE: draw noise with the secure sampler (sampler/secure_sampler.hpp), and write the
// quantised table it actually samples, certified like its source (the quantised table is what is certified).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "accounting/pair_accountant.hpp"
#include "cli/cli_common.hpp"
#include "cli/command.hpp"
#include "core/errors.hpp"
#include "io/atomic_file.hpp"
#include "io/certificate_files.hpp"
#include "sampler/secure_sampler.hpp"

namespace noiselearn::cli {

namespace {

struct SampleOptions {
  std::string table;
  int64_t count = 1;
  std::string out;
  bool force = false;
  std::optional<uint64_t> seed;
  std::string quantised_out;
  std::optional<double> sensitivity;
  std::optional<int64_t> compositions;
  std::vector<double> epsilons, deltas;
  AccountantCliOptions accountant;
};

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

// Certifies the source and the quantised table with the same pair and request, writes the quantised table
// with its certificate, and prints the two side by side.
void certify_and_write_quantised(const SampleOptions& o, const sampler::SecureSampler& secure, std::ostream& report) {
  const SourceParameters source = source_parameters(secure.table().metadata);
  PairSpecification pair;
  if (o.sensitivity)
    pair.sensitivity = *o.sensitivity;
  else if (source.sensitivity)
    pair.sensitivity = *source.sensitivity;
  else
    throw InputError(fmt::format("--quantised-out certifies the quantised table: give --sensitivity ({} states none)",
                                 o.table));
  require_positive(pair.sensitivity, "--sensitivity");
  CertificateRequest request;
  request.compositions = o.compositions.value_or(source.compositions.value_or(1));
  request.epsilons = o.epsilons.empty() ? source.epsilons : o.epsilons;
  request.deltas = o.deltas.empty() ? source.deltas : o.deltas;
  if (request.epsilons.empty() && request.deltas.empty()) request.deltas = {1e-3, 1e-6, 1e-9};
  request.curve_points = 0;
  request.validate();
  const AccountantOptions accountant = o.accountant.options();

  const NoiseTable source_table(grid_of(secure.table()), secure.table().probabilities);
  TableProvenance provenance{"sample --quantised-out",
                             {{"total_bits", secure.quantised().total_bits}},
                             fmt::format("{} quantised to integer weights summing to 2^{}", o.table, secure.quantised().total_bits)};
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
  extra["quantised_from"] = {{"table", o.table}, {"certificate", certificate_json(source_certificate)}};
  write_noise_table(quantised_table, table_output_path(o.quantised_out), extra, o.force);

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
                        table_output_path(o.quantised_out).string());
}

// One draw per line: integers on an integer grid (exact), grid points with 17 significant digits otherwise.
std::string format_draws(sampler::SecureSampler& secure, int64_t count) {
  const sampler::SamplerTable& table = secure.table();
  const bool integers = table.is_integer_grid() && std::abs(table.origin) < 0x1p53 && table.step < 0x1p53;
  fmt::memory_buffer text;
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t index = secure.draw_index();
    if (integers)
      fmt::format_to(std::back_inserter(text), "{}\n",
                     static_cast<int64_t>(table.origin) + static_cast<int64_t>(table.step) * static_cast<int64_t>(index));
    else
      fmt::format_to(std::back_inserter(text), "{:.17g}\n", table.x(index));
  }
  return fmt::to_string(text);
}

void run_sample(const SampleOptions& o) {
  if (o.count < 0) throw InputError(fmt::format("--count {} must be >= 0", o.count));
  // Refuse an existing --out before any work (write_file_atomically checks again when writing).
  if (!o.out.empty() && !o.force && std::filesystem::exists(o.out))
    throw InputError(fmt::format("refusing to overwrite existing file {} (use --force)", o.out));
  std::unique_ptr<sampler::EntropySource> source;
  if (o.seed) {
    spdlog::warn("--seed {}: draws come from DeterministicTestEntropySource, which is predictable; for tests only, "
                 "never for privacy",
                 *o.seed);
    source = std::make_unique<sampler::DeterministicTestEntropySource>(*o.seed);
  } else {
    source = sampler::make_os_entropy_source();
  }
  // The global --renormalise / --sum-tolerance apply here as to every command that reads a table.
  const TableReadOptions& reading = table_read_options();
  sampler::SamplerTable table = sampler::read_sampler_table(o.table, reading.renormalise ? reading.sum_tolerance : 0.0);
  if (const auto r = table.metadata.find("renormalised"); r != table.metadata.end())
    spdlog::info("{}: probabilities summed to {:.17g}: renormalised (divided by the sum)", o.table, r->at("sum").get<double>());
  sampler::SecureSampler secure(std::move(table), std::move(source));
  const sampler::QuantisedTable& q = secure.quantised();
  // Reports go to stdout unless the draws do.
  std::ostream& report = (o.out.empty() && o.count > 0) ? std::cerr : std::cout;
  report << fmt::format("table: {} ({} points, step {:g}, from {:g})\n", o.table, secure.table().size(),
                        secure.table().step, secure.table().origin);
  report << fmt::format("quantised: weights summing to 2^{}; max |p_quantised - p| = {:.3g}; largest ratio - 1 = {:.3g}; "
                        "{} cell(s) lifted to 1 unit\n",
                        q.total_bits, q.max_abs_change, q.max_ratio - 1.0, q.cells_lifted);
  if (!o.quantised_out.empty()) certify_and_write_quantised(o, secure, report);
  if (o.count == 0) return;
  const std::string draws = format_draws(secure, o.count);
  if (o.out.empty()) {
    std::cout << draws << std::flush;
    return;
  }
  write_file_atomically(o.out, draws, o.force);
  report << fmt::format("wrote {} draw(s) to {}\n", o.count, o.out);
}

}  // namespace

Command make_sample_command(CLI::App& parent) {
  auto options = std::make_shared<SampleOptions>();
  CLI::App* app = parent.add_subcommand(
      "sample", "Draw noise from a table with the secure sampler (OS CSPRNG, exact integer sampling)");
  app->add_option("table", options->table, "Noise table: noise.csv (with its noise.json) or a two-column CSV x,p")->required();
  app->add_option("--count", options->count, "Number of draws, one per line (0: none)")->capture_default_str();
  app->add_option("--out", options->out, "Write the draws to this file (atomically) instead of stdout");
  app->add_flag("--force", options->force, "Overwrite existing --out and --quantised-out files");
  app->add_option("--seed", options->seed,
                  "FOR TESTS ONLY: draw from a seeded deterministic generator instead of the OS CSPRNG (prints a warning)");
  app->add_option("--quantised-out", options->quantised_out,
                  "Write the quantised table (what is sampled) with its certificate: a .csv path, or a directory "
                  "that receives noise.csv and noise.json");
  app->add_option("--sensitivity", options->sensitivity,
                  "Sensitivity for the certificates of --quantised-out (default: pair.sensitivity of noise.json)");
  app->add_option("--compositions,-n", options->compositions,
                  "Compositions n for the certificates (default: the source certificate's, else 1)");
  app->add_option("--epsilon", options->epsilons, "Report delta at this epsilon (repeatable; default: the source certificate's)");
  app->add_option("--delta", options->deltas,
                  "Report epsilon at this delta (repeatable; default: the source certificate's, else 1e-3, 1e-6, 1e-9)");
  options->accountant.add_to(*app);
  return Command{app, [options] { run_sample(*options); }};
}

}  // namespace noiselearn::cli
