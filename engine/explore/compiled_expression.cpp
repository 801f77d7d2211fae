#include "engine/explore/compiled_expression.h"

#include <algorithm>
#include <cmath>

namespace mdpvi {

namespace {

using Op = Expression::Op;
using Kind = CompiledExpression::Instruction::Kind;

// Deep enough for any expression in PRISM's case studies; compile() rejects deeper.
constexpr std::size_t kStackSize = 64;

bool is_numeric(ValueType t) { return t != ValueType::boolean; }

bool is_comparison(Op op) { return op >= Op::equal && op <= Op::greater_equal; }

inline double compare(Op op, double left, double right) { return CompiledExpression::compare(op, left, right); }

}  // namespace

double CompiledExpression::run(const double* variables, std::uint64_t state) const {
  double stack[kStackSize];
  std::size_t top = 0;  // number of values on the stack
  for (std::size_t pc = 0; pc < code_.size(); ++pc) {
    const Instruction& in = code_[pc];
    switch (in.kind) {
      case Kind::short_circuit: {
        const bool left = stack[top - 1] != 0.0;
        if (in.op == Op::logical_or ? left : !left) {  // true | _, false & _, false => _
          stack[top - 1] = in.op == Op::logical_and ? 0.0 : 1.0;
          pc += in.index - 1;
        } else {
          --top;
        }
        continue;
      }
      case Kind::branch_if_false:
        if (stack[--top] == 0.0) pc += in.index - 1;
        continue;
      case Kind::jump: pc += in.index - 1; continue;
      case Kind::constant: stack[top++] = in.value; continue;
      case Kind::variable: stack[top++] = variables[in.index]; continue;
      case Kind::label: stack[top++] = labels_[in.index]->test(state) ? 1.0 : 0.0; continue;
      case Kind::state_number: stack[top++] = (*numbers_[in.index])[state]; continue;
      case Kind::compare_variable: stack[top++] = compare(in.op, variables[in.index], in.value); continue;
      case Kind::offset_variable: stack[top++] = variables[in.index] + in.value; continue;
      case Kind::operation: break;
    }
    double* a = &stack[top - 1];  // the last operand
    switch (in.op) {
      case Op::negate: *a = -*a; continue;
      case Op::logical_not: *a = *a == 0.0 ? 1.0 : 0.0; continue;
      case Op::floor: *a = std::floor(*a); continue;
      case Op::ceil: *a = std::ceil(*a); continue;
      case Op::round: *a = std::floor(*a + 0.5); continue;  // PRISM's: halves round up
      case Op::min:
      case Op::max: {
        std::size_t n = in.index;
        double* first = &stack[top - n];
        double result = first[0];
        for (std::size_t i = 1; i < n; ++i) result = in.op == Op::min ? std::min(result, first[i]) : std::max(result, first[i]);
        top -= n - 1;
        stack[top - 1] = result;
        continue;
      }
      case Op::conditional: {
        double value = stack[top - 3] != 0.0 ? stack[top - 2] : stack[top - 1];
        top -= 2;
        stack[top - 1] = value;
        continue;
      }
      default: break;
    }
    double right = stack[--top];
    double& left = stack[top - 1];
    switch (in.op) {
      case Op::logical_and: left = (left != 0.0 && right != 0.0) ? 1.0 : 0.0; break;
      case Op::logical_or: left = (left != 0.0 || right != 0.0) ? 1.0 : 0.0; break;
      case Op::implies: left = (left == 0.0 || right != 0.0) ? 1.0 : 0.0; break;
      case Op::iff: left = ((left != 0.0) == (right != 0.0)) ? 1.0 : 0.0; break;
      case Op::equal:
      case Op::not_equal:
      case Op::less:
      case Op::less_equal:
      case Op::greater:
      case Op::greater_equal: left = compare(in.op, left, right); break;
      case Op::add: left += right; break;
      case Op::subtract: left -= right; break;
      case Op::multiply: left *= right; break;
      case Op::divide: left /= right; break;
      case Op::pow:
        if (right < 0.0 && (in.index & kIntegerPow)) fail_integer_pow(in.index & ~kIntegerPow, right);
        left = std::pow(left, right);
        break;
      case Op::mod: {  // PRISM's: never negative, of a positive divisor only
        if (!(right > 0.0)) fail_mod(in.index, right);
        left = std::fmod(left, right);
        if (left < 0.0) left += right;
        break;
      }
      case Op::log: left = std::log(left) / std::log(right); break;
      default: break;
    }
  }
  return stack[0];
}

void CompiledExpression::fail_integer_pow(std::uint32_t site, double exponent) const {
  const SourcePosition at = checked_sites_[site];
  throw LocatedError(file_, at.line, at.column,
                     "pow of integers with the negative exponent " + std::to_string(static_cast<long long>(exponent)) +
                         " has no integer value (write the base as a double)");
}

void CompiledExpression::fail_mod(std::uint32_t site, double divisor) const {
  const SourcePosition at = checked_sites_[site];
  throw LocatedError(file_, at.line, at.column,
                     "mod by " + std::to_string(static_cast<long long>(divisor)) + ": the divisor must be positive");
}

class ExpressionCompiler {
 public:
  ExpressionCompiler(const NameScope& scope, CompiledExpression& out) : scope_(scope), out_(out) {}

