// Every model format mdpvi writes reads back to the same model (io/model_files.h):
// PRISM's explicit files, DRN and UMB, from PRISM's golden exports and from models
// built from the PRISM language; PRISM's own exports write back byte for byte; PRISM's
// UMB files are the same models as its .tra exports.
#include "reference_instances.h"
#include "same_model.h"

#include "engine/explore/model_builder.h"
#include "io/drn_reader.h"
#include "io/explicit_reader.h"
#include "io/explicit_writer.h"
#include "io/model_files.h"
#include "io/umb_reader.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace mdpvi {
namespace {

namespace fs = std::filesystem;
using test::kShared;

const char* const kGolden[] = {"coin2_2", "coin4_2", "csma2_2", "herman5", "leader3", "leader4", "wlan0", "wlan0_collide"};

fs::path golden(const std::string& name) { return kShared / "benchmarks/explicit" / name; }

// A fresh folder for one test's files.
fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("mdpvi_formats_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string file_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Built as --export-model builds: with every reward structure and the actions.
SparseMdp build_prism(const io::TextFile& file) {
  BuildOptions options;
  options.keep_actions = true;
  return build_model(resolve_model(io::parse_model(file), {}), options).mdp;
}

TEST(ModelFiles, FormatComesFromTheExtensionOrFormat) {
  using io::ModelFormat;
  EXPECT_EQ(io::model_format("a.drn", std::nullopt), ModelFormat::drn);
  EXPECT_EQ(io::model_format("a.umb", std::nullopt), ModelFormat::umb);
  EXPECT_EQ(io::model_format("a.tra", std::nullopt), ModelFormat::explicit_files);
  EXPECT_EQ(io::model_format("a", std::nullopt, true), ModelFormat::explicit_files);
  EXPECT_EQ(io::model_format("a.nm", std::nullopt), ModelFormat::prism);
  EXPECT_EQ(io::model_format("a.nm", std::string("umb")), ModelFormat::umb);
  EXPECT_THROW(io::model_format("a.nm", std::string("json")), std::invalid_argument);
  EXPECT_THROW(io::check_model_file_path("out.json"), std::invalid_argument);
}

// Read, written in each format, read back: the same model.
void expect_round_trips(const SparseMdp& model, const std::string& name) {
  const fs::path dir = scratch(name);
  for (const char* extension : {".tra", ".drn", ".umb"}) {
    SCOPED_TRACE(name + extension);
    const std::string path = (dir / (name + extension)).string();
    io::write_model_file(model, path);
    const SparseMdp read = io::read_model_file(io::model_format(path, std::nullopt), path);
    test::expect_same_model_by_name(model, read);
  }
  fs::remove_all(dir);
}

TEST(RoundTrip, GoldenExportsReadBackTheSameInEveryFormat) {
  if (!test::have_shared()) GTEST_SKIP();
  for (const char* name : kGolden) expect_round_trips(io::read_explicit_model(golden(name).string()), name);
}

TEST(RoundTrip, BuiltModelsReadBackTheSameInEveryFormat) {
  // resend: a Boolean variable, actions, choice rewards.
  SparseMdp resend = build_prism(io::TextFile::load(std::string(MDPVI_SOURCE_DIR) + "/models/resend/resend.nm"));
  ASSERT_TRUE(resend.actions.has_value());
  ASSERT_EQ(resend.rewards.size(), 1u);
  expect_round_trips(resend, "resend");
  // Negative values (UMB's two's complement), a DTMC, state and transition rewards,
  // an unnamed structure.
  expect_round_trips(build_prism(io::TextFile::from_string("m.nm", "dtmc\nmodule m\n  x : [-3..2] init -3;\n  b : bool;\n"
                                      "  [go] x<2 -> 0.25 : (x'=x+1) + 0.75 : (x'=x+2>2?2:x+2)&(b'=!b);\n"
                                      "  [stop] x=2 -> true;\nendmodule\nlabel \"top\" = x=2;\n"
                                      "rewards\n  x<0 : -x;\n  [go] true : 0.5;\nendrewards\n")),
                     "negative");
}

// Writes each model the pipeline loads to one file (the command's --export-model).
class ModelWriter final : public pipeline::CheckListener {
 public:
  explicit ModelWriter(std::string path) : path_(std::move(path)) {}
  void model_loaded(const SparseMdp& mdp, const pipeline::CheckReport&) override {
    io::write_model_file(mdp, path_, io::Compression::gzip);
  }
  void property_answered(const pipeline::CheckReport&) override {}

 private:
  std::string path_;
};

TEST(RoundTrip, PrismLanguageModelAnswersTheSameFromEveryExport) {
  if (!test::have_shared()) GTEST_SKIP();
  const nlohmann::json& expected = test::reference().at("csma2_2");
  const fs::path dir = scratch("csma");
  for (const char* extension : {".tra", ".drn", ".umb"}) {
    SCOPED_TRACE(extension);
    pipeline::CheckOptions write = test::reference_check(expected);
    write.whole_model = true;
    const std::string path = (dir / (std::string("csma") + extension)).string();
    ModelWriter writer(path);
    pipeline::run_check(write, &writer);
    pipeline::CheckOptions read = test::reference_check(expected);
    read.model_file = path;
    // An export keeps labels and variables, not the model's formulas: the properties
    // over them (6 of csma2_2's 8) are answered, as from PRISM's own exports.
    EXPECT_EQ(test::expect_matches_reference(pipeline::run_check(read), expected), 6);
  }
  fs::remove_all(dir);
}

TEST(GoldenFiles, PrismExportsWriteBackByteForByte) {
  if (!test::have_shared()) GTEST_SKIP();
  const fs::path dir = scratch("bytes");
  for (const char* name : kGolden) {
    io::write_explicit_files(io::read_explicit_model(golden(name).string()), (dir / name).string());
    for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
      const fs::path original = golden(entry.path().filename().string());
      EXPECT_EQ(file_text(entry.path()), file_text(original)) << entry.path().filename();
    }
    for (const fs::directory_entry& entry : fs::directory_iterator(dir)) fs::remove(entry.path());
  }
  fs::remove_all(dir);
}

// PRISM's UMB files hold the models of its .tra exports (PRISM's UMB lists neither
// "deadlock" nor a branch order: mdpvi sorts a choice's branches by target).
TEST(GoldenFiles, UmbAndTraExportsAreTheSameModel) {
  if (!test::have_shared()) GTEST_SKIP();
  for (const char* name : kGolden) {
    SCOPED_TRACE(name);
    test::expect_same_model_by_name(io::read_explicit_model(golden(name).string()),
                                    io::read_umb_model(golden(name).string() + ".umb"));
  }
}

}  // namespace
}  // namespace mdpvi
