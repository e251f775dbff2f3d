#include "run/family_checkpoint.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/errors.hpp"
#include "io/checkpoint_file.hpp"

namespace noiselearn {

nlohmann::json history_json(const std::vector<PreconditionedIteration>& history) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& h : history)
    out.push_back(
        {h.iteration, h.alpha, h.worst_shift, h.gamma, h.objective, h.step, h.seconds, h.constraint_residual});
  return out;
}

std::vector<PreconditionedIteration> history_of(const nlohmann::json& rows) {
  std::vector<PreconditionedIteration> out;
  for (const auto& r : rows) {
    PreconditionedIteration h;
    h.iteration = r.at(0).get<int64_t>();
    const auto number = [](const nlohmann::json& x) {
      return x.is_null() ? std::numeric_limits<double>::quiet_NaN() : x.get<double>();  // NaN is written as null
    };
    h.alpha = number(r.at(1));
    h.worst_shift = r.at(2).get<int64_t>();
    h.gamma = number(r.at(3));
    h.objective = number(r.at(4));
    h.step = number(r.at(5));
    h.seconds = number(r.at(6));
    h.constraint_residual = number(r.at(7));
    out.push_back(h);
  }
  return out;
}

std::string family_checkpoint_text(const FamilyCheckpoint& k) {
  nlohmann::json j = {{"format", "noiselearn-pgd-checkpoint"},
                      {"stage", k.stage},
                      {"iteration", k.iteration},
                      {"seconds", k.seconds},
                      {"alpha", k.alpha},
                      {"theta", k.theta},
                      {"history", history_json(k.history)}};
  if (!k.warm.is_null()) j["warm"] = k.warm;
  return j.dump();
}

FamilyCheckpoint read_family_checkpoint(const std::filesystem::path& path, size_t unknowns) {
  FamilyCheckpoint c;
  try {
    const nlohmann::json j = nlohmann::json::parse(read_checkpoint_file(path));
    if (j.value("format", "") != "noiselearn-pgd-checkpoint")
      throw InputError(
          fmt::format("--resume: {} is a checkpoint of another kind of run (not optimiser.kind = pgd)", path.string()));
    c.stage = j.at("stage").get<std::string>();
    c.iteration = j.at("iteration").get<int64_t>();
    c.seconds = j.at("seconds").get<double>();
    c.alpha = j.at("alpha").get<double>();
    c.theta = j.at("theta").get<std::vector<double>>();
    c.history = history_of(j.at("history"));
    if (j.contains("warm")) c.warm = j.at("warm");
  } catch (const nlohmann::json::exception& e) {
    throw InputError(
        fmt::format("--resume: {} is not a pgd checkpoint this version can read ({})", path.string(), e.what()));
  }
  if (c.theta.size() != unknowns || (c.stage != "warm" && c.stage != "main"))
    throw InputError(fmt::format("--resume: {} holds {} unknowns of stage '{}', the config needs {}", path.string(),
                                 c.theta.size(), c.stage, unknowns));
  for (double x : c.theta)
    if (!std::isfinite(x))
      throw InputError(fmt::format("--resume: {} holds a non-finite log-probability", path.string()));
  return c;
}

}  // namespace noiselearn