  // Appends e's code; folds it to one constant when it does not depend on the state.
  ValueType emit(const Expression& e, std::size_t depth) {
    if (depth + 4 >= kStackSize) fail(e, "expression too deeply nested");
    std::size_t start = out_.code_.size();
    ValueType type = emit_unfolded(e, depth);
    bool constant = std::all_of(out_.code_.begin() + start, out_.code_.end(),
                                [](const auto& in) { return in.kind == Kind::constant || in.kind == Kind::operation; });
    if (constant && out_.code_.size() - start > 1 && dead_ == 0) {
      CompiledExpression part;
      part.code_.assign(out_.code_.begin() + start, out_.code_.end());
      part.checked_sites_ = out_.checked_sites_;  // where a folded mod by 0 is an error
      part.file_ = out_.file_;
      double value = part.evaluate(nullptr);
      out_.code_.resize(start);
      out_.code_.push_back({Op::none, Kind::constant, 0, value});
    }
    return type;
  }

 private:
  [[noreturn]] void fail(const Expression& at, const std::string& message) const {
    throw LocatedError(scope_.file, at.position.line, at.position.column, message);
  }

  void require(const Expression& at, bool condition, const std::string& what, ValueType found) const {
    if (!condition) {
      fail(at, std::string("type error: ") + what + " for '" + spelling(at.op) + "', found " + to_string(found));
    }
  }

  // |, &, => and ?: as PRISM evaluates them: left to right, stopping once the left
  // operand (the condition) decides. Where it is a constant, the operand it makes
  // dead is type-checked but never evaluated (its evaluation errors, such as a
  // negative integer exponent, are none) and leaves no code; else the code branches.
  ValueType emit_short_circuit(const Expression& e, std::size_t depth) {
    auto& code = out_.code_;
    const std::size_t start = code.size();
    std::vector<ValueType> types{emit(e.operands[0], depth)};
    if (code.size() == start + 1 && code.back().kind == Kind::constant) {
      const bool condition = code.back().value != 0.0;
      code.pop_back();
      return emit_decided(e, depth, condition, types);
    }
    const std::size_t branch = code.size();
    if (e.op == Op::conditional) {
      code.push_back({e.op, Kind::branch_if_false, 0, 0.0});
      types.push_back(emit(e.operands[1], depth));
      const std::size_t jump = code.size();
      code.push_back({Op::none, Kind::jump, 0, 0.0});
      code[branch].index = static_cast<std::uint32_t>(jump + 1 - branch);
      types.push_back(emit(e.operands[2], depth));
      code[jump].index = static_cast<std::uint32_t>(code.size() - jump);
    } else {
      code.push_back({e.op, Kind::short_circuit, 0, 0.0});
      types.push_back(emit(e.operands[1], depth));
      code[branch].index = static_cast<std::uint32_t>(code.size() - branch);
    }
    return result_type(e, types);
  }

  // e's operands after a constant condition: the one whose value is the result, where
  // there is one, emitted; the other dead; else the decided value.
  ValueType emit_decided(const Expression& e, std::size_t depth, bool condition, std::vector<ValueType>& types) {
    auto& code = out_.code_;
    const auto emit_dead = [&](const Expression& operand) {
      const std::size_t mark = code.size();
      ++dead_;
      types.push_back(emit(operand, depth));
      --dead_;
      code.resize(mark);
    };
    if (e.op == Op::conditional) {
      if (condition) {
        types.push_back(emit(e.operands[1], depth));
        emit_dead(e.operands[2]);
      } else {
        emit_dead(e.operands[1]);
        types.push_back(emit(e.operands[2], depth));
      }
      return result_type(e, types);
    }
    const bool decides = e.op == Op::logical_or ? condition : !condition;
    if (!decides) {
      types.push_back(emit(e.operands[1], depth));  // false | b, true & b, true => b: b
      return result_type(e, types);
    }
    emit_dead(e.operands[1]);
    code.push_back({Op::none, Kind::constant, 0, e.op == Op::logical_and ? 0.0 : 1.0});
    return result_type(e, types);
  }

