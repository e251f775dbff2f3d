#include "accounting/release_events.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <optional>
#include <set>

#include "accounting/closed_forms.hpp"
#include "accounting/heterogeneous_composition.hpp"
#include "accounting/loss_step_choice.hpp"
#include "core/directed_rounding.hpp"
#include "core/errors.hpp"
#include "core/nearest_word.hpp"

namespace noiselearn {

std::string ReleaseEvent::describe() const {
  std::vector<std::string> parts;
  for (const auto& [key, path] : table_paths) parts.push_back(fmt::format("{} {}", key, path));
  for (const auto& [key, value] : values) parts.push_back(fmt::format("{} {:g}", key, value));
  if (coordinates > 1) parts.push_back(fmt::format("{} coordinates", coordinates));
  return fmt::format("{} ({}), {}, {} release{}", mechanism, fmt::join(parts, ", "), sampling.describe(), count,
                     count == 1 ? "" : "s");
}

int64_t ReleaseEvent::compositions() const {
  return sampling.kind == SamplingKind::kRandomAllocation ? count / sampling.steps_per_epoch : count;
}

void ReleaseDescription::validate() const {
  if (events.empty()) throw InputError("the description has no events (give at least one under 'events')");
  int64_t total = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const auto where = fmt::format("event {}", i + 1);
    try {
      events[i].sampling.validate();
      check_sampling_relation(events[i].sampling, relation);
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {}", where, e.what()));
    }
    if (events[i].count < 1) throw InputError(fmt::format("{}: count {} must be at least 1", where, events[i].count));
    if (events[i].sampling.kind == SamplingKind::kRandomAllocation &&
        events[i].count % events[i].sampling.steps_per_epoch != 0)
      throw InputError(fmt::format("{}: count {} must be a whole number of epochs of steps_per_epoch {}", where,
                                   events[i].count, events[i].sampling.steps_per_epoch));
    if (events[i].count > kMaxCompositions - total)
      throw InputError(
          fmt::format("{}: the total count exceeds the accountant's limit of {}", where, kMaxCompositions));
    total += events[i].count;
  }
}

const std::vector<MechanismParameter>& event_keys() {
  static const std::vector<MechanismParameter> keys{
      {"mechanism", std::nullopt, "",
       "the mechanism's registered name (gaussian, laplace, discrete_gaussian, discrete_laplace, table)"},
      {"count", static_cast<double>(ReleaseEvent{}.count), "releases", "how many times the event is released (steps)",
       true},
      {"coordinates", static_cast<double>(ReleaseEvent{}.coordinates), "coordinates",
       "the mechanism on each of d coordinates with its own noise, neighbours differing by at most the sensitivity in "
       "each (per-coordinate, L-infinity, clipping)",
       true},
      {"sampling", std::nullopt, "",
       "none (default), poisson, without_replacement, random_allocation; left out, the sampling keys decide"},
      {"sampling_rate", std::nullopt, "probability",
       "poisson: the probability that a record is in the batch, in (0, 1]"},
      {"batch_size", std::nullopt, "records", "without_replacement: records per batch", true},
      {"dataset_size", std::nullopt, "records", "without_replacement: records in the data set", true},
      {"steps_per_epoch", std::nullopt, "steps",
       "random_allocation: each record is in exactly one of this many steps per epoch (count is then a whole number "
       "of epochs of steps)",
       true},
  };
  return keys;
}

