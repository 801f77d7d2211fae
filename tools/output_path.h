#pragma once
// Where an export goes: FILE, or standard output for "-" (every --export-* and --json
// alike).
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>

namespace mdpvi::tools {

// Calls write(stream) on FILE's stream or on std::cout; throws std::runtime_error
// naming what could not be written.
template <typename Write>
void write_to_path(const std::string& path, const char* what, Write write) {
  if (path == "-") {
    write(std::cout);
    std::cout.flush();
    if (!std::cout) throw std::runtime_error(std::string("standard output: cannot write the ") + what);
    return;
  }
  std::ofstream out(path);
  write(out);
  if (!out) throw std::runtime_error(path + ": cannot write the " + what);
}

// A stream kept open through a run, written piece by piece (the per-property
// exports): FILE, or standard output for "-".
class OutputStream {
 public:
  // Opens FILE (truncated); throws std::runtime_error when it cannot.
  OutputStream(const std::string& path, const char* what) : path_(path), what_(what), out_(&std::cout) {
    if (path == "-") return;
    file_.open(path);
    if (!file_) throw std::runtime_error(path + ": cannot write the " + what_);
    out_ = &file_;
  }
  std::ostream& stream() { return *out_; }
  // Flushes what was written; throws std::runtime_error when it failed.
  void flush() {
    out_->flush();
    if (!*out_) throw std::runtime_error((path_ == "-" ? std::string("standard output") : path_) + ": cannot write the " + what_);
  }

 private:
  std::string path_, what_;
  std::ofstream file_;
  std::ostream* out_;
};

}  // namespace mdpvi::tools
