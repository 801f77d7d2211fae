#include "engine/state_formula.h"

#include <stdexcept>

namespace mdpvi {

StateSet evaluate(const StateFormula& formula, const SparseMdp& mdp) {
  using Kind = StateFormula::Kind;
  switch (formula.kind) {
    case Kind::constant: {
      StateSet all(mdp.num_states());
      return formula.constant ? all.set() : all;
    }
    case Kind::label: {
      const Label* label = mdp.find_label(formula.label);
      if (label == nullptr) throw std::invalid_argument("unknown label \"" + formula.label + "\"");
      return label->states;
    }
    case Kind::negation: return ~evaluate(formula.operands[0], mdp);
    default: break;
  }
  StateSet left = evaluate(formula.operands[0], mdp);
  StateSet right = evaluate(formula.operands[1], mdp);
  switch (formula.kind) {
    case Kind::conjunction: return left & right;
    case Kind::disjunction: return left | right;
    case Kind::implication: return ~left | right;
    default: return ~(left ^ right);  // equivalence
  }
}

}  // namespace mdpvi
