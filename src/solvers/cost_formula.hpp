#pragma once
// A cost c_ij written as a formula of the output state j and the input's start state i = F(X_i), as the paper
// writes them (section 5.2: c_ij = j, c_ij = j - F(X_i); the authors' default j^2). Numbers, i, j, + - * / ^,
// unary minus and parentheses; ^ binds tightest and groups to the right.
#include <memory>
#include <string>

namespace noiselearn {

class CostFormula {
 public:
  // InputError naming the formula and the position of the first thing it cannot read.
  explicit CostFormula(const std::string& text);
  double operator()(double i, double j) const;
  const std::string& text() const { return text_; }

  struct Node;

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
};

}  // namespace noiselearn
