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

#include "cli/cli_common.hpp"
#include "cli/command.hpp"
#include "core/directed_format.hpp"
#include "core/errors.hpp"
#include "io/atomic_file.hpp"
#include "run/quantised_table_certificate.hpp"
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
  PairOptions pair;
  std::optional<int64_t> compositions;
  std::vector<double> epsilons, deltas;
  AccountantCliOptions accountant;
};

// One draw per line: integers on an integer grid (exact), grid points with 17 significant digits otherwise.
std::string format_draws(sampler::SecureSampler& secure, int64_t count) {
  const sampler::SamplerTable& table = secure.table();
  const bool integers = table.is_integer_grid() && std::abs(table.origin) < 0x1p53 && table.step < 0x1p53;
  fmt::memory_buffer text;
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t index = secure.draw_index();
    if (integers)
      fmt::format_to(
          std::back_inserter(text), "{}\n",
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
    spdlog::warn(
        "--seed {}: draws come from DeterministicTestEntropySource, which is predictable; for tests only, "
        "never for privacy",
        *o.seed);
    source = std::make_unique<sampler::DeterministicTestEntropySource>(*o.seed);
  } else {
    source = sampler::make_os_entropy_source();
  }
  // The global --renormalise / --sum-tolerance apply here as to every command that reads a table.
  const TableReadOptions& reading = table_read_options();
  sampler::SamplerTable table = [&] {
    try {
      return sampler::read_sampler_table(o.table, reading.renormalise ? reading.sum_tolerance : 0.0);
    } catch (const InputError& e) {
      throw InputError(with_sum_hint(e.what()));
    }
  }();
  if (const auto r = table.metadata.find("renormalised"); r != table.metadata.end())
    spdlog::info("{}: probabilities summed to {:.17g}: renormalised (divided by the sum)", o.table,
                 r->at("sum").get<double>());
  sampler::SecureSampler secure(std::move(table), std::move(source));
  const sampler::QuantisedTable& q = secure.quantised();
  // Reports go to stdout unless the draws do.
  std::ostream& report = (o.out.empty() && o.count > 0) ? std::cerr : std::cout;
  report << fmt::format("table: {} ({} points, step {:g}, from {:g})\n", o.table, secure.table().size(),
                        secure.table().step, secure.table().origin);
  report << fmt::format(
      "quantised: weights summing to 2^{}; max |p_quantised - p| = {:.3g}; largest ratio - 1 = {:.3g}; "
      "{} cell(s) lifted to 1 unit\n",
      q.total_bits, q.max_abs_change, q.max_ratio - 1.0, q.cells_lifted);
  if (!o.quantised_out.empty()) {
    QuantisedCertificateOptions certify;
    certify.source_name = o.table;
    certify.out = table_output_path(o.quantised_out);
    certify.force = o.force;
    // The source's own certificate settings (noise.json), unless an option replaces them.
    const RecordedCertification recorded = recorded_certification(secure.table().metadata);
    certify.pair = o.pair.specification(recorded, o.table);
    certify.request.compositions = o.compositions.value_or(recorded.compositions.value_or(1));
    // Each list the options do not give is the source certificate's.
    certify.request.epsilons = o.epsilons.empty() ? recorded.epsilons : o.epsilons;
    certify.request.deltas = o.deltas.empty() ? recorded.deltas : o.deltas;
    if (certify.request.epsilons.empty() && certify.request.deltas.empty())
      certify.request.deltas = kDefaultCertificateDeltas;
    certify.request.curve_points = 0;
    certify.accountant = o.accountant.options(recorded.accountant);
    if (!recorded.empty())
      report << fmt::format("settings recorded in its noise.json (used where no option replaces them): {}\n",
                            recorded.describe());
    report << certify_and_write_quantised(certify, secure);
  }
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
  app->add_option("table", options->table, "Noise table: noise.csv (with its noise.json) or a two-column CSV x,p")
      ->required();
  app->add_option("--count", options->count, "Number of draws, one per line (0: none)")->capture_default_str();
  app->add_option("--out", options->out, "Write the draws to this file (atomically) instead of stdout");
  app->add_flag("--force", options->force, "Overwrite existing --out and --quantised-out files");
  app->add_option(
      "--seed", options->seed,
      "FOR TESTS ONLY: draw from a seeded deterministic generator instead of the OS CSPRNG (prints a warning)");
  app->add_option("--quantised-out", options->quantised_out,
                  "Write the quantised table (what is sampled) with its certificate: a .csv path, or a directory "
                  "that receives noise.csv and noise.json");
  options->pair.add_to(*app, /*sensitivity_required=*/false);  // for --quantised-out; default: the source's noise.json
  app->add_option("--compositions,-n", options->compositions,
                  "Compositions n for the certificates (default: the source certificate's, else 1)");
  app->add_option("--epsilon", options->epsilons,
                  "Report delta at this epsilon (repeatable; default: the source certificate's)");
  app->add_option("--delta", options->deltas,
                  fmt::format("Report epsilon at this delta (repeatable; default: the source certificate's, else {})",
                              format_settings(kDefaultCertificateDeltas, ", ")));
  options->accountant.add_to(*app);
  return Command{app, [options] { run_sample(*options); }};
}

}  // namespace noiselearn::cli
