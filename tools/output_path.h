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

}  // namespace mdpvi::tools
