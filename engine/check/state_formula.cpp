#include "engine/check/state_formula.h"

#include "engine/model/bit_words.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <optional>

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

// A Boolean combination of labels and Boolean literals, on whole 64-state words of the
// label sets rather than state by state (the interpreter's per-state calls cost a
// large model seconds); nullopt for anything else, which the interpreter then
// evaluates (and reports, for an unknown label).
std::optional<StateSet> label_logic(const Expression& e, std::size_t n, const NameScope& names) {
  using Op = Expression::Op;
  switch (e.kind) {
    case Expression::Kind::label: {
      const StateSet* set = names.label ? names.label(e.name) : nullptr;
      if (!set || set->size() != n) return std::nullopt;
      return *set;
    }
    case Expression::Kind::literal: {
      if (e.literal_type != ValueType::boolean) return std::nullopt;
      StateSet all(n);
      if (e.value != 0.0) all.set();
      return all;
    }
    case Expression::Kind::operation: break;
    default: return std::nullopt;
  }
  // The parser makes every connective unary or binary, as the interpreter reads them.
  const bool unary = e.op == Op::logical_not && e.operands.size() == 1;
  const bool binary = (e.op == Op::logical_and || e.op == Op::logical_or || e.op == Op::implies || e.op == Op::iff) &&
                      e.operands.size() == 2;
  if (!unary && !binary) return std::nullopt;
  std::optional<StateSet> result = label_logic(e.operands[0], n, names);
  if (!result) return std::nullopt;
  if (unary) return result->flip();
  const std::optional<StateSet> right = label_logic(e.operands[1], n, names);
  if (!right) return std::nullopt;
  switch (e.op) {
    case Op::logical_and: *result &= *right; break;
    case Op::logical_or: *result |= *right; break;
    case Op::implies: result->flip() |= *right; break;
    default: (*result ^= *right).flip(); break;  // iff
  }
  return result;
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
  const Expression resolved = substitute_constants(expand(expression, scope.formulas), scope.constants);
  if (std::optional<StateSet> truth = label_logic(resolved, mdp.num_states(), names)) {
    return StateValues::of_truth(std::move(*truth));
  }
  CompiledExpression compiled = compile(resolved, names);
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
  // one word (serially, a large model's labels took seconds of each property).
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
