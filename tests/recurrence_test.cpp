// P [ G F phi ] and [ F G phi ] on the model's own end components (engine/check/recurrence.h)
// against the general path through an automaton's product (engine/check/ltl.h), the
// reference: on random MDPs and DTMCs (self-loops, one-choice states, chains), each
// direction, phi an atom or a combination, negated or not, on each search backend (the
// GPU's where there is a device). Then the shapes read as recurrences and those that are
// not, and by hand through the property checker.
#include "engine/check/ltl.h"
#include "engine/check/property_checker.h"
#include "engine/check/recurrence.h"
#include "gpu/device_solver.h"
#include "io/property_parser.h"
#include "random_mdps.h"
#include "search_backends.h"
#include "test_models.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace mdpvi {
namespace {

using P = PathFormula;
constexpr SolverOptions kSound{Method::optimistic_value_iteration, {ConvergenceCriterion::absolute, 1e-10, 1000000}};
const DeviceOptions kCpu{SolverKind::cpu};

P infinitely_often(P phi) { return P::unary(P::Op::always, P::unary(P::Op::eventually, std::move(phi))); }
P eventually_forever(P phi) { return P::unary(P::Op::eventually, P::unary(P::Op::always, std::move(phi))); }
P negation(P f) { return P::unary(P::Op::negation, std::move(f)); }

// Each path compared: G F and F G of an atom and of combinations, and negations.
std::vector<P> recurrences() {
  const P a = P::atom(0), b = P::atom(1);
  const P a_not_b = P::binary(P::Op::conjunction, a, negation(b));
  const auto both = [](P f, P g) { return P::binary(P::Op::conjunction, std::move(f), std::move(g)); };
  const auto either = [](P f, P g) { return P::binary(P::Op::disjunction, std::move(f), std::move(g)); };
  return {infinitely_often(a),
          eventually_forever(a),
          negation(infinitely_often(b)),
          negation(eventually_forever(a_not_b)),
          infinitely_often(either(a, b)),
          eventually_forever(a_not_b),
          both(infinitely_often(a), infinitely_often(b)),
          negation(both(infinitely_often(a), infinitely_often(negation(b)))),
          either(eventually_forever(a), eventually_forever(b)),
          both(eventually_forever(either(a, b)), eventually_forever(negation(a))),
          either(infinitely_often(a), infinitely_often(b)),
          both(either(eventually_forever(a), eventually_forever(b)), eventually_forever(either(a, negation(b))))};
}

std::vector<StateSet> random_atoms(std::uint32_t n, std::mt19937& rng) {
  std::vector<StateSet> atoms(2, StateSet(n));
  for (StateSet& atom : atoms) {
    for (std::uint32_t s = 0; s < n; ++s) {
      if (rng() % 3 == 0) atom.set(s);
    }
  }
  return atoms;
}

double lower_at(const NumericResult& r, std::uint32_t s) { return r.lower.empty() ? r.values[s] : r.lower[s]; }
double upper_at(const NumericResult& r, std::uint32_t s) { return r.upper.empty() ? r.values[s] : r.upper[s]; }

// Every state's value within 1e-8 of the product's, and each interval meeting the other's.
void expect_as_each_other(const NumericResult& fast, const NumericResult& product, const std::string& what) {
  ASSERT_EQ(fast.values.size(), product.values.size()) << what;
  for (std::uint32_t s = 0; s < fast.values.size(); ++s) {
    EXPECT_NEAR(fast.values[s], product.values[s], 1e-8) << what << " state " << s;
    EXPECT_LE(lower_at(fast, s), upper_at(product, s) + 1e-12) << what << " state " << s;
    EXPECT_GE(upper_at(fast, s), lower_at(product, s) - 1e-12) << what << " state " << s;
  }
}

class RecurrenceIsEquivalentToRef : public ::testing::TestWithParam<graph::SearchKind> {
 protected:
  void SetUp() override {
    if (GetParam() == graph::SearchKind::gpu && !gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  }
};

// Every path of recurrences() both ways against the product: the values within 1e-8,
// each interval meeting the other's. Returns how many were compared.
int expect_as_the_product(const SparseMdp& mdp, const graph::SearchBackend& search, const std::vector<StateSet>& atoms,
                          const std::string& what) {
  int compared = 0;
  for (const P& f : recurrences()) {
    const std::optional<Recurrence> path = recurrence_of(f, atoms);
    EXPECT_TRUE(path) << what;
    if (!path) continue;
    for (Optimization direction : {Optimization::minimize, Optimization::maximize}) {
      const NumericResult fast = compute_recurrence_probabilities(mdp, search, direction, *path, kSound, kCpu);
      const NumericResult product = compute_ltl_probabilities(mdp, direction, f, atoms, kSound, kCpu);
      expect_as_each_other(fast, product, what);
      ++compared;
    }
  }
  return compared;
}

TEST_P(RecurrenceIsEquivalentToRef, OnRandomModels) {
  std::mt19937 rng(17);
  int compared = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const bool chain = trial % 3 == 0;
    const SparseMdp mdp = test::small_random_mdp(1 + trial % 9 + (trial % 5 == 0 ? 40 : 0), chain, rng);
    const std::vector<StateSet> atoms = random_atoms(mdp.num_states(), rng);
    const std::unique_ptr<graph::SearchBackend> search = graph::make_search_backend(mdp, GetParam());
    compared += expect_as_the_product(mdp, *search, atoms, "trial " + std::to_string(trial));
  }
  EXPECT_EQ(compared, 60 * 12 * 2);
}

// The same where the sets reach few states (some of random_mdp's absorbing states, a
// few others), so that the end components are looked for among what they reach.
TEST_P(RecurrenceIsEquivalentToRef, WhereTheSetsReachFewStates) {
  for (std::uint32_t n : {23u, 200u}) {
    const SparseMdp mdp = test::random_mdp(n, n);
    const std::unique_ptr<graph::SearchBackend> search = graph::make_search_backend(mdp, GetParam());
    std::vector<StateSet> atoms(2, StateSet(n));
    for (std::uint32_t s = n / 4; s < n; ++s) {
      if (s % 22 == 5) atoms[0].set(s);  // absorbing: random_mdp's every 11th past its chain
    }
    atoms[1] = atoms[0];
    atoms[1].set(n / 4 + 1);
    EXPECT_EQ(expect_as_the_product(mdp, *search, atoms, "n " + std::to_string(n)), 12 * 2);
  }
}

// Boolean combinations of G F and F G of both kinds (recurrence_union_of), both ways,
// against the product, on random MDPs and DTMCs (self-loops, one-choice states, chains)
// and each search backend: disjunctions, conjunctions (Streett-like terms), and both
// nested under negations.
TEST_P(RecurrenceIsEquivalentToRef, MixedRecurrencesOnRandomModels) {
  const P a = P::atom(0), b = P::atom(1);
  const auto both = [](P f, P g) { return P::binary(P::Op::conjunction, std::move(f), std::move(g)); };
  const auto either = [](P f, P g) { return P::binary(P::Op::disjunction, std::move(f), std::move(g)); };
  const std::vector<P> mixed = {
      either(eventually_forever(a), infinitely_often(b)),
      both(infinitely_often(a), eventually_forever(b)),
      either(either(infinitely_often(a), eventually_forever(negation(b))), infinitely_often(both(a, b))),
      both(both(eventually_forever(either(a, b)), infinitely_often(negation(a))), infinitely_often(b)),
      both(either(infinitely_often(a), eventually_forever(b)),
           either(infinitely_often(negation(a)), eventually_forever(negation(b)))),
      negation(either(both(infinitely_often(a), eventually_forever(negation(a))), eventually_forever(b))),
      both(infinitely_often(a), either(eventually_forever(a), eventually_forever(b)))};
  std::mt19937 rng(23);
  int compared = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const bool chain = trial % 3 == 0;
    const SparseMdp mdp = test::small_random_mdp(1 + trial % 9 + (trial % 5 == 0 ? 40 : 0), chain, rng);
    const std::vector<StateSet> atoms = random_atoms(mdp.num_states(), rng);
    const std::unique_ptr<graph::SearchBackend> search = graph::make_search_backend(mdp, GetParam());
    for (const P& f : mixed) {
      EXPECT_FALSE(recurrence_of(f, atoms));  // each mixes both kinds
      for (const Optimization direction : {Optimization::minimize, Optimization::maximize}) {
        const std::optional<RecurrenceUnion> path = recurrence_union_of(f, atoms, direction, chain);
        ASSERT_TRUE(path) << "trial " << trial;
        const NumericResult fast = compute_recurrence_union_probabilities(mdp, *search, *path, kSound, kCpu);
        const NumericResult product = compute_ltl_probabilities(mdp, direction, f, atoms, kSound, kCpu);
        expect_as_each_other(fast, product, "trial " + std::to_string(trial));
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 40 * 7 * 2);
  // Anything else beside them is not one: a state formula, an F.
  const std::vector<StateSet> atoms(2, StateSet(3));
  EXPECT_FALSE(recurrence_union_of(both(infinitely_often(a), b), atoms, Optimization::maximize, false));
  EXPECT_FALSE(recurrence_union_of(either(infinitely_often(a), P::unary(P::Op::eventually, b)), atoms,
                                   Optimization::minimize, false));
}

INSTANTIATE_TEST_SUITE_P(Backends, RecurrenceIsEquivalentToRef, test::every_search_backend(), test::search_backend_name);

TEST(Recurrence, ReadsGFAndFGOfStateFormulasOnly) {
  const StateSet a = test::random_set(5, 0.5, 1), b = test::random_set(5, 0.5, 2);
  const std::vector<StateSet> atoms{a, b};
  const std::optional<Recurrence> gf = recurrence_of(infinitely_often(P::atom(0)), atoms);
  ASSERT_TRUE(gf);
  EXPECT_EQ(gf->kind, Recurrence::Kind::infinitely_often);
  EXPECT_EQ(gf->sets, std::vector<StateSet>{a});
  const std::optional<Recurrence> not_fg = recurrence_of(negation(eventually_forever(P::atom(1))), atoms);
  ASSERT_TRUE(not_fg);
  EXPECT_EQ(not_fg->kind, Recurrence::Kind::infinitely_often);
  EXPECT_EQ(not_fg->sets, std::vector<StateSet>{~b});
  const std::optional<Recurrence> fg_or =
      recurrence_of(eventually_forever(P::binary(P::Op::disjunction, P::atom(0), negation(P::atom(1)))), atoms);
  ASSERT_TRUE(fg_or);
  EXPECT_EQ(fg_or->kind, Recurrence::Kind::eventually_forever);
  EXPECT_EQ(fg_or->sets, std::vector<StateSet>{a | ~b});
  const P gf_a = infinitely_often(P::atom(0)), gf_b = infinitely_often(P::atom(1));
  const std::optional<Recurrence> gf_and = recurrence_of(P::binary(P::Op::conjunction, gf_a, gf_b), atoms);
  ASSERT_TRUE(gf_and);
  EXPECT_EQ(gf_and->kind, Recurrence::Kind::infinitely_often);
  EXPECT_EQ(gf_and->sets, (std::vector<StateSet>{a, b}));
  const std::optional<Recurrence> gf_or = recurrence_of(P::binary(P::Op::disjunction, gf_a, gf_b), atoms);
  ASSERT_TRUE(gf_or);
  EXPECT_EQ(gf_or->sets, std::vector<StateSet>{a | b});
  const std::optional<Recurrence> fg_and = recurrence_of(
      P::binary(P::Op::conjunction, eventually_forever(P::atom(0)), eventually_forever(P::atom(1))), atoms);
  ASSERT_TRUE(fg_and);
  EXPECT_EQ(fg_and->kind, Recurrence::Kind::eventually_forever);
  EXPECT_EQ(fg_and->sets, std::vector<StateSet>{a & b});
  const std::optional<Recurrence> not_gf_and = recurrence_of(negation(P::binary(P::Op::conjunction, gf_a, gf_b)), atoms);
  ASSERT_TRUE(not_gf_and);
  EXPECT_EQ(not_gf_and->kind, Recurrence::Kind::eventually_forever);
  EXPECT_EQ(not_gf_and->sets, (std::vector<StateSet>{~a, ~b}));

  P bounded = infinitely_often(P::atom(0));
  bounded.operands[0].upper_bound = 0;  // G F<=k a
  for (const P& other : {P::unary(P::Op::eventually, P::atom(0)), infinitely_often(P::unary(P::Op::next, P::atom(0))),
                         eventually_forever(infinitely_often(P::atom(0))), bounded,
                         P::binary(P::Op::conjunction, infinitely_often(P::atom(0)), eventually_forever(P::atom(1))),
                         P::binary(P::Op::disjunction,
                                   P::binary(P::Op::conjunction, infinitely_often(P::atom(0)), infinitely_often(P::atom(1))),
                                   infinitely_often(P::atom(0))),
                         P::binary(P::Op::conjunction, infinitely_often(P::atom(0)), P::atom(1))}) {
    EXPECT_FALSE(recurrence_of(other, atoms));
  }
}

double number(const SparseMdp& mdp, const std::string& text) {
  io::PropertyEntry entry = io::parse_property(text, "p");
  const test::ReferenceSearch searched(mdp);
  CheckContext context{mdp, *searched.search, PropertyScope{"p", {}, {}, {}}, kSound, kCpu};
  return check_property(*entry.formula, context).value.number;
}

// The MDP: 0 chooses between 1 ("a", which returns to 0) and 2 (absorbing, not "a"): a
// scheduler that always picks 1 sees "a" infinitely often, one that picks 2 never
// again. The DTMC: 0 tosses a coin between 1 ("a", absorbing) and 2 (absorbing).
TEST(Recurrence, ByHandThroughTheChecker) {
  const SparseMdp mdp = test::make_mdp({{{{1, 1.0}}, {{2, 1.0}}}, {{{0, 1.0}}}, {{{2, 1.0}}}}, {{"a", {1}}});
  EXPECT_NEAR(number(mdp, "Pmax=? [ G F \"a\" ]"), 1.0, 1e-9);
  EXPECT_NEAR(number(mdp, "Pmin=? [ G F \"a\" ]"), 0.0, 1e-9);
  EXPECT_NEAR(number(mdp, "Pmax=? [ F G !\"a\" ]"), 1.0, 1e-9);
  EXPECT_NEAR(number(mdp, "Pmin=? [ F G !\"a\" ]"), 0.0, 1e-9);
  EXPECT_NEAR(number(mdp, "Pmax=? [ F G \"a\" ]"), 0.0, 1e-9);  // 1 always leaves "a"
  const SparseMdp chain = test::make_mdp({{{{1, 0.5}, {2, 0.5}}}, {{{1, 1.0}}}, {{{2, 1.0}}}}, {{"a", {1}}});
  EXPECT_NEAR(number(chain, "P=? [ G F \"a\" ]"), 0.5, 1e-9);
  EXPECT_NEAR(number(chain, "P=? [ F G \"a\" ]"), 0.5, 1e-9);
  EXPECT_NEAR(number(chain, "P=? [ !(G F \"a\") ]"), 0.5, 1e-9);
}

// Where "a" reaches few states, the end components are looked for among those alone
// (recurrence.cpp's meeting_candidates: at most half the model). 0 chooses between 1
// ("a", a loop), 10 ("a"), whose successors are the ring 2 .. 9 that never sees "a", and
// the ring 11 .. 40, which "a" does not reach. So what "a" reaches holds an end component
// that does not meet it, and the model one that "a" does not reach.
TEST(Recurrence, ByHandWhereTheSetReachesFewStates) {
  std::vector<test::StateChoices> states(41);
  states[0] = {{{1, 1.0}}, {{10, 1.0}}, {{11, 1.0}}};
  states[1] = {{{1, 1.0}}};
  for (std::uint32_t s = 2; s <= 9; ++s) states[s] = {{{s < 9 ? s + 1 : 2, 1.0}}};
  states[10] = {{{2, 1.0}}};
  for (std::uint32_t s = 11; s <= 40; ++s) states[s] = {{{s < 40 ? s + 1 : 11, 1.0}}};
  const SparseMdp mdp = test::make_mdp(states, {{"a", {1, 10}}});
  EXPECT_NEAR(number(mdp, "Pmax=? [ G F \"a\" ]"), 1.0, 1e-9);
  EXPECT_NEAR(number(mdp, "Pmin=? [ G F \"a\" ]"), 0.0, 1e-9);
  EXPECT_NEAR(number(mdp, "Pmax=? [ F G !\"a\" ]"), 1.0, 1e-9);
  std::vector<test::StateChoices> through(states);
  through[0] = {{{10, 1.0}}};  // only through "a" into the ring
  const SparseMdp ring = test::make_mdp(through, {{"a", {1, 10}}});
  EXPECT_NEAR(number(ring, "P=? [ G F \"a\" ]"), 0.0, 1e-9);
  EXPECT_NEAR(number(ring, "P=? [ F G !\"a\" ]"), 1.0, 1e-9);
  through[10] = {{{1, 1.0}}};  // now into the loop of "a"
  EXPECT_NEAR(number(test::make_mdp(through, {{"a", {1, 10}}}), "P=? [ G F \"a\" ]"), 1.0, 1e-9);
}

}  // namespace
}  // namespace mdpvi
