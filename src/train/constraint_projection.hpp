#pragma once
// The linear equality constraints A p = b of the preconditioned gradient method (the family's normalisation and
// expected cost) in the method's coordinates theta = log p: the constraint rows in q-space at p, the projection of a
// direction onto their null space, the residuals, and the correction that imposes them after every step (why and how:
// preconditioned_gradient.hpp).
#include <string>
#include <vector>

namespace noiselearn {

// sum_i a_i b_i (plain summation), and whether every entry is finite: the vector arithmetic the method shares.
double dot(const std::vector<double>& a, const std::vector<double>& b);
bool all_finite(const std::vector<double>& v);

// sum_k coefficients_k p_k = target (normalisation, expected cost).
struct LinearConstraint {
  std::string name;  // "normalisation", "cost"
  std::vector<double> coefficients;
  double target = 0.0;
};

// The constraints in q-space at p: rows B_r = c_r * p, scaled to unit norm (the cost row's coefficients reach
// 1e12 and more; scaling keeps the k x k Gram matrix well conditioned). scale_r = 1 / ||c_r * p||.
struct ConstraintRows {
  std::vector<std::vector<double>> rows;
  std::vector<double> scale;
  std::vector<std::vector<double>> gram_inverse;  // (B B^T)^-1 of the scaled rows
};

// The rows at theta (p = e^theta), their scales and the inverse Gram matrix.
ConstraintRows constraint_rows(const std::vector<double>& theta, const std::vector<LinearConstraint>& constraints);

// v - B^T (B B^T)^-1 B v (twice: the second pass removes the rounding of the first).
std::vector<double> project(const ConstraintRows& rows, std::vector<double> v);

// A p - b per constraint (compensated sums); the largest relative residual in *relative when given.
std::vector<double> residuals(const std::vector<double>& theta, const std::vector<LinearConstraint>& constraints,
                              double* relative);

// Inverse of a small symmetric positive definite matrix (Gauss-Jordan with partial pivoting); runtime_error when the
// constraints are linearly dependent.
std::vector<std::vector<double>> small_inverse(std::vector<std::vector<double>> m);

// Enforces the constraints on theta exactly (to rounding) by the correction p <- p (1 + B^T lambda) of
// preconditioned_gradient.hpp; returns the relative residual after it. Exposed for tests.
double impose_linear_constraints(std::vector<double>& theta, const std::vector<LinearConstraint>& constraints);

}  // namespace noiselearn
