#pragma once
// One step of random allocation (random_allocation.hpp) as the accountant needs it: the likelihood ratio Y = P/Q of
// the step's output, under Q (the step without the record), put on the lattice {i g : i = 0 .. top} in two ways that
// bracket the true pair.
//
// Why a lattice of Y and not of ln Y: the epoch's likelihood ratio is the mean of the k steps' ratios,
// (Y_1 + ... + Y_k) / k, and under Q the Y_j are independent and alike, so the epoch's ratio is a k-fold convolution
// in Y (one FFT power), whatever k is.
//
// * Upper (a pair the true one is a post-processing of): Y is cut into cells [y_a, y_b] with lattice ends, and each
//   cell's outcomes are replaced by the two outcomes y_a, y_b with Q-masses keeping the cell's Q-mass and its mean
//   (a mean-preserving spread of Y under Q). By Blackwell's theorem for pairs (Blackwell 1953; for dichotomies the
//   comparison of experiments is the convex order of the likelihood ratio under Q), a pair whose ratio under Q is a
//   mean-preserving spread of another's is more informative. The P-masses follow: P = y Q at every lattice point.
//   Outcomes above the lattice's top are split into one that only P produces (Y = +infinity, P-mass p_infinity)
//   and one that only Q produces (Y = 0): merging the two gives them back. An atom is spread between its two
//   neighbouring lattice points, a cell of the law between the lattice points around its ratios. The spread adds at
//   most w^2 / 4 to the variance of Y in a cell of width w: second order in the lattice step.
// * Lower (a post-processing of the true pair): the outcome is reduced to the index of its cell, so each cell is one
//   outcome with ratio c = P(cell) / Q(cell), the cell's conditional mean. Outcomes are taken in order of their
//   ratio (atoms, the law's cells, slices of its continuous part) and a cell closes when its mean reaches a point
//   just above a lattice point (kMeansAtOrAbove) or just below one (kMeansAtOrBelow), to a relative 3e-12, taking
//   only the fraction of the last outcome that meets it (a randomised post-processing: a Markov kernel to cells).
//   That point is the cell's label; a cell that cannot reach one (the last) is labelled below (above) its mean. The
//   label sum is then a pointwise lower (upper) bound of the epoch's ratio sum of this post-processed pair, which is
//   what a lower bound of the epoch's P||Q (Q||P) needs: delta of P||Q only grows with the loss under P, delta of Q||P
//   with the loss -ln(ratio) under Q. The last cell (to +infinity) is labelled at the lattice's top (at or above: left
//   out).
//
// Cell boundaries are set in ln Y (the mechanism's loss law gives the masses of loss intervals); a boundary's Y is
// its lattice point to a relative `ratio_error` (the rounding of the logarithm), which the loss of every lattice
// point carries.
#include <cstdint>
#include <vector>

#include "accounting/mechanism_pair.hpp"

namespace noiselearn {

struct RatioLattice {
  double step = 0.0;             // g, a power of two: lattice point i is the ratio i g
  std::vector<double> q_masses;  // Q-probability of ratio i g, i = 0 .. top
  std::vector<double> p_masses;  // P-probability of ratio i g (i g times the Q-probability, up to the errors)
  double p_infinity = 0.0;       // P-probability of outcomes Q cannot produce (upper: the split top)
  // Computed masses against the pair's: computed = exact (1 + theta) + e, |theta| <= relative_error entrywise and
  // ||e||_1 <= absolute_error (for the Q- and for the P-masses).
  double relative_error = 0.0;
  double absolute_error = 0.0;
  double ratio_error = 0.0;  // the pair's ratio at lattice point i is i g (1 + t), |t| <= ratio_error
  int64_t cells = 0;         // how many cells Y was cut into
};

// Where the lattice ends and how fine it is, for a mechanism's law.
struct LatticeChoice {
  double step = 0.0;
  int64_t top = 0;           // the last lattice point; P(Y > top g) <= tail_mass unless the top was cut
  double step_wanted = 0.0;  // the step the spread of Y asked for, when max_points made it coarser (0 otherwise)
};

// The finest step worth trying: the largest power of two at most min(sd_Q(Y), 1) / 64 (the spread then changes the
// variance of Y by a relative 6e-5 at most), 256 times finer for a law with atoms (the cells label an atom only to
// within a step where it cannot be mixed with outcomes around it).
double fine_ratio_step(const LossLaw& law);

// The lattice of this step, its top the least one above which P has at most tail_mass (cut_top: at most max_top, for
// the lower bound's cells, which need not reach the tail). A step of 0: the ratios overflow the doubles (no lattice).
LatticeChoice ratio_lattice(const LossLaw& law, double tail_mass, double step, int64_t max_top, bool cut_top);

RatioLattice spread_lattice(const LossLaw& law, double mass_relative_error, const LatticeChoice& lattice);

enum class CellLabel { kMeansAtOrAbove, kMeansAtOrBelow };
RatioLattice cell_lattice(const LossLaw& law, double mass_relative_error, const LatticeChoice& lattice,
                          CellLabel label);

}  // namespace noiselearn
