// Parser and semantic errors of PRISM-language models: each names file:line:column
// and says what was expected or what is wrong.
#include "engine/explore/model_builder.h"

#include <gtest/gtest.h>

namespace mdpvi {
namespace {

std::string error_of(const std::string& text, const std::map<std::string, std::string>& constants = {}) {
  try {
    build_model(resolve_model(io::parse_model(io::TextFile::from_string("m.nm", text)), constants));
  } catch (const LocatedError& error) {
    return error.what();
  }
  return "no error";
}

// A one-module MDP around the given module body.
std::string with_module(const std::string& body) { return "mdp\nmodule m\n  x : [0..1];\n" + body + "\nendmodule\n"; }

TEST(PrismErrors, MissingSemicolon) {
  EXPECT_EQ(error_of("mdp\nconst int N = 2\nmodule m x : [0..1]; endmodule"), "m.nm:3:1: expected ';', found 'module'");
}

TEST(PrismErrors, UnexpectedCharacter) {
  EXPECT_EQ(error_of("mdp\n#\n"), "m.nm:2:1: unexpected character '#'");
}

TEST(PrismErrors, UnterminatedString) {
  EXPECT_EQ(error_of(with_module("") + "label \"done = x=1;\n"), "m.nm:6:7: unterminated string");
}

TEST(PrismErrors, BadCommand) {
  EXPECT_EQ(error_of(with_module("  [] x=0 (x'=1);")), "m.nm:4:10: expected '->', found '('");
  EXPECT_EQ(error_of(with_module("  x=0 -> (x'=1);")),
            "m.nm:4:3: expected a variable declaration, a command '[...] guard -> ...;' or 'endmodule', found 'x'");
}

TEST(PrismErrors, UnknownIdentifier) {
  EXPECT_EQ(error_of(with_module("  [] y=0 -> (x'=1);")), "m.nm:4:6: unknown identifier 'y'");
}

TEST(PrismErrors, UnknownFunction) {
  EXPECT_EQ(error_of(with_module("  [] x=sqrt(1) -> (x'=1);")), "m.nm:4:8: unknown function 'sqrt'");
}

TEST(PrismErrors, MissingConstant) {
  EXPECT_EQ(error_of("mdp\nconst int K;\n" + with_module("").substr(4)),
            "m.nm:2:11: constant 'K' has no value: give it with --const K=...");
}

TEST(PrismErrors, ConstantOfTheWrongType) {
  EXPECT_EQ(error_of("mdp\nconst int K;\n" + with_module("").substr(4), {{"K", "0.5"}}),
            "m.nm:2:11: --const K=0.5: expected a value of type int");
  EXPECT_EQ(error_of("mdp\nconst int K = 1/2;\n" + with_module("").substr(4)),
            "m.nm:2:11: constant 'K' is declared int but its value is double");
}

TEST(PrismErrors, CyclicDefinitions) {
  EXPECT_EQ(error_of("mdp\nconst int A = B;\nconst int B = A+1;\n" + with_module("").substr(4)),
            "m.nm:2:11: constant 'A' is defined in terms of itself");
  EXPECT_EQ(error_of("mdp\nformula f = g;\nformula g = f;\n" + with_module("  [] f -> true;").substr(4)),
            "m.nm:2:13: formula 'g' refers to itself");
}

TEST(PrismErrors, GuardMustBeBoolean) {
  EXPECT_EQ(error_of(with_module("  [] x+1 -> (x'=0);")), "m.nm:4:7: type error: expected a Boolean, found int");
}

TEST(PrismErrors, AssignmentOfTheWrongType) {
  EXPECT_EQ(error_of(with_module("  [] true -> (x'=x/2);")),
            "m.nm:4:15: type error: 'x' is int but is assigned a double value");
}

TEST(PrismErrors, UpdateOutOfRange) {
  EXPECT_EQ(error_of(with_module("  [] true -> (x'=x+1);")),
            "m.nm:4:15: update sets 'x' to 2, outside its range [0..1], in state (x=1)");
}

TEST(PrismErrors, ProbabilitiesMustSumToOne) {
  EXPECT_EQ(error_of(with_module("  [] x=0 -> 0.5:(x'=0) + 0.4:(x'=1);")),
            "m.nm:4:3: probabilities of the command sum to 0.900000, not 1 in state (x=0)");
}

// pow of integers with a negative exponent is an error, as in PRISM; with a double
// base it is a double.
TEST(PrismErrors, IntegerPowWithANegativeExponent) {
  EXPECT_EQ(error_of(with_module("  [] x=pow(2, -1) -> (x'=1);")),
            "m.nm:4:8: pow of integers with the negative exponent -1 has no integer value (write the base as a double)");
  EXPECT_EQ(error_of("mdp\nconst int K = pow(2, 0-3);\n" + with_module("").substr(4)),
            "m.nm:2:15: pow of integers with the negative exponent -3 has no integer value (write the base as a double)");
  EXPECT_EQ(error_of(with_module("  [] pow(2.0, -1)=0.5 -> (x'=1);")), "no error");
  // A state-dependent exponent: the error comes where a state makes it negative.
  EXPECT_EQ(error_of(with_module("  [] true -> (x'=pow(2, x-1));")),
            "m.nm:4:18: pow of integers with the negative exponent -1 has no integer value (write the base as a double)");
  // Not where the command never runs: its synchronisation never comes.
  EXPECT_EQ(error_of("mdp\nmodule a\n  x : [0..1];\n  [go] true -> (x'=pow(2, x-1));\nendmodule\n"
                     "module b\n  y : [0..1];\n  [go] false -> (y'=0);\n  [] true -> (y'=1-y);\nendmodule\n"),
            "no error");
}

// A reward that is NaN (0/0) or infinite (1/0) where its guard holds is an error
// naming the item, as in PRISM; the build stops there.
TEST(PrismErrors, RewardsMustBeFinite) {
  const std::string model = with_module("  [] true -> (x'=1-x);");
  EXPECT_EQ(error_of(model + "rewards\n  x=1 : 0/0;\nendrewards\n"), "m.nm:7:3: the reward is NaN in state (x=1)");
  EXPECT_EQ(error_of(model + "rewards \"r\"\n  [] x=0 : 1/0;\nendrewards\n"),
            "m.nm:7:3: the reward is infinite in state (x=0)");
}

// Negative rewards build (other operators may use them); the first is recorded
// with its item, for the reachability rewards that refuse them.
TEST(PrismErrors, FirstNegativeRewardIsRecorded) {
  const std::string text = with_module("  [] true -> (x'=1-x);") + "rewards\n  true : 1;\n  x=1 : -2;\nendrewards\n";
  BuiltModel built = build_model(resolve_model(io::parse_model(io::TextFile::from_string("m.nm", text)), {}));
  ASSERT_EQ(built.mdp.rewards.size(), 1u);
  EXPECT_EQ(built.mdp.rewards[0].first_negative, "m.nm:8:3: negative reward -2 in state (x=1)");
}

TEST(PrismErrors, EmptyRangeAndInitialValueOutsideTheRange) {
  EXPECT_EQ(error_of("mdp\nmodule m\n  x : [3..1];\nendmodule\n"), "m.nm:3:3: empty range [3..1] for 'x'");
  EXPECT_EQ(error_of("mdp\nmodule m\n  x : [0..1] init 2;\nendmodule\n"),
            "m.nm:3:3: initial value 2 of 'x' is outside its range [0..1]");
}

TEST(PrismErrors, DuplicateDeclarations) {
  EXPECT_EQ(error_of("mdp\nglobal x : [0..1];\n" + with_module("").substr(4)), "m.nm:4:3: 'x' is declared twice");
}

TEST(PrismErrors, ModulesUpdateOnlyTheirOwnVariables) {
  EXPECT_EQ(error_of(with_module("") + "module n\n  y : bool;\n  [] true -> (x'=0);\nendmodule\n"),
            "m.nm:8:15: module 'n' cannot update 'x' of module 'm'");
}

TEST(PrismErrors, SynchronisedUpdatesOfOneGlobal) {
  EXPECT_EQ(error_of("mdp\nglobal g : [0..1];\nmodule a\n  [s] true -> (g'=1);\nendmodule\n"
                     "module b\n  [s] true -> (g'=0);\nendmodule\n"),
            "m.nm:7:16: 'g' is updated by two modules synchronising on [s] in state (g=0)");
}

TEST(PrismErrors, RenamingAnUndeclaredModule) {
  EXPECT_EQ(error_of(with_module("") + "module n = k [x=y] endmodule\n"),
            "m.nm:6:8: module 'k' to copy is not declared");
}

TEST(PrismErrors, UnsupportedModelTypeAndLabelsInModels) {
  EXPECT_EQ(error_of("ctmc\n"), "m.nm:1:1: model type 'ctmc' is not supported (mdpvi checks MDPs and DTMCs)");
  EXPECT_EQ(error_of(with_module("  [] \"a\" -> true;")), "m.nm:4:6: labels (\"a\") can only be used in properties");
}

}  // namespace
}  // namespace mdpvi