namespace {

int64_t whole(const std::string& text, const std::string& key, const std::string& where, int64_t least) {
  const double value = parse_event_number(text, key, where);
  if (value != std::floor(value) || value < static_cast<double>(least) || value > 9e15)
    throw InputError(fmt::format("{}: {} must be a whole number of at least {} (got '{}')", where, key, least, text));
  return static_cast<int64_t>(value);
}

// The keys that say how an event's batch is sampled, as given.
struct SamplingKeys {
  std::optional<std::string> sampling, rate, batch, dataset, steps;
};

// The sampling from its keys: as `sampling` gives it, or as the other keys say; keys of another kind are refused.
Sampling parse_sampling(const SamplingKeys& keys, const std::string& where) {
  SamplingKind sampling_kind = SamplingKind::kNone;
  if (keys.sampling) {
    try {
      sampling_kind = parse_sampling_kind(*keys.sampling);
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {}", where, e.what()));
    }
  } else if (keys.rate) {
    sampling_kind = SamplingKind::kPoisson;
  } else if (keys.batch || keys.dataset) {
    sampling_kind = SamplingKind::kWithoutReplacement;
  } else if (keys.steps) {
    sampling_kind = SamplingKind::kRandomAllocation;
  }
  Sampling sampling;
  sampling.kind = sampling_kind;
  auto refuse_key = [&](const std::optional<std::string>& value, const char* key) {
    if (value)
      throw InputError(
          fmt::format("{}: {} does not apply to sampling {} (remove it, or set sampling to the kind it belongs to)",
                      where, key, to_string(sampling_kind)));
  };
  switch (sampling_kind) {
    case SamplingKind::kNone:
      refuse_key(keys.rate, "sampling_rate");
      refuse_key(keys.batch, "batch_size");
      refuse_key(keys.dataset, "dataset_size");
      refuse_key(keys.steps, "steps_per_epoch");
      break;
    case SamplingKind::kPoisson:
      refuse_key(keys.batch, "batch_size");
      refuse_key(keys.dataset, "dataset_size");
      refuse_key(keys.steps, "steps_per_epoch");
      if (!keys.rate)
        throw InputError(fmt::format(
            "{}: sampling poisson needs sampling_rate (the probability that a record is in the batch)", where));
      sampling.rate = parse_event_number(*keys.rate, "sampling_rate", where);
      break;
    case SamplingKind::kWithoutReplacement:
      refuse_key(keys.rate, "sampling_rate");
      refuse_key(keys.steps, "steps_per_epoch");
      if (!keys.batch || !keys.dataset)
        throw InputError(fmt::format("{}: sampling without_replacement needs batch_size and dataset_size", where));
      sampling.batch_size = whole(*keys.batch, "batch_size", where, 1);
      sampling.dataset_size = whole(*keys.dataset, "dataset_size", where, 1);
      break;
    case SamplingKind::kRandomAllocation:
      refuse_key(keys.rate, "sampling_rate");
      refuse_key(keys.batch, "batch_size");
      refuse_key(keys.dataset, "dataset_size");
      if (!keys.steps)
        throw InputError(fmt::format(
            "{}: sampling random_allocation needs steps_per_epoch (each record is in exactly one of them)", where));
      sampling.steps_per_epoch = whole(*keys.steps, "steps_per_epoch", where, 1);
      break;
  }
  try {
    sampling.validate();
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", where, e.what()));
  }
  return sampling;
}

}  // namespace

