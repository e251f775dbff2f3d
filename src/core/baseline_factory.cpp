#include "core/baseline_factory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "core/errors.hpp"
#include "core/one_sided_baselines.hpp"

namespace noiselearn {

namespace {

struct BaselineFamily {
  const char* name;
  const char* description;
  std::vector<std::string> parameters;  // every one required except "gamma"
};

const std::vector<BaselineFamily>& baseline_families() {
  static const std::vector<BaselineFamily> families = {
      {"gaussian", "Gaussian N(0, sigma^2), bin masses on the grid cells", {"sigma"}},
      {"laplace", "Laplace with scale b (density e^{-|x|/b} / 2b), bin masses on the grid cells", {"scale"}},
      {"truncated-gaussian",
       "Gaussian N(0, sigma^2) truncated to [-range, range] and renormalised",
       {"sigma", "range"}},
      {"truncated-laplace", "Laplace with scale b truncated to [-range, range] and renormalised", {"scale", "range"}},
      {"staircase",
       "staircase mechanism (Geng et al.) for epsilon and sensitivity, gamma (default: L1-optimal), truncated to "
       "[-range, range]",
       {"epsilon", "sensitivity", "gamma", "range"}},
      {"discrete-gaussian",
       "discrete Gaussian (Canonne et al.): p(x) ~ exp(-x^2 / 2 sigma^2) on the grid points",
       {"sigma"}},
      {"discrete-laplace", "discrete Laplace: p(x) ~ exp(-|x| / scale) on the grid points", {"scale"}},
      {"uniform", "equal mass on the grid points in [-range, range]", {"range"}},
      {"tbl",
       "one-sided: truncated biased Laplace (Xiao et al. Def. 4), density ~ e^{-|x - shift|/scale} on [0, R], bin "
       "masses",
       {"scale", "shift"}},
      {"discrete-tbl", "one-sided: p(x) ~ e^{-|x - shift|/scale} on the grid points of [0, R]", {"scale", "shift"}},
      {"tbg",
       "one-sided: truncated biased Gaussian (Xiao et al. Def. 5), density ~ e^{-(x - shift)^2 / 2 sigma^2} on [0, R], "
       "bin "
       "masses",
       {"sigma", "shift"}},
      {"one-sided-optimum",
       "one-sided: the single-release optimum of Xiao et al. Thm 1 (omega rounded up) for epsilon and delta, "
       "sensitivity one grid step",
       {"epsilon", "optimum-delta"}},
  };
  return families;
}

const BaselineFamily& find_family(const std::string& name) {
  for (const auto& family : baseline_families())
    if (family.name == name) return family;
  throw InputError(fmt::format("unknown baseline '{}' (valid: {})", name, fmt::join(baseline_names(), ", ")));
}

std::optional<double> parameter_value(const BaselineParameters& parameters, const std::string& key) {
  if (key == "sigma") return parameters.sigma;
  if (key == "scale") return parameters.scale;
  if (key == "epsilon") return parameters.epsilon;
  if (key == "sensitivity") return parameters.sensitivity;
  if (key == "gamma") return parameters.gamma;
  if (key == "range") return parameters.range;
  if (key == "shift") return parameters.shift;
  if (key == "optimum-delta") return parameters.delta;
  return std::nullopt;
}

}  // namespace

bool is_one_sided_baseline(const std::string& name) {
  return name == "tbl" || name == "discrete-tbl" || name == "tbg" || name == "one-sided-optimum";
}

std::vector<std::string> baseline_names() {
  std::vector<std::string> names;
  for (const auto& family : baseline_families()) names.emplace_back(family.name);
  return names;
}

std::string baseline_description(const std::string& name) { return find_family(name).description; }

std::vector<std::string> baseline_parameter_names(const std::string& name) { return find_family(name).parameters; }

NoiseTable make_baseline(const std::string& name, const Grid& grid, const BaselineParameters& parameters) {
  const BaselineFamily& family = find_family(name);
  // A parameter the family ignores is almost always a mistake (--scale for a Gaussian); sensitivity is exempt
  // because the CLI also uses it for the dominating pair.
  for (const char* key : {"sigma", "scale", "epsilon", "gamma", "range", "shift", "optimum-delta"}) {
    const bool taken = std::find(family.parameters.begin(), family.parameters.end(), key) != family.parameters.end();
    if (!taken && parameter_value(parameters, key))
      throw InputError(fmt::format("baseline {} does not take --{} (it takes --{})", name, key,
                                   fmt::join(family.parameters, ", --")));
  }
  const auto need = [&](const char* key) {
    const std::optional<double> value = parameter_value(parameters, key);
    if (!value) throw InputError(fmt::format("baseline {} needs --{}", name, key));
    return *value;
  };
  if (name == "gaussian") return gaussian_table(grid, need("sigma"));
  if (name == "laplace") return laplace_table(grid, need("scale"));
  // Parameters are read one statement at a time so that the first missing one is reported (argument evaluation
  // order is unspecified).
  if (name == "truncated-gaussian") {
    const double sigma = need("sigma"), range = need("range");
    return truncated_gaussian_table(grid, sigma, range);
  }
  if (name == "truncated-laplace") {
    const double scale = need("scale"), range = need("range");
    return truncated_laplace_table(grid, scale, range);
  }
  if (name == "staircase") {
    const double epsilon = need("epsilon"), sensitivity = need("sensitivity"), range = need("range");
    const double gamma = parameters.gamma ? *parameters.gamma : staircase_optimal_gamma_l1(epsilon);
    return staircase_table(grid, epsilon, sensitivity, gamma, range);
  }
  if (name == "discrete-gaussian") return discrete_gaussian_table(grid, need("sigma"));
  if (name == "discrete-laplace") return discrete_laplace_table(grid, need("scale"));
  if (name == "uniform") return uniform_table(grid, need("range"));
  if (name == "tbl" || name == "discrete-tbl") {
    const double scale = need("scale");
    const double shift = parameters.shift ? *parameters.shift : 0.5 * (grid.origin + grid.last());
    return name == "tbl" ? tbl_table(grid, shift, scale) : discrete_tbl_table(grid, shift, scale);
  }
  if (name == "tbg") {
    const double sigma = need("sigma");
    const double shift = parameters.shift ? *parameters.shift : 0.5 * (grid.origin + grid.last());
    return tbg_table(grid, shift, sigma);
  }
  if (name == "one-sided-optimum") {
    const double epsilon = need("epsilon"), delta = need("optimum-delta");
    return one_sided_optimum_table(grid, epsilon, delta);
  }
  throw std::logic_error("baseline family without a constructor: " + name);
}

}  // namespace noiselearn
