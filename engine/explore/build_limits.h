#pragma once
// The limits a build stops at (BuildOptions::state_limit and memory_limit), with a
// message that says how far it got, instead of the out-of-memory killer.
#include "engine/explore/model_builder.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace mdpvi {

struct BuildLimits {
  std::uint64_t states = 0;  // 0: none
  std::size_t memory = 0;    // bytes; 0: none

  // After a wave: throws BuildLimitReached past either limit. found: the states the
  // table holds, explored of them in waves; bytes_in_use: what the process takes.
  void check_wave(std::uint64_t found, std::uint64_t explored, std::uint64_t waves, std::size_t bytes_in_use) const;
  // Before labels are made, a bit per state each (a model may declare many): throws
  // BuildLimitReached where they would pass the memory limit.
  void check_labels(std::size_t labels, std::uint64_t states, std::size_t bytes_in_use) const;
};

// The process's resident memory, which the out-of-memory killer judges. The builder's
// arrays (arrays_bytes) are most of it in a fast-growing build; they count too,
// should /proc be missing.
std::size_t memory_in_use(std::size_t arrays_bytes);

// "123 bytes" or "45 MiB", for messages.
std::string megabytes(std::size_t bytes);

}  // namespace mdpvi
