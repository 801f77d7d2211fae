#include "engine/check/state_formula.h"

namespace mdpvi {

namespace {

Expression expand(const Expression& e, const std::map<std::string, Expression>& formulas) {
  if (e.kind == Expression::Kind::identifier) {
    auto it = formulas.find(e.name);
    return it == formulas.end() ? e : it->second;  // stored already expanded
  }
  if (e.kind != Expression::Kind::operation) return e;
  Expression copy = e;
  for (Expression& operand : copy.operands) operand = expand(operand, formulas);
  return copy;
}

std::optional<VariableRef> find_variable(const SparseMdp& mdp, const std::string& name) {
  if (!mdp.valuations) return std::nullopt;
  const StateValuations& v = *mdp.valuations;
  for (std::size_t i = 0; i < v.variables.size(); ++i) {
    if (v.variables[i] == name) return VariableRef{static_cast<std::uint32_t>(i), v.types[i]};
  }
  return std::nullopt;
}

}  // namespace

StateValues evaluate_state_expression(const Expression& expression, const SparseMdp& mdp, const PropertyScope& scope,
                                      const NestedResolver& nested) {
  NameScope names{scope.source, [&](const std::string& name) { return find_variable(mdp, name); },
                  [&](const std::string& name) -> const StateSet* {
                    if (auto it = scope.labels.find(name); it != scope.labels.end()) return &it->second;
                    const Label* label = mdp.find_label(name);
                    return label ? &label->states : nullptr;
                  },
                  nested};
  CompiledExpression compiled =
      compile(substitute_constants(expand(expression, scope.formulas), scope.constants), names);
  const StateValuations* valuations = mdp.valuations ? &*mdp.valuations : nullptr;
  const std::uint32_t n = mdp.num_states();
  std::vector<double> variables(valuations ? valuations->variables.size() : 0);
  StateValues result;
  result.boolean = compiled.type() == ValueType::boolean;
  if (result.boolean) {
    result.truth.resize(n);
  } else {
    result.numbers.resize(n);
  }
  for (std::uint32_t s = 0; s < n; ++s) {
    if (valuations) valuations->decode(s, variables.data());
    double value = compiled.evaluate(variables.data(), s);
    if (result.boolean) {
      if (value != 0.0) result.truth.set(s);
    } else {
      result.numbers[s] = value;
    }
  }
  return result;
}

StateSet evaluate_state_formula(const Expression& formula, const SparseMdp& mdp, const PropertyScope& scope,
                                const NestedResolver& nested) {
  StateValues values = evaluate_state_expression(formula, mdp, scope, nested);
  if (!values.boolean) {
    throw LocatedError(scope.source, formula.position.line, formula.position.column,
                       "expected a Boolean state formula, found a number");
  }
  return std::move(values.truth);
}

}  // namespace mdpvi
