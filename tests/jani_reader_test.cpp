// JANI models read into the PRISM language's description (io/jani_reader.h): a model
// with every construct the reader maps (two automata, a sync vector, a second
// location, a function, transient labels and rewards on locations and edges) builds
// the same model as its hand-written PRISM twin, its properties come back as PRISM
// text, and bad or unsupported input names its place in the file.
#include "same_model.h"

#include "engine/explore/model_builder.h"
#include "io/jani_reader.h"
#include "io/prism_model.h"

#include <gtest/gtest.h>

#include <string>

namespace mdpvi {
namespace {

const std::string kModels = std::string(MDPVI_SOURCE_DIR) + "/tests/models/jani/";

SparseMdp built(const io::ModelDescription& description) {
  BuildOptions options;
  options.keep_actions = false;
  return build_model(resolve_model(description, {{"N", "2"}}), options).mdp;
}

// The message of what read_jani throws for text, or "" where it reads.
template <typename Error>
std::string error_of(const std::string& text) {
  try {
    (void)io::read_jani(io::TextFile::from_string("bad.jani", text));
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

// A model of one automaton with one edge, its parts given.
std::string one_edge(const std::string& variable_type, const std::string& syncs = "[]") {
  return R"({"jani-version": 1, "name": "m", "type": "mdp",
    "variables": [{"name": "x", "type": )" + variable_type + R"(, "initial-value": 0}],
    "automata": [{"name": "a", "locations": [{"name": "l"}], "initial-locations": ["l"],
      "edges": [{"location": "l", "action": "go", "destinations": [{"location": "l"}]}]}],
    "system": {"elements": [{"automaton": "a"}], "syncs": )" + syncs + "}}";
}

TEST(JaniReader, BuildsTheSameModelAsItsPrismTwin) {
  const io::JaniFile jani = io::read_jani(io::TextFile::load(kModels + "two.jani"));
  const io::ModelDescription twin = io::parse_model(io::TextFile::load(kModels + "two_twin.nm"));
  const SparseMdp a = built(jani.model), b = built(twin);
  test::expect_same_model_by_name(a, b);
  EXPECT_EQ(a.num_states(), 20u);
}

TEST(JaniReader, WritesItsPropertiesAsPrism) {
  const io::JaniFile jani = io::read_jani(io::TextFile::load(kModels + "two.jani"));
  ASSERT_EQ(jani.properties.size(), 7u);
  const char* const expected[] = {"Pmax=? [ F \"done\" ]",
                                  "Pmin=? [ F<=6 \"done\" ]",
                                  "R{\"cost\"}min=? [ F \"done\" ]",
                                  "R{\"time\"}max=? [ F \"done\" ]",
                                  "filter(forall, P>=1 [ F \"done\" ], \"init\")",
                                  "Pmin=? [ F<6 \"done\" ]"};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(jani.properties[i].text, expected[i]) << jani.properties[i].name;
    EXPECT_EQ(jani.properties[i].error, "");
  }
  // "some scheduler reaches with at least 0.5" is no PRISM bound on an MDP (PRISM's
  // bounds hold for all schedulers): that property alone is refused.
  EXPECT_EQ(jani.properties[6].name, "some_scheduler");
  EXPECT_EQ(jani.properties[6].text, "");
  EXPECT_NE(jani.properties[6].error.find("two.jani: properties[6].expression.values: not supported yet: Pmax"),
            std::string::npos)
      << jani.properties[6].error;
}

TEST(JaniReader, RefusesBadInputWithItsPlace) {
  // JSON syntax: line and column.
  EXPECT_EQ(error_of<io::ParseError>("{\n  \"type\": \"mdp\"\n  \"automata\": []\n}"),
            "bad.jani:3:12: expected JSON (a JANI model): syntax error while parsing object - unexpected string literal; "
            "expected '}'");
  // A missing member: its path in the file.
  const std::string no_destinations = R"({"jani-version": 1, "type": "mdp",
    "automata": [{"name": "a", "locations": [{"name": "l"}], "initial-locations": ["l"], "edges": [{"location": "l"}]}],
    "system": {"elements": [{"automaton": "a"}]}})";
  EXPECT_NE(error_of<io::ParseError>(no_destinations).find("bad.jani: automata[a].edges[0]: expected a member \"destinations\""),
            std::string::npos)
      << error_of<io::ParseError>(no_destinations);
  EXPECT_EQ(error_of<io::UnsupportedError>(one_edge("\"int\"")),
            "bad.jani: variables[0].type: not supported yet: the variable type \"int\" of x (bool and bounded int only)");
  EXPECT_NE(error_of<io::UnsupportedError>(one_edge(R"({"kind": "bounded", "base": "int", "lower-bound": 0})"))
                .find("variables[0].type: not supported yet: an integer variable without both bounds (x)"),
            std::string::npos);
  const std::string renaming = R"([{"synchronise": ["go"], "result": "went"}])";
  EXPECT_NE(error_of<io::UnsupportedError>(one_edge(R"({"kind": "bounded", "base": "int", "lower-bound": 0, "upper-bound": 1})", renaming))
                .find("system.syncs[0].result: not supported yet: a sync vector that renames its action"),
            std::string::npos);
  EXPECT_NE(error_of<io::UnsupportedError>(R"({"jani-version": 1, "type": "pta", "automata": [], "system": {"elements": []}})")
                .find("not supported yet: JANI models of type \"pta\""),
            std::string::npos);
}

