#include "accounting/allocation_lattice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/directed_rounding.hpp"
#include "core/errors.hpp"

namespace noiselearn {

namespace {

// The law of Y = e^l: masses under P and Q of Y in (a, b] for a = 0 or a in [e^low, e^high], and b in
// [e^low, e^high] or b = +infinity, from the loss law's continuous part and its two tails (each taken whole).
struct RatioLaw {
  const ContinuousLoss* continuous = nullptr;
  double low_p = 0.0, low_q = 0.0, high_p = 0.0, high_q = 0.0;
  double y_low = 0.0, y_high = 0.0;

  RatioLaw(const LossLaw& law, const std::string& mechanism) {
    if (!law.continuous)
      throw InputError(fmt::format(
          "random_allocation needs a mechanism whose privacy loss has a density (gaussian); {} has none", mechanism));
    continuous = &*law.continuous;
    for (const LossCell& cell : law.cells) {
      if (cell.low == -INFINITY && cell.high <= continuous->low) {
        low_p += cell.p_mass;
        low_q += cell.q_mass;
      } else if (cell.high == INFINITY && cell.low >= continuous->high) {
        high_p += cell.p_mass;
        high_q += cell.q_mass;
      } else {
        throw InputError(fmt::format(
            "random_allocation needs a mechanism whose privacy loss has a density (gaussian); {} has atoms of loss",
            mechanism));
      }
    }
    y_low = std::exp(continuous->low);
    y_high = std::exp(continuous->high);
  }

  double log_of(double y) const { return std::clamp(std::log(y), continuous->low, continuous->high); }

  std::pair<double, double> mass(double a, double b) const {
    double p = 0.0, q = 0.0, from = continuous->low, to = continuous->high;
    if (a <= 0.0) {
      p += low_p;
      q += low_q;
    } else {
      from = log_of(a);
    }
    if (b == INFINITY) {
      p += high_p;
      q += high_q;
    } else {
      to = log_of(b);
    }
    if (to > from) {
      const auto [pc, qc] = continuous->mass(from, to);
      p += pc;
      q += qc;
    }
    return {p, q};
  }

