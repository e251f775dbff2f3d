#include "io/sweep_collection.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "core/errors.hpp"
#include "io/atomic_file.hpp"
#include "io/csv_row.hpp"
#include "io/training_config.hpp"

namespace noiselearn {

namespace fs = std::filesystem;

namespace {

std::string number(const nlohmann::json& value) {
  if (value.is_number()) return fmt::format("{}", value.get<double>());  // the shortest text that reads back exactly
  if (value.is_null()) return "inf";  // noise.json writes an unbounded epsilon as null
  return "";
}

std::string delta_label(double delta) { return fmt::format("{}", delta); }

// The epsilon(delta) entries of a point's certificate, by delta.
std::map<double, nlohmann::json> epsilons_of(const nlohmann::json& metadata) {
  std::map<double, nlohmann::json> out;
  const auto certificate = metadata.find("certificate");
  if (certificate == metadata.end() || !certificate->contains("epsilon_at_delta")) return out;
  for (const auto& e : (*certificate)["epsilon_at_delta"])
    if (e.contains("delta") && e["delta"].is_number()) out[e["delta"].get<double>()] = e;
  return out;
}

// comparison.csv rows by table name: sigma, utility, delta_upper, delta_lower as written.
std::map<std::string, std::vector<std::string>> comparison_of(const fs::path& run) {
  std::map<std::string, std::vector<std::string>> rows;
  std::ifstream in(run / "comparison.csv");
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    auto cells = split_csv_row(line);
    if (cells.size() >= 5) rows[cells[0]] = {cells[1], cells[2], cells[3], cells[4]};
  }
  return rows;
}

// The last error line of a point's train.log ("noiselearn: error: ..." or "noiselearn: failure: ..."), if any.
std::string last_error(const fs::path& log) {
  std::ifstream in(log);
  std::string line, found;
  while (std::getline(in, line))
    if (line.rfind("noiselearn: error: ", 0) == 0 || line.rfind("noiselearn: failure: ", 0) == 0) found = line;
  return found;
}

}  // namespace

size_t SweepCollection::count(RunState state) const {
  return static_cast<size_t>(
      std::count_if(points.begin(), points.end(), [&](const auto& p) { return p.status.state == state; }));
}

