#include "io/expression.h"

#include <charconv>

namespace mdpvi {

const char* spelling(Expression::Op op) {
  using Op = Expression::Op;
  switch (op) {
    case Op::none: return "";
    case Op::negate: return "-";
    case Op::logical_not: return "!";
    case Op::logical_and: return "&";
    case Op::logical_or: return "|";
    case Op::implies: return "=>";
    case Op::iff: return "<=>";
    case Op::equal: return "=";
    case Op::not_equal: return "!=";
    case Op::less: return "<";
    case Op::less_equal: return "<=";
    case Op::greater: return ">";
    case Op::greater_equal: return ">=";
    case Op::add: return "+";
    case Op::subtract: return "-";
    case Op::multiply: return "*";
    case Op::divide: return "/";
    case Op::conditional: return "?";
    case Op::min: return "min";
    case Op::max: return "max";
    case Op::floor: return "floor";
    case Op::ceil: return "ceil";
    case Op::round: return "round";
    case Op::pow: return "pow";
    case Op::mod: return "mod";
    case Op::log: return "log";
  }
  return "?";
}

std::string to_text(const Expression& e) {
  using Kind = Expression::Kind;
  using Op = Expression::Op;
  switch (e.kind) {
    case Kind::literal: {
      if (e.literal_type == ValueType::boolean) return e.value != 0.0 ? "true" : "false";
      char buffer[64];
      auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, e.value);
      return std::string(buffer, end);
    }
    case Kind::identifier: return e.name;
    case Kind::label: return "\"" + e.name + "\"";
    case Kind::nested: return "{operator " + std::to_string(static_cast<std::size_t>(e.value)) + "}";
    case Kind::operation: break;
  }
  const auto& a = e.operands;
  if (e.op >= Op::min) {
    std::string text = std::string(spelling(e.op)) + "(";
    for (std::size_t i = 0; i < a.size(); ++i) text += (i ? ", " : "") + to_text(a[i]);
    return text + ")";
  }
  if (a.size() == 1) return std::string(spelling(e.op)) + "(" + to_text(a[0]) + ")";
  if (e.op == Op::conditional) return "(" + to_text(a[0]) + " ? " + to_text(a[1]) + " : " + to_text(a[2]) + ")";
  return "(" + to_text(a[0]) + spelling(e.op) + to_text(a[1]) + ")";
}

}  // namespace mdpvi