ReleaseEvent parse_release_event(const EventFields& fields, const std::string& where, const TableReader& read_table) {
  ReleaseEvent event;
  std::set<std::string> seen;
  std::optional<std::string> mechanism, count, coordinates;
  SamplingKeys keys;
  EventFields mechanism_fields;
  for (const auto& [key, text] : fields) {
    if (!seen.insert(key).second) throw InputError(fmt::format("{}: {} is given twice", where, key));
    if (key == "mechanism")
      mechanism = text;
    else if (key == "sampling")
      keys.sampling = text;
    else if (key == "sampling_rate")
      keys.rate = text;
    else if (key == "batch_size")
      keys.batch = text;
    else if (key == "dataset_size")
      keys.dataset = text;
    else if (key == "count")
      count = text;
    else if (key == "coordinates")
      coordinates = text;
    else if (key == "steps_per_epoch")
      keys.steps = text;
    else
      mechanism_fields.emplace_back(key, text);
  }
  if (!mechanism) {
    std::vector<std::string> names;
    for (const auto& kind : mechanism_kinds()) names.push_back(kind.name);
    throw InputError(fmt::format("{}: no mechanism (add 'mechanism: NAME', one of {})", where, fmt::join(names, ", ")));
  }
  const MechanismKind* kind = nullptr;
  try {
    kind = &mechanism_kind(*mechanism);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", where, e.what()));
  }
  event.mechanism = kind->name;
  // A key that is neither an event key nor the mechanism's: name both lists.
  for (const auto& [key, text] : mechanism_fields) {
    bool known = false;
    for (const auto& p : kind->parameters) known = known || p.key == key;
    if (!known) {
      std::vector<std::string> all;
      for (const auto& p : event_keys()) all.push_back(p.key);
      for (const auto& p : kind->parameters) all.push_back(p.key);
      throw InputError(fmt::format("{}: unknown key '{}'{} (keys of a {} event: {})", where, key,
                                   did_you_mean(key, all), kind->name, fmt::join(all, ", ")));
    }
  }
  event.values = mechanism_values(*kind, mechanism_fields, where);
  event.tables = mechanism_tables(*kind, mechanism_fields, where, read_table);
  for (const auto& p : kind->parameters)
    for (const auto& [key, text] : mechanism_fields)
      if (p.table && key == p.key) event.table_paths[key] = text;
  if (count) event.count = whole(*count, "count", where, 1);
  if (coordinates) event.coordinates = whole(*coordinates, "coordinates", where, 1);
  // The mechanism made once here, so that what only its pair can check (a table's sensitivity on its grid, its
  // symmetry) names the event.
  std::shared_ptr<const MechanismPair> pair;
  try {
    pair = kind->make(event.values, event.tables);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", where, e.what()));
  }
  event.sampling = parse_sampling(keys, where);
  // Random allocation of d coordinates needs their product in closed form (random_allocation.hpp).
  if (event.sampling.kind == SamplingKind::kRandomAllocation && event.coordinates > 1 &&
      !pair->coordinate_product(event.coordinates))
    throw InputError(fmt::format("{}: random_allocation on {} coordinates needs a closed-form product (gaussian)",
                                 where, event.coordinates));
  if (event.sampling.kind == SamplingKind::kRandomAllocation && event.count % event.sampling.steps_per_epoch != 0)
    throw InputError(fmt::format(
        "{}: count {} must be a whole number of epochs of steps_per_epoch {} (random_allocation accounts whole "
        "epochs)",
        where, event.count, event.sampling.steps_per_epoch));
  return event;
}

PairBounds event_release_bounds(const ReleaseEvent& event, RecordRelation relation, const AccountantOptions& options) {
  const MechanismKind& kind = mechanism_kind(event.mechanism);
  std::shared_ptr<const MechanismPair> mechanism = kind.make(event.values, event.tables);
  return sampled_release_bounds(std::move(mechanism), event.sampling, relation, options, event.coordinates);
}

PairBounds event_single_release(const ReleaseEvent& event, RecordRelation relation, const AccountantOptions& requested,
                                const AccountingQueries& queries) {
  AccountantOptions options = requested;
  PairBounds single = event_release_bounds(event, relation, options);
  // Under several_pairs auto the default decides per query: the loss step is halved while the discretisation's
  // predicted bracket at a query is wider than adaptive_skip_width, or the step is coarse beside one release's loss
  // spread (loss_step_choice.hpp).
  double wanted = 0.0;
  if (options.several_pairs == SeveralPairsMethod::kAuto && !queries.empty()) {
    // The release's own re-discretisation where it has one (random allocation keeps its epoch's ratio sums).
    std::function<PairBounds(const AccountantOptions&)> again = single.context.rediscretise;
    if (!again) again = [&](const AccountantOptions& o) { return event_release_bounds(event, relation, o); };
    LossStepChoice choice =
        choose_loss_step(std::move(single), event.compositions(), queries, options, options.adaptive_skip_width, again);
    single = std::move(choice.single);
    options = choice.options;
    wanted = choice.loss_step_wanted;
  }
  single.context.options = options;
  single.context.loss_step_wanted = wanted;
  return single;
}

