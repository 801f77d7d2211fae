#pragma once
// Expressions of PRISM's languages as trees: guards, updates, probabilities, rewards,
// labels, and the state formulas of properties. Parsed by io/, resolved (constants,
// formulas, renaming) and compiled for fast evaluation by engine/explore/.
#include "engine/model/value_type.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mdpvi {

struct SourcePosition {
  std::size_t line = 0;
  std::size_t column = 0;
};

struct Expression {
  // nested: a P or R operator inside a property's state formula; value holds its index
  // in the enclosing Formula's operands (io/property.h).
  enum class Kind { literal, identifier, label, operation, nested };
  enum class Op {
    none,
    negate, logical_not,                                   // unary
    logical_and, logical_or, implies, iff,                 // Boolean
    equal, not_equal, less, less_equal, greater, greater_equal,
    add, subtract, multiply, divide,
    conditional,                                           // c ? a : b
    min, max, floor, ceil, round, pow, mod, log            // functions
  };

  Kind kind = Kind::literal;
  Op op = Op::none;
  ValueType literal_type = ValueType::boolean;  // Kind::literal
  double value = 0.0;                           // Kind::literal (integers and Booleans exactly)
  std::string name;                             // identifier or label name
  std::vector<Expression> operands;
  SourcePosition position;

  static Expression boolean(bool b, SourcePosition at = {}) { return literal(ValueType::boolean, b ? 1.0 : 0.0, at); }
  static Expression integer(std::int64_t i, SourcePosition at = {}) {
    return literal(ValueType::integer, static_cast<double>(i), at);
  }
  static Expression real(double d, SourcePosition at = {}) { return literal(ValueType::real, d, at); }
  static Expression literal(ValueType type, double v, SourcePosition at = {}) {
    Expression e;
    e.kind = Kind::literal;
    e.literal_type = type;
    e.value = v;
    e.position = at;
    return e;
  }
  static Expression identifier(std::string n, SourcePosition at = {}) {
    Expression e;
    e.kind = Kind::identifier;
    e.name = std::move(n);
    e.position = at;
    return e;
  }
  static Expression label(std::string n, SourcePosition at = {}) {
    Expression e = identifier(std::move(n), at);
    e.kind = Kind::label;
    return e;
  }
  static Expression nested(std::size_t index, SourcePosition at = {}) {
    Expression e = literal(ValueType::boolean, static_cast<double>(index), at);
    e.kind = Kind::nested;
    return e;
  }
  static Expression operation(Op op, std::vector<Expression> operands, SourcePosition at = {}) {
    Expression e;
    e.kind = Kind::operation;
    e.op = op;
    e.operands = std::move(operands);
    e.position = at;
    return e;
  }
  bool is_true_literal() const { return kind == Kind::literal && literal_type == ValueType::boolean && value != 0.0; }
};

// PRISM's spelling of an operator or function, for messages and printing.
const char* spelling(Expression::Op op);

// Text of an expression in PRISM syntax, fully parenthesised where it matters.
std::string to_text(const Expression& e);

}  // namespace mdpvi
