#pragma once
// What a product with the model (engine/check/ltl_product.h, multi_objective.cpp) asks
// of a path's automaton: a limit-deterministic Büchi automaton read state by state.
// Its initial component is deterministic; from its states, jumps (ε-moves) enter
// deterministic accepting components, whose runs are accepted when they never reach
// the rejecting sink and see each mark of all_marks infinitely often (a generalised
// Büchi condition). LTL's own construction (ltl_automaton.h) and a HOA file's
// deterministic automaton (hoa_path_automaton.h) both take this form.
#include "engine/model/path_formula.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace mdpvi::automata {

class PathAutomaton {
 public:
  using State = std::uint32_t;
  static constexpr State kRejecting = 0;  // the sink: no accepting run goes on from it

  virtual ~PathAutomaton() = default;
  // Before any letter.
  virtual State initial() const = 0;
  // The state after reading letter (bit i: state formula i holds) in state q.
  virtual State step(State q, std::uint64_t letter) = 0;
  // A state of the initial component: its jumps into an accepting component.
  virtual const std::vector<State>& jumps(State q) = 0;
  virtual bool in_accepting_component(State q) const = 0;
  // Every continuation from q is accepted.
  virtual bool universal(State q) const = 0;
  // Bit k: mark k was seen on the step into q.
  virtual std::uint32_t marks(State q) const = 0;
  // The marks a run from q must see infinitely often.
  virtual std::uint32_t all_marks(State q) const = 0;
  virtual std::size_t num_states() const = 0;
  // Every accepted word has a finite prefix after which the initial component is
  // universal, and no jump is needed.
  virtual bool co_safe() const = 0;
};

// The automaton of formula over `atoms` state formulas: a HOA file's where the formula
// is one (or its negation, any number of times), else LTL's construction. Throws
// std::runtime_error for a HOA automaton inside a larger formula, and
// AutomatonTooLarge (ltl_automaton.h) where LTL's construction refuses the formula.
std::unique_ptr<PathAutomaton> automaton_for(const PathFormula& formula, std::uint32_t atoms);

}  // namespace mdpvi::automata
