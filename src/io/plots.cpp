#include "io/plots.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/directed_format.hpp"
#include "core/errors.hpp"
#include "io/atomic_file.hpp"
#include "io/run_facts.hpp"
#include "io/shell_quoting.hpp"

namespace noiselearn {

namespace fs = std::filesystem;

bool gnuplot_available() { return std::system("command -v gnuplot > /dev/null 2>&1") == 0; }

namespace {

// Upper and lower bounds closer than this (relative) are one line on a log axis: 1 % is 0.004 decades, a
// fraction of a pixel on a plot of 12 decades.
constexpr double kCoincideRelative = 0.01;
// Histories this short are drawn with points: a single epoch is one point, which a line cannot show.
constexpr size_t kPointsUpToRows = 60;

// ---- gnuplot text -------------------------------------------------------------------------------------

// A gnuplot double-quoted string ("\n" breaks a title into lines).
std::string gnuplot_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string up(double x) { return format_general(x, 4, Rounding::kUp); }
std::string down(double x) { return format_general(x, 4, Rounding::kDown); }
std::string exact(double x) { return format_exact(x); }

// Settings every plot starts from (`reset` keeps the terminal and the output).
const char* kCommonSettings =
    "reset\nset datafile separator ','\nset key autotitle columnhead\nset grid lc rgb '#d0d0d0'\n"
    "set border lc rgb '#404040'\n";

std::string composition_text(const RunFacts& facts) {
  if (!facts.compositions) return "";
  return *facts.compositions == 1 ? "n = 1 release" : fmt::format("n = {} compositions", *facts.compositions);
}

std::string table_plot(const fs::path& dir, const RunFacts& facts) {
  // A table that `baseline` wrote is named as such, not "learned".
  const bool baseline = facts.source.rfind("baseline ", 0) == 0;
  const std::string what = baseline ? facts.source : "learned";
  std::string title = "Noise table p(x): " + what;
  if (fs::exists(dir / "baseline.csv")) title += " vs truncated Gaussian of the same " + facts.utility_kind;
  if (!facts.grid_text.empty()) title += "\ngrid: " + facts.grid_text;
  std::string learned = what;
  if (facts.learned_utility) learned += fmt::format(" ({} {:.4g})", facts.utility_kind, *facts.learned_utility);
  std::string script = fmt::format(
      "{}set output 'table.png'\nset title {}\nset xlabel 'noise x'\nset ylabel 'probability p(x) (log scale)'\n"
      "set logscale y\nset format y '1e%L'\nset key top right box opaque\n",
      kCommonSettings, gnuplot_string(title));
  std::string plots = fmt::format("'noise.csv' using 1:($2 > 0 ? $2 : 1/0) with lines lw 2.5 lc rgb '#1f5fa8' title {}",
                                  gnuplot_string(learned));
  if (fs::exists(dir / "baseline.csv")) {
    std::string gaussian = "truncated Gaussian";
    if (facts.gaussian_sigma) gaussian += fmt::format(" sigma {:.4g}", *facts.gaussian_sigma);
    gaussian += ", same " + facts.utility_kind;
    plots += fmt::format(", 'baseline.csv' using 1:($2 > 0 ? $2 : 1/0) with lines lw 2 dt 2 lc rgb '#d9730d' title {}",
                         gnuplot_string(gaussian));
  }
  return script + "plot " + plots + "\n";
}

// Largest (upper - lower) / upper over the rows of a curve with upper > 0; 1 if a lower bound is 0 there.
double largest_relative_gap(const NumericCsv& csv, size_t upper_column, size_t lower_column) {
  double gap = 0.0;
  for (const auto& row : csv.rows) {
    if (row.size() <= std::max(upper_column, lower_column)) continue;
    const double u = row[upper_column], l = row[lower_column];
    if (!(u > 0.0) || !std::isfinite(u) || !std::isfinite(l)) continue;
    gap = std::max(gap, (u - l) / u);
  }
  return gap;
}

double largest_finite(const NumericCsv& csv, size_t column) {
  double largest = 0.0;
  for (const auto& row : csv.rows)
    if (row.size() > column && std::isfinite(row[column])) largest = std::max(largest, row[column]);
  return largest;
}

double smallest_positive(const NumericCsv& csv, size_t column) {
  double smallest = INFINITY;
  for (const auto& row : csv.rows)
    if (row.size() > column && row[column] > 0.0) smallest = std::min(smallest, row[column]);
  return smallest;
}

// The upper and lower curves in `file` (columns upper_column and upper_column + 1, 0-based): one line when
// they coincide (and the key says so), otherwise a solid upper and a dashed lower line.
std::string bound_curves(const std::string& file, const NumericCsv& csv, size_t upper_column, const std::string& name,
                         const std::string& colour) {
  const double gap = largest_relative_gap(csv, upper_column, upper_column + 1);
  const size_t u = upper_column + 1, l = upper_column + 2;  // gnuplot columns are 1-based
  if (gap <= kCoincideRelative)
    return fmt::format("{} using 1:(${} > 0 ? ${} : 1/0) with lines lw 2.5 lc rgb '{}' title {}", file, u, u, colour,
                       gnuplot_string(fmt::format("{}: upper and lower bound coincide (differ by <= {} %)", name,
                                                  format_general(100.0 * gap, 2, Rounding::kUp))));
  return fmt::format(
      "{} using 1:(${} > 0 ? ${} : 1/0) with lines lw 2.5 lc rgb '{}' title {}, "
      "{} using 1:(${} > 0 ? ${} : 1/0) with lines lw 1.5 dt 2 lc rgb '{}' title {}",
      file, u, u, colour, gnuplot_string(name + ": upper bound (certified)"), file, l, l, colour,
      gnuplot_string(name + ": lower bound"));
}

std::string certificate_plot(const fs::path& dir, const RunFacts& facts) {
  const bool with_gaussian = fs::exists(dir / "comparison_curves.csv");
  const std::string file = with_gaussian ? "'comparison_curves.csv'" : "'certificate.csv'";
  const NumericCsv csv = read_numeric_csv(dir / (with_gaussian ? "comparison_curves.csv" : "certificate.csv"));

  const bool baseline = facts.source.rfind("baseline ", 0) == 0;
  std::string title =
      std::string("Certified privacy curve delta(epsilon) of the ") + (baseline ? facts.source : "learned table");
  const std::string n = composition_text(facts);
  if (!n.empty()) title += " after " + n;
  if (facts.sensitivity) title += fmt::format(" (sensitivity {})", exact(*facts.sensitivity));
  if (!facts.deltas.empty()) {
    const CertifiedDelta& d = facts.deltas.front();
    title += fmt::format("\ncertified: delta <= {} at epsilon = {} (lower bound {}): the mechanism is ({}, {})-DP",
                         up(d.delta_upper), exact(d.epsilon), down(d.delta_lower), exact(d.epsilon), up(d.delta_upper));
  }

  std::string script = fmt::format(
      "{}set output 'certificate.png'\nset title {}\nset xlabel 'epsilon'\nset ylabel 'delta (log scale)'\n"
      "set logscale y\nset format y '1e%L'\nset key top right box opaque samplen 3\n",
      kCommonSettings, gnuplot_string(title));

  // Certified points as inline data blocks, each in the key with its value.
  std::string plots = bound_curves(file, csv, 1, baseline ? facts.source : "learned", "#1f5fa8");
  if (with_gaussian) {
    std::string gaussian = "truncated Gaussian";
    if (facts.gaussian_sigma) gaussian += fmt::format(" sigma {:.4g}", *facts.gaussian_sigma);
    plots += ", " + bound_curves(file, csv, 3, gaussian + ", same " + facts.utility_kind, "#d9730d");
  }

  // The floor: delta can never be certified below the probability of a distinguishing event in n releases.
  const double smallest = std::min(smallest_positive(csv, 1), smallest_positive(csv, 2));
  // A log axis labels only powers of ten: over less than two decades, label 2 and 5 times them as well.
  double largest = 0.0;
  for (size_t column = 1; column < (csv.header.empty() ? 3 : csv.header.size()); ++column)
    largest = std::max(largest, largest_finite(csv, column));
  if (std::isfinite(smallest) && largest > 0.0 && largest < 100.0 * smallest) {
    std::string tics;
    for (int k = static_cast<int>(std::floor(std::log10(smallest)));
         k <= static_cast<int>(std::ceil(std::log10(largest))); ++k)
      for (double mantissa : {2.0, 5.0})
        tics += fmt::format("{}'{:g}' {:g}", tics.empty() ? "" : ", ", mantissa * std::pow(10.0, k),
                            mantissa * std::pow(10.0, k));
    script += "set format y '%g'\nset ytics add (" + tics + ")\n";
  }
  // Certified points beyond the curve's end (an epsilon past the curve's last point) widen the x axis.
  double right_end = largest_finite(csv, 0);
  for (const auto& d : facts.deltas) right_end = std::max(right_end, 1.05 * d.epsilon);
  for (const auto& e : facts.epsilons)
    if (std::isfinite(e.epsilon_upper)) right_end = std::max(right_end, 1.05 * e.epsilon_upper);
  if (right_end > largest_finite(csv, 0)) script += fmt::format("set xrange [0:{:.17g}]\n", right_end);
  // delta(eps) labels above and right of their point, eps(delta) labels below and left of theirs: the curve
  // falls from upper left to lower right, so both sides stay clear of it and of each other when the two kinds
  // of point are close (delta(1) next to epsilon(0.001) when delta(1) is near 0.001). Near the right edge a
  // label goes left.
  const auto point_label = [&](const std::string& text, double x, double y, bool above_right) {
    const bool right = above_right && x <= 0.7 * right_end;
    return fmt::format("set label {} at first {:.17g}, first {:.17g} offset {},{} {} front\n", gnuplot_string(text), x,
                       y, right ? "1.2" : "-1.2", above_right ? "0.9" : "-0.9", right ? "left" : "right");
  };
  if (facts.infinity_mass_composed) {
    const double floor = *facts.infinity_mass_composed;
    const std::string after = n.empty() ? "" : " after " + n;
    if (floor > 0.0 && std::isfinite(smallest) && floor >= 1e-3 * smallest) {
      plots += fmt::format(
          ", {:.17g} with lines lw 2 dt 2 lc rgb '#b00000' title {}", floor,
          gnuplot_string(fmt::format("floor: distinguishing events{} have probability {} (no smaller delta)", after,
                                     down(floor))));
      // Named on the line as well: on the right the curves run along it.
      script += fmt::format("set label {} at graph 0.01, first {:.17g} offset 0,-0.9 left tc rgb '#b00000'\n",
                            gnuplot_string("floor " + down(floor)), floor);
    } else
      script += fmt::format(
          "set label {} at graph 0.01, graph 0.03 left tc rgb '#b00000'\n",
          gnuplot_string(
              floor > 0.0 ? fmt::format("distinguishing events{}: probability {} (below the plot)", after, down(floor))
                          : "no distinguishing events: delta tends to 0 as epsilon grows"));
  }
  std::string script_labels;  // next to each certified point
  if (!facts.deltas.empty()) {
    script += "$certified_delta << EOD\nepsilon,delta_upper\n";  // a header: `set key autotitle columnhead` reads one
    std::string label;
    for (const auto& d : facts.deltas) {
      script += fmt::format("{:.17g},{:.17g}\n", d.epsilon, d.delta_upper);
      const std::string point = fmt::format("delta({}) <= {}", exact(d.epsilon), up(d.delta_upper));
      label += (label.empty() ? "" : ", ") + point;
      script_labels += point_label(point, d.epsilon, d.delta_upper, true);
    }
    script += "EOD\n";
    plots += fmt::format(", $certified_delta using 1:2 with points pt 7 ps 2 lc rgb '#000000' title {}",
                         gnuplot_string("certified " + label));
  }
  std::vector<CertifiedEpsilon> epsilons;
  for (const auto& e : facts.epsilons)
    if (std::isfinite(e.epsilon_upper)) epsilons.push_back(e);
  if (!epsilons.empty()) {
    script += "$certified_epsilon << EOD\nepsilon_upper,delta\n";
    std::string label;
    for (const auto& e : epsilons) {
      script += fmt::format("{:.17g},{:.17g}\n", e.epsilon_upper, e.delta);
      const std::string point = fmt::format("epsilon({}) <= {}", exact(e.delta), up(e.epsilon_upper));
      label += (label.empty() ? "" : ", ") + point;
      script_labels += point_label(point, e.epsilon_upper, e.delta, false);
    }
    script += "EOD\n";
    plots += fmt::format(", $certified_epsilon using 1:2 with points pt 5 ps 1.6 lc rgb '#000000' title {}",
                         gnuplot_string("certified " + label));
  }
  return script + script_labels + "plot " + plots + "\n";
}

std::string history_plot(const fs::path& dir, const RunFacts& facts) {
  const NumericCsv csv = read_numeric_csv(dir / "history.csv");
  const std::string style = csv.rows.size() <= kPointsUpToRows ? "linespoints pt 7 ps 1.2" : "lines";
  const size_t rows = csv.rows.size();
  std::string heading = "Training history";
  if (!facts.model.empty()) heading += " of " + facts.model;
  heading += fmt::format(": {} logged epoch{}", rows, rows == 1 ? "" : "s");

  std::string surrogate = "training surrogate of delta";
  if (facts.loss_epsilon) surrogate += fmt::format(" at epsilon = {}", exact(*facts.loss_epsilon));
  if (facts.compositions) surrogate += fmt::format(", n = {}", *facts.compositions);
  if (!facts.loss_kind.empty()) surrogate += fmt::format(" ({}; not a certificate)", facts.loss_kind);

  struct Panel {
    int column;  // 1-based column of history.csv
    std::string title, ylabel;
    bool log;
  };
  // A geometric-tail run (preconditioned gradient) logs iterations: iteration, alpha, worst_shift, gamma,
  // objective, step, seconds, constraint_residual.
  const bool iterations = !csv.header.empty() && csv.header[0] == "iteration";
  std::string unit = "epoch";
  std::vector<Panel> panels{
      {3, "Privacy: " + surrogate, "delta surrogate (log scale)", true},
      {4, fmt::format("Utility: {} of the table (lower is better)", facts.utility_kind), facts.utility_kind, false},
      {5, "Utility weight w (objective = delta surrogate + w x utility)", "weight w (log scale)", true},
      {6, "Learning rate", "learning rate (log scale)", true},
  };
  if (iterations) {
    unit = "iteration";
    heading = fmt::format("Preconditioned gradient: {} logged iteration{}", rows, rows == 1 ? "" : "s");
    panels = {
        {4, "gamma: Renyi bound on epsilon at delta (eq. 25; objective, not a certificate)", "gamma", false},
        {2, "Renyi order alpha (Newton steps)", "alpha", false},
        {6, "Accepted step mu (0: none)", "mu (log scale)", true},
        {8, "Constraint residual |A p - b| / |b| (normalisation, cost)", "relative residual (log scale)", true},
    };
  }
  std::string script =
      fmt::format("{}set output 'history.png'\nset multiplot layout 2,2 title {} font ',13'\nunset key\n",
                  kCommonSettings, gnuplot_string(heading));
  // A single epoch: an x range around it with whole-epoch tics, so the point is clear of the border.
  if (rows == 1 && !csv.rows[0].empty() && std::isfinite(csv.rows[0][0]))
    script += fmt::format("set xrange [{:.17g}:{:.17g}]\nset xtics 1\n", csv.rows[0][0] - 0.5, csv.rows[0][0] + 1.5);
  for (const auto& panel : panels) {
    script += fmt::format("set title {}\nset xlabel '{}'\nset ylabel {}\n", gnuplot_string(panel.title), unit,
                          gnuplot_string(panel.ylabel));
    script += panel.log ? "set logscale y\nset format y '1e%L'\n" : "unset logscale y\nset format y '%g'\n";
    const std::string value =
        panel.log ? fmt::format("(${} > 0 ? ${} : 1/0)", panel.column, panel.column) : fmt::format("{}", panel.column);
    script += fmt::format("plot 'history.csv' using 1:{} with {} lw 2 lc rgb '#1f5fa8'\n", value, style);
  }
  return script + "unset multiplot\n";
}

bool has_data_rows(const fs::path& csv) { return !read_numeric_csv(csv).rows.empty(); }

}  // namespace

PlotScript plot_script(const fs::path& run_directory) {
  if (!fs::is_directory(run_directory))
    throw InputError(fmt::format("{} is not a run directory", run_directory.string()));
  if (!fs::exists(run_directory / "noise.csv"))
    throw InputError(fmt::format("{} has no noise.csv: not a run directory", run_directory.string()));
  const RunFacts facts = read_run_facts(run_directory);
  PlotScript script;
  script.text =
      "# Plots of this run directory, written by noiselearn. Run it here: cd <run directory> && gnuplot plots.gp\n"
      "set terminal pngcairo size 1200,750 noenhanced font ',11'\n";
  script.text += table_plot(run_directory, facts);
  script.images.emplace_back("table.png");
  const bool curves =
      fs::exists(run_directory / "comparison_curves.csv") || fs::exists(run_directory / "certificate.csv");
  if (curves) {
    script.text += certificate_plot(run_directory, facts);
    script.images.emplace_back("certificate.png");
  }
  if (fs::exists(run_directory / "history.csv") && has_data_rows(run_directory / "history.csv")) {
    script.text += history_plot(run_directory, facts);
    script.images.emplace_back("history.png");
  }
  return script;
}

PlotResult run_plot_script(const fs::path& run_directory, const PlotScript& script, bool overwrite) {
  PlotResult result;
  for (const auto& image : script.images)
    if (fs::exists(run_directory / image) && !overwrite)
      throw InputError(
          fmt::format("refusing to overwrite existing file {} (use --force)", (run_directory / image).string()));
  const fs::path script_path = run_directory / "plots.gp";
  write_file_atomically(script_path, script.text, /*overwrite=*/true);  // generated, never written by a user
  if (!gnuplot_available()) {
    result.message = fmt::format("gnuplot is not installed: wrote the data and {} only (apt-get install gnuplot-nox)",
                                 script_path.string());
    return result;
  }
  // The script names its files relative to the run directory: run it there.
  const std::string command =
      fmt::format("cd -- {} && gnuplot plots.gp > plots.log 2>&1", shell_quoted(run_directory.string()));
  if (std::system(command.c_str()) != 0) {
    result.message = fmt::format("gnuplot failed: see {}", (run_directory / "plots.log").string());
    return result;
  }
  fs::remove(run_directory / "plots.log");
  result.plotted = true;
  for (const auto& image : script.images) result.images.push_back(run_directory / image);
  result.message = fmt::format("wrote {} plots to {}", result.images.size(), run_directory.string());
  return result;
}

PlotResult plot_run(const fs::path& run_directory, bool overwrite) {
  return run_plot_script(run_directory, plot_script(run_directory), overwrite);
}

}  // namespace noiselearn
