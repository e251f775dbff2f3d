#pragma once
// The training loop of Sommer et al. (eq. 1-3): minimise  privacy surrogate + w_t * utility  with Adam, an
// exponentially decaying learning rate and (optionally) a decaying utility weight.
//
// Guards: a NaN or infinity in the loss, its parts, or any gradient stops the run with a message naming the
// epoch and the quantity, and the model is restored to the last good parameters. Checkpoints (model, loss
// parameters, Adam state, epoch, seconds, history) every `checkpoint_every` epochs and at the end; a run can
// resume from one. With the same seed, options and thread count, a run is reproducible bit for bit.
//
// The trainer knows nothing of files: a checkpoint is a LibTorch archive in memory, handed to
// `write_checkpoint` (the CLI stores it with a checksum, io/checkpoint_file.hpp) and taken back by resume().
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/dominating_pair.hpp"
#include "losses/privacy_loss.hpp"
#include "losses/utility_loss.hpp"
#include "models/noise_model.hpp"
#include "train/fused_adam.hpp"
#include "train/schedules.hpp"

namespace noiselearn {

// The dominating pair the surrogate is evaluated on (Sommer et al., section 3.2 and eq. 5).
struct TrainingPair {
  PairKind kind = PairKind::kAdditive;
  int64_t shift_cells = 1;
  double sampling_rate = 1.0;
  // p (optional): e^{log p} (detached), for the additive pair's masses.
  DifferentiablePair build(const torch::Tensor& log_p, const torch::Tensor& p = {}) const;
};

struct TrainingOptions {
  int64_t epochs = 15000;
  LearningRateSchedule learning_rate;
  UtilityWeightSchedule utility_weight;
  DirectionCombination directions = DirectionCombination::kSum;
  UtilitySpecification utility;
  TrainingPair pair;
  int64_t log_every = 500;       // progress line every N epochs (0: never)
  int64_t history_every = 10;    // history record every N epochs (and the last epoch)
  int64_t checkpoint_every = 0;  // checkpoint every N epochs (0: only at the end, if write_checkpoint is set)
  // Stores a checkpoint (the archive of Trainer::checkpoint()); empty: no checkpoints. An exception it throws
  // (a failed write) ends run() with that exception.
  std::function<void(const std::string& archive)> write_checkpoint;
  // Return the parameters of the epoch with the best final objective, privacy + w_end * utility (w_end the
  // utility weight of the last epoch, so that epochs are compared on one scale), rather than the last ones.
  // A run that starts from a baseline then never ends worse than it by that objective.
  bool keep_best = true;
  void validate() const;
};

struct EpochRecord {
  int64_t epoch = 0;
  double loss = 0.0, privacy = 0.0, utility = 0.0, utility_weight = 0.0, learning_rate = 0.0, seconds = 0.0;
};

struct TrainingSummary {
  int64_t first_epoch = 0;      // where this session started (0, or the epoch of the checkpoint resumed from)
  int64_t best_epoch = -1;      // the epoch whose parameters were kept (keep_best), -1 if the last
  double best_objective = 0.0;  // privacy + w_end * utility there
  int64_t epochs_run = 0;       // epochs trained in every session of the run: first_epoch + epochs_this_session
  int64_t epochs_this_session = 0;
  bool stopped_early = false;
  std::string stop_reason;  // e.g. "NaN in the privacy surrogate at epoch 812"
  double seconds = 0.0;     // training time of every session of the run
  double seconds_this_session = 0.0;
  std::vector<EpochRecord> history;  // every logged epoch of this session (and the last one)
};

class Trainer {
 public:
  Trainer(std::shared_ptr<NoiseModel> model, std::shared_ptr<PrivacyLoss> loss, TrainingOptions options);

  // Runs epochs [start_epoch, options.epochs). Returns when done or stopped by a guard.
  TrainingSummary run();

  // Loads a checkpoint archive written by this trainer (same model and loss kinds); run() then continues
  // after its epoch. Throws InputError naming `source` if the archive does not match.
  void resume(const std::string& archive, const std::string& source);

  // The trainer's state as a LibTorch archive: model, loss parameters, Adam state, next epoch, seconds
  // trained so far, history.
  std::string checkpoint() const;

  int64_t next_epoch() const { return next_epoch_; }
  const std::vector<EpochRecord>& history() const { return history_; }

 private:
  // The phases of run() (trainer.cpp) and the state of one session they share.
  struct Session;
  Session start_session();
  // An epoch's loss (eq. 3) and its gradients; non_finite names the first NaN or infinity.
  struct EpochLoss;
  EpochLoss loss_and_gradients(double utility_weight, std::string& non_finite);
  // The guard's stop: the last good parameters restored.
  void stop_at(Session& session, int64_t epoch, const std::string& non_finite);
  // The copies of the last good parameters and of the best epoch's.
  void keep_parameters(Session& session, int64_t epoch, const EpochLoss& loss);
  // The history record and the progress line.
  void record_epoch(Session& session, int64_t epoch, const EpochLoss& loss, double utility_weight,
                    double learning_rate);
  void store_checkpoint(const Session& session);
  // At the end: the best epoch's parameters, when they beat the last ones.
  void keep_best_parameters(Session& session);

  std::shared_ptr<NoiseModel> model_;
  std::shared_ptr<PrivacyLoss> loss_;
  TrainingOptions options_;
  std::unique_ptr<FusedAdam> optimizer_;
  int64_t next_epoch_ = 0;
  double seconds_before_ = 0.0;   // training time of the sessions before this one (from the checkpoint)
  double seconds_trained_ = 0.0;  // training time up to the last completed epoch, every session
  std::vector<EpochRecord> history_;
  // keep_best across sessions: the parameters of the best epoch so far and its two objective terms, so that
  // a resumed run re-scores them with its own final utility weight.
  std::vector<torch::Tensor> best_;
  int64_t best_epoch_ = -1;
  double best_privacy_ = 0.0, best_utility_ = 0.0;
};

}  // namespace noiselearn
