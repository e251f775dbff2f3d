#pragma once
// ln x, e^x and e^x - 1 of every element of an array, in place, by Sleef's vectorised functions (within an
// ulp of libm's, four doubles per instruction with AVX2). For per-point transcendentals called one value at a time
// in hot loops: they were half of a convex HRDP solve, of a discrete TBL table and a third of the fused sigmoid
// stack's evaluation.
#include <cstdint>
#include <vector>

namespace noiselearn {

void log_in_place(double* x, int64_t n);
void exp_in_place(double* x, int64_t n);
void expm1_in_place(double* x, int64_t n);

inline void log_in_place(std::vector<double>& x) { log_in_place(x.data(), static_cast<int64_t>(x.size())); }
inline void exp_in_place(std::vector<double>& x) { exp_in_place(x.data(), static_cast<int64_t>(x.size())); }
inline void expm1_in_place(std::vector<double>& x) { expm1_in_place(x.data(), static_cast<int64_t>(x.size())); }

}  // namespace noiselearn
