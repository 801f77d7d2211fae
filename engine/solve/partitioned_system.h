#pragma once
// A range of a MaybeSystem's states (an SCC) cut into parts, the layout of a solve
// spread over several GPUs or MPI ranks: contiguous ranges balanced by rows plus
// entries, each a system of its own over local numbers. A part's columns are its own
// states first, then its halo: the other states its rows read, in increasing system
// order. After each sweep an exchange copies into each halo the values it reads from
// other parts (HaloBlock: a contiguous run of slots per source part, so a receiver
// takes each block whole and the sender gathers it); halo states outside the range
// (earlier SCCs, final) are filled once. Only what is read travels.
//
// The rows keep their entries' order, so a sweep of the parts computes every value
// exactly as a sweep of the range does (engine/solve/scc_sweeps.h).
#include "engine/solve/bellman.h"
#include "engine/solve/maybe_system.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace mdpvi {

// Halo slots [first_slot, first_slot + source_locals.size()) of a part take the values
// of source_part's own states source_locals, in that order.
struct HaloBlock {
  std::uint32_t source_part = 0;
  std::uint64_t first_slot = 0;
  std::vector<std::uint32_t> source_locals;
};

struct SystemPart {
  StateRange states;  // in the system's numbering
  // Its states' rows: row_group_starts, row_starts, columns (local), values and
  // row_constants; nothing else is set.
  MaybeSystem local;
  std::vector<std::uint32_t> halo;   // the system state of each halo slot, increasing
  std::vector<HaloBlock> from_parts;  // the halo slots other parts fill after each sweep

  std::uint64_t own() const { return states.size(); }
  std::uint64_t columns() const { return own() + halo.size(); }  // a local vector's length
};

struct PartitionedRange {
  StateRange range;
  std::vector<SystemPart> parts;
};

// Rows plus entries before state s: the work up to it, increasing in s (a range's work
// is work_before(end) - work_before(begin)).
std::uint64_t work_before(const MaybeSystem& system, std::uint64_t s);

// count contiguous ranges covering range, each with about the same rows plus entries
// (a part may be empty: more parts than states). Pre: count >= 1.
std::vector<StateRange> balanced_parts(const MaybeSystem& system, StateRange range, std::uint32_t count);

// Part which of ranges (balanced_parts of range): its local system, halo and exchange
// blocks, cut without the others (one MPI rank's part). Pre: as partition_range.
SystemPart partition_part(const MaybeSystem& system, StateRange range, const std::vector<StateRange>& ranges,
                          std::uint32_t which);

// A part's local vector of an iterate: its own states' values, then its halo's.
template <typename Vector>
void load_local_values(const SystemPart& part, const PodVector<double>& iterate, Vector& to) {
  to.resize(part.columns());
  std::copy_n(iterate.begin() + part.states.begin, part.own(), to.begin());
  for (std::uint64_t slot = 0; slot < part.halo.size(); ++slot) to[part.own() + slot] = iterate[part.halo[slot]];
}

// The range as count parts (balanced_parts), each with its local system, halo and
// exchange blocks. Pre: the system is on the host (not MaybeSystem::on_device).
PartitionedRange partition_range(const MaybeSystem& system, StateRange range, std::uint32_t count);

}  // namespace mdpvi
