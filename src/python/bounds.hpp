#pragma once
// noiselearn.Bounds: the certified bounds of a composition as Python sees them. Each query asks the accountant for
// what the certificates use at that query (the adaptive programme where the default decides it narrows the bracket,
// exponential tilting where the floating-point allowance dominates), then returns (lower, upper); the object itself
// does not change. Bounds of events (account_events) are composed for each query as `noiselearn account` composes
// them (the loss step the default chooses for that query, the bucketed lower bound where the bracket stays wide), so
// that a query gets the bracket the CLI prints; the composition without a query is made only where it is asked for.
#include <fmt/format.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "accounting/certificate.hpp"
#include "accounting/pair_accountant.hpp"
#include "accounting/refinement.hpp"
#include "accounting/release_events.hpp"
#include "core/errors.hpp"

namespace noiselearn::python {

class Bounds {
 public:
  explicit Bounds(PairBounds bounds) : state_(std::make_shared<State>()) { state_->bounds = std::move(bounds); }
  Bounds(ReleaseDescription description, AccountantOptions options) : state_(std::make_shared<State>()) {
    state_->events = std::make_pair(std::move(description), options);
  }
  // Each answer from the composition and the question alone (the accountant refines a copy for it), so that the
  // same question always gets the same answer, whatever was asked before.
  std::pair<double, double> delta(double epsilon) const {
    if (state_->events) return event_query(epsilon, state_->delta_answers, true);
    // The default decides per query: the adaptive programme if it narrows this one, a tilted composition for it.
    const PairBounds asked = refined_for_epsilon(adapted_to_queries(bounds(), {{epsilon}, {}}), epsilon);
    return {asked.delta_lower(epsilon), asked.delta_upper(epsilon)};
  }
  std::pair<double, double> epsilon(double delta) const {
    if (!(delta > 0.0 && delta < 1.0)) throw InputError(fmt::format("delta {} must be in (0, 1)", delta));
    if (state_->events) return event_query(delta, state_->epsilon_answers, false);
    const PairBounds asked = refined_for_delta(adapted_to_queries(bounds(), {{}, {delta}}), delta);
    return {asked.epsilon_lower(delta), asked.epsilon_upper(delta)};
  }
  std::string description() const {
    const PairBounds& b = bounds();
    std::string text = b.accounted.pair + "; " + b.accounted.pairs_checked;
    if (!b.alternatives.several_pairs_note.empty()) text += "; " + b.alternatives.several_pairs_note;
    return text;
  }
  int64_t compositions() const {
    if (!state_->events) return bounds().compositions;
    int64_t total = 0;
    for (const auto& e : state_->events->first.events) total += e.count;
    return total;
  }
  const PairBounds& bounds() const {
    if (!state_->bounds) state_->bounds = account_events(state_->events->first, state_->events->second);
    return *state_->bounds;
  }

 private:
  struct State {
    std::optional<PairBounds> bounds;  // the composition without a query, made when first needed
    std::optional<std::pair<ReleaseDescription, AccountantOptions>> events;
    std::map<double, std::pair<double, double>> delta_answers, epsilon_answers;  // by query, for events
  };

  // The certificate `noiselearn account` makes for the one query (at epsilon when `at_epsilon`, else at delta).
  std::pair<double, double> event_query(double query, std::map<double, std::pair<double, double>>& answers,
                                        bool at_epsilon) const {
    const auto found = answers.find(query);
    if (found != answers.end()) return found->second;
    CertificateRequest request;
    (at_epsilon ? request.epsilons : request.deltas).push_back(query);
    request.compositions = compositions();
    request.curve_points = 0;
    request.validate();
    const auto& [description, options] = *state_->events;
    const PairBounds composed =
        account_events(description, options, AccountingQueries{request.epsilons, request.deltas});
    const Certificate c = make_certificate(composed, request, composed.context.options);
    const std::pair<double, double> answer =
        at_epsilon ? std::make_pair(c.deltas.front().delta_lower, c.deltas.front().delta_upper)
                   : std::make_pair(c.epsilons.front().epsilon_lower, c.epsilons.front().epsilon_upper);
    return answers.emplace(query, answer).first->second;
  }

  std::shared_ptr<State> state_;  // shared by copies: what one composes, the others need not
};

}  // namespace noiselearn::python
