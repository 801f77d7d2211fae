#pragma once
// The limits a build stops at (BuildOptions::state_limit and memory_limit), with a
// message that says how far it got, instead of the out-of-memory killer.
#include "engine/explore/model_builder.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace mdpvi {

class BuildLimits {
 public:
  BuildLimits(std::uint64_t states, std::size_t memory) : states(states), memory(memory) {}

  // After a wave: throws BuildLimitReached past either limit. found: the states the
  // table holds, explored of them in waves; arrays_bytes: the builder's arrays. The
  // process's resident memory, which costs system calls to read, is read after the
  // first wave, then once the arrays have grown by a 256th of the limit (at least 1
  // MiB) since it was last read, or every kWavesPerReading waves: a deep, narrow
  // model has a wave per state.
  void check_wave(std::uint64_t found, std::uint64_t explored, std::uint64_t waves, std::size_t arrays_bytes);
  // Before labels are made, a bit per state each (a model may declare many): throws
  // BuildLimitReached where they would pass the memory limit beside the process's
  // memory (read here, where there is a limit; arrays_bytes: the builder's arrays).
  void check_labels(std::size_t labels, std::uint64_t states, std::size_t arrays_bytes) const;

  const std::uint64_t states = 0;  // 0: none
  const std::size_t memory = 0;    // bytes; 0: none

 private:
  static constexpr std::uint64_t kWavesPerReading = 1024;
  std::size_t arrays_at_reading_ = 0;   // the arrays' bytes when the resident memory was last read
  std::uint64_t waves_at_reading_ = 0;  // and the waves then (0: not read yet)
};

// The process's resident memory, which the out-of-memory killer judges. The builder's
// arrays (arrays_bytes) are most of it in a fast-growing build; they count too,
// should /proc be missing.
std::size_t memory_in_use(std::size_t arrays_bytes);

// "123 bytes" or "45 MiB", for messages.
std::string megabytes(std::size_t bytes);

}  // namespace mdpvi
