#include "engine/solve/partitioned_system.h"

#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <numeric>

namespace mdpvi {

namespace {

// The part whose range holds state s (parts cover the range in order).
std::uint32_t part_of(const std::vector<StateRange>& ranges, std::uint64_t s) {
  const auto it = std::upper_bound(ranges.begin(), ranges.end(), s,
                                   [](std::uint64_t state, const StateRange& r) { return state < r.end; });
  return static_cast<std::uint32_t>(it - ranges.begin());
}

// The part's rows, columns renumbered: own states first, then the halo in system order.
SystemPart cut_part(const MaybeSystem& system, StateRange states) {
  SystemPart part;
  part.states = states;
  const std::uint64_t first_row = system.row_group_starts[states.begin], end_row = system.row_group_starts[states.end];
  const std::uint64_t first_entry = system.row_starts[first_row], end_entry = system.row_starts[end_row];
  for (std::uint64_t k = first_entry; k < end_entry; ++k) {
    const std::uint32_t t = system.columns[k];
    if (t < states.begin || t >= states.end) part.halo.push_back(t);
  }
  std::sort(part.halo.begin(), part.halo.end());
  part.halo.erase(std::unique(part.halo.begin(), part.halo.end()), part.halo.end());

  MaybeSystem& local = part.local;
  local.row_group_starts.resize(states.size() + 1);
  for (std::uint64_t s = states.begin; s <= states.end; ++s) local.row_group_starts[s - states.begin] = system.row_group_starts[s] - first_row;
  local.row_starts.resize(end_row - first_row + 1);
  for (std::uint64_t r = first_row; r <= end_row; ++r) local.row_starts[r - first_row] = system.row_starts[r] - first_entry;
  local.row_constants.assign(system.row_constants.begin() + first_row, system.row_constants.begin() + end_row);
  // Plain: the parts' sweeps on the devices read doubles (gpu/partitioned_sweeps.h).
  PodVector<double>& values = local.values.plain();
  values.resize(end_entry - first_entry);
  system.values.visit([&](const auto& read) {
    for (std::uint64_t k = first_entry; k < end_entry; ++k) values[k - first_entry] = read(k);
  });
  local.columns.resize(end_entry - first_entry);
  for (std::uint64_t k = first_entry; k < end_entry; ++k) {
    const std::uint32_t t = system.columns[k];
    const bool own = t >= states.begin && t < states.end;
    const std::uint64_t slot =
        own ? t - states.begin
            : states.size() + (std::lower_bound(part.halo.begin(), part.halo.end(), t) - part.halo.begin());
    local.columns[k - first_entry] = static_cast<std::uint32_t>(slot);
  }
  return part;
}

// Each run of halo slots owned by one other part of the range becomes a block.
void link_halo(SystemPart& part, StateRange range, const std::vector<StateRange>& ranges) {
  for (std::uint64_t slot = 0; slot < part.halo.size(); ++slot) {
    const std::uint32_t t = part.halo[slot];
    if (t < range.begin || t >= range.end) continue;  // outside the range: filled once
    const std::uint32_t q = part_of(ranges, t);
    if (part.from_parts.empty() || part.from_parts.back().source_part != q) part.from_parts.push_back({q, slot, {}});
    part.from_parts.back().source_locals.push_back(static_cast<std::uint32_t>(t - ranges[q].begin));
  }
}

}  // namespace

std::uint64_t work_before(const MaybeSystem& system, std::uint64_t s) {
  return system.row_group_starts[s] + system.row_starts[system.row_group_starts[s]];
}

std::vector<StateRange> balanced_parts(const MaybeSystem& system, StateRange range, std::uint32_t count) {
  const std::uint64_t first = work_before(system, range.begin), total = work_before(system, range.end) - first;
  std::vector<StateRange> parts(count);
  std::uint64_t begin = range.begin;
  for (std::uint32_t p = 0; p < count; ++p) {
    std::uint64_t end = range.end;
    if (p + 1 < count) {
      // The first state whose work before it reaches (p + 1) / count of the total.
      const std::uint64_t goal = first + total / count * (p + 1) + total % count * (p + 1) / count;
      std::uint64_t low = begin, high = range.end;
      while (low < high) {
        const std::uint64_t mid = low + (high - low) / 2;
        if (work_before(system, mid) < goal) {
          low = mid + 1;
        } else {
          high = mid;
        }
      }
      end = low;
    }
    parts[p] = {begin, end};
    begin = end;
  }
  return parts;
}

SystemPart partition_part(const MaybeSystem& system, StateRange range, const std::vector<StateRange>& ranges,
                          std::uint32_t which) {
  SystemPart part = cut_part(system, ranges[which]);
  link_halo(part, range, ranges);
  return part;
}

PartitionedRange partition_range(const MaybeSystem& system, StateRange range, std::uint32_t count) {
  const std::vector<StateRange> ranges = balanced_parts(system, range, count);
  PartitionedRange partitioned;
  partitioned.range = range;
  partitioned.parts.resize(count);
  oneapi::tbb::parallel_for(std::uint32_t{0}, count,
                            [&](std::uint32_t p) { partitioned.parts[p] = partition_part(system, range, ranges, p); });
  return partitioned;
}

}  // namespace mdpvi
