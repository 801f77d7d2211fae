// PRISM's -test (engine/pipeline/result_test.h): the RESULT comments above each property
// (io/property_parser.h), and a result's verdict against them.
#include "engine/pipeline/result_test.h"
#include "io/property_parser.h"

#include <gtest/gtest.h>

#include <cmath>

namespace mdpvi::pipeline {
namespace {

TEST(ResultComments, EachPropertyTakesThoseAboveIt) {
  const io::PropertyFile file = io::parse_properties(io::TextFile::from_string(
      "r.props", "// RESULT: 0.5\n  //RESULT:1/3  \nP=? [ F \"a\" ]\n// not a result\nconst int k;\n"
                 "// RESULT ( k = 1 , j=2 ): true\nP>0 [ F \"a\" ]; P<1 [ F \"a\" ]\n// RESULT Error\n"
                 "\"b\"\n// RESULT: [(0.0,1), (1,0)]\nmulti(Pmax=? [ F \"a\" ], Pmax=? [ F \"b\" ])\n"));
  ASSERT_EQ(file.properties.size(), 5u);
  const auto& first = file.properties[0].expected;
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].value, "0.5");
  EXPECT_EQ(first[1].value, "1/3");
  EXPECT_EQ(first[1].constants, "");
  ASSERT_EQ(file.properties[1].expected.size(), 1u);  // across the comment and the constant
  EXPECT_EQ(file.properties[1].expected[0].constants, "k=1,j=2");
  EXPECT_EQ(file.properties[1].expected[0].value, "true");
  EXPECT_TRUE(file.properties[2].expected.empty());  // the second on the line
  EXPECT_TRUE(file.properties[3].expected.empty());  // "RESULT Error" has no ':'
  ASSERT_EQ(file.properties[4].expected.size(), 1u);
  EXPECT_EQ(file.properties[4].expected[0].value, "[(0.0,1), (1,0)]");
}

// An answered property of this kind, expecting expected; set its value's fields after.
PropertyOutcome answered(PropertyValue::Kind kind, std::vector<io::ExpectedResult> expected) {
  PropertyOutcome outcome;
  outcome.value = PropertyValue{};
  outcome.value->kind = kind;
  outcome.expected = std::move(expected);
  return outcome;
}

PropertyOutcome number(double x, std::vector<io::ExpectedResult> expected) {
  PropertyOutcome outcome = answered(PropertyValue::Kind::number, std::move(expected));
  outcome.value->number = x;
  return outcome;
}

bool passes(const PropertyOutcome& outcome, const std::string& constants = "") {
  const std::optional<TestVerdict> verdict = test_result(outcome, constants);
  EXPECT_TRUE(verdict) << outcome.expected.front().value;
  return verdict && verdict->passed;
}

TEST(ResultTest, NumbersAgreeWithinARelativeTolerance) {
  EXPECT_TRUE(passes(number(0.333334, {{"", "1/3"}})));
  EXPECT_FALSE(passes(number(0.3334, {{"", "1/3"}})));
  EXPECT_TRUE(passes(number(2.0e6 + 1.0, {{"", "2000000"}})));
  EXPECT_TRUE(passes(number(1e-9, {{"", "0.0"}})));
  EXPECT_FALSE(passes(number(1e-6, {{"", "0"}})));
  EXPECT_TRUE(passes(number(0.25, {{"", "~0.25 (approximately)"}})));
  EXPECT_TRUE(passes(number(INFINITY, {{"", "Infinity"}})));
  EXPECT_FALSE(passes(number(1e300, {{"", "Infinity"}})));
  EXPECT_TRUE(passes(number(NAN, {{"", "NaN"}})));
  EXPECT_FALSE(passes(number(0.0, {{"", "NaN"}})));
  EXPECT_FALSE(passes(number(0.5, {{"", "true"}})));
}

TEST(ResultTest, TheFirstWhoseConstantsHoldIsTheOneTested) {
  const PropertyOutcome outcome = number(2.0, {{"k=1", "1"}, {"k=2,j=3", "2"}, {"", "5"}});
  EXPECT_TRUE(passes(outcome, "j=3,k=2"));
  EXPECT_FALSE(passes(outcome, "k=1"));
  EXPECT_FALSE(passes(outcome, "k=2"));  // j not set: the last, which names none
  EXPECT_TRUE(passes(number(2.0, {{"k=2.0", "2"}}), "k=2"));  // equal as numbers
  EXPECT_FALSE(test_result(number(2.0, {{"k=1", "2"}}), "k=2"));  // none applies
  EXPECT_FALSE(test_result(number(2.0, {{"", "?"}}), ""));          // unknown
  EXPECT_FALSE(test_result(number(2.0, {{"", "0.5x"}}), ""));       // unreadable
}

// A parametric result (PRISM's lanechange test: "(5-2*p)/(10-10*p)" over a sweep of p)
// is evaluated at the constants of the run; a name the run does not hold leaves it unread.
TEST(ResultTest, ExpressionsOfTheConstantsAreEvaluatedAtTheirValues) {
  const std::vector<io::ExpectedResult> parametric{{"", "(5-2*p)/(10-10*p)"}};
  EXPECT_TRUE(passes(number(0.5, parametric), "p=0"));
  EXPECT_TRUE(passes(number(0.8, parametric), "p=0.5"));
  EXPECT_FALSE(passes(number(0.5, parametric), "p=0.5"));
  EXPECT_TRUE(passes(number(INFINITY, parametric), "p=1"));  // 3/0, as PRISM's doubles divide
  EXPECT_FALSE(test_result(number(0.5, parametric), "q=0"));  // p unknown: unread
  EXPECT_FALSE(test_result(number(0.5, {{"", "(1+"}}), ""));  // no expression: unread
}

TEST(ResultTest, TruthErrorsAndParetoFronts) {
  PropertyOutcome truth = answered(PropertyValue::Kind::boolean, {{"", "true"}});
  truth.value->truth = true;
  EXPECT_TRUE(passes(truth));
  truth.expected = {{"", "false"}};
  EXPECT_FALSE(passes(truth));
  PropertyOutcome failed;
  failed.error = "p:1:1: unknown label \"x\"";
  failed.expected = {{"", "Error:unknown"}};
  EXPECT_TRUE(passes(failed));
  failed.expected = {{"", "0.5"}};
  EXPECT_FALSE(passes(failed));
  truth.expected = {{"", "Error"}};
  EXPECT_FALSE(passes(truth));
  PropertyOutcome front = answered(PropertyValue::Kind::pareto, {{"", "[(0.0,1.0),(1,0)]"}});
  front.value->points = {{1.0, 0.0}, {0.0, 1.0}};
  EXPECT_TRUE(passes(front));
  front.expected = {{"", "[(0.0,1.0)]"}};
  EXPECT_FALSE(passes(front));
  front.expected = {{"", "[(0.0,1.0),(1,0.5)]"}};
  EXPECT_FALSE(passes(front));
}

}  // namespace
}  // namespace mdpvi::pipeline
