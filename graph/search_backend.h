#pragma once
// The three searches every qualitative algorithm (Prob0A/0E/1A/1E, graph/qualitative.h)
// is made of, behind one interface with three implementations: the plain CPU
// reference (Boost.Graph's breadth-first search and a serial worklist), a
// level-synchronous oneTBB version, and a CUDA version on a device-resident copy of
// the model's structure. Each is tested equivalent to the reference
// (tests/search_backend_test.cpp).
#include "engine/model/sparse_mdp.h"
#include "graph/kept_sccs.h"
#include "graph/qualitative_sets.h"
#include "graph/scc_decomposition.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace mdpvi::gpu {
class DeviceGraphSearch;
}

namespace mdpvi::graph {

enum class SearchKind { reference, cpu_parallel, gpu };

const char* to_string(SearchKind kind);  // "cpu-reference", "cpu-parallel", "gpu"

class SearchBackend {
 public:
  virtual ~SearchBackend() = default;

  virtual SearchKind kind() const = 0;
  virtual const SparseMdp& mdp() const = 0;
  // The device memory the backend holds for the whole run (the GPU's graph), else 0.
  virtual std::size_t device_bytes() const { return 0; }
  // The device's copy of the model (the GPU backend's), for what else is built from
  // it there (engine/check/reachability.cpp: maybe-state systems); else null.
  virtual gpu::DeviceGraphSearch* device_graph() const { return nullptr; }

  // Frees the host memory that only the searches read (a CPU backend's own predecessor
  // graph), for a solve that needs it; the next search makes it again.
  virtual void release_search_memory() const {}

  // The states from which some path reaches sources through allowed states, taking
  // only allowed rows (nullptr: every row): sources, and every allowed state with an
  // allowed row that has a successor already reached. Pre: sources are allowed.
  virtual StateSet backward_exists(const StateSet& sources, const StateSet& allowed_states,
                                   const StateSet* allowed_rows) const = 0;

  // The backward attractor with a universal step: sources, and every allowed state
  // all of whose rows have a successor already attracted.
  virtual StateSet backward_forall(const StateSet& sources, const StateSet& allowed_states) const = 0;

  // The rows of states in `inside` whose successors all lie in `inside` (num_choices bits).
  virtual StateSet rows_staying_in(const StateSet& inside) const = 0;

  // Prob1E's nested fixed point (graph/qualitative.h): from `inside`, keep the states
  // that reach targets through allowed states inside it, by rows staying inside it,
  // until it no longer shrinks. Here on the three searches above; the device backend
  // keeps its sets on the device between rounds. Pre: targets are allowed.
  virtual StateSet stay_and_reach(const StateSet& targets, const StateSet& allowed, StateSet inside) const;

  // The SCCs of `states` (edges of enabled_rows only; nullptr: every row) on the
  // backend's device, as graph/scc.h's maybe_state_sccs; nullopt for a backend
  // without one, or when the device fails (said in the log): the caller then
  // decomposes on the CPU. graph/scc.h chooses; callers go through it.
  virtual std::optional<SccDecomposition> device_sccs(const StateSet& /*states*/, const StateSet* /*enabled_rows*/) const {
    return std::nullopt;
  }
  // The partition alone, as graph/scc.h's scc_labels (labels: the largest state of each SCC).
  virtual std::optional<std::vector<std::uint32_t>> device_scc_labels(const StateSet& /*states*/,
                                                                      const StateSet* /*enabled_rows*/) const {
    return std::nullopt;
  }

  // A decomposition of the model's states over every row, kept for a later property
  // that decomposes the same states (a file's Pmin and Pmax, Rmin and Rmax, often do):
  // graph/scc.h's maybe_state_sccs keeps one while remembering is on (the pipeline
  // turns it on while more properties follow) and the memory allows, and finds it
  // (remembering on or off), kept compact (graph/kept_sccs.h). make_room_for forgets it
  // where the room it makes needs that, and the pipeline after the model's last property.
  void remember_sccs_while(bool more_to_come) const;
  bool remembering_sccs() const { return remembering_; }
  const KeptSccs* remembered_sccs(const StateSet& states) const;
  void remember_sccs(const StateSet& states, KeptSccs sccs) const;
  // The one remembered, moved out (none kept after). Pre: remembered_sccs found it,
  // which compared the states already.
  SccDecomposition take_remembered_sccs() const;
  void forget_sccs() const { remembered_.reset(); }
  std::uint64_t remembered_sccs_bytes() const {
    return remembered_ ? remembered_->sccs.bytes() + remembered_->states.num_blocks() * 8 : 0;
  }

 private:
  struct RememberedSccs {
    StateSet states;
    KeptSccs sccs;
  };
  mutable bool remembering_ = false;
  mutable std::optional<RememberedSccs> remembered_;
};

// Frees the searches' host memory (release_search_memory) where work about to run may
// take `bytes` and that passes half the memory still unused, saying so with `what`,
// the work's name; the remembered SCCs too, but only where that makes the room (the
// next property would take minutes to find them again on a billion states). A run's
// largest steps (the SCCs on the CPU, a system built on the host) take model-sized
// arrays beside the model; the searches' graph is as large.
void make_room_for(const SearchBackend& search, std::uint64_t bytes, const char* what);
// make_room_for's rule for the remembered SCCs (`kept` bytes), the searches' memory
// released already: work of `bytes` does not fit half the `unused` memory, but would
// without them.
bool forgetting_sccs_makes_room(std::uint64_t bytes, std::uint64_t unused, std::uint64_t kept);
// Before the SCCs on the cores and the system of the model's last property (remembering
// off: the pipeline says no property follows): the searches' host memory released
// whatever the memory unused, as no later property reads it; a search of this property
// after them (a nested operator's) makes it again. The SCCs, the system and the solve
// are a CPU run's peaks.
void release_for_the_last_property(const SearchBackend& search);

// The model's search graph in the kind asked for. A GPU backend needs a usable device
// with room for the graph (it builds its own copy of the predecessors there); without
// one this returns the oneTBB backend and says why in the log. Pre: graph was built
// from mdp; both outlive the backend.
std::unique_ptr<SearchBackend> make_search_backend(const SparseMdp& mdp, const ChoicePredecessorGraph& graph,
                                                   SearchKind kind);
// The same, a CPU backend with a predecessor graph of its own, made now and
// releasable (release_search_memory). Pre: mdp outlives the backend.
std::unique_ptr<SearchBackend> make_search_backend(const SparseMdp& mdp, SearchKind kind);

}  // namespace mdpvi::graph
