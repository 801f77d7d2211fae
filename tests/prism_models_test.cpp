// Every instance of reference.json built from its PRISM-language model: PRISM's exact
// counts, and every property mdpvi answers within 1e-6 of PRISM's sound value.
#include "reference_instances.h"
#include "same_model.h"
#include "engine/pipeline/check_run.h"

#include "engine/explore/model_builder.h"
#include "io/explicit_reader.h"


namespace mdpvi {
namespace {

using test::kShared;

class PrismModel : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!test::have_shared()) GTEST_SKIP() << "no " << kShared << " here";
  }
};

// Every property of the benchmark files is answered.
TEST_P(PrismModel, CountsAndPropertiesMatchPrism) {
  const nlohmann::json& expected = test::reference().at(GetParam());
  pipeline::CheckReport report = pipeline::run_check(test::reference_check(expected));
  for (const pipeline::PropertyOutcome& p : report.properties) EXPECT_EQ(p.error, "") << p.property;
  int answered = test::expect_matches_reference(report, expected);
  EXPECT_EQ(answered, static_cast<int>(expected.at("properties").size()));
}

std::vector<std::string> affordable_instances() {
  // All of reference.json: the largest (leader6, 238k states) builds in about a second.
  std::vector<std::string> names;
  if (!test::have_shared()) return {"none"};
  for (const auto& [name, instance] : test::reference().items()) names.push_back(name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Reference, PrismModel, ::testing::ValuesIn(affordable_instances()),
                         [](const auto& info) { return info.param; });

// The builder's model equals PRISM's own export of it, state for state, once the
// states are matched through their valuations (the state orders differ).
TEST(PrismModelAgainstExport, Coin2SameTransitionsAsPrismsExport) {
  if (!test::have_shared()) GTEST_SKIP();
  auto resolved = resolve_model(io::parse_model(io::TextFile::load((kShared / "benchmarks/prism/mdps/consensus/coin2.nm").string())),
                                {{"K", "2"}});
  SparseMdp built = build_model(resolved).mdp;
  SparseMdp exported = io::read_explicit_model((kShared / "benchmarks/explicit/coin2_2").string());
  ASSERT_EQ(built.num_states(), exported.num_states());
  const auto& a = *built.valuations;
  const auto& b = *exported.valuations;
  ASSERT_EQ(a.variables, b.variables);
  auto key = [](const StateValuations& v, std::uint32_t s) {
    std::vector<std::int32_t> values;
    for (std::size_t i = 0; i < v.variables.size(); ++i) values.push_back(v.value(s, i));
    return values;
  };
  std::map<std::vector<std::int32_t>, std::uint32_t> exported_index;
  for (std::uint32_t s = 0; s < exported.num_states(); ++s) exported_index[key(b, s)] = s;
  // Each state's set of distributions, expressed in the export's numbering.
  auto distributions = [](const SparseMdp& m, std::uint32_t s, const std::vector<std::uint32_t>& rename) {
    std::multiset<std::map<std::uint32_t, double>> result;
    for (auto r = m.row_group_starts[s]; r < m.row_group_starts[s + 1]; ++r) {
      std::map<std::uint32_t, double> d;
      for (auto k = m.row_starts[r]; k < m.row_starts[r + 1]; ++k) d[rename[m.columns[k]]] += m.values[k];
      result.insert(d);
    }
    return result;
  };
  std::vector<std::uint32_t> to_exported(built.num_states()), identity(exported.num_states());
  for (std::uint32_t s = 0; s < built.num_states(); ++s) to_exported[s] = exported_index.at(key(a, s));
  for (std::uint32_t s = 0; s < exported.num_states(); ++s) identity[s] = s;
  for (std::uint32_t s = 0; s < built.num_states(); ++s) {
    ASSERT_EQ(distributions(built, s, to_exported), distributions(exported, to_exported[s], identity)) << "state " << s;
  }
  EXPECT_EQ(to_exported[built.initial_states.front()], exported.initial_states.front());
}

}  // namespace
}  // namespace mdpvi

