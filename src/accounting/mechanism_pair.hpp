#pragma once
// A mechanism without a grid, as the accountant sees one release of it: the pair (P, Q) of its output distributions
// on two neighbouring inputs at the worst difference (P with the record's contribution, Q without it), described by
// the law of the privacy loss l = ln(P/Q) under both P and Q.
//
// That law is all the accountant needs. Sampling (release_events.hpp) mixes P and Q, A = (1 - q) Q + q P, and the
// privacy loss of every direction of the sampled pair is a monotone function of l:
//   remove  A||Q: ln(1 - q + q e^l),      add  Q||A: -ln(1 - q + q e^l),
// so the masses of {l in (a, b]} under P and Q give the masses of every loss interval of every direction (and P||Q,
// Q||P unsampled: l and -l). Each mechanism is one file of mechanisms/ with its parameters and one registration line
// in mechanism_registry.cpp.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/noise_table.hpp"

namespace noiselearn {

// Outcomes whose privacy loss l = ln(P/Q) lies in [low, high], with their probabilities under P and Q. An atom has
// low == high; an end may be infinite (l = +infinity where Q = 0, -infinity where P = 0).
struct LossCell {
  double low = 0.0, high = 0.0;
  double p_mass = 0.0, q_mass = 0.0;
};

// The continuous part of the privacy loss on [low, high]: the masses under P and Q of {l in (a, b]} for
// low <= a < b <= high. What lies outside is given as cells of LossLaw (cut where it is below the tail mass).
struct ContinuousLoss {
  double low = 0.0, high = 0.0;
  std::function<std::pair<double, double>(double, double)> mass;  // (P mass, Q mass) of l in (a, b]
};

// The law of l under P and Q: cells (atoms, and the tails left out of the atoms or the continuous part, as cells
// reaching to an infinite loss) and a continuous part. Masses sum to 1 under P and under Q.
struct LossLaw {
  std::vector<LossCell> cells;
  std::optional<ContinuousLoss> continuous;
};

class MechanismPair {
 public:
  virtual ~MechanismPair() = default;
  // One line for certificates: "Gaussian mechanism, noise multiplier 1.1".
  virtual std::string description() const = 0;
  // Why this pair is the worst for every difference of the two inputs (the certificate prints it).
  virtual std::string worst_case_justification() const = 0;
  // True when Q||P has the same privacy-loss law as P||Q (mirror-symmetric noise): one direction is then enough.
  virtual bool symmetric() const = 0;
  // The law, with what it leaves out (cut tails, kept as cells) at most tail_mass / 1000 under P and under Q per side.
  virtual LossLaw loss_law(double tail_mass) const = 0;
  // Relative accuracy of the masses as computed (the sampled release pads its upper bound by it).
  virtual double mass_relative_error() const { return 1e-13; }
  // When the law is that of a stand-in (a table symmetric only up to rounding, accounted through its exactly symmetric
  // copy): a bound on the total variation between one release of the mechanism and of the stand-in, each side of the
  // pair (every query pays (1 + e^eps) n times it). 0: the law is the mechanism's own.
  virtual double substitution_tv() const { return 0.0; }
  // The mechanism on d coordinates with independent noise, each differing by at most the sensitivity, when that product
  // is exactly another pair of closed form (the Gaussian: the Gaussian of multiplier m / sqrt(d), the L-infinity ball's
  // corner being its farthest point); null: the product is computed (coordinate_product.hpp).
  virtual std::shared_ptr<const MechanismPair> coordinate_product(int64_t /*coordinates*/) const { return nullptr; }
};

// One parameter of a mechanism kind, as a config key and a Python keyword: its default (none: required), unit and
// meaning (the README and `noiselearn account --help-mechanisms` print them).
struct MechanismParameter {
  std::string key;
  std::optional<double> default_value;
  std::string unit;
  std::string meaning;
  bool integer = false;  // a positive whole number (a sensitivity on the integers)
  bool table = false;    // a noise table, given as the path of its file (read by the caller's TableReader)
};

using MechanismValues = std::map<std::string, double>;
// The tables of a kind's table parameters, by key.
using MechanismTables = std::map<std::string, std::shared_ptr<const NoiseTable>>;
// Reads the noise table at a path (io/table_files.hpp through the CLI and Python); InputError naming the file.
using TableReader = std::function<std::shared_ptr<const NoiseTable>(const std::string& path)>;

// A kind of mechanism: its name in event files and Python, its parameters, and the factory of its pair. The
// factory receives every parameter (defaults filled in, each validated against its MechanismParameter): numbers in
// the values, tables in the tables.
struct MechanismKind {
  std::string name;
  std::string summary;
  std::vector<MechanismParameter> parameters;
  std::function<std::unique_ptr<MechanismPair>(const MechanismValues&, const MechanismTables&)> make;
};

// Every registered kind, in registration order (mechanism_registry.cpp).
const std::vector<MechanismKind>& mechanism_kinds();
// The kind of this name; InputError naming it and the nearest known name otherwise.
const MechanismKind& mechanism_kind(const std::string& name);
// A number from an event's text (the whole text, finite), or an InputError "WHERE: KEY must be a number (got 'TEXT')".
double parse_event_number(const std::string& text, const std::string& key, const std::string& where);
// The number parameters of `kind` from key/value text (where: for messages, e.g. "events.yaml, event 2"): unknown keys,
// missing required ones, non-numbers and values outside the domain are InputErrors naming the key. Table parameters
// are left to mechanism_tables.
MechanismValues mechanism_values(const MechanismKind& kind,
                                 const std::vector<std::pair<std::string, std::string>>& fields,
                                 const std::string& where);
// The table parameters of `kind`, each read by `read` from its path (a required one missing, or no reader: InputError).
MechanismTables mechanism_tables(const MechanismKind& kind,
                                 const std::vector<std::pair<std::string, std::string>>& fields,
                                 const std::string& where, const TableReader& read);

}  // namespace noiselearn