// An instant with accumulated rewards is the reward gathered up to it (C<=t), without
// it the reward at that instant (I=t): QVBS's cluster "below_min" (Storm's conversion of
// PRISM's C<=T), which read as I=T gave 2.1e-6 against the published 0.0042.
TEST(JaniReader, AnAccumulatedInstantIsCumulative) {
  const std::string model = R"({"jani-version": 1, "name": "m", "type": "ctmc",
    "variables": [{"name": "x", "type": {"kind": "bounded", "base": "int", "lower-bound": 0, "upper-bound": 1}, "initial-value": 0},
                  {"name": "r", "type": "real", "transient": true, "initial-value": 0}],
    "automata": [{"name": "a", "locations": [{"name": "l", "transient-values": [{"ref": "r", "value": 1}]}],
      "initial-locations": ["l"], "edges": [{"location": "l", "rate": {"exp": 2}, "destinations": [{"location": "l"}]}]}],
    "system": {"elements": [{"automaton": "a"}]},
    "properties": [
      {"name": "upto", "expression": {"op": "Emin", "exp": "r", "accumulate": ["time"], "time-instant": 3}},
      {"name": "at", "expression": {"op": "Emin", "exp": "r", "time-instant": 3}},
      {"name": "steps", "expression": {"op": "Emax", "exp": "r", "accumulate": ["steps"], "step-instant": 4}}]})";
  const io::JaniFile jani = io::read_jani(io::TextFile::from_string("m.jani", model));
  ASSERT_EQ(jani.properties.size(), 3u);
  EXPECT_EQ(jani.properties[0].text, "R{\"r\"}=? [ C<=3 ]");
  EXPECT_EQ(jani.properties[1].text, "R{\"r\"}=? [ I=3 ]");
  EXPECT_EQ(jani.properties[2].text, "R{\"r\"}=? [ C<=4 ]");
}

// JANI's rule: an action fires only through a sync vector naming the automaton; an
// edge of an action no vector names is left out (PRISM would let it fire alone).
TEST(JaniReader, LeavesOutEdgesNoSyncVectorFires) {
  const std::string type = R"({"kind": "bounded", "base": "int", "lower-bound": 0, "upper-bound": 1})";
  const io::JaniFile silent = io::read_jani(io::TextFile::from_string("m.jani", one_edge(type)));
  ASSERT_EQ(silent.model.modules.size(), 1u);
  EXPECT_TRUE(silent.model.modules[0].commands.empty());
  const io::JaniFile synced =
      io::read_jani(io::TextFile::from_string("m.jani", one_edge(type, R"([{"synchronise": ["go"], "result": "go"}])")));
  ASSERT_EQ(synced.model.modules[0].commands.size(), 1u);
  EXPECT_EQ(synced.model.modules[0].commands[0].action, "go");
}

}  // namespace
}  // namespace mdpvi
