// The UMB reader (io/umb_reader.h) on archives made here: a small MDP and DTMC read as
// written, and every corrupt, truncated or unsupported archive refused with the
// archive, the entry and what is wrong, never a crash.
#include "io/archive.h"
#include "io/parse_error.h"
#include "io/umb_reader.h"
#include "reference_instances.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

namespace mdpvi {
namespace {

namespace fs = std::filesystem;

using Entries = std::vector<std::pair<std::string, std::string>>;  // in archive order

template <typename T>
std::string bytes_of(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

// Two states: state 0 chooses "a" (to 1) or goes to 0 and 1 by halves; state 1 loops.
std::string index_json(const std::string& players = "1", const std::string& extra = "") {
  return R"({"format-version": 1, "format-revision": 0,
 "transition-system": {"time": "discrete", "#players": )" + players + R"(, "#states": 2, "#initial-states": 1,
   "#choices": 3, "#choice-actions": 2, "#branches": 4, "#branch-actions": 0, "#observations": 0,
   "branch-probability-type": {"type": "double", "size": 64}},
 "annotations": {"aps": {"goal": {"alias": "goal", "applies-to": ["states"], "type": {"type": "bool", "size": 1}}},
   "rewards": {"cost": {"alias": "cost", "applies-to": ["choices"], "type": {"type": "double", "size": 64}}}},
 "valuations": {"states": {"unique": true, "classes": [{"variables": [
   {"name": "x", "type": {"type": "int", "size": 3}}, {"name": "b", "type": {"type": "bool", "size": 1}},
   {"padding": 4}]}]}})" + extra + "}";
}

Entries small_mdp() {
  return {{"index.json", index_json()},
          {"state-to-choices.bin", bytes_of(std::vector<std::uint64_t>{0, 2, 3})},
          {"choice-to-branches.bin", bytes_of(std::vector<std::uint64_t>{0, 1, 3, 4})},
          {"branch-to-target.bin", bytes_of(std::vector<std::uint64_t>{1, 1, 0, 1})},
          {"branch-to-probability.bin", bytes_of(std::vector<double>{1.0, 0.5, 0.5, 1.0})},
          {"state-is-initial.bin", bytes_of(std::vector<std::uint64_t>{1})},
          {"actions/choices/string-mapping.bin", bytes_of(std::vector<std::uint64_t>{0, 0, 1})},
          {"actions/choices/strings.bin", "a"},
          {"actions/choices/values.bin", bytes_of(std::vector<std::uint32_t>{1, 0, 0})},
          {"annotations/aps/goal/states/values.bin", bytes_of(std::vector<std::uint64_t>{2})},
          {"annotations/rewards/cost/choices/values.bin", bytes_of(std::vector<double>{2.0, 0.0, 1.5})},
          // x = -2, b = true in state 0 (0b1110: x's 3 bits 110, then b); x = 3, b = false in 1.
          {"valuations/states/valuations.bin", std::string("\x0e\x03", 2)}};
}

class UmbFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mdpvi_umb_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const Entries& entries) {
    const std::string path = (dir_ / "m.umb").string();
    io::ArchiveWriter archive(path);
    for (const auto& [name, bytes] : entries) archive.add(name, bytes);
    archive.close();
    return path;
  }
  std::string write_raw(const std::string& bytes) {
    const std::string path = (dir_ / "m.umb").string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  // The reader's message for the archive, without its path.
  std::string error_of(const std::string& path) {
    try {
      io::read_umb_model(path);
    } catch (const io::ParseError& error) {
      std::string message = error.what();
      return message.substr(message.find("m.umb") + 5);
    }
    return "no error";
  }
  std::string error_with(Entries entries, const std::string& name, const std::string& bytes) {
    for (auto& [n, b] : entries) {
      if (n == name) b = bytes;
    }
    return error_of(write(entries));
  }
  std::string error_without(Entries entries, const std::string& name) {
    std::erase_if(entries, [&](const auto& e) { return e.first == name; });
    return error_of(write(entries));
  }

  fs::path dir_;
};

