#include "io/kinds/geometric_tail.hpp"

#include <cmath>

#include "io/training_config.hpp"

namespace noiselearn {

const std::vector<ConfigKey<GeometricTailConfig>>& GeometricTailConfig::keys() {
  using G = GeometricTailConfig;
  static const std::vector<ConfigKey<G>> keys = {
      {"model.domain", &G::domain, "",
       "geometric-tail: continuous (piecewise-constant density on bins of width model.bin_width) or discrete "
       "(integers)"},
      {"model.window", &G::window, "bins",
       "geometric-tail: N, free masses p_0 .. p_N; geometric tails beyond bin N (1 to 1,000,000)",
       WholeRange{1, 1000000}},
      {"model.tail_ratio", &G::tail_ratio, "per bin", "geometric-tail: r, the tails' decay per bin, in (0, 1)"},
      {"model.bin_width", &G::bin_width, "x units",
       "geometric-tail: Delta, the bin width (pair.sensitivity must be a whole number of bins); 1 for the discrete "
       "domain"},
      {"model.cost", &G::cost, "",
       "geometric-tail: the constrained cost: square (variance), absolute (E|x|), exceedance (Pr[|x| > "
       "model.cost_threshold])"},
      {"model.cost_budget", &G::cost_budget, "cost units",
       "geometric-tail: C, the expected cost the noise must meet exactly (x units^2 for square, x units for absolute, "
       "a "
       "probability for exceedance)"},
      {"model.cost_threshold", &G::cost_threshold, "x units", "geometric-tail: tau of the exceedance cost"},
  };
  return keys;
}

void GeometricTailConfig::validate() const {
  using config_schema::require;
  config_schema::require_one_of(domain, "model.domain", {"continuous", "discrete"});
  require(tail_ratio > 0.0 && tail_ratio < 1.0, "model.tail_ratio", "must be in (0, 1)");
  require(config_schema::positive(bin_width), "model.bin_width", "must be positive");
  config_schema::require_one_of(cost, "model.cost", {"square", "absolute", "exceedance"});
  require(config_schema::positive(cost_budget), "model.cost_budget", "must be positive");
  require(cost != "exceedance" || cost_budget < 1.0, "model.cost_budget",
          "must be below 1 (a probability) for the exceedance cost");
  require(cost_threshold >= 0.0 && std::isfinite(cost_threshold), "model.cost_threshold", "must be finite and >= 0");
}

ModelKind geometric_tail_model_kind() {
  // Built by its optimiser (the preconditioned gradient), not by train/factories.cpp.
  ModelKind kind = named_kind("geometric-tail",
                              "Gilani et al. Defs 3.3-3.4: needs optimiser.kind = pgd and loss.kind = renyi or "
                              "soft-pld; the grid.* keys do not apply");
  kind.validate = [](const TrainingConfig& c) {
    using config_schema::require;
    require(c.geometric_tail.domain != "discrete" || c.geometric_tail.bin_width == 1.0, "model.bin_width",
            "must be 1 for the discrete domain");
    require(c.loss_kind == "renyi" || c.loss_kind == "soft-pld", "loss.kind",
            "must be renyi or soft-pld for model.kind = geometric-tail");
    require(c.target_mode == "none", "target.mode",
            "must be none for model.kind = geometric-tail (the cost is a constraint)");
    require(c.pair_kind == "additive", "pair.kind", "must be additive for model.kind = geometric-tail");
  };
  return kind;
}

}  // namespace noiselearn
