#pragma once
// Double-double arithmetic: a value hi + lo with |lo| <= u |hi|, about 106 bits of precision, from error-free
// transformations (Knuth's TwoSum, Dekker's split product; no FMA needed). Used where a long recurrence must
// stay accurate to far below double precision (the profile envelope's second differences). Each operation
// below has a relative error of at most 8 * 2^-104 of the magnitudes it combines (Joldes, Muller, Popescu,
// "Tight and rigorous error bounds for basic building blocks of double-word arithmetic", 2017, give tighter
// constants; 8 covers them).
#include <cmath>

namespace noiselearn::dd {

constexpr double kUnitRoundoff = 0x1p-104;  // one operation's relative error is at most 8 times this

struct Value {
  double hi = 0.0, lo = 0.0;
  double to_double() const { return hi + lo; }
};

inline Value two_sum(double a, double b) {
  const double s = a + b, bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}

inline Value quick_two_sum(double a, double b) {
  const double s = a + b;
  return {s, b - (s - a)};
}

inline void split(double a, double& high, double& low) {
  const double t = 134217729.0 * a;  // 2^27 + 1
  high = t - (t - a);
  low = a - high;
}

inline Value two_product(double a, double b) {
  const double p = a * b;
  double ah, al, bh, bl;
  split(a, ah, al);
  split(b, bh, bl);
  return {p, ((ah * bh - p) + ah * bl + al * bh) + al * bl};
}

inline Value add(Value a, Value b) {
  Value s = two_sum(a.hi, b.hi);
  const Value t = two_sum(a.lo, b.lo);
  s.lo += t.hi;
  s = quick_two_sum(s.hi, s.lo);
  s.lo += t.lo;
  return quick_two_sum(s.hi, s.lo);
}

inline Value negate(Value a) { return {-a.hi, -a.lo}; }
inline Value subtract(Value a, Value b) { return add(a, negate(b)); }

inline Value multiply(Value a, Value b) {
  Value p = two_product(a.hi, b.hi);
  p.lo += a.hi * b.lo + a.lo * b.hi;
  return quick_two_sum(p.hi, p.lo);
}

inline Value divide(Value a, Value b) {
  const double q1 = a.hi / b.hi;
  Value r = subtract(a, multiply(b, {q1, 0.0}));
  const double q2 = r.hi / b.hi;
  r = subtract(r, multiply(b, {q2, 0.0}));
  const double q3 = r.hi / b.hi;
  return add(quick_two_sum(q1, q2), {q3, 0.0});
}

inline bool less(Value a, Value b) { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }

// The smallest double >= the value (for rounding a computed bound up).
inline double round_up(Value a) {
  const double s = a.hi + a.lo;
  const Value back = two_sum(s, -a.hi);  // s - hi exactly, compared with lo
  if (back.hi < a.lo || (back.hi == a.lo && back.lo < 0.0)) return std::nextafter(s, INFINITY);
  return s;
}

// e^{-x} and 1 - e^{-x} for 0 < x, in double-double: Taylor series after halving x below 1/8, then squaring
// back (relative error a few hundred 2^-104 for the squarings).
inline void exp_minus(double x, Value& decay, Value& one_minus_decay) {
  int halvings = 0;
  double reduced = x;
  while (reduced > 0.125) {
    reduced *= 0.5;
    ++halvings;
  }
  // 1 - e^{-y} = y - y^2/2 + y^3/6 - ... (no cancellation for small y)
  Value term{reduced, 0.0}, sum{reduced, 0.0};
  for (int k = 2; k < 40; ++k) {
    term = divide(multiply(term, {-reduced, 0.0}), {static_cast<double>(k), 0.0});
    sum = add(sum, term);
    if (std::abs(term.hi) < 1e-40 * std::abs(sum.hi)) break;
  }
  Value e = subtract({1.0, 0.0}, sum);
  Value one_minus = sum;
  for (int i = 0; i < halvings; ++i) {
    // e^{-2y} = (e^{-y})^2 and 1 - e^{-2y} = (1 - e^{-y})(1 + e^{-y}).
    one_minus = multiply(one_minus, add({1.0, 0.0}, e));
    e = multiply(e, e);
  }
  decay = e;
  one_minus_decay = one_minus;
}

}  // namespace noiselearn::dd
