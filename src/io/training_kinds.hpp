#pragma once
// The kinds a training config chooses by name, optimiser.kind, loss.kind and model.kind, as the config knows them: one
// registration each (io/optimiser_kinds.cpp, io/loss_kinds.cpp, io/model_kinds.cpp) gives the name
// TrainingConfig::validate() accepts (a mistyped one is refused with the nearest registered name), the text `noiselearn
// config-keys` and configs/README.md print for the key, the kind's rules on the other keys, and, for an optimiser, what
// --resume may grow. How a kind is built lives above: the optimisers in the run layer (run/optimiser_factories.hpp),
// the losses with LibTorch in train/factories.cpp, each found there by the same name. They are registered here, below
// both, because whatever does not link LibTorch (`noiselearn config-keys`, a sweep's expansion, the io tests) still
// validates and lists them.
#include <functional>
#include <string>
#include <vector>

namespace noiselearn {

struct TrainingConfig;

// One value of a kind-valued key.
struct TrainingKind {
  std::string name;
  // What the key's listing says of it, in parentheses after the name; empty: the name alone.
  std::string summary;
  // A clause the listing prints after this kind's entry, set off by semicolons instead of the comma; empty: none.
  std::string aside;
  // The other keys as this kind needs them (an InputError naming the key), checked by TrainingConfig::validate() after
  // the model's and the support's rules on the optimiser. Empty: no rules of its own.
  std::function<void(const TrainingConfig&)> validate;
};

struct OptimiserKind : TrainingKind {
  // The config key whose growth --resume allows; an InputError saying why where this kind cannot be resumed.
  std::function<std::string(const TrainingConfig&)> resumable_length_key;
  // What a program that was not linked with the LibTorch learners is told it cannot do ("training a neural model with
  // Adam"); empty for a kind the run layer builds itself.
  std::string learner_task;
};

using LossKind = TrainingKind;
using ModelKind = TrainingKind;

// A kind with only a name and a summary (no rules of its own).
inline TrainingKind named_kind(const std::string& name, const std::string& summary) {
  TrainingKind kind;
  kind.name = name;
  kind.summary = summary;
  return kind;
}

// Every registered kind, in registration order (the order of the listing and of "valid: ...").
const std::vector<OptimiserKind>& optimiser_kinds();
const std::vector<LossKind>& loss_kinds();
const std::vector<ModelKind>& model_kinds();

// The kind of this name, or nullptr.
const OptimiserKind* find_optimiser_kind(const std::string& name);
const LossKind* find_loss_kind(const std::string& name);
const ModelKind* find_model_kind(const std::string& name);

// The kinds' names, in registration order.
template <class Kind>
std::vector<std::string> kind_names(const std::vector<Kind>& kinds) {
  std::vector<std::string> names;
  for (const auto& kind : kinds) names.push_back(kind.name);
  return names;
}

// The description of a kind-valued key: `lead`, then every kind's entry ("name (summary)", its aside after a
// semicolon), separated by ", " and before the last by `last_separator` (" or " for a choice of one).
template <class Kind>
std::string kind_listing(const std::string& lead, const std::vector<Kind>& kinds, const std::string& last_separator) {
  std::string out = lead;
  for (size_t i = 0; i < kinds.size(); ++i) {
    if (i > 0) out += !kinds[i - 1].aside.empty() ? "; " : i + 1 == kinds.size() ? last_separator : ", ";
    out += kinds[i].name;
    if (!kinds[i].summary.empty()) out += " (" + kinds[i].summary + ")";
    if (!kinds[i].aside.empty()) out += "; " + kinds[i].aside;
  }
  return out;
}

// The listings of optimiser.kind and loss.kind (TrainingConfig::schema()).
std::string optimiser_kind_listing();
std::string loss_kind_listing();
std::string model_kind_listing();

}  // namespace noiselearn
