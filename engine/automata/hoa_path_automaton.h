#pragma once
// A HOA file's deterministic automaton (engine/model/hoa_automaton.h) as a product's
// limit-deterministic automaton (path_automaton.h). Its initial component is the
// automaton itself. Its acceptance formula, in disjunctive normal form, is a
// disjunction of terms, each some Fin and some Inf conditions (a generalised Rabin
// condition); each term has an accepting component of its own, a copy of the
// automaton: a jump guesses the term, the copy goes to the rejecting sink where it
// meets a set of the term's Fin, and each Inf of the term is one of the copy's marks.
// A run of the automaton is accepted iff from some point on one term holds of what it
// sees, so the copies accept the same words; in the product, the maximum over the
// jumps of reaching an accepting end component is the maximal probability of the
// words the automaton accepts (for a chain, their probability), as for a Rabin
// automaton's accepting end components (Baier and Katoen, Principles of Model
// Checking, 2008, section 10.6.4).
//
// The complement is the same automaton with the acceptance formula negated: a
// deterministic automaton's runs are unique. Where no edge takes a letter, the run
// goes to the rejecting sink, and, for the complement, to a sink of its own that only
// the complement accepts.
#include "engine/automata/path_automaton.h"
#include "engine/model/hoa_automaton.h"

#include <map>
#include <memory>
#include <tuple>
#include <vector>

namespace mdpvi::automata {

class HoaPathAutomaton final : public PathAutomaton {
 public:
  // propositions[k]: the letter's bit (state formula) of the automaton's proposition k.
  // Throws AutomatonTooLarge where the acceptance formula's normal form has more than
  // kMostTerms terms or a term more than 32 Inf conditions.
  HoaPathAutomaton(std::shared_ptr<const HoaAutomaton> automaton, std::vector<std::uint32_t> propositions,
                   bool complemented);

  static constexpr std::size_t kMostTerms = 4096;

  State initial() const override { return initial_; }
  // Throws std::runtime_error where two edges of the automaton take the letter.
  State step(State q, std::uint64_t letter) override;
  const std::vector<State>& jumps(State q) override;
  bool in_accepting_component(State q) const override { return states_[q].term != kNoTerm; }
  bool universal(State) const override { return false; }  // the accepting end components find those
  std::uint32_t marks(State q) const override { return states_[q].marks; }
  std::uint32_t all_marks(State q) const override;
  std::size_t num_states() const override { return states_.size(); }
  bool co_safe() const override { return false; }

  // A condition of a term: the set (or its complement) is met by the sets of a step.
  struct Condition {
    std::uint32_t set = 0;
    bool complemented = false;
    bool met_by(std::uint64_t sets) const { return ((sets >> set) & 1) != complemented; }
  };
  struct Term {
    std::vector<Condition> fin, inf;
  };
  // The acceptance formula of the automaton (negated where asked) in disjunctive normal
  // form; the complement's own sink is set kSinkSet.
  static std::vector<Term> terms_of(const HoaAutomaton& automaton, bool complemented);
  static constexpr std::uint32_t kSinkSet = 64;

 private:
  static constexpr std::uint32_t kNoTerm = 0xFFFFFFFFu;
  struct StateData {
    std::uint32_t hoa_state = 0;  // the automaton's state (its number of states: the complement's sink)
    std::uint32_t term = kNoTerm;  // the accepting component's term; kNoTerm: the initial component
    std::uint32_t marks = 0;
    bool jumps_made = false;
    std::vector<State> jumps;
  };
  // The automaton's successor of hoa_state under letter, and the sets of the step
  // (the edge's and the target's); none where no edge takes it.
  struct Move {
    bool taken = false;
    std::uint32_t target = 0;
    std::uint64_t sets = 0;
    bool into_sink = false;
  };
  static StateData state_data(std::uint32_t hoa_state, std::uint32_t term, std::uint32_t marks);
  Move move(std::uint32_t hoa_state, std::uint64_t letter) const;
  bool holds(std::uint32_t label, std::uint64_t hoa_letter) const;
  State copy_state(std::uint32_t term, std::uint32_t hoa_state, std::uint32_t marks);

  std::shared_ptr<const HoaAutomaton> a_;
  std::vector<std::uint32_t> propositions_;
  bool complemented_;
  std::vector<Term> terms_;
  std::vector<StateData> states_;
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, State> copies_;
  State initial_ = kRejecting;
};

}  // namespace mdpvi::automata
