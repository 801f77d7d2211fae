#pragma once
// The numerical problem left after Prob0/Prob1: the maybe-states only, renumbered so
// that the SCCs are contiguous and in solving order (successors first). Entries into
// yes-states are folded into a per-row constant b(r); entries into no-states vanish.
// A solver then needs nothing but this struct, which is also what a chunk uploaded
// to the GPU is cut from.
#include "engine/model/bit_words.h"
#include "engine/model/sparse_mdp.h"
#include "engine/model/state_numbers.h"
#include "graph/qualitative_sets.h"
#include "graph/scc.h"
#include "gpu/device_system.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace mdpvi::gpu {
class DeviceGraphSearch;
}

namespace mdpvi {

// Values outside a system that take two values: on_set on a set of model states,
// elsewhere on the others (reachability probabilities: 1 on the yes-states, else 0;
// expected rewards: 0 on the targets, else infinity).
struct TwoValuedOutside {
  const StateSet& set;
  double on_set = 1.0;
  double elsewhere = 0.0;
  // The value outside the system of model state t.
  double operator()(std::uint32_t t) const { return set.test(t) ? on_set : elsewhere; }
};

// A system as a view over the model, for one whose copy would not fit the host
// (leader10's: about 160 GB beside its 72 GB model): its rows are the model's kept
// rows (kept_rows.h) read through a map of model states to local ones, and each
// chunk's rows are copied from the model as it goes to the device (prepare_chunk).
// MaybeSystem::row_group_starts holds the kept rows' offsets, as a copy's; the
// matrix, b and row offsets are not made. On the CPU, the chunk driver writes its rows
// into the copy's arrays a window at a time (view_windows.h). The model, the outside
// set and the rewards must outlive it.
struct SystemView {
  const SparseMdp* model = nullptr;
  PodVector<std::uint32_t> local_of;      // per model state: its local index, or kOutsideSystem
  // Per local state + 1: the kept entries into the system before it, 4 bytes each.
  PackedOffsets entry_starts;
  BitWords self_loops;                    // per local state
  const StateSet* outside_set = nullptr;  // the outside's values: on_set there, elsewhere on the rest
  double on_set = 1.0, elsewhere = 0.0;
  const RewardStructure* rewards = nullptr;

  TwoValuedOutside outside() const { return {*outside_set, on_set, elsewhere}; }
};

struct MaybeSystem {
  // PodVector: filled in parallel after one resize, with no serial zeroing first
  // (a large system has hundreds of millions of entries).
  PodVector<std::uint64_t> row_group_starts;  // local states + 1
  PodVector<std::uint64_t> row_starts;        // rows + 1
  PodVector<std::uint32_t> columns;           // local state indices
  // Plain, or in the model's form (SystemValues::as_model): 1- or 2-byte indices into
  // its table of distinct values where it has one.
  CompactValues values;
  PodVector<double> row_constants;            // b(r), one per row
  std::vector<std::uint64_t> scc_starts;        // local state ranges, solving order
  // SCC ranges by height (graph/scc_decomposition.h): the SCCs of a level depend on
  // lower levels only, so a level's SCCs can be solved at once.
  std::vector<std::uint64_t> level_starts;
  std::vector<std::uint32_t> model_states;      // local index -> model state
  // Or the matrix and b built on the device (engine/check/reachability.h's build_system), the host
  // arrays above then empty but for the SCC and level ranges and model_states. The
  // chunk driver's device adopts them: solved there or not at all (no CPU fallback).
  std::shared_ptr<gpu::DeviceSystem> on_device;  // shared by copies (tests copy systems)
  // Or a view over the model (SystemView): row_group_starts, the SCC and level ranges
  // and model_states as a copy has them, the other host arrays empty, or where the
  // CPU solves it, sized whole and written a window at a time (view_windows.h).
  std::shared_ptr<const SystemView> view;

