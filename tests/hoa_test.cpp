// Issue 42: PRISM's HOA: { "file", ... } paths. The reader's automata and errors
// (io/hoa_reader.h); a HOA automaton as a product's automaton
// (engine/automata/hoa_path_automaton.h) against a direct run of the automaton on
// lasso words, and against the same paths in LTL on random models.
#include "engine/check/ltl.h"
#include "engine/model/hoa_automaton.h"
#include "engine/solve/chunk_driver.h"
#include "io/hoa_reader.h"
#include "io/parse_error.h"
#include "random_mdps.h"
#include "test_models.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <string>

namespace mdpvi {
namespace {

using Node = HoaAutomaton::Node;
using P = PathFormula;
constexpr SolverOptions kSound{Method::optimistic_value_iteration, {ConvergenceCriterion::absolute, 1e-10, 1000000}};
const DeviceOptions kCpu{SolverKind::cpu};

HoaAutomaton read(const std::string& text) { return io::read_hoa(io::TextFile::from_string("f.hoa", text)); }

// Infinitely often a (propositions a, then b): state-based Büchi.
const char* const kInfinitelyOftenA = R"(HOA: v1
States: 2 Start: 0 AP: 2 "a" "b" Acceptance: 1 Inf(0)
--BODY--
State: 0 [!0] 0 [0] 1
State: 1 {0} [!0] 0 [0] 1
--END--
)";

// Every a followed by b: no edge where the b is missing (the run ends), all runs accept.
const char* const kEveryAThenB = R"(HOA: v1
States: 2 Start: 0 AP: 2 "a" "b" Acceptance: 0 t
--BODY--
State: 0 [!0] 0 [0] 1
State: 1 [1&0] 1 [1&!0] 0
--END--
)";

TEST(HoaReader, ReadsStatesEdgesAndSets) {
  const HoaAutomaton a = read(R"(HOA: v1
name: "x" tool: "by hand" "1" /* a comment */ properties: deterministic
States: 3
Start: 2
AP: 2 "p" "q"
acc-name: Rabin 1
Acceptance: 2 (Fin(0) & Inf(!1)) | t
--BODY--
State: 0 "zero" {1}
[t] 0
State: 2
[0 & !1] 0 {0 1}
[!(0 & !1)] 2
--END--
)");
  EXPECT_EQ(a.num_states(), 3u);
  EXPECT_EQ(a.start, 2u);
  EXPECT_EQ(a.propositions, (std::vector<std::string>{"p", "q"}));
  EXPECT_EQ(a.acceptance_sets, 2u);
  EXPECT_EQ(a.state_sets[0], 2u);
  ASSERT_EQ(a.edges[2].size(), 2u);
  EXPECT_EQ(a.edges[2][0].sets, 3u);
  EXPECT_EQ(a.edges[2][1].target, 2u);
  EXPECT_TRUE(a.edges[1].empty());  // declared, never defined: no edge
  EXPECT_EQ(a.acceptance_nodes[a.acceptance].op, Node::Op::disjunction);
}