  static bool short_circuits(Op op) {
    return op == Op::logical_or || op == Op::logical_and || op == Op::implies || op == Op::conditional;
  }

  ValueType emit_unfolded(const Expression& e, std::size_t depth) {
    if (e.kind == Expression::Kind::operation && short_circuits(e.op) && e.operands.size() == (e.op == Op::conditional ? 3u : 2u)) {
      return emit_short_circuit(e, depth);
    }
    switch (e.kind) {
      case Expression::Kind::literal:
        out_.code_.push_back({Op::none, Kind::constant, 0, e.value});
        return e.literal_type;
      case Expression::Kind::identifier: {
        std::optional<VariableRef> ref = scope_.variable ? scope_.variable(e.name) : std::nullopt;
        if (!ref) throw UnknownIdentifierError(scope_.file, e.position.line, e.position.column, "unknown identifier '" + e.name + "'");
        out_.code_.push_back({Op::none, Kind::variable, ref->index, 0.0});
        return ref->type;
      }
      case Expression::Kind::label:
      case Expression::Kind::nested: {
        const StateSet* states = nullptr;
        if (e.kind == Expression::Kind::nested) {
          const NestedValues values = scope_.nested ? scope_.nested(static_cast<std::size_t>(e.value)) : NestedValues{};
          if (values.numbers != nullptr) {
            out_.code_.push_back({Op::none, Kind::state_number, static_cast<std::uint32_t>(out_.numbers_.size()), 0.0});
            out_.numbers_.push_back(values.numbers);
            return ValueType::real;
          }
          states = values.truth;
          if (states == nullptr) fail(e, "a P or R operator cannot be used here");
        } else {
          states = scope_.label ? scope_.label(e.name) : nullptr;
          if (states == nullptr) fail(e, "unknown label \"" + e.name + "\"");
        }
        out_.code_.push_back({Op::none, Kind::label, static_cast<std::uint32_t>(out_.labels_.size()), 0.0});
        out_.labels_.push_back(states);
        return ValueType::boolean;
      }
      case Expression::Kind::operation: break;
    }
    std::vector<ValueType> types;
    if ((e.op == Op::min || e.op == Op::max) && e.operands.size() > 2) {
      // min/max of n as n-1 binary ones: two stack slots whatever n (PRISM takes any n).
      types.push_back(emit(e.operands[0], depth));
      for (std::size_t i = 1; i < e.operands.size(); ++i) {
        types.push_back(emit(e.operands[i], depth + 1));
        out_.code_.push_back({e.op, Kind::operation, 2, 0.0});
      }
      return result_type(e, types);
    }
    // Operand i is evaluated above the i values before it: a left-deep chain (a sum of
    // 70 variables) needs two slots, not one per term.
    for (const Expression& operand : e.operands) types.push_back(emit(operand, depth + types.size()));
    ValueType type = result_type(e, types);
    auto& code = out_.code_;
    std::size_t n = code.size();
    // As in PRISM: pow of integers is an integer, which a negative exponent does not
    // give. A constant exponent is checked here, any other where it is evaluated.
    if (e.op == Op::pow && type == ValueType::integer) {
      if (code[n - 1].kind == Kind::constant && code[n - 1].value < 0 && dead_ == 0) {
        fail(e, "pow of integers with the negative exponent " + std::to_string(static_cast<long long>(code[n - 1].value)) +
                    " has no integer value (write the base as a double)");
      }
      if (code[n - 1].kind != Kind::constant) {
        out_.file_ = scope_.file;
        code.push_back({e.op, Kind::operation, CompiledExpression::kIntegerPow | static_cast<std::uint32_t>(out_.checked_sites_.size()), 0.0});
        out_.checked_sites_.push_back(e.position);
        return type;
      }
    }
    if (e.op == Op::mod) {  // checked where evaluated (folded constants too)
      out_.file_ = scope_.file;
      code.push_back({e.op, Kind::operation, static_cast<std::uint32_t>(out_.checked_sites_.size()), 0.0});
      out_.checked_sites_.push_back(e.position);
      return type;
    }
    if (is_comparison(e.op) && n >= 2 && code[n - 2].kind == Kind::variable && code[n - 1].kind == Kind::constant) {
      code[n - 2] = {e.op, Kind::compare_variable, code[n - 2].index, code[n - 1].value};
      code.pop_back();
    } else if ((e.op == Op::add || e.op == Op::subtract) && n >= 2 && code[n - 2].kind == Kind::variable &&
               code[n - 1].kind == Kind::constant) {
      // x + c and x - c (counters' updates) as one step; negating c is exact.
      double offset = e.op == Op::add ? code[n - 1].value : -code[n - 1].value;
      code[n - 2] = {Op::add, Kind::offset_variable, code[n - 2].index, offset};
      code.pop_back();
    } else {
      code.push_back({e.op, Kind::operation, static_cast<std::uint32_t>(e.operands.size()), 0.0});
    }
    return type;
  }