SweepCollection collect_sweep(const fs::path& directory) {
  const fs::path points_csv = directory / "points.csv";
  if (!fs::is_regular_file(points_csv))
    throw InputError(
        fmt::format("{} is not a sweep directory (no points.csv; `noiselearn sweep` writes one)", directory.string()));
  SweepCollection collection;
  std::istringstream lines(read_file(points_csv));
  std::string line;
  std::getline(lines, line);
  const std::vector<std::string> header = split_csv_row(line);
  if (header.empty() || header.front() != "point")
    throw InputError(fmt::format("{}:1: the header must start with 'point'", points_csv.string()));
  collection.varied_keys.assign(header.begin() + 1, header.end());

  struct Loaded {
    nlohmann::json metadata;
    std::map<std::string, std::vector<std::string>> comparison;
    std::string utility_kind;
  };
  std::vector<Loaded> loaded;
  std::vector<double> deltas;  // every certified delta of any point, in order
  size_t line_number = 1;
  while (std::getline(lines, line)) {
    ++line_number;
    if (line.empty()) continue;
    CollectedPoint point;
    std::vector<std::string> cells = split_csv_row(line);
    if (cells.size() != header.size())
      throw InputError(fmt::format("{}:{}: {} cells, the header has {}", points_csv.string(), line_number, cells.size(),
                                   header.size()));
    point.name = cells.front();
    point.values.assign(cells.begin() + 1, cells.end());
    const fs::path point_directory = directory / "points" / point.name;
    point.status = inspect_run(point_directory / "run");
    Loaded l;
    if (point.status.state == RunState::kDone) {
      std::ifstream json(point_directory / "run" / "noise.json");
      l.metadata = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
      l.comparison = comparison_of(point_directory / "run");
      for (const auto& [delta, entry] : epsilons_of(l.metadata))
        if (std::find(deltas.begin(), deltas.end(), delta) == deltas.end()) deltas.push_back(delta);
    } else {
      const std::string error = last_error(point_directory / "train.log");
      if (!error.empty()) point.status.reason += "; train.log: " + error;
    }
    if (fs::is_regular_file(point_directory / "config.yaml")) {
      try {
        l.utility_kind = TrainingConfig::load(point_directory / "config.yaml").utility_kind;
      } catch (const InputError&) {}
    }
    loaded.push_back(std::move(l));
    collection.points.push_back(std::move(point));
  }
  std::sort(deltas.begin(), deltas.end(), std::greater<>());

  collection.header = header;
  for (const char* column : {"status", "epsilon", "compositions", "delta_upper", "delta_lower"})
    collection.header.push_back(column);
  for (double d : deltas) {
    collection.header.push_back("epsilon_upper_at_" + delta_label(d));
    collection.header.push_back("epsilon_lower_at_" + delta_label(d));
  }
  for (const char* column :
       {"utility_kind", "utility", "l1", "l2", "second_moment", "max_abs_error", "gaussian_same_utility_sigma",
        "gaussian_same_utility_utility", "gaussian_same_utility_delta_upper", "gaussian_same_utility_delta_lower",
        "gaussian_same_delta_sigma", "gaussian_same_delta_utility", "gaussian_same_delta_delta_upper",
        "gaussian_same_delta_delta_lower", "train_seconds", "note"})
    collection.header.push_back(column);

  for (size_t i = 0; i < collection.points.size(); ++i) {
    CollectedPoint& point = collection.points[i];
    const Loaded& l = loaded[i];
    const nlohmann::json& m = l.metadata;
    std::vector<std::string>& cells = point.cells;
    cells.push_back(point.name);
    cells.insert(cells.end(), point.values.begin(), point.values.end());
    cells.push_back(to_string(point.status.state));
    const bool done = point.status.state == RunState::kDone && m.is_object();
    nlohmann::json first;
    if (done && m["certificate"].contains("delta_at_epsilon") && !m["certificate"]["delta_at_epsilon"].empty())
      first = m["certificate"]["delta_at_epsilon"][0];
    cells.push_back(first.is_object() ? number(first["epsilon"]) : "");
    cells.push_back(done ? fmt::format("{}", m["certificate"].value("compositions", 0)) : "");
    cells.push_back(first.is_object() ? number(first["delta_upper"]) : "");
    cells.push_back(first.is_object() ? number(first["delta_lower"]) : "");
    const auto epsilons = done ? epsilons_of(m) : std::map<double, nlohmann::json>{};
    for (double d : deltas) {
      const auto found = epsilons.find(d);
      cells.push_back(found == epsilons.end() ? "" : number(found->second["epsilon_upper"]));
      cells.push_back(found == epsilons.end() ? "" : number(found->second["epsilon_lower"]));
    }
    std::string utility_key = l.utility_kind;
    std::replace(utility_key.begin(), utility_key.end(), '-', '_');
    const nlohmann::json utilities = done && m.contains("utility") ? m["utility"] : nlohmann::json::object();
    cells.push_back(l.utility_kind);
    cells.push_back(utilities.contains(utility_key) ? number(utilities[utility_key]) : "");
    for (const char* u : {"l1", "l2", "second_moment", "max_abs_error"})
      cells.push_back(utilities.contains(u) ? number(utilities[u]) : "");
    for (const char* table : {"truncated-gaussian-same-utility", "truncated-gaussian-same-delta"}) {
      const auto found = l.comparison.find(table);
      for (size_t k = 0; k < 4; ++k) cells.push_back(found == l.comparison.end() ? "" : found->second[k]);
    }
    cells.push_back(done && m.contains("training") ? number(m["training"].value("seconds", nlohmann::json())) : "");
    cells.push_back(point.status.reason);
    if (done && first.is_object() && first["delta_upper"].is_number() && utilities.contains(utility_key)) {
      point.delta_upper = first["delta_upper"].get<double>();
      point.utility = utilities[utility_key].get<double>();
    }
  }
  return collection;
}

