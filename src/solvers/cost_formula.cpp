#include "solvers/cost_formula.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "core/errors.hpp"

namespace noiselearn {

// A node of the expression tree: a constant, a variable, or an operator applied to one or two children.
struct CostFormula::Node {
  char kind = '0';  // '0' constant, 'i', 'j', '+', '-', '*', '/', '^', 'n' (negation)
  double constant = 0.0;
  std::shared_ptr<const Node> left, right;

  double evaluate(double i, double j) const {
    switch (kind) {
      case '0':
        return constant;
      case 'i':
        return i;
      case 'j':
        return j;
      case 'n':
        return -left->evaluate(i, j);
      case '+':
        return left->evaluate(i, j) + right->evaluate(i, j);
      case '-':
        return left->evaluate(i, j) - right->evaluate(i, j);
      case '*':
        return left->evaluate(i, j) * right->evaluate(i, j);
      case '/':
        return left->evaluate(i, j) / right->evaluate(i, j);
      default:
        return std::pow(left->evaluate(i, j), right->evaluate(i, j));
    }
  }
};

namespace {

using NodePointer = std::shared_ptr<const CostFormula::Node>;

// Recursive descent over: sum := product (('+' | '-') product)*; product := unary (('*' | '/') unary)*;
// unary := '-' unary | power; power := atom ('^' unary)?; atom := number | i | j | '(' sum ')'.
class Reader {
 public:
  explicit Reader(const std::string& text) : text_(text) {}

  NodePointer formula() {
    NodePointer root = sum();
    skip_spaces();
    if (position_ != text_.size()) fail("unexpected character");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(
        fmt::format("cost formula '{}': {} at position {} (a formula of i = F(X_i) and j with numbers, + - * / ^ "
                    "and parentheses, e.g. 'j - i', 'j^2')",
                    text_, what, position_ + 1));
  }
  void skip_spaces() {
    while (position_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[position_]))) ++position_;
  }
  bool accept(char c) {
    skip_spaces();
    if (position_ < text_.size() && text_[position_] == c) {
      ++position_;
      return true;
    }
    return false;
  }
  static NodePointer join(char kind, NodePointer left, NodePointer right = nullptr) {
    auto node = std::make_shared<CostFormula::Node>();
    node->kind = kind;
    node->left = std::move(left);
    node->right = std::move(right);
    return node;
  }
  NodePointer sum() {
    NodePointer left = product();
    for (;;) {
      if (accept('+'))
        left = join('+', left, product());
      else if (accept('-'))
        left = join('-', left, product());
      else
        return left;
    }
  }
  NodePointer product() {
    NodePointer left = unary();
    for (;;) {
      if (accept('*'))
        left = join('*', left, unary());
      else if (accept('/'))
        left = join('/', left, unary());
      else
        return left;
    }
  }
  NodePointer unary() { return accept('-') ? join('n', unary()) : power(); }
  NodePointer power() {
    NodePointer base = atom();
    return accept('^') ? join('^', base, unary()) : base;
  }
  NodePointer atom() {
    skip_spaces();
    if (position_ >= text_.size()) fail("the formula ends early");
    if (accept('(')) {
      NodePointer inner = sum();
      if (!accept(')')) fail("')' expected");
      return inner;
    }
    const char c = text_[position_];
    if (c == 'i' || c == 'j') {
      ++position_;
      auto node = std::make_shared<CostFormula::Node>();
      node->kind = c;
      return node;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      const char* start = text_.c_str() + position_;
      char* end = nullptr;
      const double value = std::strtod(start, &end);
      position_ += static_cast<size_t>(end - start);
      auto node = std::make_shared<CostFormula::Node>();
      node->constant = value;
      return node;
    }
    fail(fmt::format("unexpected '{}'", c));
  }

  const std::string& text_;
  size_t position_ = 0;
};

}  // namespace

CostFormula::CostFormula(const std::string& text) : text_(text), root_(Reader(text).formula()) {}

double CostFormula::operator()(double i, double j) const { return root_->evaluate(i, j); }

}  // namespace noiselearn
