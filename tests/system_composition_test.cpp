// PRISM's system ... endsystem: each composition gives the model its groups would
// give with the actions renamed and the commands copied by hand; the default is the
// modules in alphabetised parallel; errors name the module.
#include "engine/explore/model_builder.h"
#include "engine/explore/resolved_model.h"
#include "engine/model/located_error.h"
#include "io/prism_model.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace mdpvi {
namespace {

// Three modules: P1 and P2 take a then b, Q counts a's up to 3.
const std::string kModules =
    "mdp\n"
    "module P1 x : [0..2] init 0; [a] x=0 -> 0.5:(x'=1) + 0.5:(x'=0); [b] x=1 -> (x'=2); endmodule\n"
    "module P2 y : [0..2] init 0; [a] y=0 -> (y'=1); [b] y=1 -> (y'=2); endmodule\n"
    "module Q z : [0..3] init 0; [a] z<3 -> (z'=z+1); [] z=3 -> (z'=0); endmodule\n";

const std::string kRewards = "rewards \"r\" [a] true : 1; [b] x=1 : 10; [] true : 100; endrewards\n";

using Valuation = std::vector<std::int32_t>;
// A state's rows as a multiset: each row its successors' valuations and probabilities,
// and its reward. What a model is, whatever order its states and choices come in.
using Row = std::tuple<std::multiset<std::pair<Valuation, double>>, double>;
using Canonical = std::map<Valuation, std::multiset<Row>>;

Valuation valuation_of(const SparseMdp& mdp, std::uint64_t s) {
  Valuation v;
  for (std::size_t i = 0; i < mdp.valuations->variables.size(); ++i) v.push_back(mdp.valuations->value(s, i));
  return v;
}

Canonical built(const std::string& text) {
  BuildOptions options;
  options.compact_values = false;
  const SparseMdp mdp = build_model(resolve_model(io::parse_model(io::TextFile::from_string("s.nm", text)), {}), options).mdp;
  Canonical canonical;
  for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
    std::multiset<Row>& rows = canonical[valuation_of(mdp, s)];
    for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
      std::multiset<std::pair<Valuation, double>> successors;
      for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
        successors.emplace(valuation_of(mdp, mdp.columns[k]), mdp.values[k]);
      }
      rows.emplace(std::move(successors), mdp.rewards.at(0).choice_rewards[r]);
    }
  }
  return canonical;
}

// The modules with their commands' actions written out (P1's, P2's, Q's a; P1's and
// P2's b), then the rewards, then the rest (a system block).
std::string modules(const std::string& p1_a, const std::string& p1_b, const std::string& p2_a, const std::string& p2_b,
                    const std::vector<std::string>& q_a, const std::string& rewards, const std::string& rest) {
  std::string q;
  for (const std::string& a : q_a) q += "[" + a + "] z<3 -> (z'=z+1); ";
  return "mdp\nmodule P1 x : [0..2] init 0; [" + p1_a + "] x=0 -> 0.5:(x'=1) + 0.5:(x'=0); [" + p1_b +
         "] x=1 -> (x'=2); endmodule\nmodule P2 y : [0..2] init 0; [" + p2_a + "] y=0 -> (y'=1); [" + p2_b +
         "] y=1 -> (y'=2); endmodule\nmodule Q z : [0..3] init 0; " + q + "[] z=3 -> (z'=0); endmodule\n" + rewards + rest;
}

TEST(SystemComposition, WrittenOutAsTheDefaultIsTheDefault) {
  const Canonical plain = built(kModules + kRewards);
  EXPECT_EQ(built(kModules + kRewards + "system P1 || P2 || Q endsystem\n"), plain);
  EXPECT_EQ(built(kModules + kRewards + "system (Q || P2) || P1 endsystem\n"), plain);
  // a by all three (P1 may stay at x=0, then P2 cannot take a again), b by both P's:
  // (0,0,0), (1,1,1), (0,1,1), (2,2,1).
  EXPECT_EQ(plain.size(), 4u);
}

// (P1 ||| P2) || Q: a is P1 with Q or P2 with Q; b is either P alone.
TEST(SystemComposition, AsynchronousUnderAlphabetisedIsItsGroupsRenamed) {
  const std::string rewards = "rewards \"r\" [a1] true : 1; [a2] true : 1; [b1] x=1 : 10; [b2] x=1 : 10; [] true : 100; endrewards\n";
  const Canonical by_hand = built(modules("a1", "b1", "a2", "b2", {"a1", "a2"}, rewards, ""));
  EXPECT_EQ(built(kModules + kRewards + "system (P1 ||| P2) || Q endsystem\n"), by_hand);
  EXPECT_GT(by_hand.size(), 3u);
}

// (P1 |[b]| P2) || Q: inside, a is either P alone and b both; then a meets Q.
TEST(SystemComposition, RestrictedIsItsGroupsRenamed) {
  const std::string rewards = "rewards \"r\" [a1] true : 1; [a2] true : 1; [b] x=1 : 10; [] true : 100; endrewards\n";
  const Canonical by_hand = built(modules("a1", "b", "a2", "b", {"a1", "a2"}, rewards, ""));
  EXPECT_EQ(built(kModules + kRewards + "system (P1 |[b]| P2) || Q endsystem\n"), by_hand);
}

