#include "io/recorded_certification.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/errors.hpp"

namespace noiselearn {

namespace {

using json = nlohmann::json;

const json* recorded_member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto at = object.find(key);
  return at == object.end() || at->is_null() ? nullptr : &*at;
}

double recorded_number(const json& value, const std::string& key) {
  if (!value.is_number()) throw InputError(fmt::format("noise.json: {} must be a number (got {})", key, value.dump()));
  return value.get<double>();
}

std::string recorded_text(const json& value, const std::string& key) {
  if (!value.is_string()) throw InputError(fmt::format("noise.json: {} must be a string (got {})", key, value.dump()));
  return value.get<std::string>();
}

// The accountant's options from certificate.accountant (every field), or from certificate.discretisation (files
// written before the accountant's options were recorded: loss step, tail mass and the two methods).
std::optional<AccountantOptions> recorded_accountant(const json& certificate) {
  AccountantOptions o;
  if (const json* a = recorded_member(certificate, "accountant")) {
    const std::string where = "certificate.accountant.";
    if (const json* v = recorded_member(*a, "loss_step")) o.loss_step = recorded_number(*v, where + "loss_step");
    if (const json* v = recorded_member(*a, "tail_mass")) o.tail_mass = recorded_number(*v, where + "tail_mass");
    if (const json* v = recorded_member(*a, "max_points")) {
      const double points = recorded_number(*v, where + "max_points");
      // Converting a double outside int64_t's range is undefined behaviour: such a count is refused before.
      if (!(points > -0x1p63 && points < 0x1p63))
        throw InputError(fmt::format("noise.json: {}max_points {} is not a number of points", where, v->dump()));
      o.max_points = static_cast<int64_t>(points);
    }
    if (const json* v = recorded_member(*a, "upper_method"))
      o.upper_method = parse_pessimistic_method(recorded_text(*v, where + "upper_method"));
    if (const json* v = recorded_member(*a, "lower_method"))
      o.lower_method = parse_optimistic_method(recorded_text(*v, where + "lower_method"));
    if (const json* v = recorded_member(*a, "tilted_refinement")) {
      if (!v->is_boolean())
        throw InputError(fmt::format("noise.json: {}tilted_refinement must be true or false", where));
      o.tilted_refinement = v->get<bool>();
    }
    if (const json* v = recorded_member(*a, "several_pairs"))
      o.several_pairs = parse_several_pairs_method(recorded_text(*v, where + "several_pairs"));
    if (const json* v = recorded_member(*a, "adaptive_skip_width"))
      o.adaptive_skip_width = recorded_number(*v, where + "adaptive_skip_width");
    if (const json* v = recorded_member(*a, "adaptive_budget"))
      o.adaptive_budget = recorded_number(*v, where + "adaptive_budget");
    if (const json* v = recorded_member(*a, "adaptive_block_budget"))
      o.adaptive_block_budget = recorded_number(*v, where + "adaptive_block_budget");
  } else if (const json* d = recorded_member(certificate, "discretisation")) {
    const std::string where = "certificate.discretisation.";
    if (const json* v = recorded_member(*d, "loss_step")) o.loss_step = recorded_number(*v, where + "loss_step");
    if (const json* v = recorded_member(*d, "tail_mass")) o.tail_mass = recorded_number(*v, where + "tail_mass");
    if (const json* v = recorded_member(*d, "upper_method"))
      o.upper_method = parse_pessimistic_method(recorded_text(*v, where + "upper_method"));
    if (const json* v = recorded_member(*d, "lower_method"))
      o.lower_method = parse_optimistic_method(recorded_text(*v, where + "lower_method"));
  } else {
    return std::nullopt;
  }
  o.validate();
  return o;
}

}  // namespace

bool RecordedCertification::empty() const {
  return !sensitivity && !pair_kind && !sampling_rate && !neighbours && !compositions && epsilons.empty() &&
         deltas.empty() && !accountant;
}

std::string RecordedCertification::describe() const {
  std::vector<std::string> parts;
  if (sensitivity) parts.push_back(fmt::format("sensitivity {:g}", *sensitivity));
  if (pair_kind)
    parts.push_back(*pair_kind == PairKind::kSubsampledMixture && sampling_rate
                        ? fmt::format("pair {} (sampling rate {:g})", to_string(*pair_kind), *sampling_rate)
                        : fmt::format("pair {}", to_string(*pair_kind)));
  if (neighbours) parts.push_back(fmt::format("neighbours {}", to_string(*neighbours)));
  if (compositions) parts.push_back(fmt::format("{} composition{}", *compositions, *compositions == 1 ? "" : "s"));
  if (!epsilons.empty()) parts.push_back(fmt::format("epsilon {:g}", fmt::join(epsilons, ", ")));
  if (!deltas.empty()) parts.push_back(fmt::format("delta {:g}", fmt::join(deltas, ", ")));
  if (accountant)
    parts.push_back(
        fmt::format("loss step {:g}, tail mass {:g}, several pairs {}, adaptive budget {:g}, block budget {:g}",
                    accountant->loss_step, accountant->tail_mass, to_string(accountant->several_pairs),
                    accountant->adaptive_budget, accountant->adaptive_block_budget));
  return fmt::format("{}", fmt::join(parts, ", "));
}

RecordedCertification recorded_certification(const nlohmann::json& metadata) {
  RecordedCertification r;
  if (const json* pair = recorded_member(metadata, "pair")) {
    if (const json* v = recorded_member(*pair, "sensitivity")) r.sensitivity = recorded_number(*v, "pair.sensitivity");
    if (const json* v = recorded_member(*pair, "kind")) r.pair_kind = parse_pair_kind(recorded_text(*v, "pair.kind"));
    if (const json* v = recorded_member(*pair, "sampling_rate"))
      r.sampling_rate = recorded_number(*v, "pair.sampling_rate");
  }
  const json* certificate = recorded_member(metadata, "certificate");
  if (!certificate) return r;
  if (const json* neighbours = recorded_member(*certificate, "neighbours"))
    if (const json* v = recorded_member(*neighbours, "relation"))
      r.neighbours = parse_neighbour_relation(recorded_text(*v, "certificate.neighbours.relation"));
  if (const json* n = recorded_member(*certificate, "compositions")) {
    if (!n->is_number_integer()) throw InputError("noise.json: certificate.compositions must be a whole number");
    r.compositions = n->get<int64_t>();
  }
  if (const json* queries = recorded_member(*certificate, "delta_at_epsilon"); queries && queries->is_array())
    for (const auto& d : *queries)
      if (const json* e = recorded_member(d, "epsilon"))
        r.epsilons.push_back(recorded_number(*e, "certificate.delta_at_epsilon[].epsilon"));
  if (const json* queries = recorded_member(*certificate, "epsilon_at_delta"); queries && queries->is_array())
    for (const auto& e : *queries)
      if (const json* d = recorded_member(e, "delta"))
        r.deltas.push_back(recorded_number(*d, "certificate.epsilon_at_delta[].delta"));
  r.accountant = recorded_accountant(*certificate);
  return r;
}

}  // namespace noiselearn