namespace mdpvi {
namespace {

// The parallel builder numbers states as a sequential breadth-first search does: the
// same model, array for array, whatever the number of threads.
TEST(ParallelBuilder, ModelIsTheSameWithOneThreadAndWithMany) {
  if (!test::have_shared()) GTEST_SKIP();
  auto built_with = [](int threads) {
    auto model = io::parse_model(io::TextFile::load((test::kShared / "benchmarks/prism/mdps/wlan/wlan1.nm").string()));
    BuildOptions options;
    options.threads = threads;
    return build_model(resolve_model(model, {{"TRANS_TIME_MAX", "10"}}), options).mdp;
  };
  test::expect_same_model(built_with(1), built_with(8));
}

// A deadlock's added self-loop earns no transition reward, even from `[] true : r`,
// which rewards every unlabelled command; the state's own state reward stands.
TEST(Builder, DeadlockSelfLoopEarnsNoTransitionReward) {
  for (const char* type : {"mdp", "dtmc"}) {
    const std::string text = std::string(type) +
                             "\nmodule m\n  s : [0..1] init 0;\n  [] s=0 -> (s'=1);\nendmodule\n"
                             "rewards\n  [] true : 2;\n  s=1 : 5;\nendrewards\n";
    BuildOptions options;
    options.build_rewards = true;
    const BuiltModel built = build_model(resolve_model(io::parse_model(io::TextFile::from_string("m.nm", text)), {}), options);
    const SparseMdp& mdp = built.mdp;
    ASSERT_EQ(built.statistics.deadlocks, 1u) << type;
    ASSERT_EQ(mdp.rewards.size(), 1u);
    ASSERT_EQ(mdp.rewards[0].choice_rewards.size(), 2u);
    EXPECT_EQ(mdp.rewards[0].choice_rewards[0], 2.0) << type;  // the command
    EXPECT_EQ(mdp.rewards[0].choice_rewards[1], 0.0) << type;  // the self-loop
    EXPECT_EQ(mdp.rewards[0].state_rewards[1], 5.0) << type;
  }
}

// A deep, narrow model (a wave per state, each of one block, built without the
// parallel scaffolding) numbers its states in breadth-first order too, with a memory
// limit that the builder checks every wave (the process's memory read now and then).
TEST(Builder, DeepChainNumbersItsStatesInOrder) {
  constexpr int n = 20000;
  const std::string text = "dtmc\nmodule m\n  x : [0.." + std::to_string(n) + "] init 0;\n  [] x<" + std::to_string(n) +
                           " -> 0.5:(x'=x+1) + 0.5:(x'=x);\nendmodule\n";
  BuildOptions options;
  options.memory_limit = std::size_t{64} << 30;
  const BuiltModel built = build_model(resolve_model(io::parse_model(io::TextFile::from_string("chain.pm", text)), {}), options);
  const SparseMdp& mdp = built.mdp;
  ASSERT_EQ(mdp.num_states(), std::uint32_t{n + 1});
  EXPECT_EQ(built.statistics.waves, std::uint64_t{n + 1});
  for (std::uint32_t s = 0; s < n; ++s) {
    ASSERT_EQ(mdp.row_starts[mdp.row_group_starts[s] + 1] - mdp.row_starts[mdp.row_group_starts[s]], 2u) << s;
    const std::uint64_t k = mdp.row_starts[mdp.row_group_starts[s]];
    ASSERT_EQ(mdp.columns[k], s) << s;
    ASSERT_EQ(mdp.columns[k + 1], s + 1) << s;
  }
  EXPECT_EQ(built.statistics.deadlocks, 1u);  // x=n, given a self-loop
}

// Equal successors of a choice become one entry, their probabilities added: in a row
// longer than the insertion merge handles (32 updates) and in a short one.
TEST(Builder, EqualSuccessorsOfAChoiceAreMerged) {
  std::string text = "mdp\nmodule m\n  x : [0..4];\n  [] x=0 -> ";
  for (int u = 0; u < 32; ++u) text += (u ? " + " : "") + std::string("1/32:(x'=") + std::to_string(4 - u % 4) + ")";
  text += ";\n  [] x=0 -> 0.5:(x'=2) + 0.25:(x'=1) + 0.25:(x'=2);\n  [] x>0 -> true;\nendmodule\n";
  SparseMdp mdp = build_model(resolve_model(io::parse_model(io::TextFile::from_string("m.nm", text)), {})).mdp;
  // Breadth-first numbering: x=4, 3, 2, 1 are states 1, 2, 3, 4.
  ASSERT_EQ(mdp.num_states(), 5u);
  ASSERT_EQ(mdp.row_group_starts[1], 2u);
  const std::vector<std::uint32_t> long_row(&mdp.columns[mdp.row_starts[0]], &mdp.columns[mdp.row_starts[1]]);
  EXPECT_EQ(long_row, (std::vector<std::uint32_t>{1, 2, 3, 4}));
  for (auto k = mdp.row_starts[0]; k < mdp.row_starts[1]; ++k) EXPECT_DOUBLE_EQ(mdp.values[k], 0.25);
  const std::vector<std::uint32_t> short_row(&mdp.columns[mdp.row_starts[1]], &mdp.columns[mdp.row_starts[2]]);
  EXPECT_EQ(short_row, (std::vector<std::uint32_t>{3, 4}));
  EXPECT_DOUBLE_EQ(mdp.values[mdp.row_starts[1]], 0.75);
  EXPECT_DOUBLE_EQ(mdp.values[mdp.row_starts[1] + 1], 0.25);
}

// A wave whose new states outgrow the table's room for claims grows the table while
// it holds claims (StateTable::grow_in_wave): the initial state's one choice reaches
// 40 x 40 new states, the first wave's table has room for 767. The model comes out
// as without the growth: every state once, numbered by first reach, rows sorted.
TEST(Builder, WaveOutgrowingTheTableGrowsItWhileClaiming) {
  constexpr int n = 40;
  std::string text = "mdp\n";
  for (std::string variable : {"x", "y"}) {
    text += "module m" + variable + "\n  " + variable + " : [0.." + std::to_string(n) + "];\n  [a] " + variable + "=0 -> ";
    for (int k = 1; k <= n; ++k) text += (k > 1 ? " + " : "") + ("1/" + std::to_string(n) + ":(" + variable + "'=") + std::to_string(k) + ")";
    text += ";\n  [] " + variable + ">0 -> (" + variable + "'=0);\nendmodule\n";
  }
  const ResolvedModel model = resolve_model(io::parse_model(io::TextFile::from_string("wide.nm", text)), {});
  auto built_with = [&](int threads, bool cached) {
    BuildOptions options;
    options.threads = threads;
    options.cache_local_transitions = cached;
    return build_model(model, options);
  };
  const BuiltModel built = built_with(4, true);
  EXPECT_GE(built.statistics.waves_growing_table, 1u);
  const SparseMdp& mdp = built.mdp;
  ASSERT_EQ(mdp.num_states(), 1681u);  // (x, y) in 0..40 x 0..40
  EXPECT_EQ(mdp.num_choices(), 3281u);
  EXPECT_EQ(mdp.num_transitions(), 4880u);
  std::vector<std::uint32_t> first_row(&mdp.columns[0], &mdp.columns[mdp.row_starts[1]]);
  std::vector<std::uint32_t> numbered_first(n * n);
  for (std::uint32_t k = 0; k < numbered_first.size(); ++k) numbered_first[k] = k + 1;
  EXPECT_EQ(first_row, numbered_first);
  test::expect_same_model(mdp, built_with(1, true).mdp);
  test::expect_same_model(mdp, built_with(3, false).mdp);
}

ResolvedModel resolved(const std::string& name, const std::string& text) {
  return resolve_model(io::parse_model(io::TextFile::from_string(name, text)), {});
}

// The limits end a build with BuildLimitReached, saying how far it got: the state
// limit past its count, the memory limit as soon as the process holds more.
TEST(Builder, StateAndMemoryLimitsStopTheBuildWithAMessage) {
  const ResolvedModel model = resolved("walk.nm",
                                       "dtmc\nmodule m\n  x : [0..1000];\n  [] x<1000 -> 0.5:(x'=x+1) + 0.5:(x'=0);\n"
                                       "  [] x=1000 -> true;\nendmodule\n");
  BuildOptions options;
  auto limit_message = [&] {
    try {
      build_model(model, options);
    } catch (const BuildLimitReached& error) {
      return std::string(error.what());
    }
    return std::string("no limit reached");
  };
  options.state_limit = 10;
  EXPECT_TRUE(limit_message().starts_with("state limit reached: 11 states found")) << limit_message();
  options.state_limit = 0;
  options.memory_limit = 1;  // any process holds more than a byte
  EXPECT_TRUE(limit_message().starts_with("memory limit reached: the process takes")) << limit_message();
  options.memory_limit = std::size_t{1} << 40;
  EXPECT_EQ(build_model(model, options).mdp.num_states(), 1001u);
}

// A label in a guard is the model's label, not renamed with a module's copy (PRISM's
// labels-inside-guards test): m2's "foo" is still s1 | s2, so s1 and s2 are never
// both true (3 states; a formula would be renamed to s2 | s2, and give 4).
TEST(Builder, LabelsInGuardsAreTheModelsNotRenamedWithAModule) {
  const ResolvedModel model =
      resolved("g.nm", "dtmc\nmodule m1\n  s1 : bool init false;\n  [] !\"foo\" -> (s1'=true);\n  [] true -> (s1'=false);\n"
                       "endmodule\nmodule m2 = m1 [s1=s2] endmodule\nlabel \"foo\" = s1 | s2;\n");
  EXPECT_EQ(build_model(model, {}).mdp.num_states(), 3u);
}

// BuildOptions::labels names the labels to build; "init" and "deadlock" always are.
TEST(Builder, BuildsOnlyTheLabelsAskedFor) {
  const ResolvedModel model = resolved("l.nm", "dtmc\nmodule m\n  x : [0..3];\n  [] x<3 -> (x'=x+1);\nendmodule\n"
                                               "label \"one\" = x=1;\nlabel \"two\" = x=2;\nlabel \"odd\" = mod(x,2)=1;\n");
  BuildOptions options;
  options.labels = std::set<std::string>{"odd", "two"};
  const SparseMdp mdp = build_model(model, options).mdp;
  ASSERT_EQ(mdp.labels.size(), 4u);
  EXPECT_EQ(mdp.find_label("one"), nullptr);
  ASSERT_NE(mdp.find_label("two"), nullptr);
  ASSERT_NE(mdp.find_label("odd"), nullptr);
  EXPECT_EQ(mdp.find_label("two")->states.count(), 1u);
  EXPECT_TRUE(mdp.find_label("two")->states.test(2));
  EXPECT_EQ(mdp.find_label("odd")->states.count(), 2u);
  EXPECT_TRUE(mdp.find_label("odd")->states.test(1) && mdp.find_label("odd")->states.test(3));
  EXPECT_EQ(build_model(model).mdp.labels.size(), 5u);  // all of them, by default
}

// Many labels, each reading one small variable: their memos are small tables from the
// heap, and every label still holds in exactly its states (2,000 labels, 4 states).
TEST(Builder, ManyLabelsEachHoldWhereTheirExpressionDoes) {
  std::string text = "dtmc\nmodule m\n  x : [0..3];\n  [] x<3 -> (x'=x+1);\nendmodule\n";
  for (int l = 0; l < 2000; ++l) text += "label \"l" + std::to_string(l) + "\" = x=" + std::to_string(l % 4) + ";\n";
  const SparseMdp mdp = build_model(resolved("l.nm", text)).mdp;
  ASSERT_EQ(mdp.labels.size(), 2002u);
  for (int l = 0; l < 2000; ++l) {
    const Label* label = mdp.find_label("l" + std::to_string(l));
    ASSERT_NE(label, nullptr);
    ASSERT_EQ(label->states.count(), 1u);
    EXPECT_TRUE(label->states.test(static_cast<std::size_t>(l % 4))) << l;  // x=k is state k
  }
}

}  // namespace
}  // namespace mdpvi