// ((P1 || P2) / {a}) || Q: the P's a is internal, Q's a its own; [] rewards count the
// hidden a, [a] only Q's.
TEST(SystemComposition, HiddenActionsAreInternalAndEarnUnlabelledRewards) {
  const std::string rewards = "rewards \"r\" [q] true : 1; [h] true : 100; [b] x=1 : 10; [] true : 100; endrewards\n";
  const Canonical by_hand = built(modules("h", "b", "h", "b", {"q"}, rewards, ""));
  EXPECT_EQ(built(kModules + kRewards + "system ((P1 || P2) / {a}) || Q endsystem\n"), by_hand);
}

// (P1 {a<-c} ||| P2) || Q, and a swap inside one renaming: P1's a is c (alone), P2's a meets Q.
TEST(SystemComposition, RenamedActionsAreItsGroupsRenamed) {
  const std::string rewards = "rewards \"r\" [a] true : 1; [b1] x=1 : 10; [b2] x=1 : 10; [] true : 100; endrewards\n";
  const Canonical by_hand = built(modules("c", "b1", "a", "b2", {"a"}, rewards, ""));
  EXPECT_EQ(built(kModules + kRewards + "system (P1 {a<-c} ||| P2) || Q endsystem\n"), by_hand);
  // {a<-b, b<-a}: P1's b syncs with P2's a and Q's a; P1's a with P2's b.
  const std::string swapped = "rewards \"r\" [s] true : 1; [t] x=1 : 10; [] true : 100; endrewards\n";
  const Canonical swapped_by_hand = built(modules("t", "s", "s", "t", {"s"}, swapped, ""));
  EXPECT_EQ(built(kModules + kRewards + "system (P1 {a<-b, b<-a} || P2) || Q endsystem\n"), swapped_by_hand);
}

// An action one side of a restricted composition lacks is blocked; one in no listed
// module's alphabet is ignored.
TEST(SystemComposition, ARestrictedActionOneSideLacksIsBlocked) {
  const Canonical blocked = built(kModules + kRewards + "system (P1 / {b}) |[a, b, zz]| (P2 || Q) endsystem\n");
  // By hand: P1's b alone, unlabelled for rewards; P2's b dropped.
  const std::string by_hand =
      "mdp\n"
      "module P1 x : [0..2] init 0; [a] x=0 -> 0.5:(x'=1) + 0.5:(x'=0); [h] x=1 -> (x'=2); endmodule\n"
      "module P2 y : [0..2] init 0; [a] y=0 -> (y'=1); endmodule\n"
      "module Q z : [0..3] init 0; [a] z<3 -> (z'=z+1); [] z=3 -> (z'=0); endmodule\n"
      "rewards \"r\" [a] true : 1; [h] true : 100; [] true : 100; endrewards\n";
  EXPECT_EQ(blocked, built(by_hand));
}

void expect_error(const std::string& system, const std::string& message) {
  try {
    built(kModules + kRewards + system);
    ADD_FAILURE() << "no error for " << system;
  } catch (const std::exception& e) {
    EXPECT_EQ(std::string(e.what()), message) << system;
  }
}

TEST(SystemComposition, ErrorsNameTheModuleAndWhere) {
  expect_error("system P1 || P2 || R endsystem\n", "s.nm:6:20: unknown module 'R' in system ... endsystem");
  expect_error("system P1 || P2 || P1 endsystem\n", "s.nm:6:20: module 'P1' appears twice in system ... endsystem");
  expect_error("system P1 || P2 endsystem\n", "s.nm:6:8: module 'Q' is missing from system ... endsystem");
  expect_error("system P1 |[a P2 || Q endsystem\n", "s.nm:6:15: expected ']', found 'P2'");
  expect_error("system P1 || P2 || Q\n", "s.nm:6:1: expected 'endsystem', found end of input");
  expect_error("system P1 || P2 || Q endsystem\nsystem P1 endsystem\n", "s.nm:7:1: a second system ... endsystem block");
}

// Input that would nest the tree deeper than a reader may recurse is refused with an error.
TEST(SystemComposition, DeepNestingIsAnErrorNotACrash) {
  for (const std::string& system : {"system " + std::string(5000, '(') + "P1" + std::string(5000, ')') + " || P2 || Q endsystem\n",
                                    "system P1 || P2 || Q" + [] {
                                      std::string hides;
                                      for (int i = 0; i < 20000; ++i) hides += " / {a}";
                                      return hides;
                                    }() + " endsystem\n"}) {
    try {
      built(kModules + kRewards + system);
      ADD_FAILURE() << "no error";
    } catch (const std::exception& e) {
      EXPECT_TRUE(std::string(e.what()).find("nested deeper than") != std::string::npos ||
                  std::string(e.what()).find("more than 10000 operators in system ... endsystem") != std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace mdpvi
