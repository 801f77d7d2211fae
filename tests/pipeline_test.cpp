// The pipeline stage (engine/pipeline/check_run.h) as a library caller uses it: what
// the listener is told and when, and the memory accounting of each stage.
#include "engine/pipeline/check_run.h"
#include "engine/pipeline/model_source.h"
#include "engine/check/numeric_result.h"
#include "engine/model/state_numbers.h"
#include "reference_instances.h"

#include <gtest/gtest.h>

#include <bit>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <string>
#include <vector>

namespace mdpvi::pipeline {
namespace {

const std::string kResend = std::string(MDPVI_SOURCE_DIR) + "/models/resend/resend.nm";

CheckOptions resend_on_the_cpu(std::vector<std::string> properties) {
  CheckOptions options;
  options.model_file = kResend;
  options.inline_properties = std::move(properties);
  options.device.solver = SolverKind::cpu;
  return options;
}

// Records what it is told, in order.
class Recorder final : public CheckListener {
 public:
  void model_loaded(const SparseMdp& mdp, const CheckReport&) override {
    events.push_back("model " + std::to_string(mdp.num_states()));
  }
  void property_results(const std::string& property, const PropertyResult& result, const SparseMdp&) override {
    events.push_back("results " + property + (result.state_values ? " values" : "") + (result.scheduler ? " scheduler" : ""));
  }
  void property_answered(const CheckReport& report) override { events.push_back("answered " + report.properties.back().property); }
  std::vector<std::string> events;
};

// Whether the model it is told of has its states' variable values.
class ValuationsSeen final : public CheckListener {
 public:
  void model_loaded(const SparseMdp& mdp, const CheckReport&) override { kept = mdp.valuations.has_value(); }
  void property_answered(const CheckReport&) override {}
  bool kept = false;
};

bool valuations_kept(CheckOptions options) {
  ValuationsSeen seen;
  const CheckReport report = run_check(options, &seen);
  for (const PropertyOutcome& p : report.properties) EXPECT_TRUE(p.error.empty()) << p.property << ": " << p.error;
  return seen.kept;
}

// --model-type on a model read from a file: a DTMC may become an MDP; nothing else
// changes type, and the error names the file.
TEST(Pipeline, AReadModelHoldsItsTypeButAChainMayBeAnMdp) {
  SparseMdp chain;
  chain.type = ModelType::dtmc;
  hold_model_type(ModelType::dtmc, "c.tra", chain);
  EXPECT_EQ(chain.type, ModelType::dtmc);
  hold_model_type(ModelType::mdp, "c.tra", chain);
  EXPECT_EQ(chain.type, ModelType::mdp);
  for (const auto& [from, to] : {std::pair{ModelType::mdp, ModelType::dtmc}, std::pair{ModelType::dtmc, ModelType::ctmc},
                                 std::pair{ModelType::ctmc, ModelType::mdp}}) {
    SparseMdp read;
    read.type = from;
    try {
      hold_model_type(to, "m.drn", read);
      ADD_FAILURE() << to_string(from) << " as " << to_string(to);
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find("m.drn: the file holds a"), std::string::npos) << error.what();
    }
    EXPECT_EQ(read.type, from);
  }
}

// The build keeps the states' variable values only where something reads them: a
// property naming a variable, itself or through a formula of the model or a label of
// the properties file; a filter listing states; an export that names them. Labels
// alone leave them out, and the answers are the same.
TEST(Pipeline, KeepsValuationsOnlyWhereSomethingReadsThem) {
  EXPECT_FALSE(valuations_kept(resend_on_the_cpu({"Pmax=? [ F \"delivered\" ]", "Pmin=? [ F \"gave_up\" ]"})));
  EXPECT_TRUE(valuations_kept(resend_on_the_cpu({"Pmax=? [ F \"delivered\" ]", "Pmax=? [ F delivered ]"})));
  EXPECT_TRUE(valuations_kept(resend_on_the_cpu({"filter(print, Pmax=? [ F \"delivered\" ], \"gave_up\")"})));
  EXPECT_TRUE(valuations_kept(resend_on_the_cpu({"filter(argmax, Pmax=? [ F \"delivered\" ])"})));
  CheckOptions exported = resend_on_the_cpu({"Pmax=? [ F \"delivered\" ]"});
  exported.keep_valuations = true;
  EXPECT_TRUE(valuations_kept(exported));
  // Through a formula of the model (backoff's tx1 reads s1 and c1), and through a
  // label of the properties file.
  CheckOptions backoff;
  backoff.model_file = std::string(MDPVI_SOURCE_DIR) + "/models/backoff/backoff.nm";
  backoff.device.solver = SolverKind::cpu;
  backoff.inline_properties = {"Pmax=? [ F<=3 \"all_delivered\" ]"};
  EXPECT_FALSE(valuations_kept(backoff));
  backoff.inline_properties = {"Pmax=? [ F<=3 tx1 ]"};
  EXPECT_TRUE(valuations_kept(backoff));
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("mdpvi_valuations_" + std::to_string(::getpid()) + ".props");
  {
    std::ofstream out(file);
    out << "label \"first_awake\" = s1=1;\nPmax=? [ F<=3 \"first_awake\" ];\n";
  }
  backoff.inline_properties.clear();
  backoff.properties_file = file.string();
  EXPECT_TRUE(valuations_kept(backoff));
  std::filesystem::remove(file);
  // The same answers either way.
  const CheckReport without = run_check(resend_on_the_cpu({"Pmax=? [ F \"delivered\" ]"}));
  const CheckReport with = run_check(resend_on_the_cpu({"Pmax=? [ F \"delivered\" ]", "Pmax=? [ F delivered ]"}));
  ASSERT_TRUE(without.properties[0].value && with.properties[0].value);
  EXPECT_EQ(without.properties[0].value->number, with.properties[0].value->number);
}

TEST(Pipeline, TellsTheListenerEachModelAndResultInOrder) {
  CheckOptions options = resend_on_the_cpu({"Pmax=? [ F delivered ]", "P=? [ F nonsense ]"});
  options.keep_state_values = true;
  options.keep_schedulers = true;
  Recorder recorder;
  const CheckReport report = run_check(options, &recorder);
  ASSERT_EQ(report.properties.size(), 2u);
  EXPECT_FALSE(report.all_answered());
  // The failed property has no results to hand over; the answered one has both.
  const std::vector<std::string> expected{"model 7", "results Pmax=? [ F delivered ] values scheduler",
                                          "answered Pmax=? [ F delivered ]", "answered P=? [ F nonsense ]"};
  EXPECT_EQ(recorder.events, expected);
}

TEST(Pipeline, KeepsPerStateResultsOnlyWhereAsked) {
  Recorder recorder;
  run_check(resend_on_the_cpu({"Pmax=? [ F delivered ]"}), &recorder);
  ASSERT_EQ(recorder.events.size(), 3u);
  EXPECT_EQ(recorder.events[1], "results Pmax=? [ F delivered ]");
}

// What a report keeps of a property is its summary: none of the per-state vectors'
// memory (with "= {}" they kept their capacity, three model-sized vectors a property).
TEST(NumericResultSummary, KeepsNoPerStateMemory) {
  NumericResult result;
  result.values = filled(100'000, 0.5);
  result.lower = filled(100'000, 0.25);
  result.upper = filled(100'000, 0.75);
  const NumericResult summary = std::move(result).summary();
  EXPECT_EQ(summary.values.capacity() + summary.lower.capacity() + summary.upper.capacity(), 0u);
}

// A property answers alone as it does after another on the same states, whose SCCs it
// then takes (SearchBackend::remember_sccs_while): the same value, bit for bit.
TEST(Pipeline, AnswersAloneAsAfterAnotherPropertyOnTheSameStates) {
  const std::string leader4 = (test::kShared / "benchmarks/prism/mdps/leader_async/leader4.nm").string();
  if (!std::filesystem::exists(leader4)) GTEST_SKIP() << "no shared benchmarks";
  const std::vector<std::string> properties{"Rmin=? [ F \"elected\" ]", "Rmax=? [ F \"elected\" ]"};
  CheckOptions options;
  options.model_file = leader4;
  options.device.solver = SolverKind::cpu;
  options.inline_properties = properties;
  const CheckReport both = run_check(options);
  ASSERT_EQ(both.properties.size(), 2u);
  ASSERT_TRUE(both.properties[1].computation);
  EXPECT_EQ(both.properties[1].computation->sccs.ran_on, "remembered") << "the same maybe-states as the first's";
  for (std::size_t i = 0; i < properties.size(); ++i) {
    options.inline_properties = {properties[i]};
    const CheckReport alone = run_check(options);
    ASSERT_TRUE(alone.properties[0].value && both.properties[i].value) << properties[i];
    EXPECT_EQ(std::bit_cast<std::uint64_t>(alone.properties[0].value->number),
              std::bit_cast<std::uint64_t>(both.properties[i].value->number))
        << properties[i];
  }
}

// Each stage's peak is the process's peak at its end: they never fall, stage by
// stage, and a solve on the CPU holds no device memory.
TEST(Pipeline, ReportsThePeakOfEachStage) {
  const CheckReport report = run_check(resend_on_the_cpu({"Pmin=? [ F delivered ]", "R{\"cost\"}max=? [ F delivered ]"}));
  const ModelSummary& m = report.model;
  EXPECT_GT(m.resident_bytes_before_build, 0u);
  EXPECT_GE(m.peak_bytes_after_build, m.resident_bytes_before_build);
  EXPECT_GE(m.peak_bytes_after_graph, m.peak_bytes_after_build);
  std::size_t before = m.peak_bytes_after_graph;
  for (const PropertyOutcome& p : report.properties) {
    ASSERT_TRUE(p.computation) << p.property << ": " << p.error;
    const NumericResult& d = *p.computation;
    EXPECT_GE(d.qualitative.peak_host_bytes, before) << p.property;
    EXPECT_GE(d.sccs.peak_host_bytes, d.qualitative.peak_host_bytes) << p.property;
    EXPECT_GE(d.solve.peak_host_bytes, d.sccs.peak_host_bytes) << p.property;
    EXPECT_EQ(d.solve.peak_device_bytes, 0u) << p.property;
    before = d.solve.peak_host_bytes;
  }
}

}  // namespace
}  // namespace mdpvi::pipeline
