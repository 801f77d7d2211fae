#include "engine/automata/path_automaton.h"

#include "engine/automata/hoa_path_automaton.h"
#include "engine/automata/ltl_automaton.h"

#include <stdexcept>

namespace mdpvi::automata {

std::unique_ptr<PathAutomaton> automaton_for(const PathFormula& formula, std::uint32_t atoms) {
  bool negated = false;
  const PathFormula& f = formula.under_negations(negated);
  if (f.op == PathFormula::Op::automaton) {
    std::vector<std::uint32_t> propositions;
    for (const PathFormula& p : f.operands) propositions.push_back(p.state);
    return std::make_unique<HoaPathAutomaton>(f.automaton, std::move(propositions), negated);
  }
  if (formula.names_automaton()) {
    throw std::runtime_error("not supported yet: a HOA file's automaton inside a larger path (only HOA: {...} "
                             "and its negation)");
  }
  return std::make_unique<LtlAutomaton>(formula, atoms);
}

}  // namespace mdpvi::automata
