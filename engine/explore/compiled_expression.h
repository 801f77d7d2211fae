#pragma once
// Expressions compiled to a short postfix program over the state's variables: the
// builder evaluates guards, probabilities and updates millions of times a second, so
// names are resolved, types checked and constant parts folded once, here.
#include "io/expression.h"
#include "engine/model/state_numbers.h"
#include "engine/model/located_error.h"
#include "engine/model/state_set.h"

#include <functional>
#include <optional>
#include <vector>

namespace mdpvi {

struct VariableRef {
  std::uint32_t index;
  ValueType type;
};

// A property's nested operator (Expression::Kind::nested) in every state: the states
// where a bounded one holds, or the numbers of a P=? or R=? one.
struct NestedValues {
  const StateSet* truth = nullptr;
  const StateNumbers* numbers = nullptr;
};

// How compile() resolves names. Anything it cannot resolve is an error at the name.
struct NameScope {
  std::string file;  // for error messages
  std::function<std::optional<VariableRef>(const std::string&)> variable;
  // Labels (properties only): the set of states carrying the label, or nullptr.
  std::function<const StateSet*(const std::string&)> label;
  // A property's nested P or R operator (Expression::Kind::nested); neither set: none.
  std::function<NestedValues(std::size_t)> nested;

  // No names but constants (already substituted): for values fixed before any state.
  static NameScope constants_only(std::string file) { return {std::move(file), {}, {}, {}}; }
};

class CompiledExpression {
 public:
  struct Instruction {
    Expression::Op op;  // Op::none: push value, or load variable/label (see kind)
    // compare_variable: "variable op constant" in one step, the commonest guard atom;
    // offset_variable: "variable + value" (x+1, x-1), the commonest update.
    // state_number: a nested operator's value in the state (numbers_).
    // short_circuit (op |, & or =>): where the value on top decides the operation, it
    // becomes the result and the right operand is skipped; else it is dropped and the
    // right operand's value is the result. branch_if_false pops a condition and skips
    // the then-branch where it is false; jump skips the else-branch. PRISM evaluates
    // these left to right and stops once the result is known.
    enum class Kind : std::uint8_t {
      constant, variable, label, state_number, operation, compare_variable, offset_variable,
      short_circuit, branch_if_false, jump
    } kind;
    // Variable, label or numbers index; operand count for min/max; for pow of integers,
    // kIntegerPow | its site (checked_sites_), checked for negative exponents; for mod,
    // its site, checked for a divisor that is not positive; for the three above, how
    // many instructions on the next one is.
    std::uint32_t index;
    double value;         // constant
  };

  // Variables are the state's values as doubles (integers and Booleans exactly).
  double evaluate(const double* variables, std::uint64_t state = 0) const {
    if (code_.size() == 1) {  // most guard atoms and many updates: no stack machine
      const Instruction& in = code_[0];
      if (in.kind == Instruction::Kind::compare_variable) return compare(in.op, variables[in.index], in.value);
      if (in.kind == Instruction::Kind::constant) return in.value;
      if (in.kind == Instruction::Kind::variable) return variables[in.index];
      if (in.kind == Instruction::Kind::offset_variable) return variables[in.index] + in.value;
    }
    return run(variables, state);
  }
  bool holds(const double* variables, std::uint64_t state = 0) const { return evaluate(variables, state) != 0.0; }

  ValueType type() const { return type_; }
  bool is_constant() const { return code_.size() == 1 && code_[0].kind == Instruction::Kind::constant; }
  double constant_value() const { return code_[0].value; }
  // "variable = constant" alone: the builder indexes commands by such guards.
  bool is_variable_equals_constant() const {
    return code_.size() == 1 && code_[0].kind == Instruction::Kind::compare_variable && code_[0].op == Expression::Op::equal;
  }
  const Instruction& single_instruction() const { return code_[0]; }
  // Sets used[v] for every variable v the expression reads.
  void mark_variables(std::vector<bool>& used) const {
    for (const Instruction& in : code_) {
      if (in.kind == Instruction::Kind::variable || in.kind == Instruction::Kind::compare_variable ||
          in.kind == Instruction::Kind::offset_variable) {
        used[in.index] = true;
      }
    }
  }

  static double compare(Expression::Op op, double left, double right) {
    switch (op) {
      case Expression::Op::equal: return left == right;
      case Expression::Op::not_equal: return left != right;
      case Expression::Op::less: return left < right;
      case Expression::Op::less_equal: return left <= right;
      case Expression::Op::greater: return left > right;
      default: return left >= right;
    }
  }

 private:
  double run(const double* variables, std::uint64_t state) const;
  friend class ExpressionCompiler;
  friend CompiledExpression compile(const Expression& expression, const NameScope& scope);
  [[noreturn]] void fail_integer_pow(std::uint32_t site, double exponent) const;
  [[noreturn]] void fail_mod(std::uint32_t site, double divisor) const;
  static constexpr std::uint32_t kIntegerPow = 0x80000000u;

  std::vector<Instruction> code_;
  std::vector<const StateSet*> labels_;
  std::vector<const StateNumbers*> numbers_;  // Instruction::Kind::state_number
  std::string file_;                           // for the errors evaluation can meet
  std::vector<SourcePosition> checked_sites_;  // of the operations checked where evaluated
  ValueType type_ = ValueType::boolean;
};

// Throws LocatedError for unknown names and type errors ("type error: ...").
CompiledExpression compile(const Expression& expression, const NameScope& scope);

// A Boolean expression split at its top-level '&': evaluated conjunct by conjunct,
// stopping at the first false one (guards mostly fail on their first "s=k").
class CompiledConjunction {
 public:
  bool holds(const double* variables, std::uint64_t state = 0) const {
    for (const CompiledExpression& c : conjuncts_) {
      if (!c.holds(variables, state)) return false;
    }
    return true;
  }
  const std::vector<CompiledExpression>& conjuncts() const { return conjuncts_; }

 private:
  friend CompiledConjunction compile_conjunction(const Expression& expression, const NameScope& scope);
  std::vector<CompiledExpression> conjuncts_;
};

// Pre: nothing. Throws LocatedError as compile(), and when a conjunct is not Boolean.
CompiledConjunction compile_conjunction(const Expression& expression, const NameScope& scope);

// Compiles an expression that must not depend on the state, and evaluates it.
double evaluate_constant(const Expression& expression, const NameScope& scope, ValueType* type = nullptr);

}  // namespace mdpvi