namespace {

// A Gaussian event whose releases see every record (no sampling, or a sampling that keeps them all).
bool unsampled_gaussian(const ReleaseEvent& event) {
  return event.mechanism == "gaussian" && event.sampling.probability() == 1.0;
}

// Unsampled Gaussian releases compose exactly to one Gaussian release of mu^2 = sum_i n_i d_i / z_i^2
// (closed_forms.hpp), under either relation (the multiplier is in sensitivities of the relation). They are accounted as
// one event of multiplier 1 / mu, mu taken at the upper end of its rounding bracket (the conservative side), composed
// once instead of sum_i n_i times, with the other events as they are. The closed form answers too when nothing else
// is released.
struct MergedGaussians {
  ReleaseDescription description;
  std::optional<GaussianMu> mu;  // of the merged releases, when there are any
  bool only_gaussians = false;   // every event was one of them
  int64_t releases = 0;          // how many releases were merged
};

MergedGaussians merge_unsampled_gaussians(const ReleaseDescription& description) {
  MergedGaussians merged;
  merged.description.relation = description.relation;
  std::vector<GaussianReleases> gaussians;
  for (const auto& event : description.events) {
    if (!unsampled_gaussian(event)) {
      merged.description.events.push_back(event);
      continue;
    }
    gaussians.push_back({event.values.at("noise_multiplier"), static_cast<double>(event.count),
                         static_cast<double>(event.coordinates)});
    merged.releases += event.count;
  }
  if (gaussians.empty()) return merged;
  merged.mu = composed_gaussian_mu(gaussians);
  merged.only_gaussians = merged.description.events.empty();
  // One release already in its simplest form is left as it was given (the same multiplier to the last bit).
  const bool one_plain_release = gaussians.size() == 1 && merged.releases == 1 && gaussians.front().coordinates == 1.0;
  if (one_plain_release) {
    merged.description = description;
    return merged;
  }
  ReleaseEvent event;
  event.mechanism = "gaussian";
  event.values["noise_multiplier"] = lowered_by(1.0 / merged.mu->upper, roundings(1.0));
  merged.description.events.insert(merged.description.events.begin(), std::move(event));
  return merged;
}

PairBounds account_merged_events(const ReleaseDescription& description, const AccountantOptions& requested,
                                 const AccountingQueries& queries) {
  AccountantOptions options = requested;
  options.fft_power = true;  // n-fold compositions by one FFT power (fft_power.hpp)
  if (description.events.size() == 1) {
    const ReleaseEvent& event = description.events.front();
    PairBounds single = event_single_release(event, description.relation, options, queries);
    options = single.context.options;
    return compose_bounds(single, event.compositions(), options, queries);  // keeps the single release's rediscretise
  }
  std::vector<std::pair<PairBounds, int64_t>> parts;
  std::vector<PairBounds> singles;
  if (options.several_pairs == SeveralPairsMethod::kAuto && !queries.empty()) {
    // With queries, every part at half the finest loss step any event asks for alone (loss_step_choice.hpp): each
    // event's choice meets the tolerance for its own composition, and the parts' discretisation errors add, which a
    // half step (second order: a quarter of the error) covers for up to four events.
    double step = options.loss_step;
    for (const auto& event : description.events) {
      singles.push_back(event_single_release(event, description.relation, options, queries));
      step = std::min(step, singles.back().context.options.loss_step);
    }
    options.loss_step = step / 2.0;
  }
  for (size_t i = 0; i < description.events.size(); ++i) {
    const ReleaseEvent& event = description.events[i];
    // A release's own re-discretisation where it has one (random allocation keeps its epoch's ratio sums).
    const bool again = i < singles.size() && singles[i].context.rediscretise;
    parts.emplace_back(
        again ? singles[i].context.rediscretise(options) : event_release_bounds(event, description.relation, options),
        event.compositions());
  }
  return compose_heterogeneous_bounds(parts, options);
}

// Unsampled Gaussian releases alone: the closed form answers every query, so no PLD is made (one release of mu = 200,
// what 10^6 releases of multiplier 5 compose to, spans 4e4 nats of loss). The scenarios are the trivial bounds
// delta <= 1 (all the upper mass at infinity) and delta >= 0 (no lower mass), which the closed form tightens.
PairBounds closed_form_gaussian_bounds(const ReleaseDescription& description, const MergedGaussians& merged,
                                       const AccountantOptions& options) {
  std::vector<std::string> events;
  for (const auto& event : description.events)
    events.push_back(fmt::format("multiplier {:g}{} x {}", event.values.at("noise_multiplier"),
                                 event.coordinates > 1 ? fmt::format(" on {} coordinates", event.coordinates) : "",
                                 event.count));
  PairBounds bounds;
  bounds.accounted.pair = fmt::format(
      "unsampled Gaussian releases ({}; {}), together exactly the Gaussian mechanism of mu = {:.12g} (Balle and Wang)",
      fmt::join(events, ", "), to_string(description.relation), merged.mu->upper);
  bounds.accounted.pairs_checked =
      mechanism_kind("gaussian").make({{"noise_multiplier", 1.0}}, {})->worst_case_justification();
  bounds.accounted.neighbours = {NeighbourRelation::kAnySequence, description.relation};
  bounds.compositions = merged.releases;
  bounds.upper.name = "closed form";
  bounds.upper.first_to_second.infinity_mass = 1.0;
  DirectionalPLDs lower;
  lower.name = "closed form";
  lower.first_to_second.bound = BoundKind::kLower;
  bounds.lower.push_back(std::move(lower));
  bounds.context.options = options;
  bounds.alternatives.closed_form = gaussian_closed_form(*merged.mu);
  return bounds;
}

}  // namespace