TEST(HoaReader, ErrorsNameLineAndColumn) {
  const std::map<std::string, std::string> cases = {
      {"HOA: v1\nStates: 1\nStart: 0\nAcceptance: 0 t\n--BODY--\nState: 0 [t] 3\n--END--\n",
       "f.hoa:6:14: the edge's target 3 is not a state"},
      {"HOA: v1\nStart: 0\nStart: 1\n", "f.hoa:3:1: not deterministic: more than one Start state"},
      {"HOA: v1\nStart: 0 & 1\n", "f.hoa:2:10: not supported: a conjunction of start states"},
      {"HOA: v1\nStart: 0\nAP: 1 \"a\"\nAcceptance: 1 Inf(0)\n--BODY--\nState: 0 [0] 0 & 0\n--END--\n",
       "f.hoa:6:16: not supported: a conjunction of targets"},
      {"HOA: v1\nStart: 0\nAcceptance: 1 Inf(1)\n", "f.hoa:3:19: acceptance set 1 is not among the 1 declared"},
      {"HOA: v1\nStart: 0\nAP: 1 \"a\"\nAcceptance: 1 Inf(0)\n--BODY--\nState: 0 0\n--END--\n",
       "f.hoa:6:10: not supported: an edge without a label"},
      {"HOA: v1\nAlias: @a 0\n", "f.hoa:2:1: not supported: aliases"},
      {"HOA: v1\nStart: 0\nAP: 1 \"a\"\nAcceptance: 0 t\n--BODY--\nState: 0 [1] 0\n--END--\n",
       "f.hoa:6:11: proposition 1 is not among the 1 declared"},
      {"HOA: v1\nStart: 0\nAcceptance: 0 t\n--BODY--\nState: 0 [t] 0\n", "f.hoa:5: expected --END--, found the end of the file"},
      {"States: 1\n", "f.hoa:1:1: expected \"HOA:\""},
      {"HOA: v1\nStart: 0\nAcceptance: 0 t\n--BODY--\nState: 0 [t] 0\n--ABORT--\n", "f.hoa:6:1: the automaton's writer aborted it"},
      {"HOA: v1\nStart: 0\nAcceptance: 2 Inf(0) &\n--BODY--\n", "f.hoa:4:1: expected Fin(n), Inf(n), t, f"},
      {"HOA: v1\nStart: 0 %\n", "f.hoa:2:10: expected a token of the HOA format, found \"%\""},
  };
  for (const auto& [text, expected] : cases) {
    try {
      read(text);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const io::ParseError& error) {
      EXPECT_EQ(std::string(error.what()).rfind(expected, 0), 0u) << error.what() << "\nexpected: " << expected;
    }
  }
}

// A path of the automaton over state formulas 0 and 1 (its propositions in order),
// negated where asked.
P automaton_path(std::shared_ptr<const HoaAutomaton> a, bool negated) {
  P node;
  node.op = P::Op::automaton;
  node.automaton = std::move(a);
  node.operands = {P::atom(0), P::atom(1)};
  return negated ? P::unary(P::Op::negation, node) : node;
}

std::uint32_t add(std::vector<Node>& nodes, Node n) {
  nodes.push_back(n);
  return static_cast<std::uint32_t>(nodes.size() - 1);
}

std::uint32_t random_acceptance(std::vector<Node>& nodes, std::mt19937& rng, int depth, std::uint32_t sets) {
  switch (depth == 0 ? rng() % 3 : rng() % 6) {
    case 0: return add(nodes, {Node::Op::fin, static_cast<std::uint32_t>(rng() % sets), rng() % 4 == 0});
    case 1: return add(nodes, {Node::Op::inf, static_cast<std::uint32_t>(rng() % sets), rng() % 4 == 0});
    case 2: return add(nodes, {rng() % 2 ? Node::Op::truth : Node::Op::falsity});
    case 3: return add(nodes, {Node::Op::negation, 0, false, random_acceptance(nodes, rng, depth - 1, sets)});
    default: {
      const std::uint32_t l = random_acceptance(nodes, rng, depth - 1, sets), r = random_acceptance(nodes, rng, depth - 1, sets);
      return add(nodes, {rng() % 2 ? Node::Op::conjunction : Node::Op::disjunction, 0, false, l, r});
    }
  }
}

// A deterministic automaton over two propositions: per state one edge per letter (its
// minterm), some left out; acceptance sets on edges and on states.
HoaAutomaton random_automaton(std::mt19937& rng) {
  HoaAutomaton a;
  a.source = "random";
  a.propositions = {"a", "b"};
  a.acceptance_sets = 3;
  const std::uint32_t states = 1 + rng() % 4;
  a.edges.resize(states);
  a.state_sets.resize(states);
  std::uint32_t literal[2][2];
  for (std::uint32_t p = 0; p < 2; ++p) {
    literal[p][1] = add(a.labels, {Node::Op::proposition, p});
    literal[p][0] = add(a.labels, {Node::Op::negation, 0, false, literal[p][1]});
  }
  for (std::uint32_t q = 0; q < states; ++q) {
    a.state_sets[q] = rng() % 3 == 0 ? rng() % 8 : 0;
    for (std::uint32_t letter = 0; letter < 4; ++letter) {
      if (rng() % 10 == 0) continue;  // no edge: the run ends here
      const std::uint32_t label =
          add(a.labels, {Node::Op::conjunction, 0, false, literal[0][letter & 1], literal[1][(letter >> 1) & 1]});
      a.edges[q].push_back({label, static_cast<std::uint32_t>(rng() % states), rng() % 8});
    }
  }
  a.start = rng() % states;
  a.acceptance = random_acceptance(a.acceptance_nodes, rng, 1 + rng() % 3, 3);
  return a;
}

