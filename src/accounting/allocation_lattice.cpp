#include "accounting/allocation_lattice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/directed_rounding.hpp"
#include "core/errors.hpp"

namespace noiselearn {

namespace {

// e^loss: 0 at -infinity, +infinity at +infinity (and beyond the doubles).
double ratio_of(double loss) { return loss == -INFINITY ? 0.0 : std::exp(loss); }

// A set of one step's outcomes as the law gives it: its ratios lie in [low, high] (an atom: low == high; 0 and
// +infinity allowed), with its masses under P and Q.
struct RatioUnit {
  double low = 0.0, high = 0.0, p = 0.0, q = 0.0;
};

// The law of Y = e^l: the loss law's cells as units, and its continuous part, whose masses of Y in (a, b] are those of
// l in (ln a, ln b] for y_low <= a < b <= y_high.
struct RatioLaw {
  std::vector<RatioUnit> units;
  const ContinuousLoss* continuous = nullptr;
  double y_low = 0.0, y_high = 0.0;
  bool atoms = false;  // some unit is an atom of a finite positive ratio

  explicit RatioLaw(const LossLaw& law) {
    for (const LossCell& cell : law.cells) {
      if (!(cell.p_mass > 0.0) && !(cell.q_mass > 0.0)) continue;
      units.push_back({ratio_of(cell.low), ratio_of(cell.high), cell.p_mass, cell.q_mass});
      atoms = atoms || (cell.low == cell.high && std::isfinite(cell.low));
    }
    if (law.continuous) {
      continuous = &*law.continuous;
      y_low = std::exp(continuous->low);
      y_high = std::exp(continuous->high);
    }
  }

  double log_of(double y) const { return std::clamp(std::log(y), continuous->low, continuous->high); }

  std::pair<double, double> mass(double a, double b) const {
    const double from = log_of(a), to = log_of(b);
    return to > from ? continuous->mass(from, to) : std::pair{0.0, 0.0};
  }

  // The rounding of a boundary's logarithm, relative in Y: |e^{log y computed} / y - 1|.
  double boundary_error() const {
    return continuous ? roundings(4.0) * (2.0 + std::max(std::abs(continuous->low), std::abs(continuous->high))) : 0.0;
  }

  // E_Q[Y^2] = E_P[Y], roughly (units at their mean ratio, the continuous part on 400 cells): it sets the step only.
  double second_moment() const {
    double sum = 0.0;
    for (const RatioUnit& u : units)
      if (u.q > 0.0) sum += u.p * (u.p / u.q);
    if (continuous) {
      const ContinuousLoss& c = *continuous;
      const int cells = 400;
      for (int i = 0; i < cells; ++i) {
        const double from = c.low + (c.high - c.low) * i / cells, to = c.low + (c.high - c.low) * (i + 1) / cells;
        sum += c.mass(from, to).first * std::exp(0.5 * (from + to));
      }
    }
    return sum;
  }

  // The P-mass of ratios above y (a unit reaching above y counted whole; outcomes Q cannot produce left out: they
  // are split off whatever the top).
  double p_above(double y) const {
    double sum = 0.0;
    for (const RatioUnit& u : units)
      if (u.q > 0.0 && u.high > y) sum += u.p;
    if (continuous && y < y_high) sum += mass(std::max(y, y_low), y_high).first;
    return sum;
  }

