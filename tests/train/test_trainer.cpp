// The training loop: schedules (eq. 3), reproducibility, checkpoints, guards, keep-best.
#include <catch2/catch.hpp>

#include <cmath>
#include <system_error>

#include "core/baselines.hpp"
#include "losses/soft_pld_loss.hpp"
#include "models/free_logits.hpp"
#include "models/sigmoid_stack.hpp"
#include "train/trainer.hpp"

using namespace noiselearn;

namespace {

TrainingOptions small_options(int64_t epochs) {
  TrainingOptions o;
  o.epochs = epochs;
  o.learning_rate.initial = 0.01;
  o.learning_rate.decay = 0.999;
  o.utility_weight.start = 0.01;
  o.utility_weight.halving_epochs = 20;
  o.pair.shift_cells = 10;
  o.log_every = 0;
  o.history_every = 1;
  return o;
}

std::shared_ptr<SoftPldLoss> small_loss() {
  SoftPldLossOptions o;
  o.epsilon = 1.0;
  o.compositions = 4;
  return std::make_shared<SoftPldLoss>(o);
}

std::shared_ptr<SigmoidStack> small_model(uint64_t seed) {
  SigmoidStackOptions o;
  o.sigmoids = 50;
  o.seed = seed;
  return std::make_shared<SigmoidStack>(Grid::symmetric(8.0, 0.1), o);
}

std::vector<double> probabilities(NoiseModel& model) { return table_of(model).probabilities(); }

}  // namespace

TEST_CASE("utility weight and learning rate follow eq. (3) and the exponential decay", "[trainer]") {
  UtilityWeightSchedule w{0.5, 2500.0, 1e-7, true};
  CHECK(w.at(0) == 0.5);
  CHECK(w.at(2500) == Approx(0.25).epsilon(1e-15));
  CHECK(w.at(7500) == Approx(0.0625).epsilon(1e-15));
  CHECK(w.at(1000000) == 1e-7);  // floor w_min
  w.decay = false;
  CHECK(w.at(7500) == 0.5);
  LearningRateSchedule lr{1e-3, 0.99995};
  CHECK(lr.at(10000) == Approx(1e-3 * std::pow(0.99995, 10000)).epsilon(1e-14));
}

TEST_CASE("training lowers the objective and is reproducible bit for bit", "[trainer]") {
  auto run = [](uint64_t seed) {
    auto model = small_model(seed);
    Trainer trainer(model, small_loss(), small_options(60));
    const TrainingSummary summary = trainer.run();
    return std::pair{probabilities(*model), summary};
  };
  const auto [first, summary] = run(7);
  const auto [second, again] = run(7);
  CHECK(first == second);  // bit for bit
  CHECK(summary.history.back().privacy < summary.history.front().privacy);
  CHECK_FALSE(summary.stopped_early);
  const auto [other, _] = run(8);
  CHECK(other != first);
}

TEST_CASE("a resumed run equals an uninterrupted one, keep-best included, and counts every session", "[trainer]") {
  const bool keep_best = GENERATE(false, true);
  INFO("keep_best " << keep_best);
  auto straight = small_model(3);
  TrainingOptions options = small_options(40);
  options.keep_best = keep_best;
  const TrainingSummary uninterrupted = Trainer(straight, small_loss(), options).run();

  // The first session stops at epoch 20 of 40: the final utility weight is that of epoch 39 in both sessions,
  // so the two runs compare epochs on the same scale.
  auto interrupted = small_model(3);
  std::string checkpoint;
  TrainingOptions first_half = options;
  // Run the first 20 epochs of the same 40-epoch schedule: stop by throwing from the checkpoint at epoch 20
  // (as a killed run stops after its last checkpoint).
  first_half.checkpoint_every = 20;
  struct Stop {};
  first_half.write_checkpoint = [&](const std::string& archive) {
    checkpoint = archive;
    throw Stop{};
  };
  Trainer stopped(interrupted, small_loss(), first_half);
  CHECK_THROWS_AS(stopped.run(), Stop);
  REQUIRE_FALSE(checkpoint.empty());

  auto resumed = small_model(99);  // different initialisation: the checkpoint must overwrite it
  Trainer trainer(resumed, small_loss(), options);
  trainer.resume(checkpoint, "checkpoint");
  CHECK(trainer.next_epoch() == 20);
  const TrainingSummary second = trainer.run();
  CHECK(probabilities(*resumed) == probabilities(*straight));
  CHECK(second.best_epoch == uninterrupted.best_epoch);
  // epochs_run counts every session of the run; the session's own share is kept apart.
  CHECK(second.first_epoch == 20);
  CHECK(second.epochs_this_session == 20);
  CHECK(second.epochs_run == 40);
  CHECK(second.epochs_run == uninterrupted.epochs_run);
  CHECK(second.seconds >= second.seconds_this_session);
  CHECK(trainer.history().front().epoch == 0);  // the history of the first session came with the checkpoint
}

