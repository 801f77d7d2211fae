#include "engine/automata/path_automaton.h"

#include "engine/automata/hoa_path_automaton.h"
#include "engine/automata/ltl_automaton.h"

#include <algorithm>
#include <stdexcept>

namespace mdpvi::automata {

bool names_automaton_file(const PathFormula& formula) {
  return formula.op == PathFormula::Op::automaton ||
         std::any_of(formula.operands.begin(), formula.operands.end(), names_automaton_file);
}

std::unique_ptr<PathAutomaton> automaton_for(const PathFormula& formula, std::uint32_t atoms) {
  const PathFormula* f = &formula;
  bool negated = false;
  for (; f->op == PathFormula::Op::negation; f = &f->operands[0]) negated = !negated;
  if (f->op == PathFormula::Op::automaton) {
    std::vector<std::uint32_t> propositions;
    for (const PathFormula& p : f->operands) propositions.push_back(p.state);
    return std::make_unique<HoaPathAutomaton>(f->automaton, std::move(propositions), negated);
  }
  if (names_automaton_file(formula)) {
    throw std::runtime_error("not supported yet: a HOA file's automaton inside a larger path (only HOA: {...} "
                             "and its negation)");
  }
  return std::make_unique<LtlAutomaton>(formula, atoms);
}

}  // namespace mdpvi::automata