TEST_F(UmbFiles, ReadsAnMdpWithActionsRewardsAndValuations) {
  const SparseMdp mdp = io::read_umb_model(write(small_mdp()));
  EXPECT_EQ(mdp.type, ModelType::mdp);
  EXPECT_EQ(mdp.num_states(), 2u);
  EXPECT_EQ(mdp.num_choices(), 3u);
  EXPECT_EQ(std::vector<std::uint32_t>(mdp.columns.begin(), mdp.columns.end()), (std::vector<std::uint32_t>{1, 0, 1, 1}));
  EXPECT_EQ(mdp.initial_states, (std::vector<std::uint32_t>{0}));
  ASSERT_EQ(mdp.labels.size(), 2u);
  EXPECT_EQ(mdp.labels[0].name, "init");
  EXPECT_EQ(mdp.labels[1].name, "goal");
  EXPECT_TRUE(mdp.labels[1].states.test(1) && !mdp.labels[1].states.test(0));
  ASSERT_EQ(mdp.rewards.size(), 1u);
  EXPECT_EQ(mdp.rewards[0].name, "cost");
  EXPECT_EQ(mdp.rewards[0].row_reward(1, 2), 1.5);
  ASSERT_TRUE(mdp.actions);
  EXPECT_EQ(mdp.actions->names[mdp.actions->of_choice[0]], "a");
  EXPECT_EQ(mdp.actions->of_choice[1], 0u);
  ASSERT_TRUE(mdp.valuations);
  EXPECT_EQ(mdp.valuations->variables, (std::vector<std::string>{"x", "b"}));
  EXPECT_EQ(mdp.valuations->types[1], ValueType::boolean);
  EXPECT_EQ(mdp.valuations->value(0, 0), -2);
  EXPECT_EQ(mdp.valuations->value(0, 1), 1);
  EXPECT_EQ(mdp.valuations->value(1, 0), 3);
  EXPECT_EQ(mdp.valuations->value(1, 1), 0);
}

// index.json is read in time linear in its keys (issue 44: 100,000 labels took most of
// a minute), as nlohmann's parse reads it: a key given twice keeps its last value, and
// the propositions keep their order.
TEST_F(UmbFiles, IndexKeepsOrderAndTheLastOfATwiceGivenKey) {
  Entries entries = small_mdp();
  std::string index = index_json();
  const std::string aps = R"("aps": {"goal": )";
  index.replace(index.find(aps), aps.size(),
                R"("aps": {"zeta": {"alias": "zeta", "applies-to": ["states"], "type": {"type": "bool", "size": 1}}, )"
                R"("goal": {"alias": "wrong", "applies-to": ["states"], "type": {"type": "bool", "size": 1}}, "goal": )");
  index.replace(index.find(R"("#players": 1)"), 13, R"("#players": 0, "#players": 1)");
  entries[0].second = index;
  entries.push_back({"annotations/aps/zeta/states/values.bin", bytes_of(std::vector<std::uint64_t>{1})});
  const SparseMdp mdp = io::read_umb_model(write(entries));
  EXPECT_EQ(mdp.type, ModelType::mdp);  // the last #players
  ASSERT_EQ(mdp.labels.size(), 3u);
  EXPECT_EQ(mdp.labels[1].name, "zeta");
  EXPECT_EQ(mdp.labels[2].name, "goal");  // the last "goal", in its first place
  EXPECT_TRUE(mdp.labels[1].states.test(0));
}

TEST_F(UmbFiles, EntriesBeforeTheIndexAreReadToo) {
  Entries entries = small_mdp();
  std::rotate(entries.begin(), entries.begin() + 1, entries.end());  // index.json last
  EXPECT_EQ(io::read_umb_model(write(entries)).num_choices(), 3u);
}

TEST_F(UmbFiles, ReadsADtmcWithoutStateToChoices) {
  Entries dtmc = {{"index.json", R"({"transition-system": {"time": "discrete", "#players": 0, "#states": 2,
      "#initial-states": 2, "#choices": 2, "#branches": 3},
      "annotations": {"rewards": {"1": {"applies-to": ["branches"], "type": {"type": "double", "size": 64}}}}})"},
                  {"choice-to-branches.bin", bytes_of(std::vector<std::uint64_t>{0, 2, 3})},
                  {"branch-to-target.bin", bytes_of(std::vector<std::uint64_t>{0, 1, 1})},
                  {"branch-to-probability.bin", bytes_of(std::vector<double>{0.25, 0.75, 1.0})},
                  {"state-is-initial.bin", bytes_of(std::vector<std::uint64_t>{3})},
                  {"annotations/rewards/1/branches/values.bin", bytes_of(std::vector<double>{4.0, 0.0, 1.0})}};
  const SparseMdp mdp = io::read_umb_model(write(dtmc));
  EXPECT_EQ(mdp.type, ModelType::dtmc);
  EXPECT_EQ(mdp.initial_states, (std::vector<std::uint32_t>{0, 1}));
  ASSERT_EQ(mdp.rewards.size(), 1u);
  EXPECT_EQ(mdp.rewards[0].name, "");  // PRISM's number for an unnamed structure
  EXPECT_EQ(mdp.rewards[0].row_reward(0, 0), 1.0);  // 0.25 * 4: a branch reward is expected per choice
}