// A lasso: positions 0..n-1, each to the next, the last back to loop_start.
struct Lasso {
  std::vector<std::uint64_t> letters;
  std::uint32_t loop_start = 0;
  std::uint32_t next(std::uint32_t i) const { return i + 1 < letters.size() ? i + 1 : loop_start; }
};

bool acceptance_holds(const HoaAutomaton& a, std::uint32_t node, std::uint64_t met, std::uint64_t missed) {
  const Node& n = a.acceptance_nodes[node];
  const std::uint64_t bit = std::uint64_t{1} << n.index;
  switch (n.op) {
    case Node::Op::truth: return true;
    case Node::Op::falsity: return false;
    case Node::Op::inf: return ((n.complemented_set ? missed : met) & bit) != 0;
    case Node::Op::fin: return ((n.complemented_set ? missed : met) & bit) == 0;
    case Node::Op::negation: return !acceptance_holds(a, n.left, met, missed);
    case Node::Op::conjunction: return acceptance_holds(a, n.left, met, missed) && acceptance_holds(a, n.right, met, missed);
    default: return acceptance_holds(a, n.left, met, missed) || acceptance_holds(a, n.right, met, missed);
  }
}

// The reference: the automaton's own run on the word (its letters' bits are the
// propositions), accepted where it never ends and the sets of the steps it takes
// infinitely often (met: some step in the set; missed: some step outside it) satisfy
// the acceptance formula.
bool accepts(const HoaAutomaton& a, const Lasso& w) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> seen;  // (state, position) -> step
  std::vector<std::uint64_t> step_sets;
  std::uint32_t q = a.start, i = 0;
  while (!seen.count({q, i})) {
    seen[{q, i}] = step_sets.size();
    const HoaAutomaton::Edge* taken = nullptr;
    for (const HoaAutomaton::Edge& e : a.edges[q]) {
      const Node& label = a.labels[e.label];
      const auto lit = [&](std::uint32_t node) {
        const Node& l = a.labels[node];
        return l.op == Node::Op::proposition ? ((w.letters[i] >> l.index) & 1) != 0
                                             : ((w.letters[i] >> a.labels[l.left].index) & 1) == 0;
      };
      if (lit(label.left) && lit(label.right)) taken = &e;
    }
    if (!taken) return false;
    step_sets.push_back(taken->sets | a.state_sets[taken->target]);
    q = taken->target;
    i = w.next(i);
  }
  std::uint64_t met = 0, missed = 0;
  for (std::size_t k = seen[{q, i}]; k < step_sets.size(); ++k) {
    met |= step_sets[k];
    missed |= ~step_sets[k] & 7u;
  }
  return acceptance_holds(a, a.acceptance, met, missed);
}

std::vector<StateSet> atom_sets(const std::vector<std::uint64_t>& letters) {
  std::vector<StateSet> sets(2, StateSet(letters.size()));
  for (std::size_t s = 0; s < letters.size(); ++s) {
    for (std::uint32_t p = 0; p < 2; ++p) {
      if ((letters[s] >> p) & 1) sets[p].set(s);
    }
  }
  return sets;
}

