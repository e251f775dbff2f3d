// noiselearn evaluate TABLE: certify a noise table with the exact accountant.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "accounting/comparison.hpp"
#include "accounting/heterogeneous_composition.hpp"
#include "accounting/loss_step_choice.hpp"
#include "accounting/pair_accountant.hpp"
#include "cli/cli_common.hpp"
#include "cli/command.hpp"
#include "core/errors.hpp"
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
  std::vector<std::string> with;  // TABLE:N, composed together with the main table (heterogeneous composition)
};

// "TABLE:N" -> (TABLE, N); the count follows the last colon so that paths may contain colons.
std::pair<std::string, int64_t> parse_part(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    throw InputError(fmt::format("--with {}: expected TABLE:N (a table and its number of releases)", text));
  const std::string count = text.substr(colon + 1);
  std::size_t used = 0;
  int64_t n = 0;
  try {
    n = std::stoll(count, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != count.size() || n < 1)
    throw InputError(fmt::format("--with {}: the number of releases '{}' must be a whole number >= 1", text, count));
  return {text.substr(0, colon), n};
}

void run_evaluate(const EvaluateOptions& o) {
  const LoadedTable loaded = load_table(o.table);
  const NoiseTable& table = loaded.table;
  // A table noiselearn wrote records how it was certified (noise.json): the same certificate again unless told
  // otherwise.
  const RecordedCertification recorded = recorded_certification(loaded.metadata);
  const PairSpecification specification = o.pair.specification(recorded, o.table);
  const AccountantOptions accountant = o.accountant.options(recorded.accountant);
  const CertificateRequest request = o.certificate.resolved(recorded);
  const PairFamily family = make_pair_family(table, specification);
  if (o.compare && !o.with.empty()) throw InputError("--compare accounts one table; it cannot be combined with --with");
  // Heterogeneous composition: every part has its own table and count; pair options are shared.
  std::vector<std::pair<PairFamily, int64_t>> parts{{family, request.compositions}};
  std::vector<std::pair<std::string, LoadedTable>> others;
  for (const auto& text : o.with) {
    auto [path, count] = parse_part(text);
    others.emplace_back(path, load_table(path));
    parts.emplace_back(make_pair_family(others.back().second.table, specification), count);
  }
  PairBounds bounds;
  if (parts.size() == 1) {
    spdlog::info("accounting {} composition(s) of {} ({})", request.compositions, family.pairs.back().description,
                 family.justification);
    bounds = account(family, request.compositions, accountant, queries_of(request));
  } else {
    for (const auto& [part, count] : parts)
      spdlog::info("part: {} composition(s) of {} ({})", count, part.pairs.back().description, part.justification);
    bounds = account_heterogeneous(parts, accountant);
  }
  // The options the accountant used: the default may have chosen a finer loss step for the queries.
  const Certificate certificate = make_certificate(bounds, request, bounds.context.options);
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
  for (size_t i = 0; i < others.size(); ++i) {
    const NoiseTable& other = others[i].second.table;
    std::cout << fmt::format("with:  {} x {} ({}, {}; L1 {:.6g}, L2 {:.6g})\n", others[i].first, parts[i + 1].second,
                             describe(other.grid()), to_string(other.support_kind()), l1_utility(other),
                             l2_utility(other));
  }
  if (!recorded.empty())
    std::cout << fmt::format("settings recorded in its noise.json (used where no option replaces them): {}\n",
                             recorded.describe());
  std::cout << halved_loss_step_line(bounds.context.options, accountant) << certificate.report();
  if (comparisons) std::cout << comparisons->report();
}

}  // namespace

Command make_evaluate_command(CLI::App& parent) {
  auto options = std::make_shared<EvaluateOptions>();
  CLI::App* app = parent.add_subcommand(
      "evaluate", "Certify a noise table: rigorous upper and lower bounds on delta(epsilon) after n compositions");
  app->add_option("table", options->table, "Noise table: noise.csv of noiselearn, or any two-column CSV x,p")
      ->required();
  options->pair.add_to(*app, /*sensitivity_required=*/false);  // a noise.json's pair.sensitivity, else required
  options->certificate.add_to(*app);
  options->accountant.add_to(*app);
  app->add_option("--curve", options->curve,
                  "Write the delta(epsilon) curve (epsilon,delta_upper,delta_lower) to this CSV");
  app->add_flag("--json", options->json, "Print the certificate as one JSON object (the fields stored in noise.json)");
  app->add_flag("--force", options->force, "Overwrite an existing --curve file");
  app->add_option("--with", options->with,
                  "Also compose N releases of another table (TABLE:N, repeatable; same sensitivity and pair): "
                  "heterogeneous composition, certified together");
  app->add_flag("--compare", options->compare,
                "Also print other accountants' bounds (moments accountant, RDP, advanced/optimal composition)");
  return Command{app, [options] { run_evaluate(*options); }};
}

}  // namespace noiselearn::cli
