#include "io/property_parser.h"

#include <gtest/gtest.h>

namespace mdpvi {
namespace {

using Kind = StateFormula::Kind;

TEST(ParseProperty, ReadsEventuallyWithLabels) {
  io::PropertyEntry entry = io::parse_property("Pmin=? [ F \"finished\"&\"all_coins_equal_0\" ]", "p");
  ASSERT_TRUE(entry.query) << entry.error;
  EXPECT_EQ(entry.query->direction, Optimization::minimize);
  EXPECT_EQ(entry.query->left.kind, Kind::constant);
  EXPECT_TRUE(entry.query->left.constant);
  EXPECT_EQ(entry.query->right.kind, Kind::conjunction);
  EXPECT_EQ(entry.query->right.operands[1].label, "all_coins_equal_0");
  EXPECT_EQ(entry.text, "Pmin=? [ F \"finished\"&\"all_coins_equal_0\" ]");
}

TEST(ParseProperty, ReadsUntilWithPrecedence) {
  io::PropertyEntry entry = io::parse_property("Pmax=? [ !\"a\" | \"b\" & \"c\" U (\"d\" | false) ]", "p");
  ASSERT_TRUE(entry.query) << entry.error;
  EXPECT_EQ(entry.query->direction, Optimization::maximize);
  const StateFormula& left = entry.query->left;  // (!a) | (b & c)
  ASSERT_EQ(left.kind, Kind::disjunction);
  EXPECT_EQ(left.operands[0].kind, Kind::negation);
  EXPECT_EQ(left.operands[1].kind, Kind::conjunction);
  EXPECT_EQ(entry.query->right.kind, Kind::disjunction);
}

TEST(ParseProperty, ImplicationBindsLooserThanOr) {
  io::PropertyEntry entry = io::parse_property("Pmax=? [ F \"a\" | \"b\" => \"c\" <=> \"d\" ]", "p");
  ASSERT_TRUE(entry.query) << entry.error;
  EXPECT_EQ(entry.query->right.kind, Kind::equivalence);
  EXPECT_EQ(entry.query->right.operands[0].kind, Kind::implication);
}

TEST(ParseProperty, UnsupportedPropertiesSaySoWithAPosition) {
  io::PropertyEntry bounded = io::parse_property("Pmin=? [ F<=k \"finished\" ]", "--prop 1");
  EXPECT_FALSE(bounded.query);
  EXPECT_EQ(bounded.error.substr(0, 28), "--prop 1:1:11: not supported");
  io::PropertyEntry reward = io::parse_property("R{\"steps\"}min=? [ F \"finished\" ]", "--prop 2");
  EXPECT_EQ(reward.error.substr(0, 27), "--prop 2:1:1: not supported");
  io::PropertyEntry variable = io::parse_property("Pmax=? [ F s1=12 ]", "--prop 3");
  EXPECT_NE(variable.error.find("--prop 3:1:12: not supported"), std::string::npos) << variable.error;
}

TEST(ParseProperty, SyntaxErrorsNameWhatWasExpected) {
  EXPECT_EQ(io::parse_property("Pmax=? [ F \"a\" ", "p").error, "p:1:15: expected ']', found end of input");
  EXPECT_EQ(io::parse_property("Pmax=? [ \"a\" V \"b\" ]", "p").error, "p:1:14: expected 'U', found 'V'");
  EXPECT_EQ(io::parse_property("Pmax=? [ F (\"a\" ]", "p").error, "p:1:17: expected ')', found ']'");
  EXPECT_EQ(io::parse_property("Pmax=? [ F \"a\" ] x", "p").error, "p:1:18: expected end of property, found 'x'");
  EXPECT_EQ(io::parse_property("Pmax=? [ F \"a ]", "p").error, "p:1:12: unterminated string");
}

TEST(ParseProperties, SplitsByLinesAndSemicolonsAndSkipsCommentsAndConstants) {
  io::TextFile file = io::TextFile::from_string(
      "x.pctl",
      "const int k;\r\n// a comment\r\nPmin=? [ F \"a\" ]; Pmax=? [ F \"b\" ] // trailing\r\n\r\n"
      "Pmax=? [ \"a\"\r\n  U \"b\" ]\r\nP>=1 [ F \"a\" ]\r\n");
  auto entries = io::parse_properties(file);
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_TRUE(entries[0].query);
  EXPECT_TRUE(entries[1].query);
  EXPECT_TRUE(entries[2].query) << entries[2].error;  // spans two lines inside brackets
  EXPECT_EQ(entries[2].text, "Pmax=? [ \"a\"   U \"b\" ]");
  EXPECT_FALSE(entries[3].query);
  EXPECT_EQ(entries[3].error.substr(0, 25), "x.pctl:7:1: not supported");
}

}  // namespace
}  // namespace mdpvi
