// Pmin/Pmax end to end on models small enough to solve by hand.
#include "engine/check/reachability.h"
#include "graph/qualitative.h"
#include "graph/search_backend.h"
#include "engine/check/state_formula.h"
#include "random_mdps.h"
#include "test_models.h"

#include <gtest/gtest.h>

namespace mdpvi {
namespace {

using test::make_mdp;

SolverOptions tight() {
  SolverOptions options;
  options.stop.epsilon = 1e-12;
  options.stop.criterion = ConvergenceCriterion::absolute;
  options.stop.max_sweeps = 1000000;
  return options;
}

double probability(const SparseMdp& mdp, Optimization direction, const std::string& target,
                   std::uint32_t state = 0, const std::string& through = "") {
  auto g = graph::build_choice_predecessor_graph(mdp);
  auto search = graph::make_search_backend(mdp, g, graph::SearchKind::reference);
  PropertyScope scope{"test", {}, {}, {}};
  StateSet phi = through.empty() ? ~StateSet(mdp.num_states()) : evaluate_state_formula(Expression::label(through), mdp, scope);
  StateSet psi = evaluate_state_formula(Expression::label(target), mdp, scope);
  return compute_until_probabilities(mdp, *search, direction, phi, psi, tight()).values[state];
}

TEST(KnuthYaoDie, EveryFaceHasProbabilityOneSixth) {
  SparseMdp die = test::knuth_yao_die();
  for (const char* face : {"one", "two", "three", "four", "five", "six"}) {
    EXPECT_NEAR(probability(die, Optimization::minimize, face), 1.0 / 6, 1e-11) << face;
    EXPECT_NEAR(probability(die, Optimization::maximize, face), 1.0 / 6, 1e-11) << face;
  }
  EXPECT_EQ(probability(die, Optimization::minimize, "done"), 1.0);  // Prob1A, no iteration
}

// A state that stays put with probability 1 - 1e-13 and otherwise reaches the goal or
// fails, evenly: the value is 1/2, but after 10,000 sweeps from 0 value iteration has
// 5e-10 and is still changing by 1e-4 relative. That is an error, not an answer, and
// the error keeps the computation's summary for the report.
TEST(SlowLeak, StoppingAtMaxItersIsAnErrorNotAResult) {
  SparseMdp mdp = make_mdp({{{{0, 1.0 - 1e-13}, {1, 0.5e-13}, {2, 0.5e-13}}}, {{{1, 1.0}}}, {{{2, 1.0}}}}, {{"goal", {1}}});
  auto g = graph::build_choice_predecessor_graph(mdp);
  auto search = graph::make_search_backend(mdp, g, graph::SearchKind::reference);
  PropertyScope scope{"test", {}, {}, {}};
  StateSet goal = evaluate_state_formula(Expression::label("goal"), mdp, scope);
  SolverOptions options;  // the defaults: relative 1e-6, 10,000 sweeps
  options.stop.max_sweeps = 10000;
  try {
    compute_until_probabilities(mdp, *search, Optimization::maximize, ~StateSet(mdp.num_states()), goal, options);
    FAIL() << "a value came back";
  } catch (const NotConvergedError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("did not converge within 10000 iterations per SCC"), std::string::npos) << message;
    // On the CPU "value iteration ... on an SCC of 1 states", on the GPU "GPU value
    // iteration ... on a chunk of 1 states".
    EXPECT_NE(message.find("value iteration stopped after 10000 iterations on a"), std::string::npos) << message;
    EXPECT_FALSE(error.summary().solve.stats.converged);
    EXPECT_EQ(error.summary().solve.stats.unconverged, 1u);
    EXPECT_EQ(error.summary().qualitative.maybe, 1u);
    EXPECT_TRUE(error.summary().values.empty());
  }
}

// Three states, two choices in the first: a goes to the goal surely, b only half the time.
TEST(ThreeStates, MinAndMaxPickDifferentChoices) {
  SparseMdp mdp = make_mdp({{{{1, 1.0}}, {{1, 0.5}, {2, 0.5}}}, {{{1, 1.0}}}, {{{2, 1.0}}}}, {{"goal", {1}}});
  EXPECT_EQ(probability(mdp, Optimization::maximize, "goal"), 1.0);
  EXPECT_EQ(probability(mdp, Optimization::minimize, "goal"), 0.5);
}

// Choice a loops back with 1/2 and reaches the goal with 1/4: its value solves
// x = x/2 + 1/4, so 1/2. Choice b reaches the goal with 0.6 at once.
TEST(LoopingChoice, ValueIterationFindsTheFixedPoint) {
  SparseMdp mdp = make_mdp({{{{0, 0.5}, {1, 0.25}, {2, 0.25}}, {{1, 0.6}, {2, 0.4}}}, {{{1, 1.0}}}, {{{2, 1.0}}}},
                           {{"goal", {1}}});
  EXPECT_NEAR(probability(mdp, Optimization::minimize, "goal"), 0.5, 1e-11);
  EXPECT_NEAR(probability(mdp, Optimization::maximize, "goal"), 0.6, 1e-11);
}

// State 0 may loop on itself forever (a) or gamble (b). The loop has the largest
// value of the fixed-point equations that 1 satisfies for it, yet never reaches the
// goal: Pmax is 1/2, not 1, and Pmin is 0.
TEST(EndComponent, MaxIsNotFooledByASelfLoop) {
  SparseMdp mdp = make_mdp({{{{0, 1.0}}, {{1, 0.5}, {2, 0.5}}}, {{{1, 1.0}}}, {{{2, 1.0}}}}, {{"goal", {1}}});
  EXPECT_EQ(probability(mdp, Optimization::maximize, "goal"), 0.5);
  EXPECT_EQ(probability(mdp, Optimization::minimize, "goal"), 0.0);
}

// phi U psi: leaving phi before psi counts as failure.
TEST(Until, PathsThatLeavePhiDoNotCount) {
  SparseMdp mdp = make_mdp({{{{1, 0.5}, {2, 0.5}}}, {{{3, 1.0}}}, {{{3, 1.0}}}, {{{3, 1.0}}}},
                           {{"goal", {3}}, {"safe", {0, 2}}});
  EXPECT_EQ(probability(mdp, Optimization::maximize, "goal", 0, "safe"), 0.5);
  EXPECT_EQ(probability(mdp, Optimization::maximize, "goal", 0), 1.0);
}

TEST(StateFormula, UnknownLabelIsAnError) {
  SparseMdp die = test::knuth_yao_die();
  EXPECT_THROW(evaluate_state_formula(Expression::label("seven"), die, PropertyScope{"test", {}, {}, {}}), LocatedError);
}

// Boolean combinations of labels go over the label sets' words (engine/check/
// state_formula.cpp); the same expression under "? true : false", which only the
// per-state interpreter evaluates, is the reference. Odd size, nested forms.
TEST(StateFormula, LabelLogicIsEquivalentToRef) {
  using Op = Expression::Op;
  const std::uint32_t n = 1001;
  SparseMdp mdp = test::random_mdp(n, 7);
  for (const char* name : {"a", "b", "c"}) {
    mdp.labels.push_back({name, test::random_set(n, 0.4, static_cast<std::uint32_t>(mdp.labels.size() + 3))});
  }
  const auto a = Expression::label("a"), b = Expression::label("b"), c = Expression::label("c");
  const auto op = [](Op o, std::vector<Expression> operands) { return Expression::operation(o, std::move(operands)); };
  const std::vector<Expression> cases = {
      a,
      op(Op::logical_not, {a}),
      op(Op::logical_and, {op(Op::logical_and, {a, op(Op::logical_not, {b})}), c}),
      op(Op::logical_or, {a, b}),
      op(Op::implies, {op(Op::logical_and, {a, b}), c}),
      op(Op::iff, {a, op(Op::logical_or, {b, Expression::boolean(false)})}),
      op(Op::logical_and, {Expression::boolean(true), op(Op::logical_not, {c})}),
  };
  const PropertyScope scope{"test", {}, {}, {}};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Expression by_states = op(Op::conditional, {cases[i], Expression::boolean(true), Expression::boolean(false)});
    EXPECT_EQ(evaluate_state_formula(cases[i], mdp, scope), evaluate_state_formula(by_states, mdp, scope)) << "case " << i;
  }
}

}  // namespace
}  // namespace mdpvi
