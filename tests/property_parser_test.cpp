#include "io/property_parser.h"

#include <gtest/gtest.h>

namespace mdpvi {
namespace {

using Op = Expression::Op;
using Kind = Expression::Kind;
using Path = TemporalOperator::Path;

// The property's tree, failing the test with the parser's message when there is none.
Formula parsed(const std::string& text) {
  io::PropertyEntry entry = io::parse_property(text, "p");
  EXPECT_TRUE(entry.formula) << text << ": " << entry.error;
  return entry.formula ? *entry.formula : Formula{};
}

const Expression& left(const Formula& f) { return f.operands.at(0).expression; }
const Expression& right(const Formula& f) { return f.operands.at(1).expression; }

TEST(ParseProperty, ReadsEventuallyWithLabels) {
  io::PropertyEntry entry = io::parse_property("Pmin=? [ F \"finished\"&\"all_coins_equal_0\" ]", "p");
  ASSERT_TRUE(entry.formula) << entry.error;
  const Formula& f = *entry.formula;
  ASSERT_EQ(f.kind, Formula::Kind::temporal);
  EXPECT_EQ(f.temporal.kind, TemporalOperator::Kind::probability);
  EXPECT_EQ(f.temporal.direction, Optimization::minimize);
  EXPECT_FALSE(f.temporal.comparison);
  EXPECT_FALSE(f.temporal.step_bound);
  EXPECT_TRUE(left(f).is_true_literal());
  EXPECT_EQ(right(f).op, Op::logical_and);
  EXPECT_EQ(right(f).operands[1].kind, Kind::label);
  EXPECT_EQ(right(f).operands[1].name, "all_coins_equal_0");
  EXPECT_EQ(entry.text, "Pmin=? [ F \"finished\"&\"all_coins_equal_0\" ]");
}

TEST(ParseProperty, ReadsUntilWithPrecedence) {
  Formula f = parsed("Pmax=? [ !\"a\" | \"b\" & \"c\" U (\"d\" | false) ]");
  EXPECT_EQ(f.temporal.direction, Optimization::maximize);
  ASSERT_EQ(left(f).op, Op::logical_or);  // (!a) | (b & c)
  EXPECT_EQ(left(f).operands[0].op, Op::logical_not);
  EXPECT_EQ(left(f).operands[1].op, Op::logical_and);
  EXPECT_EQ(right(f).op, Op::logical_or);
}

TEST(ParseProperty, ImplicationBindsLooserThanOr) {
  Formula f = parsed("Pmax=? [ F \"a\" | \"b\" => \"c\" <=> \"d\" ]");
  EXPECT_EQ(right(f).op, Op::iff);
  EXPECT_EQ(right(f).operands[0].op, Op::implies);
}

TEST(ParseProperty, ReadsStepBounds) {
  Formula f = parsed("Pmin=? [ F<=k \"finished\" ]");
  ASSERT_TRUE(f.temporal.step_bound);
  EXPECT_EQ(f.temporal.step_bound->name, "k");
  Formula g = parsed("P=? [ \"a\" U<(L*(N+1)) \"b\" ]");  // <k is stored as <=k-1
  ASSERT_TRUE(g.temporal.step_bound);
  EXPECT_EQ(g.temporal.step_bound->op, Op::subtract);
  EXPECT_FALSE(g.temporal.direction);
  Formula h = parsed("Pmax=? [ F<=10 (x=1) ]");  // not a call of "10"
  EXPECT_EQ(h.temporal.step_bound->value, 10.0);
  EXPECT_EQ(right(h).op, Op::equal);
}

TEST(ParseProperty, ReadsRewardOperators) {
  Formula named = parsed("R{\"steps\"}min=? [ F \"finished\" ]");
  EXPECT_EQ(named.temporal.kind, TemporalOperator::Kind::reward);
  EXPECT_EQ(named.temporal.path, Path::reachability_reward);
  EXPECT_EQ(named.temporal.reward_name, "steps");
  EXPECT_EQ(named.temporal.direction, Optimization::minimize);
  Formula indexed = parsed("R{2}max=? [ C<=5 ]");
  ASSERT_TRUE(indexed.temporal.reward_index);
  EXPECT_EQ(indexed.temporal.path, Path::cumulative_reward);
  EXPECT_EQ(indexed.temporal.step_bound->value, 5.0);
  Formula plain = parsed("Rmax=? [ I=3 ]");
  EXPECT_FALSE(plain.temporal.reward_name);
  EXPECT_EQ(plain.temporal.path, Path::instantaneous_reward);
  Formula bounded = parsed("R<=4.5 [ F \"done\" ]");
  EXPECT_EQ(bounded.temporal.comparison, Comparison::less_equal);
  EXPECT_EQ(bounded.temporal.threshold.value, 4.5);
}

// {discount=d} after C and F (PRISM's discounted rewards); an older filter's {...}
// after the path is still that.
TEST(ParseProperty, ReadsDiscounts) {
  Formula total = parsed("R{\"r\"}max=? [ C{discount=0.9} ]");
  EXPECT_EQ(total.temporal.path, Path::total_reward);
  ASSERT_TRUE(total.temporal.discount);
  EXPECT_EQ(total.temporal.discount->value, 0.9);
  Formula bounded = parsed("Rmin=? [ C{discount=d/2}<=3 ]");
  EXPECT_EQ(bounded.temporal.path, Path::cumulative_reward);
  ASSERT_TRUE(bounded.temporal.discount && bounded.temporal.step_bound);
  EXPECT_EQ(bounded.temporal.discount->op, Op::divide);
  EXPECT_EQ(bounded.temporal.step_bound->value, 3.0);
  Formula reach = parsed("R=? [ F{discount=0.5} \"done\" ]");
  EXPECT_EQ(reach.temporal.path, Path::reachability_reward);
  ASSERT_TRUE(reach.temporal.discount);
  EXPECT_EQ(reach.operands.at(0).expression.name, "done");
  EXPECT_FALSE(parsed("R=? [ F \"done\" ]").temporal.discount);
  EXPECT_EQ(parsed("R=? [ C {\"init\"}{max} ]").filter, FilterOp::max);
  EXPECT_FALSE(io::parse_property("R=? [ C{discount 0.9} ]", "p").formula);
  // A discount on a co-safe LTL path is that property's own error (PRISM's too), not a
  // parse error that would leave the rest of its file unread.
  for (const char* text : {"R=? [ F{discount=0.9} X (s=1) ]", "R=? [ F{discount=0.9} (X s=1) ]"}) {
    const io::PropertyEntry entry = io::parse_property(text, "p");
    EXPECT_TRUE(entry.unsupported) << text << ": " << entry.error;
    EXPECT_NE(entry.error.find("a discount on a co-safe LTL path"), std::string::npos) << entry.error;
  }
}

TEST(ParseProperty, ReadsBoundsAndNestedOperators) {
  Formula f = parsed("P>=1 [ F \"finished\" ]");
  EXPECT_EQ(f.kind, Formula::Kind::temporal);
  EXPECT_EQ(f.temporal.comparison, Comparison::greater_equal);
  Formula nested = parsed("\"init\" => P>=1 [ F \"stable\" ]");
  ASSERT_EQ(nested.kind, Formula::Kind::state);
  EXPECT_EQ(nested.expression.op, Op::implies);
  EXPECT_EQ(nested.expression.operands[1].kind, Kind::nested);
  ASSERT_EQ(nested.operands.size(), 1u);
  EXPECT_EQ(nested.operands[0].temporal.comparison, Comparison::greater_equal);
}

// PRISM's strategy operators: <<C>> with players, and [[]], ask for some scheduler;
// <<>> and [[C]] for every one, as a bare bound does.
TEST(ParseProperty, ReadsStrategyOperatorsAsSomeOrEveryScheduler) {
  EXPECT_TRUE(parsed("<<*>> P>0.5 [ F \"a\" ]").temporal.some_scheduler);
  EXPECT_TRUE(parsed("<<p1, 2>> R{\"r\"}<3 [ F \"a\" ]").temporal.some_scheduler);
  EXPECT_TRUE(parsed("[[]] Pmax=? [ F \"a\" ]").temporal.some_scheduler);
  EXPECT_FALSE(parsed("<<>> P>0.5 [ F \"a\" ]").temporal.some_scheduler);
  EXPECT_FALSE(parsed("[[*]] P>0.5 [ F \"a\" ]").temporal.some_scheduler);
  EXPECT_FALSE(parsed("P>0.5 [ F \"a\" ]").temporal.some_scheduler);
  const Formula nested = parsed("\"b\" & <<*>> P>0.5 [ F \"a\" ]");
  ASSERT_EQ(nested.operands.size(), 1u);
  EXPECT_TRUE(nested.operands[0].temporal.some_scheduler);
  EXPECT_EQ(io::parse_property("<<*>> \"a\"", "p").error, "p:1:7: expected a P or R operator after <<...>>, found \"a\"");
  EXPECT_EQ(io::parse_property("[[*]] filter(max, P=? [ F \"a\" ])", "p").error,
            "p:1:7: expected a P or R operator after [[...]], found 'filter'");
  EXPECT_EQ(io::parse_property("<<* *>> P>0.5 [ F \"a\" ]", "p").error,
            "p:1:5: expected ',' or '>>', found '*'");
  EXPECT_EQ(io::parse_property("<<*] P>0.5 [ F \"a\" ]", "p").error,
            "p:1:4: expected ',' or '>>', found ']'");
  EXPECT_EQ(io::parse_property("[[+]] P>0.5 [ F \"a\" ]", "p").error,
            "p:1:3: expected a player (*, a name or a number) or ']]', found '+'");
}

TEST(ParseProperty, ReadsFilters) {
  Formula f = parsed("filter(forall, leaders<=1)");
  ASSERT_EQ(f.kind, Formula::Kind::filter);
  EXPECT_EQ(f.filter, FilterOp::forall);
  ASSERT_EQ(f.operands.size(), 2u);
  EXPECT_EQ(f.operands[0].expression.op, Op::less_equal);
  EXPECT_TRUE(f.operands[1].expression.is_true_literal());  // states default to all
  Formula g = parsed("filter(max, Pmax=? [ F \"error\" ], x=0)");
  EXPECT_EQ(g.filter, FilterOp::max);
  EXPECT_EQ(g.operands[0].kind, Formula::Kind::temporal);
  EXPECT_EQ(g.operands[1].expression.op, Op::equal);
  EXPECT_EQ(parsed("filter(+, x)").filter, FilterOp::sum);
}

TEST(ParseProperty, ReadsPrismsOlderFilterForm) {
  Formula f = parsed("R=? [ F \"stable\" {\"k_tokens\"}{max} ]");
  ASSERT_EQ(f.kind, Formula::Kind::filter);
  EXPECT_EQ(f.filter, FilterOp::max);
  EXPECT_EQ(f.operands[0].temporal.kind, TemporalOperator::Kind::reward);
  EXPECT_EQ(f.operands[1].expression.name, "k_tokens");
  EXPECT_EQ(parsed("P=? [ F \"a\" {\"init\"} ]").filter, FilterOp::first);
  EXPECT_EQ(parsed("P=? [ F \"a\" {\"init\"}{min}{max} ]").filter, FilterOp::range);
}

TEST(ParseProperty, UnsupportedPropertiesSaySoWithAPosition) {
  EXPECT_EQ(io::parse_property("S=? [ \"up\" ]", "--prop 1").formula->temporal.kind,
            TemporalOperator::Kind::steady_state);  // supported now (DTMCs)
  EXPECT_EQ(parsed("Pmax=? [ F G \"safe\" ]").temporal.path, TemporalOperator::Path::ltl);  // LTL: supported now
  EXPECT_EQ(parsed("R{\"t\"}max=? [ F G \"safe\" ]").temporal.path,
            TemporalOperator::Path::ltl);  // parsed; the checker asks for a co-safe path
  EXPECT_EQ(parsed("multi(Pmax=? [ F \"a\" ])").kind, Formula::Kind::multi);  // supported now
  EXPECT_EQ(io::parse_property("multi(x=1)", "q").error, "q:1:7: expected a P or R operator as an objective of multi(...), found 'x'");
  EXPECT_TRUE(io::parse_property("E [ F \"a\" ]", "q").formula);  // CTL: supported now
  EXPECT_TRUE(io::parse_property("A [ F G \"a\" ]", "q").formula);  // CTL*'s F G: supported now
  EXPECT_EQ(io::parse_property("A [ F F \"a\" ]", "q").formula->temporal.path, TemporalOperator::Path::ltl);
}

TEST(ParseProperty, SyntaxErrorsNameWhatWasExpected) {
  EXPECT_EQ(io::parse_property("Pmax=? [ F \"a\" ", "p").error, "p:1:15: expected ']', found end of input");
  EXPECT_EQ(io::parse_property("Pmax=? [ \"a\" V \"b\" ]", "p").error, "p:1:14: expected 'U', 'W' or 'R', found 'V'");
  EXPECT_EQ(io::parse_property("Pmax=? [ F x< ]", "p").error, "p:1:15: expected an expression, found ']'");
  EXPECT_EQ(io::parse_property("Pmax=? [ F (\"a\" ]", "p").error, "p:1:17: expected ')', found ']'");
  EXPECT_EQ(io::parse_property("Pmax=? [ F \"a\" ] x", "p").error, "p:1:18: expected end of property, found 'x'");
  EXPECT_EQ(io::parse_property("Pmax=? [ F \"a ]", "p").error, "p:1:12: unterminated string");
  EXPECT_EQ(io::parse_property("P>=1 [ F<= \"a\" ]", "p").error, "p:1:12: expected a step bound, found \"a\"");
  EXPECT_EQ(io::parse_property("filter(most, x)", "p").error.substr(0, 41), "p:1:8: expected a filter operator (forall");
  // Rewards over other co-safe paths are LTL paths, where they were a syntax error that
  // stopped the file.
  const io::PropertyEntry next = io::parse_property("R{\"t\"}min=? [ X \"a\" ]", "p");
  ASSERT_TRUE(next.formula) << next.error;
  EXPECT_EQ(next.formula->temporal.path, TemporalOperator::Path::ltl);
  // A bare state formula too (met at once or never), as PRISM reads R [ s=0 ].
  const io::PropertyEntry bare = io::parse_property("R=? [ \"a\" ]", "p");
  ASSERT_TRUE(bare.formula) << bare.error;
  EXPECT_EQ(bare.formula->temporal.path, TemporalOperator::Path::ltl);
  EXPECT_EQ(io::parse_property("R=? [ \"a\" W ]", "p").error, "p:1:11: expected F, C, C<=k, I=k, S or phi U psi, found 'W'");
  EXPECT_EQ(io::parse_property("R=? [ \"a\" U<=3 \"b\" ]", "p").error,
            "p:1:12: not supported yet: a bounded F or U in a reward (C<=k sums the first k steps' rewards)");
}

// R [ phi U psi ]: a reachability reward with the target first, then the constraint.
TEST(ParseProperty, RewardUntilKeepsTargetThenConstraint) {
  const io::PropertyEntry e = io::parse_property("Rmin=? [ \"a\" U \"b\" ]", "p");
  ASSERT_TRUE(e.formula) << e.error;
  EXPECT_EQ(e.formula->temporal.path, TemporalOperator::Path::reachability_reward);
  ASSERT_EQ(e.formula->operands.size(), 2u);
  EXPECT_EQ(e.formula->operands[0].expression.name, "b");
  EXPECT_EQ(e.formula->operands[1].expression.name, "a");
}

TEST(ParseProperties, SplitsByLinesAndSemicolonsAndReadsDeclarations) {
  io::TextFile file = io::TextFile::from_string(
      "x.pctl",
      "const int k;\r\n// a comment\r\nPmin=? [ F \"a\" ]; Pmax=? [ F \"b\" ] // trailing\r\n\r\n"
      "Pmax=? [ \"a\"\r\n  U \"b\" ]\r\nlabel \"two\" = x=2;\r\n\"named\": P>=1 [ F \"a\" ]\r\nmulti(P>0.5 [ F G \"a\" ])\r\n");
  io::PropertyFile parsed = io::parse_properties(file);
  const auto& entries = parsed.properties;
  ASSERT_EQ(parsed.constants.size(), 1u);
  EXPECT_EQ(parsed.constants[0].name, "k");
  EXPECT_FALSE(parsed.constants[0].value);
  ASSERT_EQ(parsed.labels.size(), 1u);
  EXPECT_EQ(parsed.labels[0].name, "two");
  EXPECT_EQ(parsed.labels[0].body.op, Op::equal);
  ASSERT_EQ(entries.size(), 5u);
  EXPECT_TRUE(entries[0].formula);
  EXPECT_TRUE(entries[1].formula);
  EXPECT_TRUE(entries[2].formula) << entries[2].error;  // spans two lines inside brackets
  EXPECT_EQ(entries[2].text, "Pmax=? [ \"a\"   U \"b\" ]");
  EXPECT_TRUE(entries[3].formula) << entries[3].error;
  ASSERT_TRUE(entries[4].formula) << entries[4].error;
  EXPECT_EQ(entries[4].formula->kind, Formula::Kind::multi);
}

// Every step bound PRISM accepts, each an expression: <=k, <k, >=k, >k, =k, [a,b].
TEST(ParseProperty, ReadsEveryStepBoundForm) {
  Formula f = parsed("P=? [ F<=N+5 x=N ]");
  ASSERT_TRUE(f.temporal.step_bound);
  EXPECT_EQ(f.temporal.step_bound->op, Op::add);
  EXPECT_EQ(right(f).op, Op::equal);
  Formula call = parsed("P=? [ F<=k (x=1) ]");  // k, then the state formula: not a call of k
  EXPECT_EQ(call.temporal.step_bound->name, "k");
  EXPECT_EQ(parsed("P=? [ F<=floor(N/2) x=1 ]").temporal.step_bound->op, Op::floor);
  Formula lower = parsed("P=? [ \"a\" U>=2*k \"b\" ]");
  EXPECT_FALSE(lower.temporal.step_bound);
  ASSERT_TRUE(lower.temporal.lower_step_bound);
  EXPECT_EQ(lower.temporal.lower_step_bound->op, Op::multiply);
  EXPECT_EQ(parsed("P=? [ F>3 \"b\" ]").temporal.lower_step_bound->op, Op::add);  // >k is >=k+1
  Formula exact = parsed("P=? [ F=3 \"b\" ]");
  EXPECT_EQ(exact.temporal.step_bound->value, 3.0);
  EXPECT_EQ(exact.temporal.lower_step_bound->value, 3.0);
  Formula interval = parsed("P=? [ F[1, N-1] \"b\" ]");
  EXPECT_EQ(interval.temporal.lower_step_bound->value, 1.0);
  EXPECT_EQ(interval.temporal.step_bound->op, Op::subtract);
  EXPECT_EQ(io::parse_property("P=? [ F[1 \"b\" ]", "p").error, "p:1:11: expected ',', found \"b\"");
}

// G, W and R become complements of F and U: G phi is !(F !phi), phi W psi is
// !((!psi) U (!phi & !psi)), phi R psi is !((!phi) U (!psi)).
TEST(ParseProperty, ReadsGloballyWeakUntilAndReleaseAsComplements) {
  Formula g = parsed("Pmax=? [ G<=4 \"safe\" ]");
  EXPECT_TRUE(g.temporal.complement);
  EXPECT_TRUE(left(g).is_true_literal());
  EXPECT_EQ(right(g).op, Op::logical_not);
  EXPECT_EQ(g.operands[1].operands.at(0).expression.name, "safe");
  Formula w = parsed("P=? [ \"a\" W \"b\" ]");
  EXPECT_TRUE(w.temporal.complement);
  EXPECT_EQ(left(w).op, Op::logical_not);
  EXPECT_EQ(w.operands[0].operands.at(0).expression.name, "b");
  EXPECT_EQ(right(w).op, Op::logical_and);
  Formula r = parsed("P=? [ \"a\" R \"b\" ]");
  EXPECT_TRUE(r.temporal.complement);
  EXPECT_EQ(r.operands[0].operands.at(0).expression.name, "a");
  EXPECT_EQ(r.operands[1].operands.at(0).expression.name, "b");
  EXPECT_FALSE(parsed("P=? [ \"a\" U \"b\" ]").temporal.complement);
}

// Parentheses around a whole path formula, and around parts of one.
TEST(ParseProperty, ReadsParenthesisedPathFormulas) {
  EXPECT_EQ(parsed("Pmax=? [ (F \"a\") ]").operands.size(), 2u);
  EXPECT_EQ(left(parsed("Pmax=? [ ((!\"a\" U \"b\")) ]")).op, Op::logical_not);
  EXPECT_EQ(parsed("R=? [ (F \"goal\") ]").temporal.path, Path::reachability_reward);
  Formula parts = parsed("P=? [ (x=1) U (y=2) ]");
  EXPECT_EQ(left(parts).op, Op::equal);
  EXPECT_EQ(parsed("P=? [ (F \"a\") {\"init\"} ]").kind, Formula::Kind::filter);
}

// A property broken after an operator goes on over the next line; carriage returns
// are white space anywhere.
TEST(ParseProperties, ContinuesAfterATrailingOperatorAndTakesCarriageReturns) {
  io::PropertyFile file = io::parse_properties(io::TextFile::from_string(
      "c.props", "P>=0.5 [ F \"a\" ] &\n  P<=0.9 [ F \"b\" ]\nPmax=? [ F\r\"c\" ]\rPmin=? [ F \"d\" ]\n"));
  ASSERT_EQ(file.properties.size(), 2u);
  EXPECT_TRUE(file.properties[0].formula) << file.properties[0].error;
  EXPECT_EQ(file.properties[0].formula->kind, Formula::Kind::state);
  EXPECT_FALSE(file.properties[1].formula);  // a lone \r ends no line: two properties in one
  const io::PropertyEntry both = io::parse_property("Pmax=? [ F\r\"c\" ]", "p");
  EXPECT_TRUE(both.formula) << both.error;
}

// A line that starts with a binary operator goes on with the one before (issue 42,
// fix 5): a long S conjunction broken before its "&" is one property; a line starting
// with "!", "-" or R starts the next.
TEST(ParseProperties, ContinuesBeforeALeadingOperator) {
  io::PropertyFile file = io::parse_properties(io::TextFile::from_string(
      "c.props", "S=? [ \"a\"\n  & \"b\"\n\n  | \"c\" ]\nP>=0.5 [ F \"a\" ]\n  => P<=0.9 [ F \"b\" ]\n"
                 "!\"a\"\nR=? [ F \"a\" ]\nPmax=? [ \"a\"\n  U \"b\" ]\n"));
  ASSERT_EQ(file.properties.size(), 5u);
  for (const io::PropertyEntry& p : file.properties) EXPECT_TRUE(p.formula) << p.text << ": " << p.error;
  EXPECT_EQ(file.properties[0].text, "S=? [ \"a\"   & \"b\"    | \"c\" ]");  // line ends read as spaces
  EXPECT_EQ(file.properties[1].formula->kind, Formula::Kind::state);  // P => P
  EXPECT_EQ(file.properties[2].text, "!\"a\"");
  EXPECT_EQ(file.properties[3].text, "R=? [ F \"a\" ]");
}

TEST(ParseProperty, ReadsVariableComparisonsAndArithmetic) {
  Formula f = parsed("Pmax=? [ true U s1=12&s2=12 | min(a,b+1)<=k ]");
  EXPECT_EQ(right(f).op, Op::logical_or);
  EXPECT_EQ(right(f).operands[0].op, Op::logical_and);
  EXPECT_EQ(right(f).operands[1].op, Op::less_equal);
}

}  // namespace
}  // namespace mdpvi

namespace mdpvi {
namespace {

TEST(ParseProperties, KeepsEachPropertysName) {
  io::PropertyFile file =
      io::parse_properties(io::TextFile::from_string("p.props", "\"best\": Pmax=? [ F \"a\" ]\nPmin=? [ F \"a\" ]\n"));
  ASSERT_EQ(file.properties.size(), 2u);
  EXPECT_EQ(file.properties[0].name, "best");
  EXPECT_TRUE(file.properties[0].formula);
  EXPECT_EQ(file.properties[1].name, "");
}

}  // namespace
}  // namespace mdpvi
