#include "engine/check/state_formula.h"

#include "engine/model/bit_words.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>

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

// Whether the expression reads any variable: labels alone need no valuations decoded.
bool reads_variables(const CompiledExpression& compiled, std::size_t variables) {
  std::vector<bool> used(variables, false);
  compiled.mark_variables(used);
  return std::find(used.begin(), used.end(), true) != used.end();
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
  if (valuations && !reads_variables(compiled, valuations->variables.size())) valuations = nullptr;
  const std::uint32_t n = mdp.num_states();
  StateValues result;
  result.boolean = compiled.type() == ValueType::boolean;
  if (result.boolean) {
    result.truth.resize(n);
  } else {
    result.numbers.resize(n);
  }
  // In parallel over whole 64-state words of the result, so that no two tasks write
  // one word (serially, csma4_4's two labels took 12 s of each property).
  BitWords truth(result.boolean ? n : 0);
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::uint64_t>(0, (std::uint64_t{n} + 63) / 64, 256),
                            [&](const auto& words) {
    std::vector<double> variables(valuations ? valuations->variables.size() : 0);
    for (std::uint64_t w = words.begin(); w < words.end(); ++w) {
      std::uint64_t bits = 0;
      for (std::uint64_t s = w * 64; s < std::min<std::uint64_t>(n, w * 64 + 64); ++s) {
        if (valuations) valuations->decode(s, variables.data());
        const double value = compiled.evaluate(variables.data(), s);
        if (!result.boolean) {
          result.numbers[s] = value;
        } else if (value != 0.0) {
          bits |= std::uint64_t{1} << (s % 64);
        }
      }
      if (result.boolean) truth.word(w) = bits;
    }
  });
  if (result.boolean) result.truth = truth.to_set(n);
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
