#include "train/trainer.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <unistd.h>

#include "core/errors.hpp"

namespace noiselearn {

DifferentiablePair TrainingPair::build(const torch::Tensor& log_p) const {
  return kind == PairKind::kAdditive ? additive_pair(log_p, shift_cells) : subsampled_pair(log_p, shift_cells, sampling_rate);
}

void TrainingOptions::validate() const {
  if (epochs < 0) throw InputError(fmt::format("optimiser.epochs {} must be >= 0", epochs));
  learning_rate.validate();
  utility_weight.validate();
  if (pair.shift_cells < 1) throw InputError("the sensitivity must be at least one grid step");
  if (!(pair.sampling_rate > 0.0 && pair.sampling_rate <= 1.0))
    throw InputError(fmt::format("pair.sampling_rate {} must be in (0, 1]", pair.sampling_rate));
  if (log_every < 0) throw InputError(fmt::format("output.log_every {} must be >= 0", log_every));
  if (history_every < 1) throw InputError(fmt::format("output.history_every {} must be at least 1", history_every));
  if (checkpoint_every < 0) throw InputError(fmt::format("output.checkpoint_every {} must be >= 0", checkpoint_every));
}

namespace {

std::vector<torch::Tensor> trainable(NoiseModel& model, PrivacyLoss& loss) {
  std::vector<torch::Tensor> parameters = model.parameters();
  for (const auto& p : loss.parameters()) parameters.push_back(p);
  return parameters;
}

std::string duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto s = static_cast<int64_t>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}h{:02}m", s / 3600, (s / 60) % 60) : fmt::format("{}m{:02}s", s / 60, s % 60);
}

// The first parameter (by name) whose gradient is not finite, or "".
std::string non_finite_gradient(NoiseModel& model, PrivacyLoss& loss) {
  for (const auto& item : model.named_parameters())
    if (item.value().grad().defined() && !torch::isfinite(item.value().grad()).all().item<bool>()) return "model." + item.key();
  for (const auto& item : loss.named_parameters())
    if (item.value().grad().defined() && !torch::isfinite(item.value().grad()).all().item<bool>()) return "loss." + item.key();
  return "";
}

}  // namespace

Trainer::Trainer(std::shared_ptr<NoiseModel> model, std::shared_ptr<PrivacyLoss> loss, TrainingOptions options)
    : model_(std::move(model)), loss_(std::move(loss)), options_(std::move(options)) {
  options_.validate();
  optimizer_ = std::make_unique<torch::optim::Adam>(trainable(*model_, *loss_),
                                                    torch::optim::AdamOptions(options_.learning_rate.initial));
}

TrainingSummary Trainer::run() {
  TrainingSummary summary;
  summary.first_epoch = next_epoch_;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::vector<torch::Tensor> parameters = trainable(*model_, *loss_);
  std::vector<torch::Tensor> last_good, best;
  double best_objective = std::numeric_limits<double>::infinity();
  const double final_weight = options_.utility_weight.at(std::max<int64_t>(options_.epochs - 1, 0));
  const Grid& grid = model_->grid();

  for (int64_t epoch = next_epoch_; epoch < options_.epochs; ++epoch) {
    const double learning_rate = options_.learning_rate.at(epoch);
    const double weight = options_.utility_weight.at(epoch);
    for (auto& group : optimizer_->param_groups())
      static_cast<torch::optim::AdamOptions&>(group.options()).lr(learning_rate);

    optimizer_->zero_grad();
    const torch::Tensor log_p = model_->log_probabilities();
    const torch::Tensor privacy = loss_->delta(options_.pair.build(log_p), options_.directions);
    const torch::Tensor utility = utility_loss(log_p, grid, options_.utility);
    const torch::Tensor total = privacy + weight * utility;
    const double privacy_value = privacy.item<double>(), utility_value = utility.item<double>();
    // The table first: the surrogates mask non-finite log p out and could stay finite on a NaN table.
    std::string bad;
    if (!torch::isfinite(log_p).logical_or(torch::isneginf(log_p)).all().item<bool>()) bad = "the table (log p)";
    else if (!std::isfinite(privacy_value)) bad = "the privacy surrogate";
    else if (!std::isfinite(utility_value)) bad = "the utility";
    if (bad.empty()) {
      total.backward();
      const std::string gradient = non_finite_gradient(*model_, *loss_);
      if (!gradient.empty()) bad = "the gradient of " + gradient;
    }
    if (!bad.empty()) {
      // The parameters of the previous epoch gave finite values: restore them (if the forward pass itself
      // failed) and stop.
      summary.stopped_early = true;
      summary.stop_reason = fmt::format("NaN or infinity in {} at epoch {}", bad, epoch);
      if (bad.rfind("the gradient", 0) != 0 && !last_good.empty()) {
        torch::NoGradGuard guard;
        for (size_t i = 0; i < parameters.size(); ++i) parameters[i].copy_(last_good[i]);
      }
      spdlog::error("{}; stopping with the last good table (epoch {})", summary.stop_reason, epoch - 1);
      next_epoch_ = epoch;
      break;
    }
    {
      torch::NoGradGuard guard;
      last_good.clear();
      for (const auto& p : parameters) last_good.push_back(p.detach().clone());
      const double objective = privacy_value + final_weight * utility_value;
      if (options_.keep_best && objective < best_objective) {
        best_objective = objective;
        best = last_good;
        summary.best_epoch = epoch;
        summary.best_objective = objective;
      }
    }
    optimizer_->step();
    next_epoch_ = epoch + 1;
    ++summary.epochs_run;

    const bool last = epoch + 1 == options_.epochs;
    const bool log_now = options_.log_every > 0 && (epoch % options_.log_every == 0 || last);
    if (log_now || last || epoch % options_.history_every == 0) {
      EpochRecord record{epoch, total.item<double>(), privacy_value, utility_value, weight, learning_rate, elapsed()};
      history_.push_back(record);
      summary.history.push_back(record);
      if (log_now) {
        const double per_epoch = elapsed() / static_cast<double>(summary.epochs_run);
        spdlog::info("epoch {:>6}/{}  loss {:.6e}  privacy {:.6e}  utility {:.6g}  weight {:.3g}  lr {:.3g}  ETA {}", epoch,
                     options_.epochs, record.loss, privacy_value, utility_value, weight, learning_rate,
                     duration(per_epoch * static_cast<double>(options_.epochs - epoch - 1)));
      }
    }
    if (!options_.checkpoint_path.empty() && options_.checkpoint_every > 0 && (epoch + 1) % options_.checkpoint_every == 0)
      save_checkpoint(options_.checkpoint_path, epoch + 1);
  }
  // The best epoch's parameters are those before its step: compare them with the parameters after the last
  // step, which have not been evaluated, by one more forward pass.
  if (options_.keep_best && !best.empty() && !summary.stopped_early) {
    torch::NoGradGuard guard;
    const torch::Tensor log_p = model_->log_probabilities();
    const double last = loss_->delta(options_.pair.build(log_p), options_.directions).item<double>() +
                        final_weight * utility_loss(log_p, grid, options_.utility).item<double>();
    if (!(last <= best_objective)) {
      for (size_t i = 0; i < parameters.size(); ++i) parameters[i].copy_(best[i]);
      spdlog::info("keeping the parameters of epoch {} (objective {:.6e}; the last epoch's is {:.6e})", summary.best_epoch,
                   best_objective, last);
    } else {
      summary.best_epoch = -1;
      summary.best_objective = last;
    }
  }
  if (!options_.checkpoint_path.empty()) save_checkpoint(options_.checkpoint_path, next_epoch_);
  summary.seconds = elapsed();
  return summary;
}