TEST(HoaPathAutomaton, LassoWordsAreAcceptedAsByTheAutomatonIsEquivalentToRef) {
  std::mt19937 rng(5);
  int accepted = 0, rejected = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const auto a = std::make_shared<const HoaAutomaton>(random_automaton(rng));
    Lasso w;
    const std::uint32_t length = 1 + rng() % 6;
    for (std::uint32_t i = 0; i < length; ++i) w.letters.push_back(rng() % 4);
    w.loop_start = rng() % length;
    std::vector<test::StateChoices> states;
    for (std::uint32_t i = 0; i < length; ++i) states.push_back({{{w.next(i), 1.0}}});
    const SparseMdp chain = test::make_mdp(states, {});
    const std::vector<StateSet> atoms = atom_sets(w.letters);
    const bool expected = accepts(*a, w);
    (expected ? accepted : rejected)++;
    for (const bool negated : {false, true}) {
      const P path = automaton_path(a, negated);
      const bool holds = expected != negated;
      EXPECT_EQ(exists_ltl_path(chain, path, atoms).test(0), holds) << "trial " << trial << " negated " << negated;
      for (const Optimization direction : {Optimization::minimize, Optimization::maximize}) {
        const NumericResult p = compute_ltl_probabilities(chain, direction, path, atoms, kSound, kCpu);
        EXPECT_NEAR(p.values[0], holds ? 1.0 : 0.0, 1e-9) << "trial " << trial << " negated " << negated;
      }
    }
  }
  EXPECT_GT(accepted, 100);  // both answers are exercised
  EXPECT_GT(rejected, 100);
}

// The automata above against their paths in LTL, G F a and G (a => X b), on random
// chains and MDPs, either way, negated and not.
TEST(HoaPathAutomaton, RandomModelsAgreeWithTheSamePathInLtl) {
  const auto infinitely_often = std::make_shared<const HoaAutomaton>(read(kInfinitelyOftenA));
  const auto every_a_then_b = std::make_shared<const HoaAutomaton>(read(kEveryAThenB));
  const P gf_a = P::unary(P::Op::always, P::unary(P::Op::eventually, P::atom(0)));
  const P a_then_b = P::unary(P::Op::always, P::binary(P::Op::disjunction, P::unary(P::Op::negation, P::atom(0)),
                                                       P::unary(P::Op::next, P::atom(1))));
  std::mt19937 rng(9);
  for (int trial = 0; trial < 60; ++trial) {
    const SparseMdp mdp = test::small_random_mdp(3 + trial % 6, trial % 2 == 0, rng);
    std::vector<std::uint64_t> letters(mdp.num_states());
    for (auto& l : letters) l = rng() % 4;
    const std::vector<StateSet> atoms = atom_sets(letters);
    for (const auto& [automaton, ltl] : {std::pair{infinitely_often, gf_a}, std::pair{every_a_then_b, a_then_b}}) {
      for (const bool negated : {false, true}) {
        const P by_ltl = negated ? P::unary(P::Op::negation, ltl) : ltl;
        for (const Optimization direction : {Optimization::minimize, Optimization::maximize}) {
          const NumericResult hoa =
              compute_ltl_probabilities(mdp, direction, automaton_path(automaton, negated), atoms, kSound, kCpu);
          const NumericResult expected = compute_ltl_probabilities(mdp, direction, by_ltl, atoms, kSound, kCpu);
          for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
            EXPECT_NEAR(hoa.values[s], expected.values[s], 1e-8) << "trial " << trial << " state " << s;
          }
        }
      }
    }
  }
}

TEST(HoaPathAutomaton, TwoEdgesTakingALetterAreRefused) {
  const auto a = std::make_shared<const HoaAutomaton>(read(R"(HOA: v1
Start: 0 AP: 2 "a" "b" Acceptance: 1 Inf(0)
--BODY--
State: 0 [0] 0 {0} [1] 0
--END--
)"));
  const SparseMdp chain = test::make_mdp({{{{0, 1.0}}}}, {});
  StateSet both(1);
  both.set(0);
  try {
    compute_ltl_probabilities(chain, Optimization::maximize, automaton_path(a, false), {both, both}, kSound, kCpu);
    ADD_FAILURE() << "a letter taken by two edges was accepted";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("f.hoa: the automaton is not deterministic: state 0"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace mdpvi
