#include "tools/streaming_output.h"

#include "tools/report.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

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
int g_timeout_status = 1;

void stop_early(int signal_number) {
  const char* text = signal_number == SIGALRM
                         ? "error: stopped at the --timeout; the properties finished before it are reported\n"
                         : "error: interrupted; the properties finished before it are reported\n";
  (void)!write(STDERR_FILENO, text, std::strlen(text));
  if (g_partial_json[0] != '\0') unlink(g_partial_json);
  _exit(signal_number == SIGALRM ? g_timeout_status : 128 + signal_number);
}

}  // namespace

StreamingOutput::StreamingOutput(std::string json_path) : json_path_(std::move(json_path)) {
  const std::string partial = json_path_ + ".partial";
  if (!json_path_.empty() && !json_to_stdout() && partial.size() < sizeof g_partial_json) {
    std::memcpy(g_partial_json, partial.c_str(), partial.size() + 1);
  }
}

void StreamingOutput::model_loaded(const SparseMdp& /*mdp*/, const pipeline::CheckReport& report) {
  if (!json_to_stdout()) write_model_text(std::cout, report.model);
  std::cout.flush();
  save(report);
}

void StreamingOutput::property_answered(const pipeline::CheckReport& report) {
  if (!json_to_stdout()) write_property_text(std::cout, report.properties.back());
  std::cout.flush();
  save(report);
}

bool StreamingOutput::finish(const pipeline::CheckReport& report) {
  if (json_to_stdout()) {
    std::cout << to_json(report).dump(2) << "\n";
  } else {
    write_sweep_tables(std::cout, report);
  }
  save(report);
  const bool ok = json_path_.empty() || json_to_stdout() || saved_;
  if (!ok) spdlog::error("{}: cannot write the JSON report", json_path_);
  return ok;
}

void StreamingOutput::save(const pipeline::CheckReport& report) {
  if (json_path_.empty() || json_to_stdout()) return;
  const std::string temporary = json_path_ + ".partial";
  {
    std::ofstream out(temporary);
    saved_ = static_cast<bool>(out << to_json(report).dump(2) << "\n");
  }
  std::error_code error;
  if (saved_) std::filesystem::rename(temporary, json_path_, error);
  saved_ = saved_ && !error;
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