TEST_F(UmbFiles, RefusesCorruptArchives) {
  const Entries m = small_mdp();
  EXPECT_EQ(error_of(write_raw("@type: MDP\n")).substr(0, 46), ": cannot read it as a (compressed) tar archive");
  EXPECT_EQ(error_without(m, "index.json"), ": no index.json in the archive");
  EXPECT_EQ(error_with(m, "index.json", "{\"transition-system\": {\n  \"time\": ,}}"), ":index.json:2:11: not valid JSON");
  EXPECT_EQ(error_with(m, "index.json", "{}"), ": index.json: expected \"transition-system\", found none");
  EXPECT_EQ(error_with(m, "index.json", index_json("2")), ": index.json: 2 players: games are not supported");
  EXPECT_EQ(error_with(m, "index.json", index_json("\"one\"")), ": index.json: #players: expected a count, found \"one\"");
  // Found by fuzzing: nlohmann's own errors, for a number past a double ("4e795522244")
  // or a value of another type than the format's.
  EXPECT_EQ(error_with(m, "index.json", index_json("4e795522244")).substr(0, 29), ": index.json: cannot be read:");
  std::string typed = index_json();
  typed.replace(typed.find("{\"type\": \"double\", \"size\": 64}}"), 17, "{\"type\": 5");
  EXPECT_EQ(error_with(m, "index.json", typed).substr(0, 34), ": index.json: unexpected content: ");
  EXPECT_EQ(error_with(m, "branch-to-target.bin", bytes_of(std::vector<std::uint64_t>{1, 1, 7, 1})),
            ": branch-to-target.bin: branch 2 goes to 7, not a state (#states 2)");
  EXPECT_EQ(error_with(m, "branch-to-probability.bin", bytes_of(std::vector<double>{1.0, 0.5, 0.5})),
            ": branch-to-probability.bin: 24 bytes, expected 32 (4 values of 8 bytes)");
  EXPECT_EQ(error_with(m, "branch-to-probability.bin", bytes_of(std::vector<double>{1.0, 0.5, 0.25, 1.0})),
            ": branch-to-probability.bin: the probabilities of choice 1 sum to 0.75, not 1");
  EXPECT_EQ(error_with(m, "branch-to-probability.bin", bytes_of(std::vector<double>{1.0, 0.5, 0.5, std::nan("")})),
            ": branch-to-probability.bin: branch 3 has probability nan, outside (0,1]");
  EXPECT_EQ(error_with(m, "state-to-choices.bin", bytes_of(std::vector<std::uint64_t>{0, 3, 3})),
            ": state-to-choices.bin: state 1 has no choice (offsets 3, 3)");
  EXPECT_EQ(error_with(m, "choice-to-branches.bin", bytes_of(std::vector<std::uint64_t>{0, 1, 3, 5})),
            ": choice-to-branches.bin: the last offset is 5, expected 4 (the number of branches)");
  // Past the branches before the last: refused as it is read, before it could be
  // packed (engine/model/packed_offsets.h keeps only offsets that rise and fit).
  EXPECT_EQ(error_with(m, "choice-to-branches.bin", bytes_of(std::vector<std::uint64_t>{0, 5, 6, 7})),
            ": choice-to-branches.bin: offset 5 at 1 passes the number of branches (4)");
  EXPECT_EQ(error_with(m, "choice-to-branches.bin", bytes_of(std::vector<std::uint64_t>{1, 2, 3, 4})),
            ": choice-to-branches.bin: the first offset is 1, expected 0");
  EXPECT_EQ(error_with(m, "state-is-initial.bin", bytes_of(std::vector<std::uint64_t>{3})),
            ": state-is-initial.bin: 2 initial states, index.json declares 1");
  EXPECT_EQ(error_without(m, "branch-to-target.bin"), ": branch-to-target.bin: missing");
  EXPECT_EQ(error_without(m, "annotations/aps/goal/states/values.bin"), ": annotations/aps/goal/states/values.bin: missing");
  EXPECT_EQ(error_with(m, "actions/choices/values.bin", bytes_of(std::vector<std::uint32_t>{1, 0, 5})),
            ": actions/choices/values.bin: item 2 has action 5, but there are 2");
  EXPECT_EQ(error_with(m, "annotations/rewards/cost/choices/values.bin", bytes_of(std::vector<double>{2.0, INFINITY, 1.5})),
            ": annotations/rewards/cost/choices/values.bin: the reward of choices 1 is not finite");
}

