#pragma once
// Small models written out by hand, with answers that can be checked on paper.
#include "engine/model/sparse_mdp.h"

#include <string>
#include <utility>
#include <vector>

namespace mdpvi::test {

using Choice = std::vector<std::pair<std::uint32_t, double>>;  // (target, probability)
using StateChoices = std::vector<Choice>;

inline SparseMdp make_mdp(const std::vector<StateChoices>& states,
                          const std::vector<std::pair<std::string, std::vector<std::uint32_t>>>& labels,
                          std::uint32_t initial = 0) {
  SparseMdp mdp;
  mdp.row_group_starts.push_back(0);
  mdp.row_starts.push_back(0);
  bool one_choice_each = true;
  for (const StateChoices& choices : states) {
    one_choice_each = one_choice_each && choices.size() == 1;
    for (const Choice& choice : choices) {
      for (auto [target, probability] : choice) {
        mdp.columns.push_back(target);
        mdp.values.push_back(probability);
      }
      mdp.row_starts.push_back(mdp.columns.size());
    }
    mdp.row_group_starts.push_back(mdp.row_starts.size() - 1);
  }
  mdp.type = one_choice_each ? ModelType::dtmc : ModelType::mdp;
  mdp.initial_states = {initial};
  for (const auto& [name, members] : labels) {
    Label label{name, StateSet(states.size())};
    for (std::uint32_t s : members) label.states.set(s);
    mdp.labels.push_back(std::move(label));
  }
  check_invariants(mdp);
  return mdp;
}

// Knuth and Yao's die from a fair coin: states 0-6 toss, 7-12 are the faces 1-6.
// Every face has probability exactly 1/6.
inline SparseMdp knuth_yao_die() {
  auto coin = [](std::uint32_t a, std::uint32_t b) { return StateChoices{{{a, 0.5}, {b, 0.5}}}; };
  auto stay = [](std::uint32_t s) { return StateChoices{{{s, 1.0}}}; };
  return make_mdp({coin(1, 2), coin(3, 4), coin(5, 6), coin(1, 7), coin(8, 9), coin(10, 11), coin(2, 12), stay(7),
                   stay(8), stay(9), stay(10), stay(11), stay(12)},
                  {{"one", {7}}, {"two", {8}}, {"three", {9}}, {"four", {10}}, {"five", {11}}, {"six", {12}},
                   {"done", {7, 8, 9, 10, 11, 12}}});
}

inline StateSet states_of(std::uint32_t n, std::initializer_list<std::uint32_t> members) {
  StateSet set(n);
  for (std::uint32_t s : members) set.set(s);
  return set;
}

}  // namespace mdpvi::test
