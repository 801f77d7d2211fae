#include "io/jani_expressions.h"

#include "io/parse_error.h"

#include <cmath>
#include <numbers>
#include <utility>
#include <vector>

namespace mdpvi::io::jani {

namespace {

using Op = Expression::Op;

// A function's parameters while its body is read (call inlines it).
using Arguments = std::map<std::string, Expression>;

// Calls nested deeper than this are a recursion (JANI forbids it; a file may not).
constexpr int kMaxCallDepth = 64;

std::string shortened(const Json& j) {
  std::string text = j.dump();
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

const std::map<std::string, Op>& binary_ops() {
  static const std::map<std::string, Op> ops{
      {"∨", Op::logical_or}, {"∧", Op::logical_and}, {"⇒", Op::implies},  {"=", Op::equal},
      {"≠", Op::not_equal},  {"<", Op::less},        {"≤", Op::less_equal}, {">", Op::greater},
      {"≥", Op::greater_equal}, {"+", Op::add},      {"-", Op::subtract},   {"*", Op::multiply},
      {"/", Op::divide},     {"%", Op::mod},         {"pow", Op::pow},      {"log", Op::log},
      {"min", Op::min},      {"max", Op::max}};
  return ops;
}

class ExpressionReader {
 public:
  explicit ExpressionReader(const Scope& scope) : scope_(scope) {}

  Expression read(const Json& j, const std::string& at, const Arguments* arguments = nullptr, int depth = 0) {
    if (j.is_boolean()) return Expression::boolean(j.get<bool>());
    if (j.is_number_integer()) return Expression::integer(j.get<std::int64_t>());
    if (j.is_number()) return Expression::real(j.get<double>());
    if (j.is_string()) return name(j.get<std::string>(), arguments);
    if (!j.is_object()) fail(scope_, at, "an expression", j);
    if (j.contains("constant")) return constant(j, at);
    const std::string op = string_member(scope_, j, at, "op");
    if (const auto binary = binary_ops().find(op); binary != binary_ops().end()) {
      return Expression::operation(binary->second, {read(member(scope_, j, at, "left"), at + ".left", arguments, depth),
                                                    read(member(scope_, j, at, "right"), at + ".right", arguments, depth)});
    }
    if (op == "¬") return Expression::operation(Op::logical_not, {read(member(scope_, j, at, "exp"), at + ".exp", arguments, depth)});
    if (op == "floor" || op == "ceil") {
      return Expression::operation(op == "floor" ? Op::floor : Op::ceil, {read(member(scope_, j, at, "exp"), at + ".exp", arguments, depth)});
    }
    if (op == "abs") return absolute(read(member(scope_, j, at, "exp"), at + ".exp", arguments, depth));
    if (op == "ite") {
      return Expression::operation(Op::conditional, {read(member(scope_, j, at, "if"), at + ".if", arguments, depth),
                                                     read(member(scope_, j, at, "then"), at + ".then", arguments, depth),
                                                     read(member(scope_, j, at, "else"), at + ".else", arguments, depth)});
    }
    if (op == "call") return call(j, at, arguments, depth);
    unsupported(scope_, at, "the operator \"" + op + "\" in an expression");
  }

 private:
  Expression name(const std::string& text, const Arguments* arguments) const {
    if (arguments) {
      if (const auto argument = arguments->find(text); argument != arguments->end()) return argument->second;
    }
    return scope_.labels.count(text) ? Expression::label(text) : Expression::identifier(text);
  }

  Expression constant(const Json& j, const std::string& at) const {
    const Json& which = j["constant"];
    if (which == "e") return Expression::real(std::numbers::e);
    if (which == "π") return Expression::real(std::numbers::pi);
    fail(scope_, at + ".constant", "\"e\" or \"π\"", which);
  }

  static Expression absolute(Expression x) {
    Expression negative = Expression::operation(Op::less, {x, Expression::integer(0)});
    Expression negated = Expression::operation(Op::negate, {x});
    return Expression::operation(Op::conditional, {std::move(negative), std::move(negated), std::move(x)});
  }

  // The function's body with its parameters bound to the arguments, read here.
  Expression call(const Json& j, const std::string& at, const Arguments* outer, int depth) {
    const std::string function = string_member(scope_, j, at, "function");
    const auto found = scope_.functions.find(function);
    if (found == scope_.functions.end()) fail(scope_, at + ".function", "a declared function", j["function"]);
    if (depth >= kMaxCallDepth) unsupported(scope_, at, "functions that call themselves (" + function + ")");
    const Json& definition = *found->second;
    const Json& parameters = member(scope_, definition, "function " + function, "parameters");
    const Json& args = member(scope_, j, at, "args");
    if (!parameters.is_array() || !args.is_array() || parameters.size() != args.size()) {
      fail(scope_, at + ".args", std::to_string(parameters.size()) + " arguments for " + function, args);
    }
    Arguments bound;
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string parameter = string_member(scope_, parameters[i], "function " + function, "name");
      bound.emplace(parameter, read(args[i], at + ".args[" + std::to_string(i) + "]", outer, depth));
    }
    return read(member(scope_, definition, "function " + function, "body"), "function " + function + ".body", &bound,
                depth + 1);
  }

  const Scope& scope_;
};

// PRISM's spelling of a comparison in a bound (P>=0.5).
std::string comparison(const Scope& scope, const Json& op, const std::string& at) {
  static const std::map<std::string, std::string> spelled{{"<", "<"}, {"≤", "<="}, {">", ">"}, {"≥", ">="}};
  const auto found = op.is_string() ? spelled.find(op.get<std::string>()) : spelled.end();
  if (found == spelled.end()) fail(scope, at, "a comparison (<, ≤, >, ≥)", op);
  return found->second;
}

class PropertyWriter {
 public:
  explicit PropertyWriter(const Scope& scope) : scope_(scope), expressions_(scope) {}

