#pragma once
// Irreducible chains of the shapes that break parallel passes, each with a shuffled
// local order of its states: for the tests of a bottom SCC's chain on the cores
// (bottom_chain_test.cpp) and on the device (resident_chain_test.cpp).
#include "engine/model/sparse_mdp.h"
#include "test_models.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <vector>

namespace mdpvi::test {

// An irreducible chain of n states: a ring (each to the next), a few random other
// successors, self-loops on every fifth state, one state with 40 successors (a row
// longer than a warp) and every tenth state into state 1 (more predecessors than a
// warp, for long chains).
inline SparseMdp irreducible_chain(std::uint32_t n, std::uint32_t seed, bool ring_only = false) {
  std::mt19937 rng(seed);
  std::vector<StateChoices> states(n);
  for (std::uint32_t s = 0; s < n; ++s) {
    std::map<std::uint32_t, double> weights;
    weights[(s + 1) % n] += 2.0;
    if (s % 5 == 0) weights[s] += 1.0;
    if (!ring_only) {
      for (std::uint32_t k = 0; k < rng() % 3; ++k) weights[rng() % n] += 1.0 + rng() % 4;
      if (s % 10 == 3) weights[1 % n] += 0.5;
      if (s == n / 2) {
        for (std::uint32_t k = 0; k < 40; ++k) weights[(s + 7 * k + 3) % n] += 1.0;
      }
    }
    double total = 0.0;
    for (const auto& [t, w] : weights) total += w;
    Choice row;
    for (const auto& [t, w] : weights) row.emplace_back(t, w / total);
    states[s] = {row};
  }
  return make_mdp(states, {});
}

struct Shape {
  SparseMdp mdp;
  std::vector<std::uint32_t> states;  // a shuffled local order
  std::vector<std::uint32_t> local;
};

inline std::vector<Shape> shapes() {
  std::vector<Shape> out;
  std::uint32_t seed = 1;
  for (std::uint32_t n : {1u, 2u, 3u, 97u, 1031u, 5003u}) out.push_back({irreducible_chain(n, seed++), {}, {}});
  out.push_back({irreducible_chain(3000, seed++, /*ring_only=*/true), {}, {}});  // a long chain
  for (Shape& shape : out) {
    const std::uint32_t n = shape.mdp.num_states();
    shape.states.resize(n);
    std::iota(shape.states.begin(), shape.states.end(), 0u);
    std::shuffle(shape.states.begin(), shape.states.end(), std::mt19937(n));
    shape.local.assign(n, 0);
    for (std::uint32_t i = 0; i < n; ++i) shape.local[shape.states[i]] = i;
  }
  return out;
}

}  // namespace mdpvi::test
