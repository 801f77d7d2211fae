#pragma once
// A view over the model (maybe_system.h's SystemView) solved on the CPU: the copy's
// arrays (row offsets, columns, plain values, b) are sized for the whole system but
// written a window of SCCs at a time, in solving order, and each window's pages go
// back to the kernel once it is solved. The CPU's methods read a window's rows as
// they read a copy's, at the copy's indices; the host holds about one window of
// them beside the view (bench/NOTES.md, session 25).
#include "engine/solve/bellman.h"
#include "engine/solve/maybe_system.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mdpvi {

// The bytes a window's rows take in a copy's arrays: 16 a row (its offset and b), 12
// an entry (its column and plain value).
std::uint64_t window_bytes(const MaybeSystem& view, std::uint64_t first_state, std::uint64_t end_state);

// SCCs [first_scc, end_scc) cut into consecutive windows of at most budget_bytes
// each (window_bytes), an SCC over it alone: each window's end SCC, in order.
std::vector<std::size_t> window_ends(const MaybeSystem& view, std::size_t first_scc, std::size_t end_scc,
                                     std::uint64_t budget_bytes);

class ViewWindows {
 public:
  // Sizes system's arrays for its rows (no page written). Pre: system.view.
  explicit ViewWindows(MaybeSystem& system);

  // Writes the copy's rows of states, on all cores: row offsets, columns (local
  // indices), values and b, the same as build_maybe_system's plain copy.
  void write(StateRange states);
  // Gives back the pages of the rows of states before `state` (which nothing reads
  // any more: their SCCs are solved).
  void release_before(std::uint64_t state);

 private:
  MaybeSystem& system_;
  // Per array, where its released pages end (bytes): the next release starts there.
  std::size_t released_row_starts_ = 0, released_columns_ = 0, released_values_ = 0, released_constants_ = 0;
};

}  // namespace mdpvi