  std::string write(const Json& j, const std::string& at) {
    if (!j.is_object() || !j.contains("op")) return state(j, at);
    const std::string op = string_member(scope_, j, at, "op");
    if (op == "filter") return filter(j, at);
    if (is_operator(j)) return query(j, at, op);
    if (binary_ops().count(op) && is_operator(j.value("left", Json()))) return bounded(j, at, op);
    return state(j, at);
  }

 private:
  static bool is_operator(const Json& j) {
    if (!j.is_object() || !j.contains("op") || !j["op"].is_string()) return false;
    const std::string op = j["op"];
    return op == "Pmin" || op == "Pmax" || op == "Emin" || op == "Emax" || op == "Smin" || op == "Smax";
  }

  std::string state(const Json& j, const std::string& at) { return to_text(expressions_.read(j, at)); }

  // filter(values, phi, initial) is PRISM's plain query (the value in the initial
  // state); other filters keep PRISM's filter form.
  std::string filter(const Json& j, const std::string& at) {
    const std::string fun = string_member(scope_, j, at, "fun");
    const std::string values = write(member(scope_, j, at, "values"), at + ".values");
    const Json& states = member(scope_, j, at, "states");
    const bool initial = states.is_object() && states.value("op", "") == "initial";
    if (fun == "values" && initial) return values;
    static const std::set<std::string> kept{"min", "max", "sum", "avg", "count", "forall", "exists", "argmin", "argmax"};
    if (fun != "values" && !kept.count(fun)) unsupported(scope_, at + ".fun", "the filter function \"" + fun + "\"");
    const std::string where = initial ? "\"init\"" : state(states, at + ".states");
    return "filter(" + (fun == "values" ? std::string("print") : fun) + ", " + values + ", " + where + ")";
  }

  // The operator's head (P, S or R{"r"}) and what its brackets hold: P's path; E's
  // reward path; S's state formula, or [ S ] where S's expression is a reward.
  std::pair<std::string, std::string> head_and_body(const Json& j, const std::string& at, const std::string& op) {
    const Json& exp = member(scope_, j, at, "exp");
    if (op[0] == 'P') return {"P", path(exp, at + ".exp")};
    if (op[0] == 'E') return {reward_head(exp, at + ".exp"), reward_path(j, at)};
    if (is_reward(exp)) return {reward_head(exp, at + ".exp"), "S"};
    return {"S", state(exp, at + ".exp")};
  }

  // Pmin=? [ ... ] on an MDP; P=? on a chain, where min and max agree (and R, S alike).
  std::string query(const Json& j, const std::string& at, const std::string& op) {
    const auto [head, body] = head_and_body(j, at, op);
    return head + (scope_.type == ModelType::mdp ? op.substr(1) : "") + "=? [ " + body + " ]";
  }

  bool is_reward(const Json& exp) const { return exp.is_string() && scope_.rewards.count(exp.get<std::string>()); }

  // R{"r"} of a reward that is one transient variable.
  std::string reward_head(const Json& exp, const std::string& at) const {
    if (!is_reward(exp)) unsupported(scope_, at, "a reward other than one transient variable");
    return "R{\"" + exp.get<std::string>() + "\"}";
  }

