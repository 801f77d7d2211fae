// Parser and semantic errors of PRISM-language models: each names file:line:column
// and says what was expected or what is wrong.
#include "engine/explore/model_builder.h"
#include "engine/explore/resolved_model.h"

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

// PRISM's tests give a double constant as a fraction (-const p=1/3 -exact), divided
// from the left; what is not a number or a fraction stays an error.
TEST(PrismErrors, DoubleConstantsMayBeFractions) {
  EXPECT_EQ(parse_constant_value("p", ValueType::real, "1/3").value, 1.0 / 3.0);
  EXPECT_EQ(parse_constant_value("p", ValueType::real, "1/1/3").value, 1.0 / 3.0);
  EXPECT_EQ(parse_constant_value("p", ValueType::real, "0.25").value, 0.25);
  for (const char* bad : {"1/", "/3", "1/x", "1/0", "1//3", "1/3 ", ""}) {
    EXPECT_THROW(parse_constant_value("p", ValueType::real, bad), std::invalid_argument) << bad;
  }
  EXPECT_THROW(parse_constant_value("K", ValueType::integer, "1/3"), std::invalid_argument);
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

// mod is never negative, as PRISM's (rings: mod(x-1, 3) of 0 is 2, where a remainder
// of -1 left the variable's range), and its divisor must be positive.
TEST(PrismErrors, ModIsNeverNegativeAndItsDivisorPositive) {
  EXPECT_EQ(error_of("mdp\nmodule m\n  x : [0..2];\n  [] true -> (x'=mod(x-1, 3));\nendmodule\n"), "no error");
  EXPECT_EQ(error_of("mdp\nconst int K = mod(5, 0);\n" + with_module("").substr(4)),
            "m.nm:2:15: mod by 0: the divisor must be positive");
  EXPECT_EQ(error_of(with_module("  [] true -> (x'=mod(1, x-1));")), "m.nm:4:18: mod by -1: the divisor must be positive");
}

// |, &, => and ?: evaluate left to right and stop once the result is known (issue 42,
// fix 2): what they skip is type-checked but never evaluated, in constants (c=0
// decides at compile time) and in states (x=0 decides where the state has it).
TEST(PrismErrors, LogicalOperatorsAndConditionalsShortCircuit) {
  const std::string module = with_module("  [] true -> (x'=1-x);").substr(4);
  for (const char* constant : {"const bool b = c=0 | pow(2, c-1) > 0;", "const bool b = !(c!=0 & pow(2, c-1) > 0);",
                               "const bool b = c!=0 => pow(2, c-1) > 0;", "const bool b = c=0 ? true : pow(2, c-1) > 0;",
                               "const bool b = c!=0 ? pow(2, c-1) > 0 : true;"}) {
    SCOPED_TRACE(constant);
    const std::string text = "mdp\nconst int c;\n" + std::string(constant) + "\nlabel \"b\" = b;\n" + module;
    EXPECT_EQ(error_of(text, {{"c", "0"}}), "no error");
    EXPECT_EQ(error_of(text, {{"c", "1"}}), "no error");  // evaluated, and pow(2, 0) is fine
  }
  // In a state: x=0 skips the power that would be pow(2, -1).
  EXPECT_EQ(error_of(with_module("  [] x=0 | pow(2, x-1) > 0 -> (x'=1-x);")), "no error");
  EXPECT_EQ(error_of(with_module("  [] true -> (x'=x=0 ? 1 : pow(2, x-1));")), "no error");
  EXPECT_EQ(error_of(with_module("  [] x!=0 => pow(2, x-1) > 0 -> (x'=1-x);")), "no error");
  // Where nothing skips it, the error stands; a skipped operand's type error stands too.
  EXPECT_EQ(error_of(with_module("  [] x=1 | pow(2, x-1) > 0 -> (x'=1-x);")),
            "m.nm:4:12: pow of integers with the negative exponent -1 has no integer value (write the base as a double)");
  EXPECT_EQ(error_of(with_module("  [] true | 3 -> (x'=1);")),
            "m.nm:4:11: type error: expected Boolean operands for '|', found int");
}

// min and max of one argument are that argument, as PRISM takes them (issue 42, fix 3),
// in either call form; of none, a located error.
TEST(PrismErrors, MinAndMaxOfOneArgument) {
  const std::string text = "mdp\nconst int k = min(3) + max(4) + func(max, 5);\nmodule m\n  x : [0..12] init 0;\n"
                           "  [] x<k -> (x'=min(x+1));\nendmodule\nlabel \"top\" = max(x)=k;\n";
  const SparseMdp mdp = build_model(resolve_model(io::parse_model(io::TextFile::from_string("m.nm", text)), {})).mdp;
  EXPECT_EQ(mdp.num_states(), 13u);  // x = 0..12, k = 3 + 4 + 5
  for (const Label& l : mdp.labels) {
    if (l.name == "top") {
      EXPECT_EQ(l.states.count(), 1u);
    }
  }
  EXPECT_EQ(error_of(with_module("  [] min()=0 -> (x'=1);")), "m.nm:4:10: expected an expression, found ')'");
  EXPECT_EQ(error_of(with_module("  [] min(true) -> (x'=1);")),
            "m.nm:4:6: type error: expected numeric operands for 'min', found bool");
}

// The values themselves, short-circuited: each operator against its truth table, on
// the four valuations of x and y (at run time) and on constant operands (decided when
// compiled), and ?: choosing its branch.
TEST(PrismErrors, ShortCircuitOperatorsKeepTheirTruthTables) {
  const auto table = [](const std::string& op, bool a, bool b) { return op == "|" ? (a || b) : op == "&" ? (a && b) : (!a || b); };
  for (const std::string op : {"|", "&", "=>"}) {
    SCOPED_TRACE(op);
    std::string text = "mdp\nmodule m\n  x : [0..1] init 0;\n  y : [0..1] init 0;\n  [] true -> (x'=1-x);\n"
                       "  [] true -> (y'=1-y);\nendmodule\nlabel \"x1\" = x=1;\nlabel \"y1\" = y=1;\n"
                       "label \"e\" = x=1 " + op + " y=1;\nlabel \"c\" = (x=1 ? y : 1-y) = 1;\n";
    for (int a = 0; a < 2; ++a) {
      for (int b = 0; b < 2; ++b) {
        text += "label \"k" + std::to_string(a) + std::to_string(b) + "\" = " + (a ? "true " : "false ") + op +
                (b ? " true;\n" : " false;\n");
      }
    }
    const SparseMdp mdp = build_model(resolve_model(io::parse_model(io::TextFile::from_string("m.nm", text)), {})).mdp;
    ASSERT_EQ(mdp.num_states(), 4u);
    const auto label = [&](const std::string& name) -> const StateSet& {
      for (const Label& l : mdp.labels) {
        if (l.name == name) return l.states;
      }
      throw std::runtime_error("no label " + name);
    };
    for (std::uint32_t s = 0; s < 4; ++s) {
      const bool x = label("x1").test(s), y = label("y1").test(s);
      EXPECT_EQ(label("e").test(s), table(op, x, y)) << "state " << s;
      EXPECT_EQ(label("c").test(s), x ? y : !y) << "state " << s;
      for (int a = 0; a < 2; ++a) {
        for (int b = 0; b < 2; ++b) EXPECT_EQ(label("k" + std::to_string(a) + std::to_string(b)).test(s), table(op, a, b));
      }
    }
  }
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

TEST(PrismErrors, UnsupportedModelTypeAndLabelsWhereNoneCanBe) {
  EXPECT_EQ(error_of("pta\n"), "m.nm:1:1: model type 'pta' is not supported (mdpvi checks MDPs, DTMCs and CTMCs)");
  EXPECT_EQ(error_of("mdp\nconst int K = \"a\" ? 1 : 0;\n" + with_module("").substr(4)).substr(0, 44),
            "m.nm:2:15: a label (\"a\") cannot be used here");
}

// A model's labels in its guards, labels and formulas (PRISM 4.8): the model's label,
// not renamed with a module, and not a label the model lacks or one defined by itself.
TEST(PrismErrors, LabelsInsideTheModelAreItsOwn) {
  EXPECT_EQ(error_of(with_module("  [] \"a\" -> true;")), "m.nm:4:6: the model has no label \"a\"");
  EXPECT_EQ(error_of(with_module("  [] \"a\" -> true;") + "label \"a\" = x=0 | \"b\";\nlabel \"b\" = !\"a\";\n"),
            "m.nm:7:14: label \"a\" refers to itself");
  EXPECT_EQ(error_of(with_module("  [] \"a\" -> (x'=1);") + "label \"a\" = f;\nformula f = x=0;\n"), "no error");
}

}  // namespace
}  // namespace mdpvi
