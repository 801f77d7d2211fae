#include "io/explicit_reader.h"
#include "io/explicit_writer.h"
#include "test_models.h"

#include <sstream>

#include <gtest/gtest.h>

namespace mdpvi {
namespace {

using io::TextFile;

// The error a .tra text gives, as "line:column: message" (the file name is "t.tra").
std::string transition_error(const std::string& text) {
  SparseMdp mdp;
  try {
    io::read_transitions(TextFile::from_string("t.tra", text), mdp);
  } catch (const io::ParseError& error) {
    EXPECT_EQ(error.file(), "t.tra");
    std::string where = std::string(error.what()).substr(std::string("t.tra:").size());
    return where.front() == ' ' ? where.substr(1) : where;
  }
  return "no error";
}

TEST(ReadTransitions, ReadsAnMdpWithActionsCommentsAndCrlf) {
  SparseMdp mdp;
  io::read_transitions(TextFile::from_string("t.tra", "# Transitions (MDP)\r\n2 3 4\r\n0 0 1 1 go\r\n0 1 0 0.25\r\n"
                                                      "0 1 1 0.75\r\n1 0 1 1\r\n"),
                       mdp);
  EXPECT_EQ(mdp.type, ModelType::mdp);
  EXPECT_EQ(mdp.row_group_starts.expanded(), (PodVector<std::uint64_t>{0, 2, 3}));
  EXPECT_EQ(mdp.row_starts.expanded(), (PodVector<std::uint64_t>{0, 1, 3, 4}));
  EXPECT_EQ(mdp.columns, (PodVector<std::uint32_t>{1, 0, 1, 1}));
  EXPECT_EQ(mdp.values, (CompactValues{1, 0.25, 0.75, 1}));
  ASSERT_TRUE(mdp.actions);  // kept, for the exports and the scheduler
  EXPECT_EQ(mdp.actions->names[mdp.actions->of_choice[0]], "go");
  EXPECT_EQ(mdp.actions->of_choice[1], 0u);
  EXPECT_EQ(mdp.actions->of_choice[2], 0u);
}

// Found by fuzzing: a header's state count made the reader allocate before reading.
TEST(ReadTransitions, AHeaderCannotDeclareMoreStatesThanTheFileHolds) {
  EXPECT_EQ(transition_error("2000000000 1 1\n0 0 0 1\n"), "1:1: the header declares 2000000000 states, but the file has 2 lines");
}

TEST(ReadTransitions, AChoiceHasOneActionAndADtmcStateTheOneItsEntriesShare) {
  EXPECT_EQ(transition_error("2 1 2\n0 0 0 0.5 a\n0 0 1 0.5 b\n"), "3:11: action 'b' differs from the action 'a' of the choice's first entry");
  SparseMdp dtmc;
  io::read_transitions(TextFile::from_string("t.tra", "2 4\n0 0 0.5 a\n0 1 0.5 b\n1 0 0.5 c\n1 1 0.5 c\n"), dtmc);
  ASSERT_TRUE(dtmc.actions);
  EXPECT_EQ(dtmc.actions->of_choice[0], 0u);
  EXPECT_EQ(dtmc.actions->names[dtmc.actions->of_choice[1]], "c");
}

TEST(ReadTransitions, ReadsADtmcAsOneChoicePerState) {
  SparseMdp mdp;
  io::read_transitions(TextFile::from_string("t.tra", "2 3\n0 0 0.5\n0 1 0.5\n1 1 1 step\n"), mdp);
  EXPECT_EQ(mdp.type, ModelType::dtmc);
  EXPECT_EQ(mdp.num_choices(), 2u);
  EXPECT_EQ(mdp.row_group_starts.expanded(), (PodVector<std::uint64_t>{0, 1, 2}));
}

TEST(ReadTransitions, RejectsMalformedNumbers) {
  EXPECT_EQ(transition_error("2 2 2\n0 0 x 1\n1 0 1 1\n"), "2:5: expected target state, found 'x'");
  EXPECT_EQ(transition_error("2 2 2\n0 0 1 0.5.5\n1 0 1 1\n"), "2:7: expected a probability, found '0.5.5'");
  // A DTMC line has no choice column: the fourth number is where an action would be.
  EXPECT_EQ(transition_error("2 2\n0 0 1 1\n"), "2:7: expected an action name or end of line, found '1'");
}

TEST(ReadTransitions, RejectsIndicesOutOfRange) {
  EXPECT_EQ(transition_error("2 2 2\n0 0 2 1\n1 0 1 1\n"), "2:5: target state 2 out of range (expected < 2)");
  EXPECT_EQ(transition_error("2 2 2\n0 0 1 1\n5 0 1 1\n"), "3:1: source state 5 out of range (expected < 2)");
}

TEST(ReadTransitions, RejectsGapsInChoiceNumbering) {
  EXPECT_EQ(transition_error("2 3 3\n0 0 1 1\n0 2 1 1\n1 0 1 1\n"),
            "3:3: expected choice 1 of state 0 (choices numbered from 0 without gaps, lines sorted), found choice 2");
}

TEST(ReadTransitions, RejectsAStateWithoutChoices) {
  EXPECT_EQ(transition_error("3 2 2\n0 0 1 1\n2 0 1 1\n"),
            "3:1: expected the transitions of state 1 (states in order, each with at least one choice), "
            "found state 2 choice 0");
  EXPECT_EQ(transition_error("3 2 2\n0 0 1 1\n1 0 1 1\n"), "state 2 has no transitions (expected 3 states)");
}

TEST(ReadTransitions, RejectsProbabilitiesOutsideTheUnitInterval) {
  EXPECT_EQ(transition_error("2 2 2\n0 0 1 1.5\n1 0 1 1\n"), "2:7: probability 1.5 outside (0,1]");
  EXPECT_EQ(transition_error("2 2 3\n0 0 1 1\n0 0 0 0\n1 0 1 1\n"), "3:7: probability 0 outside (0,1]");
}

TEST(ReadTransitions, RejectsDistributionsThatDoNotSumToOne) {
  EXPECT_EQ(transition_error("2 2 3\n0 0 1 0.5\n0 0 0 0.4\n1 0 1 1\n"),
            "2: probabilities of choice 0 of state 0 sum to 0.90000000000000002, expected 1");
  // Within PRISM's tolerance of 1e-6 a sum is accepted.
  EXPECT_EQ(transition_error("2 2 3\n0 0 1 0.5\n0 0 0 0.4999999\n1 0 1 1\n"), "no error");
}

TEST(ReadTransitions, RejectsHeadersThatDisagreeWithTheContent) {
  EXPECT_EQ(transition_error("2 3 2\n0 0 1 1\n1 0 1 1\n"), "1: header declares 3 choices, found 2");
  EXPECT_EQ(transition_error("2 2 5\n0 0 1 1\n1 0 1 1\n"), "1: header declares 5 transitions, found 2");
  EXPECT_EQ(transition_error("1 2 3 4\n"),
            "1:1: expected a header 'states choices transitions' (MDP) or 'states transitions' (DTMC)");
}

TEST(ReadTransitions, RejectsDuplicateTransitions) {
  EXPECT_EQ(transition_error("2 2 3\n0 0 1 0.5\n0 0 1 0.5\n1 0 1 1\n"),
            "3:5: duplicate transition to state 1 in choice 0 of state 0");
}

TEST(ReadTransitions, RejectsUnsortedLines) {
  EXPECT_EQ(transition_error("2 2 2\n1 0 1 1\n0 0 1 1\n").substr(0, 40), "2:1: expected the transitions of state 0");
}

SparseMdp two_state_model() {
  SparseMdp mdp;
  io::read_transitions(TextFile::from_string("t.tra", "2 3 4\n0 0 1 1\n0 1 0 0.5\n0 1 1 0.5\n1 0 1 1\n"), mdp);
  return mdp;
}

TEST(ReadLabels, ReadsLabelsAndInitialStates) {
  SparseMdp mdp = two_state_model();
  io::read_labels(TextFile::from_string("t.lab", "0=\"init\" 1=\"deadlock\" 2=\"goal\"\n1: 2\n0: 0\n"), mdp);
  ASSERT_EQ(mdp.labels.size(), 3u);
  EXPECT_EQ(mdp.initial_states, std::vector<std::uint32_t>{0});
  EXPECT_TRUE(mdp.find_label("goal")->states.test(1));
  EXPECT_FALSE(mdp.find_label("goal")->states.test(0));
}

TEST(ReadLabels, RejectsBadLabelFiles) {
  auto error = [](const std::string& text) -> std::string {
    SparseMdp mdp = two_state_model();
    try {
      io::read_labels(TextFile::from_string("t.lab", text), mdp);
    } catch (const io::ParseError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(error("0=\"init\" 1=\"goal\"\n1: 1\n"), "t.lab: no initial state: no state carries the label \"init\"");
  EXPECT_EQ(error("0=\"init\"\n0: 1\n"), "t.lab:2:4: label index 1 out of range (expected < 1)");
  EXPECT_EQ(error("0=\"init\"\n7: 0\n"), "t.lab:2:1: state 7 out of range (expected < 2)");
  EXPECT_EQ(error("0=\"init\" 2=\"x\"\n0: 0\n"), "t.lab:1:10: expected label index 1, found 2");
  EXPECT_EQ(error("0=init\n"), "t.lab:1:3: expected a quoted label name, found 'init'");
}

TEST(ReadStateValuations, ReadsIntegersAndBooleans) {
  auto v = io::read_state_valuations(TextFile::from_string("t.sta", "(x,b)\n0:(-3,true)\n1:(4,false)\n"), 2);
  EXPECT_EQ(v.variables, (std::vector<std::string>{"x", "b"}));
  EXPECT_EQ(v.value(0, 0), -3);
  EXPECT_EQ(v.value(0, 1), 1);
  EXPECT_EQ(v.value(1, 1), 0);
  EXPECT_THROW(io::read_state_valuations(TextFile::from_string("t.sta", "(x)\n0:(1)\n"), 2), io::ParseError);
  EXPECT_THROW(io::read_state_valuations(TextFile::from_string("t.sta", "(x)\n0:(1,2)\n1:(1)\n"), 2), io::ParseError);
}

TEST(ReadRewards, TransitionRewardsBecomeExpectedChoiceRewards) {
  SparseMdp mdp = two_state_model();
  auto srew = TextFile::from_string("t.srew", "# Reward structure \"cost\"\n# State rewards\n2 1\n1 2.5\n");
  auto trew = TextFile::from_string("t.trew", "2 3 2\n0 1 0 4\n0 1 1 2\n");
  RewardStructure r = io::read_reward_structure(srew, trew, mdp);
  EXPECT_EQ(r.name, "cost");
  EXPECT_EQ(r.state_rewards, (CompactValues{0, 2.5}));
  EXPECT_EQ(r.choice_rewards, (CompactValues{0, 0.5 * 4 + 0.5 * 2, 0}));
  auto missing = TextFile::from_string("t.trew", "2 3 1\n1 0 0 4\n");
  try {
    io::read_reward_structure(std::nullopt, missing, mdp);
    FAIL() << "a reward on a transition that does not exist must be rejected";
  } catch (const io::ParseError& e) {
    EXPECT_STREQ(e.what(), "t.trew:2:5: no transition to state 0 in this choice");
  }
}

// A reward that every entry of a choice carries is the choice's, exactly: here the sum
// of p * 0.1 over the entries is 0.09999999999999999, and the model would not write
// back the file it came from.
TEST(ReadRewards, ARewardSharedByAChoicesEntriesIsTakenExactly) {
  SparseMdp mdp;
  io::read_transitions(TextFile::from_string("t.tra", "2 2 3\n0 0 0 0.9671787439810325\n0 0 1 0.032821256018967425\n"
                                                      "1 0 1 1\n"), mdp);
  auto trew = TextFile::from_string("t.trew", "2 2 2\n0 0 0 0.1\n0 0 1 0.1\n");
  EXPECT_EQ(io::read_reward_structure(std::nullopt, trew, mdp).choice_rewards[0], 0.1);
  auto partial = TextFile::from_string("t.trew", "2 2 1\n0 0 1 0.1\n");  // one entry: the expected reward
  EXPECT_EQ(io::read_reward_structure(std::nullopt, partial, mdp).choice_rewards[0], 0.032821256018967425 * 0.1);
}

TEST(ReadExplicitModel, MissingFileIsAnError) {
  try {
    io::read_explicit_model("/nonexistent/model");
    FAIL();
  } catch (const io::ParseError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/model.tra: cannot open file");
  }
}

// What --export-transitions writes reads back as the same arrays, probabilities to
// the last bit (1/3, 0.1 and 2/3 have no short decimal form).
void expect_round_trip(const SparseMdp& mdp) {
  std::ostringstream text;
  io::write_transitions(mdp, text);
  SparseMdp read;
  io::read_transitions(TextFile::from_string("t.tra", text.str()), read);
  EXPECT_EQ(read.type, mdp.type);
  EXPECT_EQ(read.row_group_starts, mdp.row_group_starts);
  EXPECT_EQ(read.row_starts, mdp.row_starts);
  EXPECT_EQ(read.columns, mdp.columns);
  EXPECT_EQ(read.values, mdp.values);
}

TEST(WriteTransitions, MdpReadsBackBitForBit) {
  using test::StateChoices;
  const double third = 1.0 / 3;
  expect_round_trip(test::make_mdp({StateChoices{{{1, third}, {2, 1 - third}}, {{0, 1.0}}},
                                    StateChoices{{{2, 0.1}, {1, 0.9}}}, StateChoices{{{2, 1.0}}}},
                                   {}));
}

TEST(WriteTransitions, DtmcReadsBackBitForBit) {
  const SparseMdp die = test::knuth_yao_die();
  ASSERT_EQ(die.type, ModelType::dtmc);
  expect_round_trip(die);
  std::ostringstream text;
  io::write_transitions(die, text);
  EXPECT_EQ(text.str().substr(0, 35), "# Transitions (DTMC)\n13 20\n0 1 0.5\n");
}

}  // namespace
}  // namespace mdpvi
