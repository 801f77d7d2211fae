// PRISM's and Storm's option spellings become mdpvi's.
#include "tools/option_aliases.h"

#include <gtest/gtest.h>

namespace mdpvi::tools {
namespace {

using Args = std::vector<std::string>;

TEST(OptionAliases, PrismSpellings) {
  EXPECT_EQ(resolve_option_aliases({"check", "m.nm", "-const", "K=2", "-prop", "3", "-ii", "-maxiters", "10"}),
            (Args{"check", "m.nm", "--const", "K=2", "--prop", "3", "--method=ii", "--max-iters", "10"}));
  EXPECT_EQ(resolve_option_aliases({"-exportresults", "r.csv:csv", "-exportstrat", "s.txt:type=actions", "-relative"}),
            (Args{"--export-results", "r.csv", "--export-scheduler", "s.txt", "--relative"}));
  EXPECT_EQ(resolve_option_aliases({"-exportvector=v:x.txt"}), (Args{"--export-vector=v:x.txt"}));  // not options: kept
  // A property as text, and PRISM's "stdout" for standard output (issue 44).
  EXPECT_EQ(resolve_option_aliases({"-pf", "P=? [ F x=1 ]", "-pctl", "Pmax=? [ F a ]", "-csl", "S=? [ a ]"}),
            (Args{"--prop", "P=? [ F x=1 ]", "--prop", "Pmax=? [ F a ]", "--prop", "S=? [ a ]"}));
  EXPECT_EQ(resolve_option_aliases({"-exportresults", "stdout", "-exportvector", "stdout:csv", "-exportstates=stdout"}),
            (Args{"--export-results", "-", "--export-vector", "-", "--export-states=-"}));
  EXPECT_EQ(resolve_option_aliases({"-exportresults", "stdout.csv"}), (Args{"--export-results", "stdout.csv"}));
}

TEST(OptionAliases, StormSpellings) {
  EXPECT_EQ(resolve_option_aliases({"--prism", "m.nm", "--constants=K=2", "--precision", "1e-8", "--exportscheduler", "s"}),
            (Args{"m.nm", "--const=K=2", "--epsilon", "1e-8", "--export-scheduler", "s"}));
  EXPECT_EQ(resolve_option_aliases({"--explicit-drn", "m.drn"}), (Args{"--format=drn", "m.drn"}));
}

// PRISM's engines and methods are mdpvi's to choose: dropped (and named), so that a
// PRISM command line runs; policy iteration is mdpvi's --method pi.
TEST(OptionAliases, PrismsEngineAndMethodSwitchesAreDropped) {
  Args ignored;
  EXPECT_EQ(resolve_option_aliases({"check", "m.nm", "-ex", "-gs", "-ltl2datool", "ltl2dstar", "-politer", "-lp"},
                                   &ignored),
            (Args{"check", "m.nm", "--method=pi"}));
  EXPECT_EQ(ignored, (Args{"-ex", "-gs", "-ltl2datool", "-lp"}));
  EXPECT_EQ(resolve_option_aliases({"-ltl2dasyntax=rabinizer", "-sparse", "m.nm"}), (Args{"m.nm"}));
}

// PRISM's tests run files under lines such as "-s -m -h -ex -exact-lp -precision 128":
// the engines' short names, exact arithmetic and its precision are dropped, each named
// with its reason; -h beside anything else is the hybrid engine, not help.
TEST(OptionAliases, PrismsShortEngineNamesAndExactArithmeticAreDropped) {
  Args ignored;
  EXPECT_EQ(resolve_option_aliases({"check", "m.nm", "p.props", "-s", "-m", "-h", "-ex", "-exact-lp", "-precision", "128",
                                    "-nodasimplify", "-exact"},
                                   &ignored),
            (Args{"check", "m.nm", "p.props"}));
  EXPECT_EQ(ignored, (Args{"-s", "-m", "-h", "-ex", "-exact-lp", "-precision", "-nodasimplify", "-exact"}));
  EXPECT_NE(why_ignored("-exact").find("floating point"), std::string::npos);
  EXPECT_NE(why_ignored("-precision").find("floating point"), std::string::npos);
  EXPECT_NE(why_ignored("-s").find("engine"), std::string::npos);
  // Alone beside a command, -h is the help flag.
  EXPECT_EQ(resolve_option_aliases({"check", "-h"}), (Args{"check", "-h"}));
  EXPECT_EQ(resolve_option_aliases({"-h"}), (Args{"-h"}));
}

// -dtmc, -mdp and -ctmc set the model's type; -exportadv is -exportstrat's older name.
TEST(OptionAliases, PrismsModelTypesAndAdversaryExport) {
  EXPECT_EQ(resolve_option_aliases({"-dtmc", "-mdp", "-ctmc"}),
            (Args{"--model-type=dtmc", "--model-type=mdp", "--model-type=ctmc"}));
  EXPECT_EQ(resolve_option_aliases({"-exportadv", "stdout", "-exportadv", "a.tra"}),
            (Args{"--export-scheduler", "-", "--export-scheduler", "a.tra"}));
}

// Lines of PRISM's tests: "-const exact=false -ii -e 1e-5 -ex", "-mtbdd -ii -maxiters
// 100000 -cuddepsilon 1E-20", "-ex -gs -bgs": -e is -epsilon, and the BDD library's
// settings go with their values.
TEST(OptionAliases, PrismsShortEpsilonAndLibrarySettings) {
  Args ignored;
  EXPECT_EQ(resolve_option_aliases({"-const", "exact=false", "-ii", "-e", "1e-5", "-ex", "-rel", "-abs"}, &ignored),
            (Args{"--const", "exact=false", "--method=ii", "--epsilon", "1e-5", "--relative", "--absolute"}));
  EXPECT_EQ(resolve_option_aliases({"-mtbdd", "-ii", "-maxiters", "100000", "-cuddepsilon", "1E-20", "-javamaxmem", "4g"},
                                   &ignored),
            (Args{"--method=ii", "--max-iters", "100000"}));
  EXPECT_EQ(resolve_option_aliases({"-ex", "-gs", "-bgs", "-bpgs", "-psor", "-omega", "0.9"}), (Args{}));
  EXPECT_EQ(resolve_option_aliases({"-paretoepsilon", "10e-5", "-multimaxpoints", "50", "m.nm"}), (Args{"m.nm"}));
  // Simulation: the values are computed instead, and the note says so.
  EXPECT_EQ(resolve_option_aliases({"-sim", "-simsamples", "1000", "-simmethod", "ci", "m.nm"}), (Args{"m.nm"}));
  EXPECT_NE(why_ignored("-sim").find("not estimates by simulation"), std::string::npos);
}

// Parametric model checking is refused with what to do instead; nothing else is.
TEST(OptionAliases, PrismsParametricSwitchIsRefusedWithAWayOut) {
  const std::optional<std::string> refused = refused_prism_switch({"check", "m.nm", "-param", "p=0:1"});
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->find("--const p=0:0.1:1"), std::string::npos);
  EXPECT_TRUE(refused_prism_switch({"-param=p=0:1"}));
  EXPECT_FALSE(refused_prism_switch({"check", "m.nm", "-const", "p=0.5", "-s"}));
  EXPECT_FALSE(refused_prism_switch({"check", "--", "-param"}));  // a file of that name
}

TEST(OptionAliases, LeavesTheRestAlone) {
  EXPECT_EQ(resolve_option_aliases({"--const", "K=2", "-v", "--", "-const"}), (Args{"--const", "K=2", "-v", "--", "-const"}));
}

}  // namespace
}  // namespace mdpvi::tools
