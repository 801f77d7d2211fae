#pragma once
// Models and systems the host's and the device's system tests share: a model's values
// in each form the sweeps read, rewards on some states and choices, a solving order
// of single-state SCCs, and arrays as std::vector for comparisons.
#include "engine/model/compact_values.h"
#include "engine/model/sparse_mdp.h"
#include "graph/scc_decomposition.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace mdpvi::test {

// The maybe-states in a shuffled order, each an SCC of its own (the builder takes
// any order; the host's build does too).
inline graph::SccDecomposition shuffled_order(const StateSet& maybe, std::uint32_t seed) {
  graph::SccDecomposition sccs;
  for (auto s = maybe.find_first(); s != StateSet::npos; s = maybe.find_next(s)) sccs.order.push_back(static_cast<std::uint32_t>(s));
  std::shuffle(sccs.order.begin(), sccs.order.end(), std::mt19937(seed));
  sccs.scc_starts.resize(sccs.order.size() + 1);
  std::iota(sccs.scc_starts.begin(), sccs.scc_starts.end(), std::uint64_t{0});
  return sccs;
}

template <typename T, typename Vector>
std::vector<T> as_vector(const Vector& v) {
  return std::vector<T>(v.begin(), v.end());
}

inline std::vector<double> as_vector(const CompactValues& v) {
  const PodVector<double> plain = v.expanded();
  return std::vector<double>(plain.begin(), plain.end());
}

// Rewards on some states and some choices, none elsewhere.
inline RewardStructure random_rewards(const SparseMdp& mdp, std::uint32_t seed) {
  std::mt19937 rng(seed);
  RewardStructure rewards;
  PodVector<double>& on_states = rewards.state_rewards.plain();
  PodVector<double>& on_choices = rewards.choice_rewards.plain();
  on_states.resize(mdp.num_states());
  on_choices.resize(mdp.num_choices());
  for (double& r : on_states) r = rng() % 3 == 0 ? 0.0 : 0.25 * (rng() % 9);
  for (double& r : on_choices) r = rng() % 2 == 0 ? 0.0 : 0.5 * (rng() % 5);
  // Indexed where the model's probabilities are, as compact_model leaves them.
  if (mdp.values.index_bytes() != 0) {
    rewards.state_rewards.compress();
    rewards.choice_rewards.compress();
  }
  return rewards;
}

// The forms of a model's values the device reads: plain, indexed by one byte (the
// generated models' few distinct values), and by two (every row's probabilities
// drawn at random, so that a large model has more than 256 distinct ones).
enum class ValueForm { plain, one_byte, two_bytes };

inline SparseMdp in_form(SparseMdp mdp, ValueForm form, std::uint32_t seed) {
  if (form == ValueForm::two_bytes) {
    std::mt19937 rng(seed);
    PodVector<double>& values = mdp.values.plain();
    for (std::uint64_t r = 0; r < mdp.num_choices(); ++r) {
      double sum = 0.0;
      for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) sum += values[k] = 1.0 + rng() % 1000;
      for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) values[k] /= sum;
    }
  }
  if (form != ValueForm::plain) compact_model(mdp);
  return mdp;
}

}  // namespace mdpvi::test
