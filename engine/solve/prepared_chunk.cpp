#include "engine/solve/prepared_chunk.h"

#include "engine/model/parallel_indices.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>

namespace mdpvi {

namespace {

// Rows a block of the parallel pass takes: enough work to outweigh its scheduling.
constexpr std::uint64_t kRowsPerBlock = 1 << 14;

// Entries of a range of the chunk's rows that stay inside the chunk and that go before it.
ChunkEntryCounts count_rows(const MaybeSystem& system, std::uint64_t first_state, std::uint64_t first_row, std::uint64_t end_row) {
  ChunkEntryCounts c;
  for (std::uint64_t k = system.row_starts[first_row]; k < system.row_starts[end_row]; ++k) {
    if (system.columns[k] >= first_state) {
      ++c.inside;
    } else {
      ++c.outside;
    }
  }
  return c;
}

}  // namespace

PreparedChunk prepare_chunk_reference(const MaybeSystem& system, const Chunk& chunk) {
  PreparedChunk p;
  const std::uint64_t first_row = system.row_group_starts[chunk.first_state];
  const std::uint64_t end_row = system.row_group_starts[chunk.end_state];
  for (std::uint64_t s = chunk.first_state; s <= chunk.end_state; ++s) p.row_group_starts.push_back(system.row_group_starts[s] - first_row);
  p.row_starts.push_back(0);
  p.outside_starts.push_back(0);
  for (std::uint64_t r = first_row; r < end_row; ++r) {
    for (std::uint64_t k = system.row_starts[r]; k < system.row_starts[r + 1]; ++k) {
      const std::uint32_t column = system.columns[k];
      if (column >= chunk.first_state) {
        p.columns.push_back(static_cast<std::uint32_t>(column - chunk.first_state));
        p.values.push_back(system.values[k]);
      } else {
        p.outside_columns.push_back(column);
        p.outside_values.push_back(system.values[k]);
      }
    }
    p.row_starts.push_back(p.columns.size());
    p.outside_starts.push_back(p.outside_columns.size());
  }
  return p;
}

void size_for_blocks(PreparedChunk& p, std::uint64_t rows, std::vector<ChunkEntryCounts>& at) {
  for (std::size_t b = 0; b + 1 < at.size(); ++b) {
    at[b + 1].inside += at[b].inside;
    at[b + 1].outside += at[b].outside;
  }
  p.row_starts.resize(rows + 1);
  p.outside_starts.resize(rows + 1);
  p.columns.resize(at.back().inside);
  p.outside_columns.resize(at.back().outside);
  p.outside_values.resize(at.back().outside);
  p.row_starts[0] = 0;
  p.outside_starts[0] = 0;
}

PreparedChunk prepare_chunk(const MaybeSystem& system, const Chunk& chunk) {
  if (system.view) return prepare_chunk_from_view(system, chunk);
  PreparedChunk p;
  const std::uint64_t first_row = system.row_group_starts[chunk.first_state];
  const std::uint64_t rows = system.row_group_starts[chunk.end_state] - first_row;
  const std::uint64_t states = chunk.end_state - chunk.first_state;
  p.row_group_starts.resize(states + 1);
  parallel_indices(0, states + 1, 1 << 16, [&](std::size_t s) {
    p.row_group_starts[s] = system.row_group_starts[chunk.first_state + s] - first_row;
  });
  // Per block of rows, its entries inside and outside; their running totals are where
  // each block writes.
  const std::uint64_t blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  std::vector<ChunkEntryCounts> at(blocks + 1);
  parallel_indices(0, blocks, 1, [&](std::size_t b) {
    const std::uint64_t begin = first_row + b * kRowsPerBlock;
    at[b + 1] = count_rows(system, chunk.first_state, begin, std::min(begin + kRowsPerBlock, first_row + rows));
  });
  size_for_blocks(p, rows, at);
  CompactValuesCopy values(system.values, at[blocks].inside);  // in the system's form
  parallel_indices(0, blocks, 1, [&](std::size_t b) {
    std::uint64_t inside = at[b].inside, outside = at[b].outside;
    const std::uint64_t begin = b * kRowsPerBlock, end = std::min(begin + kRowsPerBlock, rows);
    for (std::uint64_t r = begin; r < end; ++r) {
      for (std::uint64_t k = system.row_starts[first_row + r]; k < system.row_starts[first_row + r + 1]; ++k) {
        const std::uint32_t column = system.columns[k];
        if (column >= chunk.first_state) {
          p.columns[inside] = static_cast<std::uint32_t>(column - chunk.first_state);
          values.copy(inside++, k);
        } else {
          p.outside_columns[outside] = column;
          p.outside_values[outside++] = system.values[k];
        }
      }
      p.row_starts[r + 1] = inside;
      p.outside_starts[r + 1] = outside;
    }
  });
  p.values = std::move(values).finish();
  p.values.compress();  // a plain system's chunk may still have few enough values
  return p;
}

void PreparedChunk::row_constants_reference(const MaybeSystem& system, const Chunk& chunk, const double* final,
                                            PodVector<double>& b) const {
  const std::uint64_t first_row = system.row_group_starts[chunk.first_state];
  b.resize(row_starts.size() - 1);
  for (std::size_t r = 0; r < b.size(); ++r) {
    b[r] = own_b.empty() ? system.row_constants[first_row + r] : own_b[r];
    for (std::uint64_t k = outside_starts[r]; k < outside_starts[r + 1]; ++k) {
      b[r] += outside_values[k] * final[outside_columns[k]];
    }
  }
}

void PreparedChunk::row_constants(const MaybeSystem& system, const Chunk& chunk, const double* final,
                                  PodVector<double>& b) const {
  const std::uint64_t first_row = system.row_group_starts[chunk.first_state];
  b.resize(row_starts.size() - 1);
  parallel_indices(0, b.size(), 1 << 14, [&](std::size_t r) {
    double sum = own_b.empty() ? system.row_constants[first_row + r] : own_b[r];
    for (std::uint64_t k = outside_starts[r]; k < outside_starts[r + 1]; ++k) sum += outside_values[k] * final[outside_columns[k]];
    b[r] = sum;
  });
}

gpu::ChunkMatrix prefix_view(const MaybeSystem& system, const Chunk& chunk) {
  std::uint64_t rows = system.row_group_starts[chunk.end_state];
  return {static_cast<std::uint32_t>(chunk.end_state), rows, system.row_starts[rows], system.row_group_starts.data(),
          system.row_starts.data(), system.columns.data(), device_view(system.values)};
}

gpu::SystemRows system_rows(const MaybeSystem& system, const Chunk& chunk) {
  const std::uint64_t first_row = system.row_group_starts[chunk.first_state];
  const std::uint64_t end_row = system.row_group_starts[chunk.end_state];
  const std::uint64_t first_entry = system.row_starts[first_row];
  gpu::ValuesView values = device_view(system.values);
  if (values.plain) values.plain += first_entry;
  if (values.indices) values.indices += first_entry * values.index_bytes;
  return {static_cast<std::uint32_t>(chunk.first_state),
          static_cast<std::uint32_t>(chunk.end_state - chunk.first_state),
          end_row - first_row,
          system.row_starts[end_row] - first_entry,
          system.row_group_starts.data() + chunk.first_state,
          system.row_starts.data() + first_row,
          system.columns.data() + first_entry,
          values,
          system.row_constants.data() + first_row};
}

std::size_t cut_peak_bytes(const MaybeSystem& system, const Chunk& chunk) {
  const gpu::SystemRows rows = system_rows(system, chunk);
  const std::uint64_t value_bytes = rows.values.index_bytes ? rows.values.index_bytes : sizeof(double);
  const std::uint64_t one = (std::uint64_t{rows.num_states} + rows.num_rows + 2) * sizeof(std::uint64_t) +
                            rows.num_entries * (sizeof(std::uint32_t) + value_bytes);
  return 2 * one + rows.num_rows * sizeof(double);  // and the rows' b, uploaded with them
}

namespace {

// b of system row `row` with its entries into states before first_state taken from
// final, summed in the entries' order (PreparedChunk::row_constants's order).
double row_b(const MaybeSystem& system, std::uint64_t first_state, std::uint64_t row, const double* final) {
  double sum = system.row_constants[row];
  for (std::uint64_t k = system.row_starts[row]; k < system.row_starts[row + 1]; ++k) {
    const std::uint32_t column = system.columns[k];
    if (column < first_state) sum += system.values[k] * final[column];
  }
  return sum;
}

bool reads_earlier(const MaybeSystem& system, std::uint64_t first_state, std::uint64_t row) {
  for (std::uint64_t k = system.row_starts[row]; k < system.row_starts[row + 1]; ++k) {
    if (system.columns[k] < first_state) return true;
  }
  return false;
}

}  // namespace

void row_constants_from_rows(const MaybeSystem& system, const Chunk& chunk, const double* final, PodVector<double>& b) {
  const std::uint64_t first_row = system.row_group_starts[chunk.first_state];
  b.resize(system.row_group_starts[chunk.end_state] - first_row);
  parallel_indices(0, b.size(), 1 << 14, [&](std::size_t r) { b[r] = row_b(system, chunk.first_state, first_row + r, final); });
}

PodVector<std::uint64_t> rows_reading_earlier(const MaybeSystem& system, const Chunk& chunk) {
  const std::uint64_t first_row = system.row_group_starts[chunk.first_state];
  const std::uint64_t rows = system.row_group_starts[chunk.end_state] - first_row;
  // Per block of rows, those that read earlier chunks; their running totals are where
  // each block writes.
  const std::uint64_t blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  std::vector<std::uint64_t> at(blocks + 1, 0);
  parallel_indices(0, blocks, 1, [&](std::size_t b) {
    const std::uint64_t end = std::min((b + 1) * kRowsPerBlock, rows);
    for (std::uint64_t r = b * kRowsPerBlock; r < end; ++r) at[b + 1] += reads_earlier(system, chunk.first_state, first_row + r);
  });
  for (std::uint64_t b = 0; b < blocks; ++b) at[b + 1] += at[b];
  PodVector<std::uint64_t> reading(at[blocks]);
  parallel_indices(0, blocks, 1, [&](std::size_t b) {
    std::uint64_t i = at[b];
    const std::uint64_t end = std::min((b + 1) * kRowsPerBlock, rows);
    for (std::uint64_t r = b * kRowsPerBlock; r < end; ++r) {
      if (reads_earlier(system, chunk.first_state, first_row + r)) reading[i++] = r;
    }
  });
  return reading;
}

RowCorrections corrections_of_rows(const MaybeSystem& system, const Chunk& chunk, PodVector<std::uint64_t> rows,
                                   const double* lower_final, const double* upper_final) {
  const std::uint64_t first_row = system.row_group_starts[chunk.first_state];
  RowCorrections c;
  c.with_upper = upper_final != nullptr;
  c.rows = std::move(rows);
  c.lower.resize(c.rows.size());
  if (upper_final) c.upper.resize(c.rows.size());
  parallel_indices(0, c.rows.size(), 1 << 12, [&](std::size_t i) {
    c.lower[i] = row_b(system, chunk.first_state, first_row + c.rows[i], lower_final);
    if (upper_final) c.upper[i] = row_b(system, chunk.first_state, first_row + c.rows[i], upper_final);
  });
  return c;
}

RowCorrections corrections_from_rows(const MaybeSystem& system, const Chunk& chunk, const double* lower_final,
                                     const double* upper_final) {
  return corrections_of_rows(system, chunk, rows_reading_earlier(system, chunk), lower_final, upper_final);
}

}  // namespace mdpvi