  std::uint32_t num_states() const { return static_cast<std::uint32_t>(model_states.size()); }
  std::uint64_t num_rows() const {
    return on_device ? on_device->num_rows() : view ? row_group_starts.back() : row_constants.size();
  }
  std::size_t num_sccs() const { return scc_starts.empty() ? 0 : scc_starts.size() - 1; }
  std::size_t num_levels() const { return level_starts.empty() ? 0 : level_starts.size() - 1; }
};

// How a system built on the host keeps its values.
// plain: doubles, what the CPU's sweeps read fastest (an index costs them a second
// dependent load: bench/NOTES.md, session 12).
// as_model: the model's indices and table where it has them (the system's entries are
// the model's): 1 or 2 bytes an entry on the host and on the device, where the system
// goes to the GPU in chunks.
enum class SystemValues { plain, as_model };

// The general form: b(r) = reward(r) + sum over successors t outside the system of
// P(r,t) * outside_values[t], where reward(r) is the state's reward plus the
// choice's (none without rewards). A row with b(r) = +infinity is left out: only
// minimising reward systems have them (a successor where the reward is infinite)
// and the minimum never takes such a row while the state has another; a state with
// no other row keeps one, and its value is infinite.
// Pre: outside_values has one entry per model state (those of the system's states
// are not read).
// The system takes over the decomposition's arrays (move it in: they are model-sized).
MaybeSystem build_maybe_system(const SparseMdp& mdp, graph::SccDecomposition sccs,
                               const StateNumbers& outside_values, const RewardStructure* rewards = nullptr,
                               SystemValues kept = SystemValues::plain);

// What build_maybe_system takes on the host for a system of `states` of mdp's states
// in the form kept, as they would if their rows and entries were the model's average
// (every one of them kept: 16 bytes a row, its offset and b; 4 an entry and its
// value's bytes), 12 bytes a state, and what it builds with (8 bytes a state of entry
// offsets, a 4-byte map of the model's states). At most that with every state.
std::uint64_t host_system_bytes(const SparseMdp& mdp, SystemValues kept, std::uint64_t states);

// The bytes a built host system holds (its arrays' sizes, a view's included; none for
// one on the device).
std::uint64_t host_system_bytes(const MaybeSystem& system);

// Where the system's rows are, for the log: "on the GPU", "on the host" or "a view
// over the model".
const char* where_kept(const MaybeSystem& system);

// The entries of the system's rows before local state s: a copy's row offset there, a
// view's count.
std::uint64_t entries_before(const MaybeSystem& system, std::uint64_t state);

// The system of the general form (build_maybe_system's, with outside's values) as a
// view over mdp (SystemView): its rows counted, nothing copied. mdp, outside.set and
// rewards must outlive it.
MaybeSystem build_system_view(const SparseMdp& mdp, graph::SccDecomposition&& sccs, const TwoValuedOutside& outside,
                              const RewardStructure* rewards = nullptr);

// What build_system_view holds for a system of `states` of mdp's states: a 4-byte
// local index per model state, per state 8 bytes of row offsets and 4 of entry
// offsets (packed), and the decomposition's arrays, which any system keeps.
std::uint64_t system_view_bytes(const SparseMdp& mdp, std::uint64_t states);

// The system of the general form built on the device, from the graph searches' copy
// of mdp (gpu/graph_search.h): on_device set, the host's matrix arrays empty (the
// device keeps which states have self-loops, so that the solve tells trivial SCCs
// from iterated ones without them). nullopt when the device fails (said in the log);
// sccs is moved from only when a system comes back.
std::optional<MaybeSystem> build_maybe_system_on_device(gpu::DeviceGraphSearch& graph, const SparseMdp& mdp,
                                                        graph::SccDecomposition& sccs, const TwoValuedOutside& outside,
                                                        const RewardStructure* rewards = nullptr,
                                                        gpu::SystemStorage storage = gpu::SystemStorage::automatic);

// For a chain whose states stay put with a large probability p (a uniformised CTMC's:
// 1 - exit rate / q, up to 1 - 1e-3 and more): each state's equation x = p x + rest + b
// divided by 1 - p, its self-loop gone (the embedded chain's system). The fixed point
// is the same, and value iteration no longer crawls through the self-loops. A state
// that stays with probability 1 keeps its row. Does nothing to a system on the device
// or with choices (for those the division is not the same fixed point's).
void remove_self_loops(MaybeSystem& system);

// Every entry's value times factor (a discount: x = b + factor P x), in the system's own
// arrays, made plain. Pre: a copy on the host (neither a view nor on the device).
void discount_entries(MaybeSystem& system, double factor);

// The device's view of a model's values (gpu/device_solver.h), plain or indexed.
gpu::ValuesView device_view(const CompactValues& values);

// The decomposition a system keeps, taken back (to build the system again on the host).
graph::SccDecomposition sccs_of(MaybeSystem&& system);

// A system with the decomposition's states, SCCs and levels, and no matrix yet.
MaybeSystem system_of_sccs(graph::SccDecomposition&& sccs);

// Each SCC a level of its own: valid for any solving order (where no heights are known).
void set_one_level_per_scc(MaybeSystem& system);

// The general form with outside values that take two values (TwoValuedOutside), read
// in place: no model-sized vector of them while the system is built and solved.
MaybeSystem build_maybe_system(const SparseMdp& mdp, graph::SccDecomposition sccs, const TwoValuedOutside& outside,
                               const RewardStructure* rewards = nullptr, SystemValues kept = SystemValues::plain);

// Reachability probabilities: yes-states count 1, no-states 0.
// Pre: sccs decomposes exactly partition.maybe.
MaybeSystem build_maybe_system(const SparseMdp& mdp, const graph::QualitativePartition& partition,
                               graph::SccDecomposition sccs, SystemValues kept = SystemValues::plain);

// All given states as one block, in index order, for step-bounded properties,
// whose k steps do not decompose along SCCs.
graph::SccDecomposition single_block(const StateSet& states);

}  // namespace mdpvi
