#pragma once
// Reduced ordered binary decision diagrams over numbered variables: the canonical form
// the LTL automata keep their formulas in (engine/automata/ltl_formula.h), so that two
// propositionally equal formulas are one automaton state, and tt and ff are seen at
// once. The formulas have tens of variables and the diagrams tens of nodes; a general
// package (BuDDy, CUDD) would bring global state and its own memory manager for that.
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

namespace mdpvi::automata {

// A node of a Bdd: 0 is false, 1 is true, others index its node table.
using BddRef = std::uint32_t;
constexpr BddRef kFalse = 0;
constexpr BddRef kTrue = 1;

class Bdd {
 public:
  Bdd();

  // The function that is variable v (variables are ordered by number).
  BddRef variable(std::uint32_t v);
  BddRef negation(BddRef f);
  BddRef conjunction(BddRef f, BddRef g);
  BddRef disjunction(BddRef f, BddRef g);
  // if f then g else h.
  BddRef ite(BddRef f, BddRef g, BddRef h);

  // f with each variable v replaced by the function substitute(v) (called at most once a
  // variable per call).
  BddRef compose(BddRef f, const std::function<BddRef(std::uint32_t)>& substitute);

  // The variables f depends on, in increasing order.
  std::vector<std::uint32_t> support(BddRef f) const;

  bool is_constant(BddRef f) const { return f <= kTrue; }
  std::uint32_t top_variable(BddRef f) const { return nodes_[f].variable; }
  BddRef high(BddRef f) const { return nodes_[f].high; }
  BddRef low(BddRef f) const { return nodes_[f].low; }

 private:
  struct Node {
    std::uint32_t variable;
    BddRef low, high;
  };
  struct Triple {
    std::uint64_t a, b;
    bool operator==(const Triple&) const = default;
  };
  struct TripleHash {
    std::size_t operator()(const Triple& t) const { return std::hash<std::uint64_t>()(t.a * 0x9E3779B97F4A7C15ull ^ t.b); }
  };

  BddRef make(std::uint32_t variable, BddRef low, BddRef high);
  std::uint32_t level(BddRef f) const { return is_constant(f) ? UINT32_MAX : nodes_[f].variable; }
  BddRef cofactor(BddRef f, std::uint32_t variable, bool value) const;

  std::vector<Node> nodes_;
  std::unordered_map<Triple, BddRef, TripleHash> unique_;  // (variable, low, high) -> node
  std::unordered_map<Triple, BddRef, TripleHash> ite_cache_;
};

}  // namespace mdpvi::automata
