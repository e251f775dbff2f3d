#pragma once
// ln x, e^x and e^x - 1 of every element of an array, in place, by ATen's vectorised CPU kernels (Sleef: within an
// ulp of libm's, four doubles per instruction with AVX2). For the solvers' per-cell transcendentals, which were half
// of a convex HRDP solve and of a discrete TBL table when called one value at a time.
#include <vector>

namespace noiselearn {

void log_in_place(std::vector<double>& x);
void exp_in_place(std::vector<double>& x);
void expm1_in_place(std::vector<double>& x);

}  // namespace noiselearn
