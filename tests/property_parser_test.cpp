#include "io/property_parser.h"

#include <gtest/gtest.h>

namespace mdpvi {
namespace {

using Op = Expression::Op;
using Kind = Expression::Kind;

TEST(ParseProperty, ReadsEventuallyWithLabels) {
  io::PropertyEntry entry = io::parse_property("Pmin=? [ F \"finished\"&\"all_coins_equal_0\" ]", "p");
  ASSERT_TRUE(entry.query) << entry.error;
  EXPECT_EQ(entry.query->direction, Optimization::minimize);
  EXPECT_TRUE(entry.query->left.is_true_literal());
  EXPECT_EQ(entry.query->right.op, Op::logical_and);
  EXPECT_EQ(entry.query->right.operands[1].kind, Kind::label);
  EXPECT_EQ(entry.query->right.operands[1].name, "all_coins_equal_0");
  EXPECT_EQ(entry.text, "Pmin=? [ F \"finished\"&\"all_coins_equal_0\" ]");
}

TEST(ParseProperty, ReadsUntilWithPrecedence) {
  io::PropertyEntry entry = io::parse_property("Pmax=? [ !\"a\" | \"b\" & \"c\" U (\"d\" | false) ]", "p");
  ASSERT_TRUE(entry.query) << entry.error;
  EXPECT_EQ(entry.query->direction, Optimization::maximize);
  const Expression& left = entry.query->left;  // (!a) | (b & c)
  ASSERT_EQ(left.op, Op::logical_or);
  EXPECT_EQ(left.operands[0].op, Op::logical_not);
  EXPECT_EQ(left.operands[1].op, Op::logical_and);
  EXPECT_EQ(entry.query->right.op, Op::logical_or);
}

TEST(ParseProperty, ImplicationBindsLooserThanOr) {
  io::PropertyEntry entry = io::parse_property("Pmax=? [ F \"a\" | \"b\" => \"c\" <=> \"d\" ]", "p");
  ASSERT_TRUE(entry.query) << entry.error;
  EXPECT_EQ(entry.query->right.op, Op::iff);
  EXPECT_EQ(entry.query->right.operands[0].op, Op::implies);
}

TEST(ParseProperty, UnsupportedPropertiesSaySoWithAPosition) {
  io::PropertyEntry bounded = io::parse_property("Pmin=? [ F<=k \"finished\" ]", "--prop 1");
  EXPECT_FALSE(bounded.query);
  EXPECT_EQ(bounded.error.substr(0, 28), "--prop 1:1:11: not supported");
  io::PropertyEntry reward = io::parse_property("R{\"steps\"}min=? [ F \"finished\" ]", "--prop 2");
  EXPECT_EQ(reward.error.substr(0, 27), "--prop 2:1:1: not supported");
  io::PropertyEntry filter = io::parse_property("filter(forall, leaders<=1)", "--prop 3");
  EXPECT_EQ(filter.error.substr(0, 27), "--prop 3:1:1: not supported");
}

TEST(ParseProperty, SyntaxErrorsNameWhatWasExpected) {
  EXPECT_EQ(io::parse_property("Pmax=? [ F \"a\" ", "p").error, "p:1:15: expected ']', found end of input");
  EXPECT_EQ(io::parse_property("Pmax=? [ \"a\" V \"b\" ]", "p").error, "p:1:14: expected 'U', found 'V'");
  EXPECT_EQ(io::parse_property("Pmax=? [ F x< ]", "p").error, "p:1:15: expected an expression, found ']'");
  EXPECT_EQ(io::parse_property("Pmax=? [ F (\"a\" ]", "p").error, "p:1:17: expected ')', found ']'");
  EXPECT_EQ(io::parse_property("Pmax=? [ F \"a\" ] x", "p").error, "p:1:18: expected end of property, found 'x'");
  EXPECT_EQ(io::parse_property("Pmax=? [ F \"a ]", "p").error, "p:1:12: unterminated string");
}

TEST(ParseProperties, SplitsByLinesAndSemicolonsAndSkipsCommentsAndConstants) {
  io::TextFile file = io::TextFile::from_string(
      "x.pctl",
      "const int k;\r\n// a comment\r\nPmin=? [ F \"a\" ]; Pmax=? [ F \"b\" ] // trailing\r\n\r\n"
      "Pmax=? [ \"a\"\r\n  U \"b\" ]\r\nP>=1 [ F \"a\" ]\r\n");
  io::PropertyFile parsed = io::parse_properties(file);
  const auto& entries = parsed.properties;
  ASSERT_EQ(parsed.constants.size(), 1u);
  EXPECT_EQ(parsed.constants[0].name, "k");
  EXPECT_FALSE(parsed.constants[0].value);
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_TRUE(entries[0].query);
  EXPECT_TRUE(entries[1].query);
  EXPECT_TRUE(entries[2].query) << entries[2].error;  // spans two lines inside brackets
  EXPECT_EQ(entries[2].text, "Pmax=? [ \"a\"   U \"b\" ]");
  EXPECT_FALSE(entries[3].query);
  EXPECT_EQ(entries[3].error.substr(0, 25), "x.pctl:7:1: not supported");
}

TEST(ParseProperty, ReadsVariableComparisonsAndArithmetic) {
  io::PropertyEntry entry = io::parse_property("Pmax=? [ true U s1=12&s2=12 | min(a,b+1)<=k ]", "p");
  ASSERT_TRUE(entry.query) << entry.error;
  EXPECT_EQ(entry.query->right.op, Op::logical_or);
  EXPECT_EQ(entry.query->right.operands[0].op, Op::logical_and);
  EXPECT_EQ(entry.query->right.operands[1].op, Op::less_equal);
}

}  // namespace
}  // namespace mdpvi
