#include "train/trainer.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/avx2_clones.hpp"
#include "core/errors.hpp"

namespace noiselearn {

DifferentiablePair TrainingPair::build(const torch::Tensor& log_p, const torch::Tensor& p) const {
  return kind == PairKind::kAdditive ? additive_pair(log_p, shift_cells, p)
                                     : subsampled_pair(log_p, shift_cells, sampling_rate);
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

// How many of v[0..n) are NaN or +inf (or, unless minus_infinity_allowed, -inf). Counted in an integer, which GCC
// vectorises (a bool &= reduction it does not), in an AVX2 clone where the machine has it.
NOISELEARN_AVX2_CLONES int64_t count_non_finite(const double* v, int64_t n, bool minus_infinity_allowed) {
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  int64_t bad = 0;
  if (minus_infinity_allowed)
    for (int64_t i = 0; i < n; ++i) bad += !(v[i] < kInfinity);  // NaN and +inf
  else
    for (int64_t i = 0; i < n; ++i) bad += !(std::abs(v[i]) < kInfinity);
  return bad;
}

// True when no element is NaN or +inf, and, unless minus_infinity_allowed (log p of a zero probability), none is
// -inf. One pass over the values of a contiguous float64 CPU tensor (the checks run every epoch), else tensor
// operations.
bool all_finite(const torch::Tensor& t, bool minus_infinity_allowed) {
  if (t.device().is_cpu() && t.scalar_type() == torch::kDouble && t.is_contiguous())
    return count_non_finite(t.data_ptr<double>(), t.numel(), minus_infinity_allowed) == 0;
  torch::NoGradGuard guard;
  const torch::Tensor finite = torch::isfinite(t);
  return (minus_infinity_allowed ? finite.logical_or(torch::isneginf(t)) : finite).all().item<bool>();
}

// The first parameter (by name) whose gradient is not finite, or "".
std::string non_finite_gradient(NoiseModel& model, PrivacyLoss& loss) {
  for (const auto& item : model.named_parameters())
    if (item.value().grad().defined() && !all_finite(item.value().grad(), false)) return "model." + item.key();
  for (const auto& item : loss.named_parameters())
    if (item.value().grad().defined() && !all_finite(item.value().grad(), false)) return "loss." + item.key();
  return "";
}

}  // namespace

Trainer::Trainer(std::shared_ptr<NoiseModel> model, std::shared_ptr<PrivacyLoss> loss, TrainingOptions options)
    : model_(std::move(model)), loss_(std::move(loss)), options_(std::move(options)) {
  options_.validate();
  optimizer_ = std::make_unique<FusedAdam>(trainable(*model_, *loss_),
                                           torch::optim::AdamOptions(options_.learning_rate.initial));
}

// One session of run(): its summary and clock, the trainable parameters, the copies of the last ones that gave finite
// values, the utility weight of the last epoch (the scale on which epochs are compared) and the best objective.
struct Trainer::Session {
  TrainingSummary summary;
  std::chrono::steady_clock::time_point start;
  std::vector<torch::Tensor> parameters;
  std::vector<torch::Tensor> last_good;
  double final_weight = 0.0;
  double best_objective = 0.0;

  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
};

// An epoch's loss: privacy + w utility (eq. 3), and the values of its two terms; the table and the terms' tensors
// are kept with it until the epoch ends.
struct Trainer::EpochLoss {
  NoiseModel::Table table;
  torch::Tensor privacy_term, utility_term;
  torch::Tensor total;
  double privacy = 0.0, utility = 0.0;
};

Trainer::Session Trainer::start_session() {
  Session session;
  session.summary.first_epoch = next_epoch_;
  seconds_before_ = seconds_trained_;
  session.start = std::chrono::steady_clock::now();
  session.parameters = trainable(*model_, *loss_);
  session.final_weight = options_.utility_weight.at(std::max<int64_t>(options_.epochs - 1, 0));
  // A best epoch of an earlier session is re-scored with this session's final weight.
  session.best_objective =
      best_.empty() ? std::numeric_limits<double>::infinity() : best_privacy_ + session.final_weight * best_utility_;
  return session;
}

Trainer::EpochLoss Trainer::loss_and_gradients(double utility_weight, std::string& non_finite) {
  optimizer_->clear_gradients();
  EpochLoss loss;
  // log p and p of one evaluation: the pair's masses and the utility's from the model (the sigmoid stack has p
  // without exponentials).
  loss.table = model_->log_probabilities_and_masses();
  const torch::Tensor& log_p = loss.table.log_p;
  loss.privacy_term = loss_->delta(options_.pair.build(log_p, loss.table.p), options_.directions);
  loss.utility_term = utility_loss(log_p, model_->grid(), options_.utility, loss.table.p);
  loss.total = loss.privacy_term + utility_weight * loss.utility_term;
  loss.privacy = loss.privacy_term.item<double>();
  loss.utility = loss.utility_term.item<double>();
  // The table first: the surrogates mask non-finite log p out and could stay finite on a NaN table.
  if (!all_finite(log_p, true))
    non_finite = "the table (log p)";
  else if (!std::isfinite(loss.privacy))
    non_finite = "the privacy surrogate";
  else if (!std::isfinite(loss.utility))
    non_finite = "the utility";
  if (non_finite.empty()) {
    loss.total.backward();
    const std::string gradient = non_finite_gradient(*model_, *loss_);
    if (!gradient.empty()) non_finite = "the gradient of " + gradient;
  }
  return loss;
}

void Trainer::stop_at(Session& session, int64_t epoch, const std::string& non_finite) {
  // The parameters of the previous epoch gave finite values: restore them (if the forward pass itself failed) and
  // stop.
  session.summary.stopped_early = true;
  session.summary.stop_reason = fmt::format("NaN or infinity in {} at epoch {}", non_finite, epoch);
  if (non_finite.rfind("the gradient", 0) != 0 && !session.last_good.empty()) {
    torch::NoGradGuard guard;
    for (size_t i = 0; i < session.parameters.size(); ++i) session.parameters[i].copy_(session.last_good[i]);
  }
  spdlog::error("{}; stopping with the last good table (epoch {})", session.summary.stop_reason, epoch - 1);
  next_epoch_ = epoch;
}

void Trainer::keep_parameters(Session& session, int64_t epoch, const EpochLoss& loss) {
  torch::NoGradGuard guard;
  std::vector<torch::Tensor>& parameters = session.parameters;
  std::vector<torch::Tensor>& last_good = session.last_good;
  // The copies are made once and then overwritten in place (an epoch allocates nothing for them).
  if (last_good.size() != parameters.size())
    for (const auto& p : parameters) last_good.push_back(p.detach().clone());
  else
    for (size_t i = 0; i < parameters.size(); ++i) last_good[i].copy_(parameters[i].detach());
  const double objective = loss.privacy + session.final_weight * loss.utility;
  if (options_.keep_best && objective < session.best_objective) {
    session.best_objective = objective;
    // Its own copies (last_good is overwritten next epoch), also overwritten in place once made.
    if (best_.size() != last_good.size()) {
      best_.clear();
      for (const auto& p : last_good) best_.push_back(p.clone());
    } else {
      for (size_t i = 0; i < best_.size(); ++i) best_[i].copy_(last_good[i]);
    }
    best_epoch_ = epoch;
    best_privacy_ = loss.privacy;
    best_utility_ = loss.utility;
  }
}

void Trainer::record_epoch(Session& session, int64_t epoch, const EpochLoss& loss, double utility_weight,
                           double learning_rate) {
  const bool last = epoch + 1 == options_.epochs;
  const bool log_now = options_.log_every > 0 && (epoch % options_.log_every == 0 || last);
  if (!(log_now || last || epoch % options_.history_every == 0)) return;
  EpochRecord record{epoch,         loss.total.item<double>(),          loss.privacy, loss.utility, utility_weight,
                     learning_rate, seconds_before_ + session.elapsed()};
  history_.push_back(record);
  session.summary.history.push_back(record);
  if (log_now) {
    const double per_epoch = session.elapsed() / static_cast<double>(session.summary.epochs_this_session);
    spdlog::info("epoch {:>6}/{}  loss {:.6e}  privacy {:.6e}  utility {:.6g}  weight {:.3g}  lr {:.3g}  ETA {}", epoch,
                 options_.epochs, record.loss, loss.privacy, loss.utility, utility_weight, learning_rate,
                 duration(per_epoch * static_cast<double>(options_.epochs - epoch - 1)));
  }
}

void Trainer::store_checkpoint(const Session& session) {
  seconds_trained_ = seconds_before_ + session.elapsed();
  if (options_.write_checkpoint) options_.write_checkpoint(checkpoint());
}

void Trainer::keep_best_parameters(Session& session) {
  // The best epoch's parameters are those before its step: compare them with the parameters after the last
  // step, which have not been evaluated, by one more forward pass.
  if (!options_.keep_best || best_.empty() || session.summary.stopped_early) return;
  torch::NoGradGuard guard;
  const torch::Tensor log_p = model_->log_probabilities();
  const double last = loss_->delta(options_.pair.build(log_p), options_.directions).item<double>() +
                      session.final_weight * utility_loss(log_p, model_->grid(), options_.utility).item<double>();
  if (!(last <= session.best_objective)) {
    for (size_t i = 0; i < session.parameters.size(); ++i) session.parameters[i].copy_(best_[i]);
    spdlog::info("keeping the parameters of epoch {} (objective {:.6e}; the last epoch's is {:.6e})", best_epoch_,
                 session.best_objective, last);
  } else {
    session.summary.best_epoch = -1;
    session.summary.best_objective = last;
  }
}

TrainingSummary Trainer::run() {
  Session session = start_session();
  for (int64_t epoch = next_epoch_; epoch < options_.epochs; ++epoch) {
    const double learning_rate = options_.learning_rate.at(epoch);
    const double weight = options_.utility_weight.at(epoch);
    for (auto& group : optimizer_->param_groups())
      static_cast<torch::optim::AdamOptions&>(group.options()).lr(learning_rate);
    std::string non_finite;
    const EpochLoss loss = loss_and_gradients(weight, non_finite);
    if (!non_finite.empty()) {
      stop_at(session, epoch, non_finite);
      break;
    }
    keep_parameters(session, epoch, loss);
    optimizer_->step();
    next_epoch_ = epoch + 1;
    ++session.summary.epochs_this_session;
    record_epoch(session, epoch, loss, weight, learning_rate);
    const bool last = epoch + 1 == options_.epochs;
    if (options_.checkpoint_every > 0 && (epoch + 1) % options_.checkpoint_every == 0 && !last)
      store_checkpoint(session);
  }
  // The checkpoint holds the trajectory (the last parameters and Adam's state, so that a resumed run continues
  // exactly as an uninterrupted one) and the best epoch so far; the model then takes the best parameters.
  store_checkpoint(session);
  session.summary.best_epoch = best_epoch_;
  session.summary.best_objective = session.best_objective;
  keep_best_parameters(session);
  session.summary.epochs_run = next_epoch_;
  session.summary.seconds_this_session = session.elapsed();
  session.summary.seconds = seconds_before_ + session.summary.seconds_this_session;
  return session.summary;
}

namespace {

// Scalars travel as 0-dimensional tensors: the archive holds tensors and nested archives only.
double read_double(torch::serialize::InputArchive& archive, const char* key) {
  torch::Tensor value;
  archive.read(key, value);
  return value.item<double>();
}

int64_t read_integer(torch::serialize::InputArchive& archive, const char* key) {
  torch::Tensor value;
  archive.read(key, value);
  return value.item<int64_t>();
}

}  // namespace

std::string Trainer::checkpoint() const {
  torch::serialize::OutputArchive archive, model_archive, loss_archive, optimizer_archive, best_archive;
  model_->save(model_archive);
  loss_->save(loss_archive);
  optimizer_->save(optimizer_archive);
  archive.write("model", model_archive);
  archive.write("loss", loss_archive);
  archive.write("optimizer", optimizer_archive);
  archive.write("next_epoch", torch::tensor(next_epoch_, torch::kLong));
  archive.write("seconds", torch::tensor(seconds_trained_, torch::kDouble));
  torch::Tensor history = torch::zeros({static_cast<int64_t>(history_.size()), 7}, torch::kDouble);
  for (size_t i = 0; i < history_.size(); ++i) {
    const auto& r = history_[i];
    const double row[7] = {
        static_cast<double>(r.epoch), r.loss, r.privacy, r.utility, r.utility_weight, r.learning_rate, r.seconds};
    for (int c = 0; c < 7; ++c) history[static_cast<int64_t>(i)][c] = row[c];
  }
  archive.write("history", history);
  for (size_t i = 0; i < best_.size(); ++i) best_archive.write(std::to_string(i), best_[i]);
  archive.write("best", best_archive);
  archive.write("best_count", torch::tensor(static_cast<int64_t>(best_.size()), torch::kLong));
  archive.write("best_epoch", torch::tensor(best_epoch_, torch::kLong));
  archive.write("best_privacy", torch::tensor(best_privacy_, torch::kDouble));
  archive.write("best_utility", torch::tensor(best_utility_, torch::kDouble));
  std::ostringstream bytes;
  archive.save_to(bytes);  // in memory: a failing disk is the writer's business (an exception, never an abort)
  return bytes.str();
}

void Trainer::resume(const std::string& bytes, const std::string& source) {
  try {
    torch::serialize::InputArchive archive, model_archive, loss_archive, optimizer_archive, best_archive;
    archive.load_from(bytes.data(), bytes.size());
    archive.read("model", model_archive);
    archive.read("loss", loss_archive);
    archive.read("optimizer", optimizer_archive);
    model_->load(model_archive);
    loss_->load(loss_archive);
    optimizer_->load(optimizer_archive);
    next_epoch_ = read_integer(archive, "next_epoch");
    seconds_trained_ = read_double(archive, "seconds");
    torch::Tensor history;
    archive.read("history", history);
    history_.clear();
    for (int64_t i = 0; i < history.size(0); ++i) {
      const auto row = history[i];
      history_.push_back({static_cast<int64_t>(row[0].item<double>()), row[1].item<double>(), row[2].item<double>(),
                          row[3].item<double>(), row[4].item<double>(), row[5].item<double>(), row[6].item<double>()});
    }
    archive.read("best", best_archive);
    const int64_t best_count = read_integer(archive, "best_count");
    const std::vector<torch::Tensor> parameters = trainable(*model_, *loss_);
    if (best_count != 0 && static_cast<size_t>(best_count) != parameters.size())
      throw InputError(fmt::format("cannot resume from {}: it keeps {} best parameters, this model and loss have {}",
                                   source, best_count, parameters.size()));
    best_.clear();
    for (int64_t i = 0; i < best_count; ++i) {
      torch::Tensor value;
      best_archive.read(std::to_string(i), value);
      if (!value.sizes().equals(parameters[static_cast<size_t>(i)].sizes()))
        throw InputError(fmt::format("cannot resume from {}: its best parameters do not fit this model", source));
      best_.push_back(value);
    }
    best_epoch_ = read_integer(archive, "best_epoch");
    best_privacy_ = read_double(archive, "best_privacy");
    best_utility_ = read_double(archive, "best_utility");
  } catch (const c10::Error& e) {
    throw InputError(fmt::format("cannot resume from {}: it is not a checkpoint of this model and loss ({})", source,
                                 std::string(e.what_without_backtrace()).substr(0, 200)));
  }
  spdlog::info("resuming from {} at epoch {}", source, next_epoch_);
}

}  // namespace noiselearn
