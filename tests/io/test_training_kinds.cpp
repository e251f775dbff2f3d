// The registries of optimiser.kind and loss.kind (io/training_kinds.hpp): a registered kind is found by its name, a
// mistyped one is refused in one line with the nearest registered name, and what the config validates and lists is
// what the registrations say.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "io/config_schema.hpp"
#include "io/training_config.hpp"
#include "io/training_kinds.hpp"

using namespace noiselearn;

namespace {

std::string description_of(const std::string& key) {
  const auto* found = config_schema::find_key<TrainingConfig>(key);
  REQUIRE(found != nullptr);
  return found->description;
}

std::string refusal(const std::vector<std::string>& overrides) {
  try {
    TrainingConfig::parse("", "c.yaml", overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("every registered optimiser and loss is found by its name, and nothing else is", "[config][kinds]") {
  CHECK(kind_names(optimiser_kinds()) == std::vector<std::string>{"adam", "pgd", "convex"});
  CHECK(kind_names(loss_kinds()) == std::vector<std::string>{"soft-pld", "moments-accountant", "privacy-buckets-adp",
                                                             "privacy-buckets-pdp", "renyi", "hrdp"});
  for (const auto& kind : optimiser_kinds()) {
    REQUIRE(find_optimiser_kind(kind.name) == &kind);
    CHECK(kind.resumable_length_key);
  }
  for (const auto& kind : loss_kinds()) CHECK(find_loss_kind(kind.name) == &kind);
  CHECK(find_optimiser_kind("Adam") == nullptr);
  CHECK(find_optimiser_kind("soft-pld") == nullptr);
  CHECK(find_loss_kind("adam") == nullptr);
  // Each registered name is a valid config value (the default config otherwise), the kinds' rules met.
  CHECK(TrainingConfig::parse("", "c.yaml", {"loss.kind=moments-accountant"}).loss_kind == "moments-accountant");
  CHECK(TrainingConfig::parse("model: {kind: geometric-tail}\noptimiser: {kind: pgd}\nloss: {kind: renyi}\n", "c.yaml")
            .optimiser_kind == "pgd");
}

TEST_CASE("a mistyped optimiser or loss is refused in one line naming the nearest registered kind and every valid one",
          "[config][kinds]") {
  const std::string optimiser = refusal({"optimiser.kind=adma"});
  CHECK(optimiser == "optimiser.kind = 'adma' is not valid; did you mean 'adam'? (valid: adam, pgd, convex)");
  const std::string loss = refusal({"loss.kind=renji"});
  CHECK(loss ==
        "loss.kind = 'renji' is not valid; did you mean 'renyi'? (valid: soft-pld, moments-accountant, "
        "privacy-buckets-adp, privacy-buckets-pdp, renyi, hrdp)");
  // Nothing near: every valid kind, no guess.
  const std::string far = refusal({"optimiser.kind=simulated-annealing"});
  CHECK(far == "optimiser.kind = 'simulated-annealing' is not valid (valid: adam, pgd, convex)");
  for (const std::string& message : {optimiser, loss, far}) CHECK(message.find('\n') == std::string::npos);
}

TEST_CASE("config-keys' text of optimiser.kind and loss.kind is generated from the registrations", "[config][kinds]") {
  CHECK(description_of("optimiser.kind") == optimiser_kind_listing());
  CHECK(description_of("loss.kind") == loss_kind_listing());
  // Each kind's entry, in registration order: its name, its summary in parentheses, its aside after a semicolon.
  const std::string listing = optimiser_kind_listing();
  size_t at = 0;
  for (const auto& kind : optimiser_kinds()) {
    const size_t found = listing.find(kind.name + " (" + kind.summary + ")", at);
    CHECK(found != std::string::npos);
    at = found;
  }
  CHECK(listing.find(" or convex (") != std::string::npos);  // a choice of one: "a, b or c"
  for (const auto& kind : loss_kinds()) {
    CHECK(loss_kind_listing().find(kind.summary.empty() ? kind.name : kind.name + " (" + kind.summary + ")") !=
          std::string::npos);
    if (!kind.aside.empty()) CHECK(loss_kind_listing().find("; " + kind.aside + "; ") != std::string::npos);
  }
  // The rule on its own kinds.
  std::vector<TrainingKind> kinds(3);
  kinds[0].name = "first";
  kinds[0].summary = "its summary";
  kinds[1].name = "second";
  kinds[1].aside = "a remark on what follows";
  kinds[2].name = "third";
  kinds[2].summary = "x";
  CHECK(kind_listing("lead: ", kinds, " or ") ==
        "lead: first (its summary), second; a remark on what follows; third (x)");
  kinds[1].aside.clear();
  CHECK(kind_listing("", kinds, " or ") == "first (its summary), second or third (x)");
  CHECK(kind_listing("", std::vector<TrainingKind>(kinds.begin(), kinds.begin() + 1), " or ") == "first (its summary)");
}

TEST_CASE("a kind's rules and what --resume may grow come from its registration", "[config][kinds]") {
  const OptimiserKind& convex = *find_optimiser_kind("convex");
  REQUIRE(convex.validate);
  // The default config is two-sided: the convex program's first rule refuses it, naming the key.
  CHECK_THROWS_WITH(convex.validate(TrainingConfig{}),
                    "optimiser.kind convex applies to model.support = one-sided only");
  CHECK(refusal({"optimiser.kind=convex"}) == "optimiser.kind convex applies to model.support = one-sided only");
  CHECK(refusal({"model.kind=free-logits", "model.support=one-sided", "grid.range=20", "optimiser.kind=convex"}) ==
        "loss.kind must be hrdp for optimiser.kind = convex");
  CHECK(refusal({"model.kind=geometric-tail", "optimiser.kind=pgd", "loss.kind=hrdp"}) ==
        "loss.kind hrdp needs optimiser.kind = convex or adam");
  CHECK_FALSE(find_optimiser_kind("adam")->validate);
  TrainingConfig plain;
  CHECK(find_optimiser_kind("adam")->resumable_length_key(plain) == "optimiser.epochs");
  CHECK(find_optimiser_kind("pgd")->resumable_length_key(plain) == "optimiser.iterations");
  CHECK_THROWS_WITH(convex.resumable_length_key(plain),
                    Catch::Contains("--resume does not apply to optimiser.kind = convex"));
  plain.target_mode = "delta";
  CHECK_THROWS_WITH(find_optimiser_kind("adam")->resumable_length_key(plain),
                    Catch::Contains("it does not apply to target.mode"));
  // The run layer names the learners a LibTorch optimiser needs; the convex program it builds itself.
  CHECK(find_optimiser_kind("adam")->learner_task == "training a neural model with Adam");
  CHECK(convex.learner_task.empty());
}

TEST_CASE("model.kind is a registry too: its config-keys text and its valid names come from the registrations",
          "[config][kinds]") {
  CHECK(description_of("model.kind") == model_kind_listing());
  // The text configs/README.md has always had (the docs test compares the whole table; this pins the entry).
  CHECK(
      model_kind_listing() ==
      "sigmoid-stack (Sommer et al. eq. 4), free-logits, monotone-logits, geometric-tail (Gilani et al. Defs 3.3-3.4: "
      "needs optimiser.kind = pgd and loss.kind = renyi or soft-pld; the grid.* keys do not apply)");
  for (const auto& kind : model_kinds()) CHECK(find_model_kind(kind.name) == &kind);
  CHECK(find_model_kind("sigmoid_stack") == nullptr);
  const std::string refused = refusal({"model.kind=monotone-logit"});
  CHECK(refused ==
        "model.kind = 'monotone-logit' is not valid; did you mean 'monotone-logits'? (valid: sigmoid-stack, "
        "free-logits, monotone-logits, geometric-tail)");
}

TEST_CASE("the family's rules on the loss, the target and the pair come from its registration, each naming its key",
          "[config][kinds]") {
  const std::vector<std::string> family{"model.kind=geometric-tail", "optimiser.kind=pgd", "loss.kind=renyi"};
  auto with = [&](const std::string& assignment) {
    std::vector<std::string> overrides = family;
    overrides.push_back(assignment);
    return refusal(overrides);
  };
  CHECK(refusal(family).empty());
  CHECK(with("loss.kind=moments-accountant") == "loss.kind must be renyi or soft-pld for model.kind = geometric-tail");
  CHECK(with("target.mode=delta") ==
        "target.mode must be none for model.kind = geometric-tail (the cost is a constraint)");
  CHECK(with("pair.kind=subsampled") == "pair.kind must be additive for model.kind = geometric-tail");
  CHECK(with("model.domain=discrete") == "model.bin_width must be 1 for the discrete domain");
  CHECK(refusal({"model.kind=geometric-tail", "optimiser.kind=pgd", "loss.kind=renyi", "model.domain=discrete",
                 "model.bin_width=1"})
            .empty());
  // The rule binds the family only: a grid model ignores the family's keys.
  CHECK(refusal({"model.domain=discrete"}).empty());
  CHECK(refusal({"model.kind=geometric-tail"}) == "optimiser.kind must be pgd for model.kind = geometric-tail");
  CHECK(refusal({"optimiser.kind=pgd"}) == "optimiser.kind pgd applies to model.kind = geometric-tail only");
  const ModelKind& tail = *find_model_kind("geometric-tail");
  REQUIRE(tail.validate);
  CHECK_FALSE(find_model_kind("sigmoid-stack")->validate);
}

TEST_CASE(
    "a kind's own keys are its typed config: declared once in its file, read and written through the training config",
    "[config][kinds]") {
  // Every key of a kind's config is in the schema once, in the kind's section, with the kind's text and range.
  auto keys_of = [](const auto& kind_keys) {
    std::vector<std::string> names;
    for (const auto& key : kind_keys) names.push_back(key.name);
    return names;
  };
  CHECK(keys_of(AdamConfig::keys()) ==
        std::vector<std::string>{"optimiser.epochs", "optimiser.learning_rate", "optimiser.learning_rate_decay"});
  CHECK(keys_of(SigmoidStackConfig::keys()) == std::vector<std::string>{"model.sigmoids", "model.slope"});
  for (const auto& names :
       {keys_of(AdamConfig::keys()), keys_of(PreconditionedGradientConfig::keys()), keys_of(SigmoidStackConfig::keys()),
        keys_of(GeometricTailConfig::keys()), keys_of(SoftPldConfig::keys()), keys_of(MomentsAccountantConfig::keys()),
        keys_of(PrivacyBucketsConfig::keys()), keys_of(RenyiConfig::keys())})
    for (const auto& name : names) {
      const auto& schema = TrainingConfig::schema();
      CHECK(std::count_if(schema.begin(), schema.end(), [&](const auto& key) { return key.name == name; }) == 1);
    }
  CHECK(description_of("optimiser.epochs") == AdamConfig::keys()[0].description);
  // A key of a kind reads into the kind's member and writes back from it.
  const TrainingConfig c = TrainingConfig::parse("optimiser:\n  epochs: 7\n  direction: lbfgs\nloss:\n  buckets: 40\n",
                                                 "c.yaml", {"model.slope=250", "loss.soft_pld_shifts=worst-shift"});
  CHECK(c.adam.epochs == 7);
  CHECK(c.pgd.direction == "lbfgs");
  CHECK(c.privacy_buckets.buckets == 40);
  CHECK(c.sigmoid_stack.slope == 250.0);
  CHECK(c.soft_pld.shifts == "worst-shift");
  CHECK(c.value_of(*config_schema::find_key<TrainingConfig>("optimiser.epochs")) == "7");
  CHECK_THAT(c.to_yaml(), Catch::Contains("optimiser:\n  kind: adam\n  epochs: 7\n"));
  // The range a kind declares with its key is the one parsing and validation apply.
  CHECK(refusal({"optimiser.line_search_halvings=201"}) ==
        "--set: optimiser.line_search_halvings must be a whole number from 1 to 200 (got '201')");
  CHECK(refusal({"loss.buckets=1"}) == "--set: loss.buckets must be a whole number from 2 to 1,000,000 (got '1')");
  TrainingConfig set_in_code;
  set_in_code.geometric_tail.window = 0;
  CHECK_THROWS_WITH(set_in_code.validate(), "model.window must be a whole number from 1 to 1,000,000 (got 0)");
  // And each kind's validate() its own keys' rules, naming the key.
  CHECK(refusal({"loss.buckets=41"}) == "loss.buckets must be even (2h buckets; got 41)");
  CHECK(refusal({"optimiser.learning_rate_decay=1.5"}) == "optimiser.learning_rate_decay must be in (0, 1]");
  CHECK(refusal({"model.tail_ratio=1"}) == "model.tail_ratio must be in (0, 1)");
  CHECK(refusal({"loss.rdp_conversion=bale"}) ==
        "loss.rdp_conversion = 'bale' is not valid; did you mean 'balle'? (valid: mironov, balle)");
  CHECK(refusal({"optimiser.max_seconds=-1"}) == "optimiser.max_seconds must be finite and >= 0");
  CHECK(refusal({"loss.soft_pld_loss_step=2"}) == "loss.soft_pld_loss_step must be in (0, 1]");
  CHECK(refusal({"loss.moments_lambda_sq=.inf"}) == "loss.moments_lambda_sq must be finite");
  CHECK(refusal({"model.slope=0"}) == "model.slope must be positive");
}
