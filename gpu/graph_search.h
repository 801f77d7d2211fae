#pragma once
// The CUDA backend of the qualitative searches (graph/search_backend.h) on a copy of
// the model's structure that stays on the device for every property of a run.
// Plain C++ header. Bit sets travel as 64-bit words: bit i is bit i%64 of word
// i/64 (boost::dynamic_bitset's blocks), the device reads and writes the same layout.
#include "engine/model/packed_offsets.h"
#include "gpu/device_system.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace mdpvi::gpu {

// Host arrays of a model's structure. The device builds the predecessor rows itself
// (per state t, the rows with t as a successor, once per entry).
struct GraphArrays {
  std::uint32_t num_states = 0;
  std::uint64_t num_rows = 0;
  std::uint64_t num_entries = 0;
  const PackedOffsets* row_group_starts = nullptr;  // num_states + 1
  const PackedOffsets* row_starts = nullptr;        // num_rows + 1
  const std::uint32_t* columns = nullptr;           // num_entries
  // Offsets of 4 bytes on the device where what they count fits (the rows' first
  // entries where num_entries < 2^32, the states' first rows where num_rows < 2^32);
  // false: 8 always, for the tests of both.
  bool narrow_row_starts = true;
};

// Whether row offsets into this many entries fit in 4 bytes.
inline bool offsets_fit_4_bytes(std::uint64_t entries) { return entries < (std::uint64_t{1} << 32); }
// Whether the device keeps the graph's row offsets in 4 bytes.
inline bool narrow_row_starts(const GraphArrays& a) { return a.narrow_row_starts && offsets_fit_4_bytes(a.num_entries); }
// Whether the device keeps the states' first rows in 4 bytes.
inline bool narrow_row_group_starts(const GraphArrays& a) { return a.narrow_row_starts && offsets_fit_4_bytes(a.num_rows); }

// Whether the device's graph takes the model: states + rows < 2^32. The limit dates
// from predecessor rows listed as 32-bit vertices after the states; the entries are now
// an owner and a local row (graph_device.cuh), and lifting it waits on a device run of
// the searches over a model past it. A larger model's searches run on all cores, whose
// graph has no such limit.
bool graph_vertices_fit(std::uint64_t states, std::uint64_t rows);

// The device memory the graph and the searches' working sets take.
std::size_t graph_footprint_bytes(std::uint64_t states, std::uint64_t rows, std::uint64_t entries);

// What a decomposition took: rounds of trimming, coloring and peeling, and the
// level-synchronous steps of all of them (each costs a wait for the level's size).
struct SccWork {
  unsigned rounds = 0;
  unsigned levels = 0;
};

// The SCCs of a state set in topological order, successors first: the states grouped
// by SCC, each SCC's states in increasing order; SCCs by height in the SCC DAG (0:
// reaches no other SCC, else one more than the highest it reaches), ties by
// representative (an SCC's largest state). graph/parallel_scc.h's order exactly.
struct DeviceSccs {
  std::vector<std::uint32_t> order;
  std::vector<std::uint64_t> scc_starts;  // SCC i is order[scc_starts[i] .. scc_starts[i+1])
  std::vector<std::uint32_t> heights;     // per SCC in that order: non-decreasing
  SccWork work;
};

// What a maybe-state system is built from besides the model's structure, as
// engine/solve/maybe_system.h's general form: b(r) = reward(r) + the sum over entries
// into states outside the system of P times the state's value, which is marked_value
// for the states of marked_words and unmarked_value for the others (reachability
// probabilities: 1 on the yes-states, else 0; expected rewards: 0 on the targets,
// else infinity). A row with b = +infinity is left out unless it is its state's last
// and no other was kept.
struct SystemInputs {
  // The model's probabilities, one per entry (plain or indexed): uploaded at the
  // first call and kept for the later ones (pre: the same every call).
  ValuesView model_values;
  const std::uint32_t* order = nullptr;  // the system's states (model indices), in solving order
  std::uint32_t count = 0;
  const std::uint64_t* marked_words = nullptr;  // num_states bits
  double marked_value = 1.0;
  double unmarked_value = 0.0;
  ValuesView state_rewards;   // per model state, or none (no pointer set)
  ValuesView choice_rewards;  // per row, or none
  SystemStorage storage = SystemStorage::copy;
};

class DeviceGraphSearch {
 public:
  virtual ~DeviceGraphSearch() = default;
  // As graph::SearchBackend's, on word arrays (allowed_rows may be null: every row).
  // Throw DeviceError.
  virtual void backward_exists(const std::uint64_t* sources, const std::uint64_t* allowed_states,
                               const std::uint64_t* allowed_rows, std::uint64_t* reached) = 0;
  virtual void backward_forall(const std::uint64_t* sources, const std::uint64_t* allowed_states,
                               std::uint64_t* attracted) = 0;
  virtual void rows_staying_in(const std::uint64_t* inside, std::uint64_t* stays) = 0;
  // graph::SearchBackend's stay_and_reach, the sets kept on the device between
  // rounds; inside is updated in place. Returns the rounds. Throws DeviceError.
  virtual unsigned stay_and_reach(const std::uint64_t* targets, const std::uint64_t* allowed, std::uint64_t* inside) = 0;

  // The SCCs of the subgraph of `states` (num_members of them), with the edges of the
  // rows in enabled_rows (null: every row). Throw DeviceError.
  virtual DeviceSccs sccs(const std::uint64_t* states, std::uint32_t num_members, const std::uint64_t* enabled_rows) = 0;
  // The partition alone: representative[s] (num_states entries) is the largest state
  // of s's SCC for s in states, UINT32_MAX elsewhere. Throws DeviceError.
  virtual SccWork scc_representatives(const std::uint64_t* states, const std::uint64_t* enabled_rows,
                                      std::uint32_t* representative) = 0;

  // Frees what the searches work in (made again by the next search), for a solve.
  virtual void release_scratch() = 0;
  // Frees the predecessor entries (their offsets, owners and local rows), which only the searches read
  // (made again on the device, from the rows, by the next search). maybe_system does
  // so first.
  virtual void release_predecessors() = 0;

  // The maybe-state system (gpu/device_system.h) of the states inputs.order[0, count)
  // in that order; what only the searches read is released first (release_scratch,
  // release_predecessors). Throws DeviceError.
  virtual std::unique_ptr<DeviceSystem> maybe_system(const SystemInputs& inputs) = 0;
};

// Uploads the graph; nullptr without a usable device (or CUDA). Throws DeviceError
// (OutOfDeviceMemory when it does not fit).
std::unique_ptr<DeviceGraphSearch> upload_graph(const GraphArrays& graph);

}  // namespace mdpvi::gpu