  // The rounding of a boundary's logarithm, relative in Y: |e^{log y computed} / y - 1|.
  double boundary_error() const {
    return roundings(4.0) * (2.0 + std::max(std::abs(continuous->low), std::abs(continuous->high)));
  }
};

// Cells of Y are a lattice step wide up to kFineRatio, then widen in proportion to Y (a relative 1 / (8 * 64) of it
// at the default step): the spread's added variance there is weighted by the small probability of such ratios.
constexpr double kFineRatio = 8.0;

int64_t cell_width(int64_t index, double step) {
  return std::max<int64_t>(1, static_cast<int64_t>(std::floor(static_cast<double>(index) * step / kFineRatio)));
}

// Adds one spread weight (fraction f of the cell's Q-mass q at lattice point `at` of ratio y) with its error: the
// relative error where f is not small, an absolute one where it is (the fraction's error is absolute).
struct SpreadAccumulator {
  RatioLattice& out;
  double r = 0.0;  // the masses' relative error
  double absolute_q = 0.0, absolute_p = 0.0;
  void add(int64_t at, double y, double q, double fraction, double fraction_error) {
    const double w = q * fraction;
    out.q_masses[static_cast<size_t>(at)] += w;
    out.p_masses[static_cast<size_t>(at)] += y * w;
    if (fraction >= 0.125) {
      const double relative = r + fraction_error / fraction + roundings(4.0) + out.ratio_error;
      out.relative_error = std::max(out.relative_error, relative);
    } else {
      const double error = q * (fraction_error + (r + roundings(4.0)) * fraction);
      absolute_q += error;
      absolute_p += y * error * (1.0 + out.ratio_error) + y * w * out.ratio_error;
    }
  }
};

}  // namespace

void check_ratio_law(const LossLaw& law, const std::string& mechanism) {
  const RatioLaw checked(law, mechanism);
  (void)checked;
}

LatticeChoice choose_ratio_lattice(const LossLaw& law, const std::string& mechanism, double tail_mass, int64_t max_top,
                                   bool cut_top) {
  const RatioLaw y(law, mechanism);
  const ContinuousLoss& c = *y.continuous;
  // E_Q[Y^2] = E_P[Y], on 400 cells of the loss (only the step's scale depends on it).
  double second_moment = y.low_p * y.y_low + y.high_p * y.y_high;
  const int cells = 400;
  for (int i = 0; i < cells; ++i) {
    const double from = c.low + (c.high - c.low) * i / cells, to = c.low + (c.high - c.low) * (i + 1) / cells;
    second_moment += c.mass(from, to).first * std::exp(0.5 * (from + to));
  }
  const double sd = std::sqrt(std::max(second_moment - 1.0, 1e-12));
  // The top: the least ratio above which P has at most tail_mass.
  double inside = c.low, outside = c.high;
  for (int i = 0; i < 200 && outside - inside > 1e-9 * std::max(1.0, std::abs(outside)); ++i) {
    const double middle = 0.5 * (inside + outside);
    (c.mass(middle, c.high).first + y.high_p <= tail_mass ? outside : inside) = middle;
  }
  const double top_ratio = std::exp(outside);
  LatticeChoice choice;
  // Ratios beyond the doubles (a multiplier of about 0.03 or less): no lattice.
  if (!std::isfinite(top_ratio) || !std::isfinite(y.y_high) || !std::isfinite(second_moment)) return choice;
  // Also at most 1/64: ratios far below the mean of 1 decide the add direction at large epsilon for few steps.
  choice.step = std::exp2(std::floor(std::log2(std::min(sd, 1.0) / 64.0)));
  const double wanted = choice.step;
  auto top_of = [&](double step) {
    const double top = std::min(std::ceil(top_ratio / step), std::floor(y.y_high / step));
    return std::max<int64_t>(2, static_cast<int64_t>(top));
  };
  if (cut_top) {
    choice.top = std::min(top_of(choice.step), max_top);
    return choice;
  }
  while (top_of(choice.step) + 1 > max_top) choice.step *= 2.0;
  choice.top = top_of(choice.step);
  if (choice.step > wanted) choice.step_wanted = wanted;
  return choice;
}

RatioLattice spread_lattice(const LossLaw& law, double mass_relative_error, const LatticeChoice& lattice) {
  const RatioLaw y(law, "the mechanism");
  const double g = lattice.step;
  RatioLattice out;
  out.step = g;
  out.ratio_error = y.boundary_error();
  out.q_masses.assign(static_cast<size_t>(lattice.top) + 1, 0.0);
  out.p_masses.assign(static_cast<size_t>(lattice.top) + 1, 0.0);
  SpreadAccumulator add{out, mass_relative_error};
  const double rc = 2.0 * mass_relative_error + roundings(4.0);  // of a computed mean p / q
  // The first cell reaches past the loss law's lower tail (taken whole), so its outcomes lie in it.
  int64_t from = 0, to = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(y.y_low / g)));
  while (from < lattice.top) {
    to = std::min(to, lattice.top);
    const double a = static_cast<double>(from) * g, b = static_cast<double>(to) * g;
    const auto [p, q] = y.mass(a, b);
    if (q > 0.0) {
      const double mean = p / q;
      const double t = std::clamp((mean - a) / (b - a), 0.0, 1.0);
      // The fraction's error: the mean's, the ends' (their ratios are the lattice's to ratio_error), its rounding.
      const double t_error = (rc * mean + 2.0 * out.ratio_error * b) / (b - a) + roundings(4.0);
      add.add(from, a, q, 1.0 - t, t_error);
      add.add(to, b, q, t, t_error);
    }
    ++out.cells;
    from = to;
    to = from + cell_width(from, g);
  }
  // Above the top: split into an outcome only P produces and one only Q produces (ratio 0).
  const auto [p_top, q_top] = y.mass(static_cast<double>(lattice.top) * g, INFINITY);
  out.p_infinity = p_top;
  out.q_masses.front() += q_top;
  out.relative_error += roundings(4.0);  // each lattice point sums two cells' shares
  out.absolute_error = std::max(add.absolute_q, add.absolute_p);
  return out;
}

