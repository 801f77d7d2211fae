#include "tools/streaming_output.h"

#include "engine/pipeline/result_test.h"
#include "tools/report.h"
#include "tools/results_export.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace mdpvi::tools {

namespace {

// What the signal handler needs, set beforehand: it may only make async-signal-safe
// calls (write, unlink, _exit).
char g_partial_json[4096] = {};
char g_partial_results[4096] = {};
int g_timeout_status = 1;

void stop_early(int signal_number) {
  const char* text = signal_number == SIGALRM
                         ? "error: stopped at the --timeout; the properties finished before it are reported\n"
                         : "error: interrupted; the properties finished before it are reported\n";
  (void)!write(STDERR_FILENO, text, std::strlen(text));
  if (g_partial_json[0] != '\0') unlink(g_partial_json);
  if (g_partial_results[0] != '\0') unlink(g_partial_results);
  _exit(signal_number == SIGALRM ? g_timeout_status : 128 + signal_number);
}

}  // namespace

// Keeps path + ".partial" where the signal handler finds it (a file, not "-").
void remember_partial(const std::string& path, char (&where)[4096]) {
  const std::string partial = path + ".partial";
  if (!path.empty() && path != "-" && partial.size() < sizeof where) std::memcpy(where, partial.c_str(), partial.size() + 1);
}

// Writes path through path.partial and a rename; false where either failed.
template <typename Write>
bool replace_file(const std::string& path, Write write) {
  const std::string temporary = path + ".partial";
  bool written = false;
  try {
    write(temporary);
    written = true;
  } catch (const std::exception&) {
  }
  std::error_code error;
  if (written) std::filesystem::rename(temporary, path, error);
  return written && !error;
}

StreamingOutput::StreamingOutput(std::string json_path, std::string results_path, bool test)
    : json_path_(std::move(json_path)), results_path_(std::move(results_path)), test_(test) {
  remember_partial(json_path_, g_partial_json);
  remember_partial(results_path_, g_partial_results);
}

void StreamingOutput::model_loaded(const SparseMdp& /*mdp*/, const pipeline::CheckReport& report) {
  if (!json_to_stdout()) write_model_text(std::cout, report.model);
  std::cout.flush();
  save(report);
}

void StreamingOutput::property_answered(const pipeline::CheckReport& report) {
  if (!json_to_stdout()) write_property_text(std::cout, report.properties.back());
  if (test_) test(report);
  std::cout.flush();
  // Each rewrite writes every result so far: skipped where the rewrites would then
  // take more than a tenth of the run so far, once they took kFreeSaving (a run of
  // many quick properties would otherwise be quadratic), so each result of a run of
  // slow ones, or of a few quick ones, is on disk as soon as it is known.
  constexpr auto kFreeSaving = std::chrono::milliseconds(50);
  const auto with_this = saving_ + last_save_cost_;
  if (with_this > kFreeSaving && 10 * with_this > std::chrono::steady_clock::now() - started_) return;
  save(report);
}

void StreamingOutput::test(const pipeline::CheckReport& report) {
  const pipeline::PropertyOutcome& outcome = report.properties.back();
  const std::optional<pipeline::TestVerdict> verdict =
      pipeline::test_result(outcome, pipeline::constants_of(outcome, report.settings));
  if (!verdict) {
    ++untested_;
    unexpected_errors_ += !outcome.error.empty();
    return;
  }
  ++(verdict->passed ? tests_passed_ : tests_failed_);
  if (json_to_stdout()) return;
  std::cout << "Testing result: " << (verdict->passed ? "PASS" : "FAIL (expected " + verdict->expected + ")") << "\n";
}

bool StreamingOutput::finish(const pipeline::CheckReport& report) {
  if (test_ && !json_to_stdout()) {
    std::cout << "\nTests: " << tests_passed_ << " passed, " << tests_failed_ << " failed, " << untested_
              << " without an expected result (or one of \"?\")\n";
  }
  if (json_to_stdout()) {
    std::cout << to_json(report).dump(2) << "\n";
  } else {
    write_sweep_tables(std::cout, report);
  }
  save(report);
  bool ok = json_path_.empty() || json_to_stdout() || saved_;
  if (!ok) spdlog::error("{}: cannot write the JSON report", json_path_);
  if (results_path_ == "-") {
    try {
      export_results(report, results_path_);
    } catch (const std::exception& error) {
      spdlog::error("{}", error.what());
      ok = false;
    }
  } else if (!results_path_.empty() && !results_saved_) {
    spdlog::error("{}: cannot write the results", results_path_);
    ok = false;
  }
  return ok;
}

void StreamingOutput::save(const pipeline::CheckReport& report) {
  const auto start = std::chrono::steady_clock::now();
  save_now(report);
  last_save_cost_ = std::chrono::steady_clock::now() - start;
  saving_ += last_save_cost_;
}

void StreamingOutput::save_now(const pipeline::CheckReport& report) {
  if (!json_path_.empty() && !json_to_stdout()) {
    saved_ = replace_file(json_path_, [&](const std::string& file) {
      std::ofstream out(file);
      if (!(out << to_json(report).dump(2) << "\n")) throw std::runtime_error(file);
    });
  }
  if (!results_path_.empty() && results_path_ != "-") {
    // Named like the file, with ".partial" after it: export_results reads the format
    // from the extension, so it writes the final name's format into the temporary.
    results_saved_ = replace_file(results_path_, [&](const std::string& file) { export_results(report, file, results_path_); });
  }
}

void stop_early_on_signals(unsigned timeout_s, int timeout_status) {
  g_timeout_status = timeout_status;
  struct sigaction action {};
  action.sa_handler = stop_early;
  sigemptyset(&action.sa_mask);
  for (int signal_number : {SIGINT, SIGTERM, SIGALRM}) sigaction(signal_number, &action, nullptr);
  if (timeout_s > 0) alarm(timeout_s);
}

}  // namespace mdpvi::tools