  double largest_finite_ratio() const {
    double largest = continuous ? y_high : 0.0;
    for (const RatioUnit& u : units) {
      if (std::isfinite(u.high)) largest = std::max(largest, u.high);
      if (std::isfinite(u.low)) largest = std::max(largest, u.low);
    }
    return largest;
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

double fine_ratio_step(const LossLaw& law) {
  const RatioLaw y(law);
  const double sd = std::sqrt(std::max(y.second_moment() - 1.0, 1e-12));
  // Also at most 1/64: ratios far below the mean of 1 decide the add direction at large epsilon for few steps. Atoms
  // are labelled to within a step (below), so a law with atoms starts 256 times finer.
  const double step = std::exp2(std::floor(std::log2(std::min(sd, 1.0) / 64.0)));
  return y.atoms ? step / 256.0 : step;
}

LatticeChoice ratio_lattice(const LossLaw& law, double tail_mass, double step, int64_t max_top, bool cut_top) {
  const RatioLaw y(law);
  LatticeChoice choice;
  const double largest = y.largest_finite_ratio();
  // Ratios beyond the doubles (a Gaussian multiplier of about 0.03 or less): no lattice.
  if (!std::isfinite(largest) || !std::isfinite(y.second_moment())) return choice;
  // The top: the least ratio above which P has at most tail_mass (by bisection in ln Y).
  double inside = std::log(std::max(largest, 1e-300)) - 800.0, outside = std::log(std::max(largest, 1e-300));
  if (y.p_above(std::exp(inside)) <= tail_mass) outside = inside;
  for (int i = 0; i < 200 && outside - inside > 1e-9 * std::max(1.0, std::abs(outside)); ++i) {
    const double middle = 0.5 * (inside + outside);
    (y.p_above(std::exp(middle)) <= tail_mass ? outside : inside) = middle;
  }
  const double top = std::ceil(std::exp(outside) / step);
  if (!(top < 9e15)) return choice;
  choice.step = step;
  choice.top = std::max<int64_t>(2, static_cast<int64_t>(top));
  if (cut_top) choice.top = std::min(choice.top, std::max<int64_t>(2, max_top));
  return choice;
}

RatioLattice spread_lattice(const LossLaw& law, double mass_relative_error, const LatticeChoice& lattice) {
  const RatioLaw y(law);
  const double g = lattice.step, top_ratio = static_cast<double>(lattice.top) * g;
  RatioLattice out;
  out.step = g;
  out.ratio_error = y.boundary_error();
  out.q_masses.assign(static_cast<size_t>(lattice.top) + 1, 0.0);
  out.p_masses.assign(static_cast<size_t>(lattice.top) + 1, 0.0);
  SpreadAccumulator add{out, mass_relative_error};
  const double rc = 2.0 * mass_relative_error + roundings(4.0);  // of a computed mean p / q
  // Outcomes above the top: split into one only P produces and one only Q produces (ratio 0).
  auto split = [&](double p, double q) {
    out.p_infinity += p;
    out.q_masses.front() += q;
  };
  // Spread onto lattice points `from` < `to` keeping the Q-mass q and the mean (within mean_error, relative);
  // ends_error: the relative error of the ends as the outcomes' ratios (the continuous part's boundaries).
  auto spread = [&](int64_t from, int64_t to, double mean, double mean_error, double q, double ends_error) {
    const double a = static_cast<double>(from) * g, b = static_cast<double>(to) * g;
    const double t = std::clamp((mean - a) / (b - a), 0.0, 1.0);
    // The fraction's error: the mean's, the ends', its rounding.
    const double t_error = (mean_error * mean + 2.0 * ends_error * b) / (b - a) + roundings(4.0);
    add.add(from, a, q, 1.0 - t, t_error);
    add.add(to, b, q, t, t_error);
    ++out.cells;
  };
  for (const RatioUnit& u : y.units) {
    if (!(u.q > 0.0)) {  // outcomes Q cannot produce
      out.p_infinity += u.p;
      continue;
    }
    // An atom between its two neighbouring lattice points, at its ratio e^l (to the rounding of the exponential, far
    // finer than p / q); a set of outcomes between the lattice points around its ratios (their logarithms' rounding
    // allowed for), at its mean p / q.
    const bool atom = u.low == u.high;
    const double atom_error = roundings(4.0) * (2.0 + std::abs(std::log(u.low)));
    const double mean = atom ? u.low : u.p / u.q, mean_error = atom ? atom_error : rc;
    const double low = atom ? mean : u.low * (1.0 - roundings(8.0));
    const double high = atom ? mean : u.high * (1.0 + roundings(8.0));
    if (!(high <= top_ratio)) {
      split(u.p, u.q);
      continue;
    }
    const auto from = static_cast<int64_t>(std::floor(low / g));
    const int64_t to = std::max(from + 1, static_cast<int64_t>(std::ceil(high / g)));
    if (to > lattice.top)
      split(u.p, u.q);
    else
      spread(from, to, mean, mean_error, u.q, 0.0);
  }
  if (y.continuous) {
    // Cells with lattice ends over the continuous part, a step wide, then wider (cell_width).
    int64_t from = static_cast<int64_t>(std::floor(y.y_low / g));
    while (from < lattice.top && static_cast<double>(from) * g < y.y_high) {
      const int64_t to = std::min(from + cell_width(from, g), lattice.top);
      const auto [p, q] =
          y.mass(std::max(static_cast<double>(from) * g, y.y_low), std::min(static_cast<double>(to) * g, y.y_high));
      if (q > 0.0) spread(from, to, p / q, rc, q, out.ratio_error);
      from = to;
    }
    if (y.y_high > top_ratio) {
      const auto [p, q] = y.mass(std::max(top_ratio, y.y_low), y.y_high);
      split(p, q);
    }
  }
  out.relative_error += roundings(4.0);  // each lattice point sums several shares
  out.absolute_error = std::max(add.absolute_q, add.absolute_p);
  return out;
}

RatioLattice cell_lattice(const LossLaw& law, double mass_relative_error, const LatticeChoice& lattice,
                          CellLabel label) {
  const RatioLaw y(law);
  const double g = lattice.step, top_ratio = static_cast<double>(lattice.top) * g;
  const bool above = label == CellLabel::kMeansAtOrAbove;
  RatioLattice out;
  out.step = g;
  out.q_masses.assign(static_cast<size_t>(lattice.top) + 1, 0.0);
  out.p_masses.assign(static_cast<size_t>(lattice.top) + 1, 0.0);
  out.relative_error = mass_relative_error + roundings(4.0);
  const double rc = 2.0 * mass_relative_error + roundings(4.0);  // of a computed mean p / q
  // The pieces: the units, and the continuous part in slices an eighth of a cell wide, sorted by their ratio.
  struct Piece {
    double ratio, p, q;
  };
  std::vector<Piece> pieces;
  for (const RatioUnit& u : y.units) {
    if (u.q > 0.0)
      pieces.push_back({u.p / u.q, u.p, u.q});
    else if (above)  // outcomes Q cannot produce: kept apart (a post-processing may keep them)
      out.p_infinity += u.p;
  }
  if (y.continuous) {
    double a = y.y_low;
    while (a < std::min(y.y_high, top_ratio)) {
      const double b = std::min(
          {y.y_high, top_ratio, a + 0.125 * g * static_cast<double>(cell_width(static_cast<int64_t>(a / g), g))});
      const auto [p, q] = y.mass(a, b);
      if (q > 0.0) pieces.push_back({p / q, p, q});
      a = b;
    }
    if (y.y_high > top_ratio) {
      const auto [p, q] = y.mass(std::max(top_ratio, y.y_low), y.y_high);
      if (q > 0.0) pieces.push_back({p / q, p, q});
    }
  }
  std::sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) { return a.ratio < b.ratio; });
  auto put = [&](int64_t at, double p, double q) {
    if (at < 0 || at > lattice.top) return;  // kMeansAtOrBelow: a mean beyond every label, left out
    out.q_masses[static_cast<size_t>(at)] += q;
    out.p_masses[static_cast<size_t>(at)] += p;
  };
  // The label of a cell of computed mean c: the lattice point the true mean is surely at or above (below).
  auto label_of = [&](double mean) {
    return above ? static_cast<int64_t>(std::floor(mean * (1.0 - 2.0 * rc - roundings(2.0)) / g))
                 : static_cast<int64_t>(std::ceil(mean * (1.0 + 2.0 * rc + roundings(2.0)) / g));
  };
  // A cell that starts at ratio r aims at the lattice point half a cell above it, its target mean 8 rc from that
  // point (so that the computed mean's noise never moves the label). Pieces are added in order of their ratio, the
  // one that would pass the target only in the fraction that meets it (a randomised post-processing), its rest
  // starting the next cell.
  auto open = [&](double r) {
    int64_t m = static_cast<int64_t>(
        std::ceil((r + 0.5 * g * static_cast<double>(cell_width(static_cast<int64_t>(r / g), g))) / g));
    while (static_cast<double>(m) * g * (1.0 - 16.0 * rc) <= r) ++m;
    // At the top, the top itself where it is above r (the half cell would pass it).
    if (m > lattice.top && top_ratio * (1.0 - 16.0 * rc) > r) m = lattice.top;
    return m;
  };
  double cell_p = 0.0, cell_q = 0.0, beyond_p = 0.0, beyond_q = 0.0;
  int64_t target_label = -1;
  for (const Piece& piece : pieces) {
    double rest = 1.0;
    while (rest > 0.0) {
      if (target_label < 0) target_label = open(piece.ratio);
      if (target_label > lattice.top || piece.ratio >= top_ratio) {
        beyond_p += rest * piece.p;
        beyond_q += rest * piece.q;
        break;
      }
      const double target = static_cast<double>(target_label) * g * (above ? 1.0 + 8.0 * rc : 1.0 - 8.0 * rc);
      if (cell_p + rest * piece.p <= target * (cell_q + rest * piece.q)) {
        cell_p += rest * piece.p;
        cell_q += rest * piece.q;
        break;
      }
      // piece.ratio > target here: the fraction f with (P + f p) / (Q + f q) = target.
      const double f = std::clamp((target * cell_q - cell_p) / (piece.p - target * piece.q), 0.0, rest);
      cell_p += f * piece.p;
      cell_q += f * piece.q;
      rest -= f;
      put(label_of(cell_p / cell_q), cell_p, cell_q);
      ++out.cells;
      cell_p = cell_q = 0.0;
      target_label = -1;
    }
  }
  if (cell_q > 0.0) {
    put(label_of(cell_p / cell_q), cell_p, cell_q);
    ++out.cells;
  }
  // Beyond the top: at or above, labelled at the top (their mean is above it); at or below, left out.
  if (above && beyond_q > 0.0) put(std::min(label_of(beyond_p / beyond_q), lattice.top), beyond_p, beyond_q);
  return out;
}

}  // namespace noiselearn