namespace {

// An epoch of random allocation is a post-processing of one unsampled Gaussian release: put it at a uniformly drawn
// step and fresh draws of Q at the others, and P goes to the epoch with the record, Q to the one without. So the
// epochs compose to at most the Gaussian of mu = sqrt(epochs d) / m (Balle and Wang): an upper bound only, the one
// that holds where the ratios' lattice is too coarse (multipliers below about 0.7, whose ratios have a heavy tail).
ClosedFormBounds allocation_gaussian_upper(const ReleaseEvent& event) {
  ClosedFormBounds upper = gaussian_closed_form(
      composed_gaussian_mu({{event.values.at("noise_multiplier"), static_cast<double>(event.compositions()),
                             static_cast<double>(event.coordinates)}}));
  upper.exact = false;
  upper.method = "one unsampled Gaussian release per epoch (the epoch is a post-processing of it; Balle and Wang)";
  return upper;
}

}  // namespace

PairBounds account_events(const ReleaseDescription& description, const AccountantOptions& requested,
                          const AccountingQueries& queries) {
  description.validate();
  requested.validate();
  const MergedGaussians merged = merge_unsampled_gaussians(description);
  if (merged.only_gaussians) return closed_form_gaussian_bounds(description, merged, requested);
  PairBounds bounds = account_merged_events(merged.description, requested, queries);
  if (merged.mu && merged.releases > 1)
    bounds.accounted.pair += fmt::format("; {} unsampled Gaussian releases composed exactly as one (mu = {:.12g})",
                                         merged.releases, merged.mu->upper);
  const ReleaseEvent& first = description.events.front();
  if (description.events.size() == 1 && first.mechanism == "laplace" && first.sampling.probability() == 1.0 &&
      first.count == 1 && first.coordinates == 1)
    bounds.alternatives.closed_form = laplace_closed_form(first.values.at("noise_multiplier"), 1.0);
  if (description.events.size() == 1 && first.mechanism == "gaussian" &&
      first.sampling.kind == SamplingKind::kRandomAllocation && !bounds.alternatives.closed_form) {
    bounds.alternatives.closed_form = allocation_gaussian_upper(first);
    bounds.accounted.pairs_checked +=
        "; also bounded above by one unsampled Gaussian release per epoch (the epoch is a post-processing of it), "
        "which a query takes where it is lower (its upper_method says so)";
  }
  return bounds;
}

}  // namespace noiselearn
