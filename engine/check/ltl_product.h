#pragma once
// The product of a model with an LTL automaton (engine/automata/ltl_automaton.h): its
// states are pairs of a model state and the automaton's state after reading the path
// up to it, from every model state; one sink stands for every pair whose automaton
// state rejects. Built on all cores: the automaton is first tabulated on the model's
// letters (it is not thread-safe, and small), the pairs are found breadth first with a
// bit per pair, numbered by automaton state then model state (the same numbers however
// the threads ran), and their rows counted, then written.
#include "engine/automata/ltl_automaton.h"
#include "engine/model/sparse_mdp.h"

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
  PodVector<std::uint64_t> model_row;           // per product row: the model's, or kNoRow (a jump, the sink)
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

// atoms[i]: where the automaton's state formula i holds. Throws std::runtime_error
// where the product has 2^32 pairs or more.
LtlProduct build_ltl_product(const SparseMdp& mdp, automata::LtlAutomaton& automaton, const std::vector<StateSet>& atoms,
                             ProductChoices choices);

}  // namespace mdpvi
