#include "io/certificate_files.hpp"

#include <fmt/format.h>

#include <cmath>

#include "io/atomic_file.hpp"

namespace noiselearn {

namespace {

nlohmann::json finite_or_null(double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(); }

nlohmann::json by_direction(const std::map<std::string, double>& values) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, value] : values) out[name] = finite_or_null(value);
  return out;
}

}  // namespace

nlohmann::json certificate_json(const Certificate& c) {
  nlohmann::json out;
  out["compositions"] = c.compositions;
  out["pair"] = c.accounted.pair;
  out["pairs_checked"] = c.accounted.pairs_checked;
  // For a mechanism without a grid "covers" names the record relation too (add_remove or replace_one).
  out["neighbours"] = {{"relation", to_string(c.accounted.neighbours.sequences)},
                       {"covers", describe(c.accounted.neighbours)}};
  out["infinity_mass"] = {{"single_release", c.infinity_mass.single_release}, {"composed", c.infinity_mass.composed}};
  out["dominating_direction"] = c.dominating_direction;
  if (!c.several_pairs.empty()) out["several_pairs"] = c.several_pairs;
  if (c.substitution_tv > 0.0) out["substitution_tv"] = c.substitution_tv;
  if (!c.closed_form.empty()) out["closed_form"] = c.closed_form;
  out["epsilon_at_delta"] = nlohmann::json::array();
  for (const auto& e : c.epsilons)
    out["epsilon_at_delta"].push_back({{"delta", e.delta},
                                       {"epsilon_upper", finite_or_null(e.epsilon_upper)},
                                       {"epsilon_lower", finite_or_null(e.epsilon_lower)},
                                       {"epsilon_upper_by_direction", by_direction(e.epsilon_upper_by_direction)},
                                       {"dominating_direction", e.dominating_direction},
                                       {"upper_method", e.upper_method},
                                       {"lower_method", e.lower_method}});
  out["delta_at_epsilon"] = nlohmann::json::array();
  for (const auto& d : c.deltas)
    out["delta_at_epsilon"].push_back({{"epsilon", d.epsilon},
                                       {"delta_upper", d.delta_upper},
                                       {"delta_lower", d.delta_lower},
                                       {"delta_upper_by_direction", by_direction(d.delta_upper_by_direction)},
                                       {"dominating_direction", d.dominating_direction},
                                       {"upper_method", d.upper_method},
                                       {"lower_method", d.lower_method}});
  const auto& d = c.discretisation;
  out["discretisation"] = {{"loss_step", d.loss_step},
                           {"final_loss_step", d.final_loss_step},
                           {"grid_points", d.grid_points},
                           {"upper_method", d.upper_method},
                           {"lower_method", d.lower_method},
                           {"tail_mass", d.tail_mass},
                           {"truncated_mass_upper", d.truncated_mass_upper},
                           {"numerical_error_upper", d.allowance.numerical_upper},
                           {"numerical_error_lower", d.allowance.numerical_lower},
                           {"relative_error_upper", d.allowance.relative_upper},
                           {"relative_error_lower", d.allowance.relative_lower}};
  // Only when max_points stopped the default's loss step (files made before it stay the same).
  if (d.loss_step_wanted > 0.0) out["discretisation"]["loss_step_wanted"] = d.loss_step_wanted;
  out["accountant"] = accountant_options_json(c.accountant);
  return out;
}

nlohmann::json accountant_options_json(const AccountantOptions& o) {
  return {{"loss_step", o.loss_step},
          {"tail_mass", o.tail_mass},
          {"max_points", o.max_points},
          {"upper_method", to_string(o.upper_method)},
          {"lower_method", to_string(o.lower_method)},
          {"tilted_refinement", o.tilted_refinement},
          {"several_pairs", to_string(o.several_pairs)},
          {"adaptive_skip_width", o.adaptive_skip_width},
          {"adaptive_budget", o.adaptive_budget},
          {"adaptive_block_budget", o.adaptive_block_budget}};
}

nlohmann::json comparisons_json(const Comparisons& comparisons) {
  nlohmann::json out;
  out["epsilon_at_delta"] = nlohmann::json::array();
  for (const auto& c : comparisons.at_delta)
    out["epsilon_at_delta"].push_back({{"delta", c.delta},
                                       {"moments_accountant", finite_or_null(c.moments_accountant)},
                                       {"rdp_mironov", finite_or_null(c.rdp_mironov)},
                                       {"rdp_balle", finite_or_null(c.rdp_balle)},
                                       {"hybrid_renyi", finite_or_null(c.hybrid_renyi)},
                                       {"advanced_composition", finite_or_null(c.advanced_composition)},
                                       {"optimal_composition", finite_or_null(c.optimal_composition)}});
  out["delta_at_epsilon"] = nlohmann::json::array();
  for (const auto& c : comparisons.at_epsilon)
    out["delta_at_epsilon"].push_back({{"epsilon", c.epsilon},
                                       {"moments_accountant", c.moments_accountant},
                                       {"rdp_mironov", c.rdp_mironov},
                                       {"rdp_balle", c.rdp_balle}});
  return out;
}

void write_certificate_curve(const Certificate& certificate, const std::filesystem::path& path, bool overwrite) {
  std::string text = "epsilon,delta_upper,delta_lower\n";
  for (const auto& point : certificate.curve)
    text += fmt::format("{:.17g},{:.17g},{:.17g}\n", point.epsilon, point.delta_upper, point.delta_lower);
  write_file_atomically(path, text, overwrite);
}

}  // namespace noiselearn
