// noiselearn evaluate TABLE: certify a noise table with the exact accountant.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>
#include <optional>

#include "accounting/comparison.hpp"
#include "accounting/pair_accountant.hpp"
#include "cli/cli_common.hpp"
#include "cli/command.hpp"
#include "core/utility.hpp"
#include "io/certificate_files.hpp"

namespace noiselearn::cli {

namespace {

struct EvaluateOptions {
  std::string table;
  PairOptions pair;
  AccountantCliOptions accountant;
  CertificateCliOptions certificate;
  std::string curve;
  bool json = false;
  bool force = false;
  bool compare = false;
};

void run_evaluate(const EvaluateOptions& o) {
  const LoadedTable loaded = load_table(o.table);
  const NoiseTable& table = loaded.table;
  const PairSpecification specification = o.pair.specification();
  const AccountantOptions accountant = o.accountant.options();
  const CertificateRequest request = o.certificate.resolved();
  const PairFamily family = make_pair_family(table, specification);
  spdlog::info("accounting {} composition(s) of {} ({})", request.compositions, family.pairs.back().description,
               family.justification);
  const PairBounds bounds = account(family, request.compositions, accountant);
  const Certificate certificate = make_certificate(bounds, request, accountant);
  if (!o.curve.empty()) {
    write_certificate_curve(certificate, o.curve, o.force);
    spdlog::info("wrote the delta(epsilon) curve to {}", o.curve);
  }
  std::optional<Comparisons> comparisons;
  if (o.compare) comparisons = compare_accountants(family, request, accountant);
  if (o.json) {
    nlohmann::json out = certificate_json(certificate);
    if (comparisons) out["comparisons"] = comparisons_json(*comparisons);
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("table: {} ({}, {}; L1 {:.6g}, L2 {:.6g})\n", o.table, describe(table.grid()),
                           to_string(table.support_kind()), l1_utility(table), l2_utility(table));
  std::cout << certificate.report();
  if (comparisons) std::cout << comparisons->report();
}

}  // namespace

Command make_evaluate_command(CLI::App& parent) {
  auto options = std::make_shared<EvaluateOptions>();
  CLI::App* app = parent.add_subcommand(
      "evaluate", "Certify a noise table: rigorous upper and lower bounds on delta(epsilon) after n compositions");
  app->add_option("table", options->table, "Noise table: noise.csv of noiselearn, or any two-column CSV x,p")->required();
  options->pair.add_to(*app, /*sensitivity_required=*/true);
  options->certificate.add_to(*app);
  options->accountant.add_to(*app);
  app->add_option("--curve", options->curve, "Write the delta(epsilon) curve (epsilon,delta_upper,delta_lower) to this CSV");
  app->add_flag("--json", options->json, "Print the certificate as one JSON object (the fields stored in noise.json)");
  app->add_flag("--force", options->force, "Overwrite an existing --curve file");
  app->add_flag("--compare", options->compare,
                "Also print other accountants' bounds (moments accountant, RDP, advanced/optimal composition)");
  return Command{app, [options] { run_evaluate(*options); }};
}

}  // namespace noiselearn::cli