  ValueType result_type(const Expression& e, const std::vector<ValueType>& t) const {
    auto all = [&](auto predicate) { return std::all_of(t.begin(), t.end(), predicate); };
    bool numeric = all(is_numeric);
    bool integers = all([](ValueType v) { return v == ValueType::integer; });
    ValueType arithmetic = integers ? ValueType::integer : ValueType::real;
    auto first_bad = [&](auto predicate) {
      for (ValueType v : t) {
        if (!predicate(v)) return v;
      }
      return t.front();
    };
    auto is_bool = [](ValueType v) { return v == ValueType::boolean; };
    switch (e.op) {
      case Op::logical_not:
      case Op::logical_and:
      case Op::logical_or:
      case Op::implies:
      case Op::iff:
        require(e, all(is_bool), "expected Boolean operands", first_bad(is_bool));
        return ValueType::boolean;
      case Op::equal:
      case Op::not_equal:
        require(e, numeric || all(is_bool), "expected two numbers or two Booleans", t[1]);
        return ValueType::boolean;
      case Op::less:
      case Op::less_equal:
      case Op::greater:
      case Op::greater_equal:
        require(e, numeric, "expected numeric operands", first_bad(is_numeric));
        return ValueType::boolean;
      case Op::conditional: {
        require(e, is_bool(t[0]), "expected a Boolean condition", t[0]);
        std::vector<ValueType> branches{t[1], t[2]};
        if (is_bool(t[1]) && is_bool(t[2])) return ValueType::boolean;
        require(e, is_numeric(t[1]) && is_numeric(t[2]), "expected branches of the same kind", t[2]);
        return t[1] == ValueType::integer && t[2] == ValueType::integer ? ValueType::integer : ValueType::real;
      }
      case Op::divide:
      case Op::log:
        require(e, numeric, "expected numeric operands", first_bad(is_numeric));
        return ValueType::real;
      case Op::floor:
      case Op::ceil:
      case Op::round:
        require(e, numeric, "expected a numeric operand", t[0]);
        return ValueType::integer;
      case Op::mod:
        require(e, integers, "expected integer operands", first_bad([](ValueType v) { return v == ValueType::integer; }));
        return ValueType::integer;
      default:  // negate, add, subtract, multiply, min, max, pow
        require(e, numeric, "expected numeric operands", first_bad(is_numeric));
        return arithmetic;
    }
  }

  const NameScope& scope_;
  CompiledExpression& out_;
  int dead_ = 0;  // inside an operand a constant condition makes dead: never evaluated
};

CompiledExpression compile(const Expression& expression, const NameScope& scope) {
  CompiledExpression compiled;
  compiled.type_ = ExpressionCompiler(scope, compiled).emit(expression, 0);
  return compiled;
}

namespace {

void split_conjuncts(const Expression& e, std::vector<const Expression*>& out) {
  if (e.kind == Expression::Kind::operation && e.op == Op::logical_and) {
    split_conjuncts(e.operands[0], out);
    split_conjuncts(e.operands[1], out);
  } else {
    out.push_back(&e);
  }
}

}  // namespace

CompiledConjunction compile_conjunction(const Expression& expression, const NameScope& scope) {
  std::vector<const Expression*> parts;
  split_conjuncts(expression, parts);
  CompiledConjunction result;
  for (const Expression* part : parts) {
    CompiledExpression c = compile(*part, scope);
    if (c.type() != ValueType::boolean) {
      throw LocatedError(scope.file, part->position.line, part->position.column,
                         std::string("type error: expected a Boolean, found ") + to_string(c.type()));
    }
    if (c.is_constant() && c.constant_value() != 0.0) continue;  // "true" conjuncts cost nothing
    result.conjuncts_.push_back(std::move(c));
  }
  return result;
}

double evaluate_constant(const Expression& expression, const NameScope& scope, ValueType* type) {
  CompiledExpression compiled = compile(expression, scope);
  if (!compiled.is_constant()) {
    throw LocatedError(scope.file, expression.position.line, expression.position.column,
                       "expected a constant expression, found one that depends on the state");
  }
  if (type) *type = compiled.type();
  return compiled.constant_value();
}

}  // namespace mdpvi
