#pragma once
// A limit-deterministic Büchi automaton for an LTL formula, built state by state as a
// product asks for them. The construction is the "master theorem" of Esparza,
// Křetínský and Sickert ("A unified translation of linear temporal logic to
// ω-automata", J. ACM 67(6), 2020): with the formula in negation normal form, its
// μ-subformulas (U, M: F is tt U) and ν-subformulas (R, W: G is ff R), a word w
// satisfies φ iff for some set X of μ-subformulas (those that hold infinitely often)
// and Y of ν-subformulas (those that hold from some point on):
//   (1) from some position i, af(φ, w[0,i))[X]ν holds (a safety formula);
//   (2) for each ψ in X, GF ψ[Y]μ holds (a co-safety formula, infinitely often);
//   (3) for each ψ in Y, FG ψ[X]ν holds.
// af is the "after" function (formula progression). ψ[X]ν weakens the μ-subformulas in
// X (U to W, M to R) and makes the others ff; ψ[Y]μ makes the ν-subformulas in Y tt and
// strengthens the others (W to U, R to M).
//
// The automaton's initial component follows af(φ, ·) deterministically. From each of
// its states a jump (an ε-move) guesses X and Y and enters a deterministic accepting
// component that checks, from the next letter on: one safety formula, (1) and G of
// each (3) started at every position since the jump (a G chi once: it implies the later
// instances), going to the rejecting sink when it becomes ff; trackers that are tt
// dropped; and per ψ in X a tracker of GF ψ[Y]μ, the disjunction of the
// instances started since its last success, marked when it becomes tt. A run is
// accepting when it jumps and then sees every tracker's mark infinitely often.
// Formulas are kept as BDDs over their literals and temporal subformulas, so states
// are formulas up to propositional equivalence and the automaton is finite.
#include "engine/automata/bdd.h"
#include "engine/automata/path_automaton.h"
#include "engine/model/path_formula.h"

#include <cstdint>
#include <map>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace mdpvi::automata {

// A formula the construction refuses (too many temporal subformulas to guess over).
class AutomatonTooLarge : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class LtlAutomaton final : public PathAutomaton {
 public:

  // atoms: how many state formulas the formula's Op::state leaves number (each < atoms,
  // at most 64: a letter is a bit set of them).
  LtlAutomaton(const PathFormula& formula, std::uint32_t atoms);

  // Before any letter: the formula itself.
  State initial() const override { return initial_; }
  // The state after reading letter (bit i: state formula i holds) in state q.
  State step(State q, std::uint64_t letter) override;
  // A state of the initial component: its jumps into the accepting component.
  const std::vector<State>& jumps(State q) override;
  bool in_accepting_component(State q) const override { return states_[q].accepting; }
  // Every continuation from q is accepted: an accepting state whose safety formula is tt
  // and whose guess asks nothing more (no tracker, nothing to stay in).
  bool universal(State q) const override;
  // Bit k: tracker k of q's guess saw its success on the step into q.
  std::uint32_t marks(State q) const override { return states_[q].marks; }
  // The marks a run of q's guess must see infinitely often (every tracker's).
  std::uint32_t all_marks(State q) const override;
  std::size_t num_states() const override { return states_.size(); }
  // Co-safe (only X, U and M in negation normal form, F among them): every accepted word
  // has a finite prefix after which the initial component is tt, and no jump is needed.
  bool co_safe() const override;

 private:
  enum class Op : std::uint8_t { next, until, strong_release, release, weak_until };
  struct Temporal {  // a temporal subformula, in negation normal form
    Op op;
    BddRef left, right;  // next: left only
  };
  struct Guess {
    std::vector<BddRef> trackers;  // per psi in X: psi[Y]mu, those that are not tt (always met)
    BddRef stay;                   // the conjunction of psi[X]nu over Y: the jump's safety has it
    // The conjuncts of stay to start again at every later position: not those of the form
    // G chi (ff R chi), which af keeps in the safety formula once it holds them.
    BddRef restarted;
  };
  // States are their content, not their guess's number: guesses that ask the same are
  // one state.
  struct StateData {
    bool accepting = false;
    BddRef formula = kFalse;  // initial component: af(phi, u); accepting: the safety formula
    BddRef restarted = kTrue;      // accepting: the guess's conjuncts to restart each step
    std::vector<BddRef> trackers;  // accepting: the guess's co-safe formulas, each met again and again
    std::vector<BddRef> pending;   // accepting: per tracker, the instances not yet met
    std::uint32_t marks = 0;
    bool jumps_made = false;
    std::vector<State> jumps;
  };

  BddRef normal_form(const PathFormula& f, bool negated);
  BddRef temporal(Op op, BddRef left, BddRef right = kFalse);
  bool is_temporal(std::uint32_t variable) const { return variable >= atoms_; }
  const Temporal& node(std::uint32_t variable) const { return nodes_[variable - atoms_]; }
  static bool is_mu(Op op) { return op == Op::until || op == Op::strong_release; }
  bool is_always(BddRef f) const;

  BddRef after(BddRef f, std::uint64_t letter);
  BddRef weakened(BddRef f, const std::vector<std::uint32_t>& mu);   // f[X]nu
  BddRef strengthened(BddRef f, const std::vector<std::uint32_t>& nu);  // f[Y]mu
  // The temporal subformulas of f, its own and theirs, split into mu and nu.
  void subformulas(BddRef f, std::vector<std::uint32_t>& mu, std::vector<std::uint32_t>& nu) const;

  State intern(StateData data);
  State accepting_state(const Guess& guess, BddRef safety, std::vector<BddRef> pending, std::uint32_t marks);
  std::uint32_t guess_of(std::vector<std::uint32_t> mu, std::vector<std::uint32_t> nu);

  Bdd bdd_;
  std::uint32_t atoms_;
  std::vector<Temporal> nodes_;
  std::map<std::tuple<Op, BddRef, BddRef>, std::uint32_t> node_numbers_;
  std::vector<Guess> guesses_;
  std::map<std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>>, std::uint32_t> guess_numbers_;
  std::vector<StateData> states_;
  std::map<std::vector<std::uint32_t>, State> state_numbers_;
  std::map<std::pair<BddRef, std::uint64_t>, BddRef> after_cache_;  // (f, letter) -> af(f, letter)
  std::map<std::pair<std::uint64_t, std::uint64_t>, State> step_cache_;
  State initial_ = kRejecting;
};

}  // namespace mdpvi::automata