std::string collected_csv(const SweepCollection& collection) {
  std::string text = csv_row(collection.header);
  for (const auto& point : collection.points) text += csv_row(point.cells);
  return text;
}

FrontierPlot frontier_plot(const SweepCollection& collection, std::vector<std::string> group_by) {
  const auto& keys = collection.varied_keys;
  if (group_by.empty() && keys.size() > 1) group_by.assign(keys.begin(), keys.end() - 1);
  std::vector<size_t> columns;
  for (const auto& key : group_by) {
    const auto found = std::find(keys.begin(), keys.end(), key);
    if (found == keys.end())
      throw InputError(fmt::format("--group-by: '{}' is not a varied key of this sweep (varied: {})", key,
                                   keys.empty() ? "none" : fmt::format("{}", fmt::join(keys, ", "))));
    columns.push_back(static_cast<size_t>(found - keys.begin()));
  }
  // Groups in the order of their first point; within a group, by delta (a curve, left to right).
  std::vector<std::string> titles;
  std::map<std::string, std::vector<std::pair<double, double>>> groups;
  std::vector<std::string> kinds;
  FrontierPlot plot;
  for (const auto& point : collection.points) {
    if (point.status.state != RunState::kDone || !(point.delta_upper > 0.0) || !std::isfinite(point.utility)) continue;
    std::vector<std::string> parts;
    for (size_t c : columns) parts.push_back(keys[c] + "=" + point.values[c]);
    const std::string title = parts.empty() ? "all points" : fmt::format("{}", fmt::join(parts, ", "));
    if (!groups.count(title)) titles.push_back(title);
    groups[title].push_back({point.delta_upper, point.utility});
    ++plot.points;
  }
  const size_t kind_column = static_cast<size_t>(
      std::find(collection.header.begin(), collection.header.end(), "utility_kind") - collection.header.begin());
  for (const auto& point : collection.points)
    if (point.status.state == RunState::kDone && kind_column < point.cells.size() &&
        std::find(kinds.begin(), kinds.end(), point.cells[kind_column]) == kinds.end())
      kinds.push_back(point.cells[kind_column]);
  for (const auto& title : titles) {
    auto& series = groups[title];
    std::sort(series.begin(), series.end());
    plot.data += fmt::format("# {}\n", title);
    for (const auto& [delta, utility] : series) plot.data += fmt::format("{:.17g} {:.17g}\n", delta, utility);
    plot.data += "\n\n";  // gnuplot: the next index
  }
  plot.series = titles.size();
  auto quoted = [](const std::string& text) {
    std::string out = "\"";
    for (char c : text) out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    return out + "\"";
  };
  plot.script =
      "# The frontier of this sweep, written by noiselearn collect. Redraw: cd <sweep directory> && gnuplot plots.gp\n"
      "set terminal pngcairo size 1200,750 noenhanced font ',11'\n"
      "set output 'frontier.png'\nset grid lc rgb '#d0d0d0'\nset logscale x\nset format x '%.0e'\n"
      "set key outside right top\n"
      "set xlabel 'certified delta (upper bound) at the first certified epsilon'\n" +
      fmt::format("set ylabel {}\n",
                  quoted(fmt::format("utility loss ({}; lower is better)", fmt::join(kinds, ", ")))) +
      fmt::format("set title {}\n",
                  quoted(fmt::format("Sweep frontier: {} of {} points done, one line per {}", plot.points,
                                     collection.points.size(),
                                     group_by.empty() ? "sweep" : fmt::format("{}", fmt::join(group_by, ", ")))));
  std::vector<std::string> series;
  for (size_t i = 0; i < titles.size(); ++i)
    series.push_back(
        fmt::format("'frontier.dat' index {} using 1:2 with linespoints pt 7 title {}", i, quoted(titles[i])));
  plot.script += series.empty() ? "" : fmt::format("plot {}\n", fmt::join(series, ", \\\n     "));
  return plot;
}

}  // namespace noiselearn