  // F reach, I=t, C<=t or C, by the operator's members. An instant with rewards
  // accumulated ("accumulate": steps, time or exit) is the reward gathered up to it,
  // C<=t (Storm writes PRISM's C<=T so); without, the reward at that instant, I=t.
  std::string reward_path(const Json& j, const std::string& at) {
    if (j.contains("reach")) return "F " + parenthesised(member(scope_, j, at, "reach"), at + ".reach");
    const bool accumulated = j.contains("accumulate") && j["accumulate"].is_array() && !j["accumulate"].empty();
    for (const char* instant : {"step-instant", "time-instant"}) {
      if (j.contains(instant)) return (accumulated ? "C<=" : "I=") + state(j[instant], at + "." + instant);
    }
    for (const char* bounds : {"step-bounds", "time-bounds"}) {
      if (!j.contains(bounds)) continue;
      const Json& b = j[bounds];
      if (b.contains("lower") || !b.contains("upper")) unsupported(scope_, at + "." + bounds, "a reward bound other than an upper one");
      return "C<=" + state(b["upper"], at + "." + bounds + ".upper");
    }
    return "C";
  }

  // P>=p [ ... ] where PRISM's bound means the same: on an MDP, Pmin with > or >=
  // (every scheduler), Pmax with < or <=; on a chain, any.
  std::string bounded(const Json& j, const std::string& at, const std::string& op) {
    const Json& left = j["left"];
    const std::string which = string_member(scope_, left, at + ".left", "op");
    const std::string cmp = comparison(scope_, j["op"], at + ".op");
    const bool lower_side = cmp[0] == '>';
    if (scope_.type == ModelType::mdp && (which.ends_with("min") != lower_side)) {
      unsupported(scope_, at, which + " " + op + " a bound (PRISM's bounds are over all schedulers)");
    }
    const std::string bound = cmp + state(member(scope_, j, at, "right"), at + ".right");
    const auto [head, body] = head_and_body(left, at + ".left", which);
    return head + bound + " [ " + body + " ]";
  }

  // U, F, G and W, with step or time bounds.
  std::string path(const Json& j, const std::string& at) {
    const std::string op = string_member(scope_, j, at, "op");
    if (op == "F" || op == "G") return op + bounds(j, at) + " " + parenthesised(member(scope_, j, at, "exp"), at + ".exp");
    if (op != "U" && op != "W") unsupported(scope_, at, "the path operator \"" + op + "\"");
    const Json& left = member(scope_, j, at, "left");
    const std::string right = parenthesised(member(scope_, j, at, "right"), at + ".right");
    if (op == "U" && left == Json(true)) return "F" + bounds(j, at) + " " + right;
    return parenthesised(left, at + ".left") + " " + op + bounds(j, at) + " " + right;
  }

  // <=u (<u where exclusive), >=l (>l) or [l,u] from step-bounds or time-bounds; an
  // interval with an exclusive end has no PRISM form.
  std::string bounds(const Json& j, const std::string& at) {
    for (const char* key : {"step-bounds", "time-bounds"}) {
      if (!j.contains(key)) continue;
      const Json& b = j[key];
      const std::string where = at + "." + key;
      const bool lower = b.contains("lower"), upper = b.contains("upper");
      const bool lower_open = b.value("lower-exclusive", false), upper_open = b.value("upper-exclusive", false);
      if (lower && upper) {
        if (lower_open || upper_open) unsupported(scope_, where, "an interval bound with an exclusive end");
        return "[" + state(b["lower"], where + ".lower") + "," + state(b["upper"], where + ".upper") + "]";
      }
      if (upper) return (upper_open ? "<" : "<=") + state(b["upper"], where + ".upper");
      if (lower) return (lower_open ? ">" : ">=") + state(b["lower"], where + ".lower");
    }
    return "";
  }

  std::string parenthesised(const Json& j, const std::string& at) {
    const std::string text = write(j, at);
    return text.front() == '(' || text.front() == '"' || text.find(' ') == std::string::npos ? text : "(" + text + ")";
  }

  const Scope& scope_;
  ExpressionReader expressions_;
};

}  // namespace

void fail(const Scope& scope, const std::string& at, const std::string& what, const Json& found) {
  throw ParseError(scope.file, 0, 0, at + ": expected " + what + ", found " + shortened(found));
}

void unsupported(const Scope& scope, const std::string& at, const std::string& what) {
  throw UnsupportedError(scope.file, 0, 0, at + ": not supported yet: " + what);
}

const Json& member(const Scope& scope, const Json& j, const std::string& at, const char* key) {
  if (!j.is_object()) fail(scope, at, "an object", j);
  const auto found = j.find(key);
  if (found == j.end()) fail(scope, at, std::string("a member \"") + key + "\"", j);
  return *found;
}

std::string string_member(const Scope& scope, const Json& j, const std::string& at, const char* key) {
  const Json& value = member(scope, j, at, key);
  if (!value.is_string()) fail(scope, at + "." + key, "a string", value);
  return value.get<std::string>();
}

Expression expression(const Scope& scope, const Json& j, const std::string& at) { return ExpressionReader(scope).read(j, at); }

std::string property_text(const Scope& scope, const Json& j, const std::string& at) { return PropertyWriter(scope).write(j, at); }

}  // namespace mdpvi::io::jani
