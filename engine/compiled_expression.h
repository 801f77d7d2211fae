#pragma once
// Expressions compiled to a short postfix program over the state's variables: the
// builder evaluates guards, probabilities and updates millions of times a second, so
// names are resolved, types checked and constant parts folded once, here.
#include "engine/expression.h"
#include "engine/located_error.h"
#include "engine/state_set.h"

#include <functional>
#include <optional>
#include <vector>

namespace mdpvi {

struct VariableRef {
  std::uint32_t index;
  ValueType type;
};

// How compile() resolves names. Anything it cannot resolve is an error at the name.
struct NameScope {
  std::string file;  // for error messages
  std::function<std::optional<VariableRef>(const std::string&)> variable;
  // Labels (properties only): the set of states carrying the label, or nullptr.
  std::function<const StateSet*(const std::string&)> label;
};

class CompiledExpression {
 public:
  struct Instruction {
    Expression::Op op;  // Op::none: push value, or load variable/label (see kind)
    enum class Kind : std::uint8_t { constant, variable, label, operation } kind;
    std::uint32_t index;  // variable or label index; operand count for min/max
    double value;         // constant
  };

  // Variables are the state's values as doubles (integers and Booleans exactly).
  double evaluate(const double* variables, std::uint64_t state = 0) const;
  bool holds(const double* variables, std::uint64_t state = 0) const { return evaluate(variables, state) != 0.0; }

  ValueType type() const { return type_; }
  bool is_constant() const { return code_.size() == 1 && code_[0].kind == Instruction::Kind::constant; }
  double constant_value() const { return code_[0].value; }

 private:
  friend class ExpressionCompiler;
  friend CompiledExpression compile(const Expression& expression, const NameScope& scope);
  std::vector<Instruction> code_;
  std::vector<const StateSet*> labels_;
  ValueType type_ = ValueType::boolean;
};

// Throws LocatedError for unknown names and type errors ("type error: ...").
CompiledExpression compile(const Expression& expression, const NameScope& scope);

// Compiles an expression that must not depend on the state, and evaluates it.
double evaluate_constant(const Expression& expression, const NameScope& scope, ValueType* type = nullptr);

}  // namespace mdpvi
