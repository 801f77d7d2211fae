// Storm's DRN format (io/drn_reader.h): a small MDP and DTMC read as written, and each
// malformed input refused with file:line:column and what was expected.
#include "io/drn_reader.h"

#include <gtest/gtest.h>

namespace mdpvi {
namespace {

using io::TextFile;

const std::string kHeader = "// a comment\n@type: MDP\n@parameters\n\n@reward_models\ncost\n@nr_states\n2\n@nr_choices\n3\n@model\n";

std::string error_of(const std::string& text) {
  try {
    io::read_drn(TextFile::from_string("m.drn", text));
  } catch (const io::ParseError& error) {
    return error.what();
  }
  return "no error";
}

TEST(ReadDrn, ReadsAnMdpWithRewardsAndLabels) {
  const SparseMdp mdp = io::read_drn(TextFile::from_string(
      "m.drn", kHeader + "state 0 [2] init start\n\taction a [1]\n\t\t0 : 0.5\n\t\t1 : 0.5\n\taction b [0]\n\t\t1 : 1\n"
                         "state 1 [0] goal\n\taction __NOLABEL__ [0]\n\t\t1 : 1\n"));
  EXPECT_EQ(mdp.type, ModelType::mdp);
  EXPECT_EQ(mdp.num_states(), 2u);
  EXPECT_EQ(mdp.num_choices(), 3u);
  EXPECT_EQ(std::vector<std::uint32_t>(mdp.columns.begin(), mdp.columns.end()), (std::vector<std::uint32_t>{0, 1, 1, 1}));
  EXPECT_EQ(mdp.initial_states, (std::vector<std::uint32_t>{0}));
  ASSERT_EQ(mdp.rewards.size(), 1u);
  EXPECT_EQ(mdp.rewards[0].name, "cost");
  EXPECT_EQ(mdp.rewards[0].row_reward(0, 0), 3.0);  // the state's 2 and the action's 1
  EXPECT_EQ(mdp.rewards[0].row_reward(0, 1), 2.0);
  ASSERT_EQ(mdp.labels.size(), 3u);
  EXPECT_EQ(mdp.labels[2].name, "goal");
  EXPECT_TRUE(mdp.labels[2].states.test(1));
}

TEST(ReadDrn, ReadsADtmcWithUnnamedRewards) {
  const SparseMdp mdp = io::read_drn(TextFile::from_string(
      "m.drn", "@type: DTMC\n@parameters\n@reward_models\n\n@nr_states\n1\n@nr_choices\n1\n@model\n"
               "state 0 [1, 2] init\n\taction 0 [0, 0]\n\t\t0 : 1\n"));
  EXPECT_EQ(mdp.type, ModelType::dtmc);
  ASSERT_EQ(mdp.rewards.size(), 2u);
  EXPECT_EQ(mdp.rewards[1].name, "");
  EXPECT_EQ(mdp.rewards[1].row_reward(0, 0), 2.0);
}

// mdpvi's DRN export keeps the valuations in comments Storm skips (drn_writer.h).
TEST(ReadDrn, ReadsValuationsFromMdpvisComments) {
  const std::string header = "// Variables: (x,b)\n@type: DTMC\n@parameters\n@reward_models\n@nr_states\n2\n@nr_choices\n2\n@model\n";
  const std::string states = "state 0 init\n//(-1,true)\n\taction 0\n\t\t1 : 1\n// a comment\nstate 1\n";
  const SparseMdp mdp = io::read_drn(TextFile::from_string("m.drn", header + states + "//(7,false)\n\taction 0\n\t\t1 : 1\n"));
  ASSERT_TRUE(mdp.valuations);
  EXPECT_EQ(mdp.valuations->variables, (std::vector<std::string>{"x", "b"}));
  EXPECT_EQ(mdp.valuations->types[1], ValueType::boolean);
  EXPECT_EQ(mdp.valuations->value(0, 0), -1);
  EXPECT_EQ(mdp.valuations->value(1, 0), 7);
  EXPECT_EQ(mdp.valuations->value(1, 1), 0);
  EXPECT_EQ(error_of(header + states + "\taction 0\n\t\t1 : 1\n"),
            "m.drn:17: // Variables: declares valuations, but state 1 has no //(...) line");
  EXPECT_EQ(error_of(header + "state 0 init\n//(1)\n"), "m.drn:11:5: expected ',', found ')'");
  // Without the header line, such comments are comments.
  EXPECT_FALSE(io::read_drn(TextFile::from_string("m.drn", header.substr(20) + states + "\taction 0\n\t\t1 : 1\n")).valuations);
}

TEST(ReadDrn, RefusesWhatItCannotRead) {
  const std::string body = "state 0 [0] init\n\taction a [0]\n\t\t1 : 1\nstate 1 [0]\n\taction a [0]\n\t\t1 : 1\n";
  EXPECT_EQ(error_of("@type: MA\n"), "m.drn:1:8: expected MDP, DTMC or CTMC, found 'MA'");
  EXPECT_EQ(error_of("@type: MDP\n@parameters\np q\n"), "m.drn:3:1: parametric models are not supported (parameters: p q)");
  EXPECT_EQ(error_of("@type: MDP\n@states\n"),
            "m.drn:2:1: expected @type, @parameters, @reward_models, @nr_states, @nr_choices or @model, found '@states'");
  EXPECT_EQ(error_of("@type: MDP\n@nr_states\n2\n@model\n"), "m.drn:4:1: @model before @nr_states and @nr_choices");
  EXPECT_EQ(error_of(kHeader + "state 1 [0]\n"), "m.drn:12:7: expected state 0, found state 1");
  EXPECT_EQ(error_of(kHeader + "state 0 [0, 1] init\n"), "m.drn:12:14: 2 rewards, but @reward_models names 1");
  EXPECT_EQ(error_of(kHeader + "state 0 [0 init\n"), "m.drn:12:12: expected ',' or ']', found 'init'");
  EXPECT_EQ(error_of(kHeader + "state 0 [0] init\n\taction a [0]\n\t\t1 : 0.5\nstate 1 [0]\n"),
            "m.drn:13: probabilities of the action sum to 0.5, not 1");
  EXPECT_EQ(error_of(kHeader + "state 0 [0] init\n\taction a [0]\n\t\t2 : 1\n"),
            "m.drn:14:3: target 2 is not a state (@nr_states 2)");
  EXPECT_EQ(error_of(kHeader + "state 0 [0] init\n\taction a [0]\n\t\t1 : 1.5\n"),
            "m.drn:14:7: probability 1.5 outside (0,1]");
  EXPECT_EQ(error_of(kHeader + "state 0 [0] init\n\t\t1 : 1\n"), "m.drn:13:3: expected 'state' or 'action', found '1'");
  EXPECT_EQ(error_of(kHeader + "state 0 [0] init\nstate 1 [0]\n"), "m.drn:13: state 0 has no action");
  EXPECT_EQ(error_of(kHeader + body), "m.drn:17: 2 choices, but @nr_choices says 3");
  EXPECT_EQ(error_of(kHeader + "state 0 [0]\n\taction a [0]\n\t\t1 : 1\n\taction b [0]\n\t\t1 : 1\nstate 1 [0]\n\taction a [0]\n\t\t1 : 1\n"),
            "m.drn:19: no state is labelled init");
  EXPECT_EQ(error_of(kHeader + "state 0 [nan] init\n"), "m.drn:12:10: the reward nan is not finite");
  EXPECT_EQ(error_of(kHeader + "state 0 [0] init\n\taction a [0, 1]\n"), "m.drn:13:16: expected 1 rewards, found 2");
  EXPECT_EQ(error_of("@type: MDP\n@nr_states\ntwo\n"), "m.drn:3:1: expected a count, found 'two'");
  EXPECT_EQ(error_of("@type: MDP\n@nr_states\n2000000000\n@nr_choices\n1\n@model\n"),
            "m.drn:6: @nr_states 2000000000 and @nr_choices 1 cannot fit in a file of 6 lines");
}

}  // namespace
}  // namespace mdpvi