TEST_F(UmbFiles, RefusesWhatMdpviCannotHold) {
  const Entries m = small_mdp();
  auto with_index = [&](const std::string& from, const std::string& to) {
    std::string index = index_json();
    index.replace(index.find(from), from.size(), to);
    return error_with(m, "index.json", index);
  };
  EXPECT_EQ(with_index("\"discrete\"", "\"urgent-stochastic\""),
            ": index.json: time \"urgent-stochastic\": only discrete-time models (MDPs, DTMCs) and CTMCs are supported");
  EXPECT_EQ(with_index("\"discrete\"", "\"stochastic\""),  // this one has 1 player
            ": index.json: stochastic time with 1 player (a CTMDP or MA) is not supported");
  EXPECT_EQ(with_index("\"#states\": 2", "\"#states\": 5000000000"), ": index.json: #states 5000000000: must be between 1 and 2^32-2");
  EXPECT_EQ(with_index("\"branch-probability-type\": {\"type\": \"double\"", "\"branch-probability-type\": {\"type\": \"rational\""),
            ": index.json: transition-system.branch-probability-type: only 64-bit double values are supported, found "
            "{\"type\":\"rational\",\"size\":64}");
  EXPECT_EQ(with_index("\"b\", \"type\": {\"type\": \"bool\"", "\"b\", \"type\": {\"type\": \"double\""),
            ": index.json: valuations: b: type {\"type\":\"double\",\"size\":1} is not supported (int, uint up to 32 bits, bool)");
  EXPECT_EQ(with_index("\"#observations\": 0", "\"#observations\": 2"), ": index.json: observations (POMDPs) are not supported");
}

// Every prefix of a real archive, and every single-byte change of it, is refused or
// read; none crashes or hangs (the sanitizer build runs this too).
TEST_F(UmbFiles, TruncatedOrAlteredArchivesNeverCrash) {
  const std::string path = write(small_mdp());
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  int refused = 0;
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) refused += error_of(write_raw(bytes.substr(0, cut))) != "no error";
  EXPECT_EQ(refused, static_cast<int>(bytes.size()));  // a gzip stream cut short is always broken
  for (std::size_t at = 0; at < bytes.size(); ++at) {
    std::string altered = bytes;
    altered[at] = static_cast<char>(altered[at] ^ 0x5a);
    error_of(write_raw(altered));
  }
}

}  // namespace
}  // namespace mdpvi
