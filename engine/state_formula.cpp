#include "engine/state_formula.h"

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

}  // namespace

StateSet evaluate_state_formula(const Expression& formula, const SparseMdp& mdp, const PropertyScope& scope) {
  const StateValuations* valuations = mdp.valuations ? &*mdp.valuations : nullptr;
  NameScope names{scope.source,
                  [&](const std::string& name) -> std::optional<VariableRef> {
                    if (!valuations) return std::nullopt;
                    for (std::size_t v = 0; v < valuations->variables.size(); ++v) {
                      if (valuations->variables[v] == name) {
                        return VariableRef{static_cast<std::uint32_t>(v), valuations->types[v]};
                      }
                    }
                    return std::nullopt;
                  },
                  [&](const std::string& name) -> const StateSet* {
                    const Label* label = mdp.find_label(name);
                    return label ? &label->states : nullptr;
                  }};
  CompiledExpression compiled = compile(substitute_constants(expand(formula, scope.formulas), scope.constants), names);
  if (compiled.type() != ValueType::boolean) {
    throw LocatedError(scope.source, formula.position.line, formula.position.column,
                       std::string("expected a Boolean state formula, found ") + to_string(compiled.type()));
  }
  const std::uint32_t n = mdp.num_states();
  StateSet result(n);
  std::vector<double> values(valuations ? valuations->variables.size() : 0);
  for (std::uint32_t s = 0; s < n; ++s) {
    if (valuations) valuations->decode(s, values.data());
    if (compiled.holds(values.data(), s)) result.set(s);
  }
  return result;
}

}  // namespace mdpvi
