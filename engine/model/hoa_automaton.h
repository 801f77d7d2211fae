#pragma once
// A deterministic ω-automaton as a HOA file ("Hanoi Omega-Automata" format, v1: Babiak
// et al., CAV 2015) gives it, for PRISM's  P [ HOA: { "file", "ap" <- expr, ... } ]:
// io/hoa_reader.h reads it, engine/automata/hoa_path_automaton.h makes it a product's
// automaton. Edges carry a label over the atomic propositions and, with the states,
// acceptance sets; the acceptance condition is a Boolean formula over Fin and Inf of
// those sets (Emerson-Lei), so Büchi, Rabin, Streett and parity conditions all fit.
#include <cstdint>
#include <string>
#include <vector>

namespace mdpvi {

struct HoaAutomaton {
  // A node of a label (over propositions) or of the acceptance formula (over sets).
  struct Node {
    enum class Op : std::uint8_t { truth, falsity, proposition, fin, inf, negation, conjunction, disjunction };
    Op op = Op::truth;
    std::uint32_t index = 0;         // proposition: its number; fin, inf: the set's number
    bool complemented_set = false;   // fin, inf: Fin(!n) or Inf(!n), the set's complement
    std::uint32_t left = 0, right = 0;  // negation: left; conjunction, disjunction: both (node numbers)
  };
  struct Edge {
    std::uint32_t label = 0;   // a node of labels
    std::uint32_t target = 0;
    std::uint64_t sets = 0;    // bit n: the edge is in acceptance set n
  };

  std::string source;  // the file, for errors
  std::uint32_t start = 0;
  std::vector<std::string> propositions;  // AP: in order; at most 64
  std::uint32_t acceptance_sets = 0;      // at most 64
  std::vector<Node> labels;               // the edges' labels share these nodes
  std::vector<Node> acceptance_nodes;
  std::uint32_t acceptance = 0;           // the acceptance formula's root, in acceptance_nodes
  std::vector<std::vector<Edge>> edges;   // per state, in the file's order
  std::vector<std::uint64_t> state_sets;  // per state: the sets it is in (state-based acceptance)

  std::uint32_t num_states() const { return static_cast<std::uint32_t>(edges.size()); }
};

}  // namespace mdpvi