TEST_CASE("a checkpoint that cannot be stored ends the run with the writer's exception", "[trainer]") {
  TrainingOptions options = small_options(10);
  options.checkpoint_every = 5;
  int writes = 0;
  options.write_checkpoint = [&](const std::string&) {
    ++writes;
    throw std::system_error(std::make_error_code(std::errc::file_too_large), "cannot write checkpoint.pt");
  };
  Trainer trainer(small_model(1), small_loss(), options);
  CHECK_THROWS_AS(trainer.run(), std::system_error);
  CHECK(writes == 1);
}

TEST_CASE("a checkpoint of another model is refused with a message naming it", "[trainer]") {
  Trainer sigmoid(small_model(1), small_loss(), small_options(1));
  const std::string archive = sigmoid.checkpoint();
  auto logits = std::make_shared<FreeLogits>(Grid::symmetric(8.0, 0.1), FreeLogitsOptions{});
  Trainer other(logits, small_loss(), small_options(1));
  CHECK_THROWS_WITH(other.resume(archive, "run/checkpoint.pt"),
                    Catch::Contains("cannot resume from run/checkpoint.pt"));
}

namespace {

// Free logits whose table turns NaN from the 6th evaluation on (a stand-in for a diverging run).
class FailingModel : public FreeLogits {
 public:
  explicit FailingModel(const Grid& grid) : FreeLogits(grid, FreeLogitsOptions{}) {}
  torch::Tensor log_probabilities() override {
    torch::Tensor log_p = FreeLogits::log_probabilities();
    return ++calls_ >= 6 ? log_p * std::nan("") : log_p;
  }
  int calls_ = 0;
};

}  // namespace

TEST_CASE("NaN during training stops the run, names the epoch and keeps the last good table", "[trainer]") {
  auto model = std::make_shared<FailingModel>(Grid::symmetric(3.0, 0.1));
  TrainingOptions options = small_options(50);
  options.keep_best = false;
  Trainer trainer(model, small_loss(), options);
  const TrainingSummary summary = trainer.run();
  REQUIRE(summary.stopped_early);
  CHECK(summary.stop_reason == "NaN or infinity in the table (log p) at epoch 5");
  CHECK(summary.epochs_run == 5);
  model->calls_ = -100;                       // evaluate the restored parameters normally
  const NoiseTable table = table_of(*model);  // valid: validated on construction
  CHECK(std::isfinite(table.p(0)));
}

TEST_CASE("starting from the truncated Gaussian, keep-best never ends worse by the final objective", "[trainer]") {
  const Grid grid = Grid::symmetric(8.0, 0.1);
  const NoiseTable start = truncated_gaussian_table(grid, 2.0, 8.0);
  auto model = FreeLogits::from_table(start, FreeLogitsOptions{true});
  TrainingOptions options = small_options(30);
  options.learning_rate.initial = 0.5;  // large steps that may overshoot
  auto loss = small_loss();
  Trainer trainer(model, loss, options);
  const TrainingSummary summary = trainer.run();
  const double w_end = options.utility_weight.at(options.epochs - 1);
  auto objective = [&](const NoiseTable& table) {
    torch::NoGradGuard guard;
    const torch::Tensor log_p = log_probabilities_of(table);
    return loss->delta(options.pair.build(log_p), options.directions).item<double>() +
           w_end * utility_loss(log_p, grid, options.utility).item<double>();
  };
  CHECK(objective(table_of(*model)) <= objective(start) * (1 + 1e-12));
  (void)summary;
}

TEST_CASE("training on the DP-SGD subsampled mixture pair (eq. 5) lowers its surrogate", "[trainer]") {
  auto model = small_model(5);
  TrainingOptions options = small_options(40);
  options.pair.kind = PairKind::kSubsampledMixture;
  options.pair.sampling_rate = 0.1;
  options.directions = DirectionCombination::kMax;
  Trainer trainer(model, small_loss(), options);
  const TrainingSummary summary = trainer.run();
  REQUIRE_FALSE(summary.stopped_early);
  CHECK(summary.history.back().privacy < summary.history.front().privacy);
  // Both directions of the mixture differ (no mirror symmetry): the surrogate is their maximum.
  auto loss = small_loss();
  const torch::Tensor log_p = model->log_probabilities().detach();
  const DifferentiablePair pair = options.pair.build(log_p);
  const double forward = loss->direction_delta(pair.forward(), 0).item<double>();
  const double backward = loss->direction_delta(pair.backward(), 1).item<double>();
  CHECK(forward != backward);
  CHECK(loss->delta(pair, DirectionCombination::kMax).item<double>() == std::max(forward, backward));
}