void Trainer::save_checkpoint(const std::filesystem::path& path, int64_t next_epoch) const {
  torch::serialize::OutputArchive archive, model_archive, loss_archive, optimizer_archive;
  model_->save(model_archive);
  loss_->save(loss_archive);
  optimizer_->save(optimizer_archive);
  archive.write("model", model_archive);
  archive.write("loss", loss_archive);
  archive.write("optimizer", optimizer_archive);
  archive.write("next_epoch", torch::tensor(next_epoch, torch::kLong));
  torch::Tensor history = torch::zeros({static_cast<int64_t>(history_.size()), 7}, torch::kDouble);
  for (size_t i = 0; i < history_.size(); ++i) {
    const auto& r = history_[i];
    const double row[7] = {static_cast<double>(r.epoch), r.loss, r.privacy, r.utility, r.utility_weight, r.learning_rate, r.seconds};
    for (int c = 0; c < 7; ++c) history[static_cast<int64_t>(i)][c] = row[c];
  }
  archive.write("history", history);
  // Atomic: write beside the target, then rename.
  std::filesystem::create_directories(path.parent_path().empty() ? "." : path.parent_path());
  const std::filesystem::path temporary = path.string() + fmt::format(".tmp.{}", ::getpid());
  archive.save_to(temporary.string());
  std::filesystem::rename(temporary, path);
}

void Trainer::resume(const std::filesystem::path& checkpoint) {
  if (!std::filesystem::exists(checkpoint)) throw InputError(fmt::format("cannot resume: {} does not exist", checkpoint.string()));
  try {
    torch::serialize::InputArchive archive, model_archive, loss_archive, optimizer_archive;
    archive.load_from(checkpoint.string());
    archive.read("model", model_archive);
    archive.read("loss", loss_archive);
    archive.read("optimizer", optimizer_archive);
    model_->load(model_archive);
    loss_->load(loss_archive);
    optimizer_->load(optimizer_archive);
    torch::Tensor next, history;
    archive.read("next_epoch", next);
    archive.read("history", history);
    next_epoch_ = next.item<int64_t>();
    history_.clear();
    for (int64_t i = 0; i < history.size(0); ++i) {
      const auto row = history[i];
      history_.push_back({static_cast<int64_t>(row[0].item<double>()), row[1].item<double>(), row[2].item<double>(),
                          row[3].item<double>(), row[4].item<double>(), row[5].item<double>(), row[6].item<double>()});
    }
  } catch (const c10::Error& e) {
    throw InputError(fmt::format("cannot resume from {}: it is not a checkpoint of this model and loss ({})",
                                 checkpoint.string(), std::string(e.what_without_backtrace()).substr(0, 200)));
  }
  spdlog::info("resuming from {} at epoch {}", checkpoint.string(), next_epoch_);
}

}  // namespace noiselearn
