// Any noise table (a noiselearn table file, e.g. a learned one): additive noise on the table's grid for a query whose
// values lie on that grid (a count, or a gradient coordinate rounded to the grid before it is summed), of sensitivity
// s, a whole number k of grid steps.
//
// Worst pair: P = the table shifted by k cells, Q = the table (core/dominating_pair.hpp, additive_shift_pair); its
// privacy loss takes one value per outcome (the grid's, and one per side beyond it for geometric tails), every atom
// exact. That one shift is the worst needs the table to be mirror-symmetric and monotone (Sommer et al., Thm 15), or
// k = 1 (Lemma 14); a table symmetric and monotone up to rounding (one written by another tool) is accounted through
// its exactly symmetric copy, paying for the difference (substitution_tv, printed). Other tables have several worst
// pairs, which the event accountant does not take: `noiselearn evaluate` accounts them over every shift.
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <string>

#include "accounting/mechanism_pair.hpp"
#include "core/dominating_pair.hpp"
#include "core/errors.hpp"

namespace noiselearn {

namespace {

class TablePair final : public MechanismPair {
 public:
  TablePair(std::shared_ptr<const NoiseTable> table, double sensitivity)
      : table_(std::move(table)), sensitivity_(sensitivity) {
    PairSpecification specification;
    specification.sensitivity = sensitivity;
    PairFamily family = make_pair_family(*table_, specification);
    const PairFamily* used = &family;
    if (!(family.single_shift && family.mirror_symmetric) && family.rounding_symmetric_copy &&
        family.rounding_symmetric_copy->single_shift && family.rounding_symmetric_copy->mirror_symmetric)
      used = family.rounding_symmetric_copy.get();
    if (!(used->single_shift && used->mirror_symmetric))
      throw InputError(fmt::format(
          "the table ({}) is not mirror-symmetric and monotone, so no single shift is its worst case ({}); account it "
          "as a table with `noiselearn evaluate` (every shift and both signs)",
          table_->provenance().source.empty() ? "noise table" : table_->provenance().source, family.justification));
    pair_ = used->pairs.front();
    justification_ = used->justification;
    tv_ = used->substitution_tv;
    cells_ = used->sensitivity_cells;
  }
  std::string description() const override {
    return fmt::format("noise table ({} points, step {:g}), sensitivity {:g} ({} cells)", table_->size(),
                       table_->grid().step, sensitivity_, cells_);
  }
  std::string worst_case_justification() const override { return justification_; }
  bool symmetric() const override { return true; }
  double substitution_tv() const override { return tv_; }
  LossLaw loss_law(double) const override {
    const std::vector<double> q = pair_.all_a(), p = pair_.all_b();  // Q: the table; P: shifted by the sensitivity
    LossLaw law;
    law.cells.reserve(p.size());
    for (size_t i = 0; i < p.size(); ++i) {
      if (!(p[i] > 0.0) && !(q[i] > 0.0)) continue;
      const double l = !(q[i] > 0.0) ? INFINITY : !(p[i] > 0.0) ? -INFINITY : std::log(p[i]) - std::log(q[i]);
      law.cells.push_back({l, l, p[i], q[i]});
    }
    return law;
  }
  double mass_relative_error() const override { return 1e-15; }  // the table's own numbers, one log each

 private:
  std::shared_ptr<const NoiseTable> table_;
  double sensitivity_;
  DominatingPair pair_;
  std::string justification_;
  double tv_ = 0.0;
  int64_t cells_ = 0;
};

}  // namespace

MechanismKind table_mechanism_kind() {
  MechanismParameter table{"table", std::nullopt, "",
                           "the path of a noise table file (CSV with its .json metadata, or a bare x,p CSV)"};
  table.table = true;
  return {"table",
          "any noise table (e.g. a learned one) added to a query on the table's grid",
          {table,
           {"sensitivity", std::nullopt, "query units (a whole number of grid steps)",
            "largest change of the query between neighbours"}},
          [](const MechanismValues& v, const MechanismTables& t) -> std::unique_ptr<MechanismPair> {
            return std::make_unique<TablePair>(t.at("table"), v.at("sensitivity"));
          }};
}

}  // namespace noiselearn
