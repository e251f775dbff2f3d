#include "io/run_facts.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "io/atomic_file.hpp"
#include "io/table_csv.hpp"

namespace noiselearn {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::optional<double> number_at(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

}  // namespace

NumericCsv read_numeric_csv(const fs::path& path) {
  NumericCsv csv;
  std::ifstream in(path);
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<std::string> fields;
    std::stringstream stream(line);
    std::string field;
    while (std::getline(stream, field, ',')) fields.push_back(field);
    if (first) {
      csv.header = fields;
      first = false;
      continue;
    }
    std::vector<double> row;
    for (const auto& f : fields) {
      double value = std::nan("");
      if (parse_double(f, value) != NumberSyntax::kValid) value = std::nan("");
      row.push_back(value);
    }
    csv.rows.push_back(std::move(row));
  }
  return csv;
}

RunFacts read_run_facts(const fs::path& dir) {
  RunFacts facts;
  try {
    const json metadata = json::parse(read_file(dir / "noise.json"));
    if (const auto c = metadata.find("certificate"); c != metadata.end() && c->is_object()) {
      if (const auto n = number_at(*c, "compositions")) facts.compositions = static_cast<int64_t>(*n);
      if (const auto m = c->find("infinity_mass"); m != c->end() && m->is_object())
        facts.infinity_mass_composed = number_at(*m, "composed");
      for (const auto& d : c->value("delta_at_epsilon", json::array())) {
        const auto e = number_at(d, "epsilon"), u = number_at(d, "delta_upper"), l = number_at(d, "delta_lower");
        if (e && u && l) facts.deltas.push_back({*e, *u, *l});
      }
      for (const auto& d : c->value("epsilon_at_delta", json::array())) {
        const auto delta = number_at(d, "delta"), e = number_at(d, "epsilon_upper");  // null when infinite
        if (delta && e) facts.epsilons.push_back({*delta, *e});
      }
    }
    if (const auto p = metadata.find("pair"); p != metadata.end() && p->is_object())
      facts.sensitivity = number_at(*p, "sensitivity");
    if (const auto l = metadata.find("loss"); l != metadata.end() && l->is_object()) {
      facts.loss_kind = l->value("kind", "");
      facts.loss_epsilon = number_at(*l, "epsilon");
    }
    if (const auto m = metadata.find("model"); m != metadata.end() && m->is_string())
      facts.model = m->get<std::string>();
    if (const auto g = metadata.find("grid"); g != metadata.end() && g->is_object()) {
      const auto origin = number_at(*g, "origin"), step = number_at(*g, "step"), size = number_at(*g, "size");
      if (origin && step && size)
        facts.grid_text =
            fmt::format("{:g} points, step {:g}, [{:g}, {:g}]", *size, *step, *origin, *origin + *step * (*size - 1));
    }
    if (const auto s = metadata.find("source"); s != metadata.end() && s->is_string())
      facts.source = s->get<std::string>();
    if (const auto s = metadata.find("support"); s != metadata.end() && s->is_string() && !facts.grid_text.empty())
      facts.grid_text += ", " + s->get<std::string>();
    if (const auto u = metadata.find("utility"); u != metadata.end() && u->is_object()) {
      // The utility kind of the run is in config.yaml (below); its value is looked up once the kind is known.
      if (fs::exists(dir / "config.yaml")) {
        const YAML::Node config = YAML::LoadFile((dir / "config.yaml").string());
        if (config["utility"] && config["utility"]["kind"])
          facts.utility_kind = config["utility"]["kind"].as<std::string>();
      }
      std::string key = facts.utility_kind;
      std::replace(key.begin(), key.end(), '-', '_');
      facts.learned_utility = number_at(*u, key.c_str());
    }
  } catch (const std::exception&) {
    // Missing or unreadable metadata: the plots are drawn with plain titles.
  }
  if (fs::exists(dir / "comparison.csv")) {
    const NumericCsv comparison = read_numeric_csv(dir / "comparison.csv");
    // table,sigma,<utility>,delta_upper,delta_lower; the row order is that of the writer (learned first).
    if (comparison.header.size() >= 3 && comparison.rows.size() >= 2 && comparison.rows[1].size() >= 2 &&
        std::isfinite(comparison.rows[1][1]))
      facts.gaussian_sigma = comparison.rows[1][1];
  }
  return facts;
}

}  // namespace noiselearn