RatioLattice cell_lattice(const LossLaw& law, double mass_relative_error, const LatticeChoice& lattice,
                          CellLabel label) {
  const RatioLaw y(law, "the mechanism");
  const double g = lattice.step;
  const bool above = label == CellLabel::kMeansAtOrAbove;
  RatioLattice out;
  out.step = g;
  out.q_masses.assign(static_cast<size_t>(lattice.top) + 1, 0.0);
  out.p_masses.assign(static_cast<size_t>(lattice.top) + 1, 0.0);
  out.relative_error = mass_relative_error + roundings(4.0);
  const double rc = 2.0 * mass_relative_error + roundings(4.0);  // of a computed mean p / q
  auto put = [&](int64_t at, double p, double q) {
    if (at < 0) return;  // kMeansAtOrBelow: a mean beyond every label, left out
    if (at >= static_cast<int64_t>(out.q_masses.size())) {
      out.q_masses.resize(static_cast<size_t>(at) + 1, 0.0);
      out.p_masses.resize(static_cast<size_t>(at) + 1, 0.0);
    }
    out.q_masses[static_cast<size_t>(at)] += q;
    out.p_masses[static_cast<size_t>(at)] += p;
  };
  // The label of a cell of computed mean c: the lattice point the true mean is surely at or above (below).
  auto label_of = [&](double mean) {
    return above ? static_cast<int64_t>(std::floor(mean * (1.0 - 2.0 * rc - roundings(2.0)) / g))
                 : static_cast<int64_t>(std::ceil(mean * (1.0 + 2.0 * rc + roundings(2.0)) / g));
  };
  const double top_ratio = static_cast<double>(lattice.top) * g;
  double a = 0.0;
  int64_t previous = 0;
  while (a < top_ratio) {
    // The next label: half a cell's width above the cell's start.
    const int64_t start = static_cast<int64_t>(std::floor(a / g));
    const int64_t m = std::max(previous + 1, static_cast<int64_t>(std::ceil((a + 0.5 * cell_width(start, g) * g) / g)));
    // The target sits 8 rc from the label, and a mean within 4 rc of it is accepted: the computed mean's noise (up to
    // rc) then never moves the label (a label one lattice point off would cost a whole step).
    const double target = static_cast<double>(m) * g * (above ? 1.0 + 8.0 * rc : 1.0 - 8.0 * rc);
    auto mean_to = [&](double b) {
      const auto [p, q] = y.mass(a, b);
      return q > 0.0 ? p / q : 0.0;
    };
    // A right end whose mean reaches the target, by doubling, then bisection in ln Y.
    double low = std::max(static_cast<double>(m) * g, y.y_low), high = low;
    double reach = std::max(g, static_cast<double>(m) * g - a);
    bool found = false;
    while (high < y.y_high) {
      high = std::min(y.y_high, static_cast<double>(m) * g + reach);
      if (mean_to(high) >= target) {
        found = true;
        break;
      }
      low = high;
      reach *= 2.0;
    }
    if (!found) break;
    double b = high;
    for (int i = 0; i < 200; ++i) {
      const double mean = mean_to(b);
      if (std::abs(mean - target) <= 4.0 * rc * target) break;
      (mean < target ? low : high) = b;
      b = std::sqrt(low) * std::sqrt(high);
      if (!(high > low)) break;
    }
    // A cell reaching past the top is the last one (below): its label would lie beyond the lattice.
    if (b > top_ratio) break;
    const auto [p, q] = y.mass(a, b);
    if (q > 0.0) put(label_of(p / q), p, q);
    ++out.cells;
    previous = std::max(previous, m);
    a = b;
  }
  // The last cell, to +infinity: at or above, labelled at most at the top; at or below, left out when its label would
  // lie beyond the top.
  const auto [p, q] = y.mass(a, INFINITY);
  if (q > 0.0) {
    const int64_t last = label_of(p / q);
    if (above || last <= lattice.top) put(std::min(last, lattice.top), p, q);
  }
  ++out.cells;
  return out;
}

}  // namespace noiselearn
