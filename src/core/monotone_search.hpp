#pragma once
// Bisection of a bracket [low, high] on a monotone predicate, the one loop behind the calibrations and the inversions
// of delta(eps). `below(x)` says on which side of the boundary x lies: true, low moves up to x; false, high moves down
// to x. Each end keeps what it was checked to be, so a caller that needs a point on one side returns that end.
#include <climits>
#include <cmath>

namespace noiselearn {

struct Bracket {
  double low = 0.0, high = 0.0;
};

// Where the bracket is split: at its middle, or at the geometric mean (a search in log scale, for scales that span
// orders of magnitude; both ends positive).
enum class Midpoint { kArithmetic, kGeometric };

// Halves while wide(low, high) holds, at most max_halvings times, and stops where the midpoint no longer lies strictly
// inside (the ends are then adjacent doubles: a further step changes nothing).
template <class Below, class Wide>
Bracket bisect(Bracket bracket, Below below, Wide wide, int max_halvings = INT_MAX,
               Midpoint midpoint = Midpoint::kArithmetic) {
  double low = bracket.low, high = bracket.high;
  for (int i = 0; i < max_halvings && wide(low, high); ++i) {
    const double middle = midpoint == Midpoint::kGeometric ? std::sqrt(low * high) : 0.5 * (low + high);
    if (!(middle > low && middle < high)) break;
    (below(middle) ? low : high) = middle;
  }
  return {low, high};
}

}  // namespace noiselearn
