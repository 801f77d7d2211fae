// libFuzzer: PRISM's explicit files. The input is the .tra, then (after lines of
// "----") the .lab, .sta, .srew and .trew, each read as io/explicit_reader.h does.
#include "expected_errors.h"
#include "io/explicit_reader.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

std::vector<std::string> parts_of(const std::string& text) {
  std::vector<std::string> parts(1);
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string line = text.substr(start, end - start);
    if (line == "----") {
      parts.emplace_back();
    } else {
      parts.back() += line + "\n";
    }
    start = end + 1;
  }
  parts.resize(5);
  return parts;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using mdpvi::io::TextFile;
  const std::vector<std::string> parts = parts_of(std::string(reinterpret_cast<const char*>(data), size));
  return mdpvi::fuzz::refused_or_read([&] {
    mdpvi::SparseMdp mdp;
    mdpvi::io::read_transitions(TextFile::from_string("f.tra", parts[0]), mdp);
    mdpvi::io::read_labels(TextFile::from_string("f.lab", parts[1]), mdp);
    if (!parts[2].empty()) mdp.valuations = mdpvi::io::read_state_valuations(TextFile::from_string("f.sta", parts[2]), mdp.num_states());
    std::optional<TextFile> srew, trew;
    if (!parts[3].empty()) srew = TextFile::from_string("f.srew", parts[3]);
    if (!parts[4].empty()) trew = TextFile::from_string("f.trew", parts[4]);
    mdp.rewards.push_back(mdpvi::io::read_reward_structure(srew, trew, mdp));
    mdpvi::check_invariants(mdp);
  });
}
