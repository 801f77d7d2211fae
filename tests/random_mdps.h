#pragma once
// Generated MDPs with the shapes that break graph kernels: one-choice and 40-choice
// states, rows longer than a warp, self-loops, long chains (a large diameter),
// absorbing states, and sets of states drawn at random.
#include "engine/model/sparse_mdp.h"
#include "test_models.h"

#include <random>

namespace mdpvi::test {

// n states. States below n/4 form a chain (each to the next, and one choice back
// to the start), so searches need about n/4 levels; the rest have random rows.
inline SparseMdp random_mdp(std::uint32_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::uint32_t> any(0, n == 0 ? 0 : n - 1);
  SparseMdp mdp;
  mdp.row_group_starts.push_back(0);
  mdp.row_starts.push_back(0);
  auto add_row = [&](std::initializer_list<std::uint32_t> targets) {
    for (std::uint32_t t : targets) {
      mdp.columns.push_back(t);
      mdp.values.push_back(1.0 / static_cast<double>(targets.size()));
    }
    mdp.row_starts.push_back(mdp.columns.size());
  };
  const std::uint32_t chain = n / 4;
  for (std::uint32_t s = 0; s < n; ++s) {
    if (s + 1 < chain) {
      add_row({s + 1});
      if (s % 3 == 0) add_row({0, s});
    } else if (s % 11 == 5) {
      add_row({s});  // absorbing
    } else {
      std::uint32_t rows = s % 7 == 0 ? 1 : 1 + rng() % 3;
      if (s % 97 == 13) rows = 40;
      for (std::uint32_t r = 0; r < rows; ++r) {
        std::uint32_t length = 1 + rng() % 3;
        if (s % 101 == 7 && r == 0) length = 33;  // longer than a warp
        for (std::uint32_t k = 0; k < length; ++k) {
          mdp.columns.push_back(k == 0 && s % 13 == 0 ? s : any(rng));  // some self-loops
          mdp.values.push_back(1.0 / length);
        }
        mdp.row_starts.push_back(mdp.columns.size());
      }
    }
    mdp.row_group_starts.push_back(mdp.row_starts.size() - 1);
  }
  if (n > 0) mdp.initial_states = {0};
  return mdp;
}

// n states, each with 1 to 3 rows of 1 to 3 successors (one row each for a chain), drawn
// from rng: small enough to check against brute force.
inline SparseMdp small_random_mdp(std::uint32_t n, bool chain, std::mt19937& rng) {
  std::vector<StateChoices> states(n);
  for (auto& choices : states) {
    const std::uint32_t rows = chain ? 1 : 1 + rng() % 3;
    for (std::uint32_t r = 0; r < rows; ++r) {
      Choice row;
      const std::uint32_t length = 1 + rng() % 3;
      for (std::uint32_t k = 0; k < length; ++k) row.emplace_back(rng() % n, 1.0 / length);
      choices.push_back(row);
    }
  }
  return make_mdp(states, {});
}

// Each of n bits set with probability p.
inline StateSet random_set(std::uint64_t n, double p, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::bernoulli_distribution bit(p);
  StateSet set(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    if (bit(rng)) set.set(i);
  }
  return set;
}

}  // namespace mdpvi::test
