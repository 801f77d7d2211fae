#pragma once
// How the check command reports while it runs: each result printed and flushed as
// soon as it is known (unless the JSON report goes to standard output), and the JSON
// file and the --export-results file rewritten after each property (skipped where
// rewriting would take more than a tenth of the run), through a temporary file and a
// rename, so a run stopped early leaves a whole report of what
// it finished, never a half-written one. And how it stops early (SIGINT, SIGTERM,
// --timeout) with that kept.
#include "engine/pipeline/check_run.h"

#include <chrono>
#include <string>

namespace mdpvi::tools {

class StreamingOutput final : public pipeline::CheckListener {
 public:
  // Empty paths: no such file. results_path "-": standard output, at the end. test
  // (--test): each result compared with its RESULT comment, the verdict printed.
  StreamingOutput(std::string json_path, std::string results_path, bool test = false);

  void model_loaded(const SparseMdp& mdp, const pipeline::CheckReport& report) override;
  void property_answered(const pipeline::CheckReport& report) override;

  // The whole report at the end: on standard output, or the files' last versions.
  // False (with the error logged) when a file could not be written.
  bool finish(const pipeline::CheckReport& report);

  // --test: whether every result met its RESULT comment, and every error was expected.
  bool tests_passed() const { return tests_failed_ == 0 && unexpected_errors_ == 0; }

 private:
  bool json_to_stdout() const { return json_path_ == "-"; }
  void save(const pipeline::CheckReport& report);      // save_now, timed
  void save_now(const pipeline::CheckReport& report);  // the JSON and results files rewritten

  void test(const pipeline::CheckReport& report);  // --test: the last result's verdict

  std::string json_path_, results_path_;
  bool test_ = false;
  std::size_t tests_passed_ = 0, tests_failed_ = 0, untested_ = 0, unexpected_errors_ = 0;
  bool saved_ = false, results_saved_ = true;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::duration saving_{};          // all rewrites so far
  std::chrono::steady_clock::duration last_save_cost_{};  // the last one's
};

// From now on SIGINT and SIGTERM, and SIGALRM after timeout_s seconds (0: never),
// stop the process: whatever was finished is already out; the handler says so,
// removes a half-written temporary JSON file of the last StreamingOutput, and exits
// with 128 + the signal (as a shell reports it), or timeout_status at the timeout.
void stop_early_on_signals(unsigned timeout_s, int timeout_status);

}  // namespace mdpvi::tools
