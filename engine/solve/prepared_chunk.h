#pragma once
// A chunk of the maybe-state system as a square system of its own, for the device
// (the chunk driver's chunks after the first): its states' rows with columns rebased
// to the chunk, and aside, its entries into earlier chunks, which become part of b
// once those chunks are solved.
#include "engine/model/compact_values.h"
#include "engine/solve/chunk_driver.h"
#include "engine/solve/maybe_system.h"
#include "gpu/device_solver.h"

#include <cstdint>
#include <vector>

namespace mdpvi {

struct PreparedChunk {
  PodVector<std::uint64_t> row_group_starts, row_starts;
  PodVector<std::uint32_t> columns;
  // In the system's form, or indexed where a plain system's chunk has at most
  // CompactValues::kMostDistinct distinct values (prepare_chunk; the reference leaves
  // them plain): the upload and every sweep of the chunk then move 1 or 2 bytes an
  // entry, not 8.
  CompactValues values;
  PodVector<std::uint64_t> outside_starts;  // per row + 1, into outside_*
  PodVector<std::uint32_t> outside_columns;  // states of the system, before the chunk
  PodVector<double> outside_values;
  // b of the rows, where the system has none to read it from (a view's chunk: made
  // with the rows, prepare_chunk_from_view); else empty.
  PodVector<double> own_b;

  gpu::ChunkMatrix view() const {
    return {static_cast<std::uint32_t>(row_group_starts.size() - 1), row_starts.size() - 1, columns.size(),
            row_group_starts.data(), row_starts.data(), columns.data(), device_view(values)};
  }

  // b of the chunk's rows: the system's (or own_b), plus each entry into an earlier chunk times
  // that state's final value. Pre: the states before the chunk are final in `final`.
  // On all cores, into a vector not zeroed first (its pages fault in on every core);
  // each row sums in the reference's order (bit-identical).
  void row_constants(const MaybeSystem& system, const Chunk& chunk, const double* final, PodVector<double>& b) const;
  void row_constants_reference(const MaybeSystem& system, const Chunk& chunk, const double* final,
                               PodVector<double>& b) const;
};

// Entries of a block of a chunk's rows that stay inside the chunk, and that go before it.
struct ChunkEntryCounts {
  std::uint64_t inside = 0, outside = 0;
};

// A chunk's arrays sized for its rows, given per block its counts (at[b + 1], at[0]
// zero), which become running totals: where each block writes. The first offsets set;
// the values are the caller's (their form is its source's).
void size_for_blocks(PreparedChunk& p, std::uint64_t rows, std::vector<ChunkEntryCounts>& at);

// The first chunk as the system's own arrays: its rows are a prefix of the system's,
// and nothing before it can be referenced (successors come first in the SCC order).
gpu::ChunkMatrix prefix_view(const MaybeSystem& system, const Chunk& chunk);

// The chunk's rows where they lie in the system's arrays, for the device to cut its
// chunk from (gpu::DeviceSolver::upload_rows): nothing copied on the host.
gpu::SystemRows system_rows(const MaybeSystem& system, const Chunk& chunk);
// What the device holds at once while it cuts the chunk: the raw rows, the cut,
// which has at most as many entries (the bound taken here), and the rows' b.
std::size_t cut_peak_bytes(const MaybeSystem& system, const Chunk& chunk);
// b of a chunk cut on the device, read from the system's rows: PreparedChunk::
// row_constants's, bit for bit (the same entries in the same order), on all cores.
void row_constants_from_rows(const MaybeSystem& system, const Chunk& chunk, const double* final, PodVector<double>& b);
// The same b as corrections of the system's: only the rows with an entry into an
// earlier chunk, for each iterate (upper_final none: no upper), on all cores. The
// device then corrects the rows' b it has, in place of 16 bytes a row crossing PCIe
// (leader9's later chunks: 5-17 million rows corrected of their tens of millions).
RowCorrections corrections_from_rows(const MaybeSystem& system, const Chunk& chunk, const double* lower_final,
                                     const double* upper_final);
// The same in two steps: the chunk-local rows with an entry into an earlier chunk,
// increasing, which the chunk's rows alone decide (so they may be found before the
// earlier chunks are final: the chunk feeder finds them beside the solve of the chunk
// before), then those rows' b from the final values.
PodVector<std::uint64_t> rows_reading_earlier(const MaybeSystem& system, const Chunk& chunk);
RowCorrections corrections_of_rows(const MaybeSystem& system, const Chunk& chunk, PodVector<std::uint64_t> rows,
                                   const double* lower_final, const double* upper_final);

// The chunk's rows rebased, entries in the system's order, inside and outside apart.
// On all cores (counts per block of rows, their running totals, then each block
// fills its part); prepare_chunk_reference is the serial pass it is tested against.
// A view's chunk is prepare_chunk_from_view's.
PreparedChunk prepare_chunk(const MaybeSystem& system, const Chunk& chunk);
// The same chunk copied from the model's rows through a view (MaybeSystem::view), with
// its b (own_b): what prepare_chunk makes of the system's copy, array for array.
PreparedChunk prepare_chunk_from_view(const MaybeSystem& system, const Chunk& chunk);
PreparedChunk prepare_chunk_reference(const MaybeSystem& system, const Chunk& chunk);

}  // namespace mdpvi
