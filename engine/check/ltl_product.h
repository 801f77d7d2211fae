#pragma once
// The product of a model with a path's automaton (engine/automata/path_automaton.h: LTL's
// construction or a HOA file's deterministic automaton): its
// states are pairs of a model state and the automaton's state after reading the path
// up to it, from every model state; one sink stands for every pair whose automaton
// state rejects. Built on all cores: the automaton is first tabulated on the model's
// letters (it is not thread-safe, and small), the pairs are found breadth first with a
// bit per pair, numbered by automaton state then model state (the same numbers however
// the threads ran), and their rows counted, then written.
#include "engine/automata/path_automaton.h"
#include "engine/model/sparse_mdp.h"
#include "graph/end_components.h"

#include <cstdint>
#include <vector>

namespace mdpvi {

struct LtlProduct {
  static constexpr std::uint64_t kNoRow = ~std::uint64_t{0};
  SparseMdp mdp;
  std::vector<std::uint32_t> start;  // per model state: its pair (the automaton after its letter)
  StateSet accepting_part;           // pairs in the automaton's accepting component (not the sink)
  StateSet universal;                // pairs whose automaton state accepts every continuation
  std::vector<std::uint32_t> marks, all_marks;  // per pair: its automaton state's
  std::vector<std::uint32_t> model_state;       // per pair
  PodVector<std::uint64_t> model_row;           // per product row (where kept): the model's, or kNoRow (a jump, the sink)
};

// How the product's choices are made.
enum class ProductChoices {
  model_and_jumps,  // the model's, and the automaton's jumps
  model_only,       // the model's (a co-safe path: the automaton's first part decides); a
                    // chain's product is then a chain
  edges_and_jumps   // one per successor, probability 1 (the product's graph for E [ path ],
                    // whose end components are then its cycles), and the jumps
};

// Each of n states' letter: bit i where atoms[i] holds.
std::vector<std::uint64_t> letters_of(std::uint32_t n, const std::vector<StateSet>& atoms);

// A model's rewards on a product of it (its pairs' model states, its rows' model rows,
// kNoRow for rows of no model row): each row earns its pair's state reward and its
// model row's own, as choice rewards.
RewardStructure rewards_on_pairs(const RewardStructure& rewards, const SparseMdp& product,
                                 const std::vector<std::uint32_t>& model_state, const PodVector<std::uint64_t>& model_row);

// Per end component of components (over pairs 0 .. pairs - 1): whether staying there
// meets its automaton's guess: every pair of it in the accepting component
// (in_accepting(p)), and their marks (marks(p)) together every mark the guess needs
// (all_marks(p); one guess per component: a jump is never undone). Shared by LTL's
// accepting end components and multi(...)'s LTL objectives.
template <typename InAccepting, typename Marks, typename AllMarks>
std::vector<char> components_seeing_every_mark(const graph::EndComponents& components, std::uint32_t pairs,
                                               const InAccepting& in_accepting, const Marks& marks,
                                               const AllMarks& all_marks) {
  std::vector<char> outside(components.count, 0), accepting(components.count, 0);
  std::vector<std::uint32_t> seen(components.count, 0), needed(components.count, 0);
  for (std::uint32_t p = 0; p < pairs; ++p) {
    const std::uint32_t c = components.component_of[p];
    if (c == graph::EndComponents::kNone) continue;
    if (!in_accepting(p)) {
      outside[c] = 1;
      continue;
    }
    seen[c] |= marks(p);
    needed[c] = all_marks(p);
  }
  for (std::uint32_t c = 0; c < components.count; ++c) accepting[c] = !outside[c] && (seen[c] & needed[c]) == needed[c];
  return accepting;
}

// Whether the product keeps each row's model row (LtlProduct::model_row): rewards on
// pairs need them, probabilities do not (8 bytes a product row, written once each).
enum class ModelRows { dropped, kept };

// atoms[i]: where the automaton's state formula i holds. Throws std::runtime_error
// where the product has 2^32 pairs or more.
LtlProduct build_ltl_product(const SparseMdp& mdp, automata::PathAutomaton& automaton, const std::vector<StateSet>& atoms,
                             ProductChoices choices, ModelRows model_rows = ModelRows::dropped);

}  // namespace mdpvi
