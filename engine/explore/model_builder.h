#pragma once
// Explicit-state exploration of a resolved PRISM model into the row-grouped CSR.
//
// State order: breadth-first from the initial states, in the order they are first
// reached; within a state, choices come unlabelled commands first (module order,
// command order), then each action in order of first appearance with its
// combinations in module and command order. Successors of a choice are sorted by
// state index, equal successors merged.
#include "engine/explore/resolved_model.h"

#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

namespace mdpvi {

struct BuildStatistics {
  std::uint64_t deadlocks = 0;  // states without a choice, given a self-loop as PRISM does
  double seconds = 0.0;
  std::size_t table_bytes = 0;  // the state table at its largest
  std::uint64_t waves = 0;  // breadth-first waves (model_builder.cpp)
  std::uint64_t waves_growing_table = 0;  // waves that outgrew the room guessed for their claims
};

struct BuiltModel {
  SparseMdp mdp;
  BuildStatistics statistics;
};

struct BuildOptions {
  // Expand states from per-module caches of local transitions (local_transitions.h);
  // off: evaluate every guard and update in every state (the reference way).
  bool cache_local_transitions = true;
  // Build the model's reward structures. A run whose properties ask for no rewards
  // leaves them out (as Storm does): each holds a number per state or per choice, as
  // much memory as the values of the transitions again for some models.
  bool build_rewards = true;
  // Worker threads; 0: all cores. The build runs in a oneTBB arena of this size.
  int threads = 0;
  // Keep each choice's action (SparseMdp::actions): 4 bytes a choice, for exports.
  bool keep_actions = false;
  // Keep each state's variable values (SparseMdp::valuations: the state table's packed
  // states, 16 bytes a state on leader), for properties that read variables, filters
  // that list states, and exports; false leaves the model without them.
  bool keep_valuations = true;
  // The probabilities and rewards indexed (engine/model/compact_values.h), as the
  // build makes them; false: plain doubles at the end (the build still indexes them).
  bool compact_values = true;
  // Log the phases' times, the waves and the page faults (mdpvi -v).
  bool verbose = false;
  // Stop with BuildLimitReached once more states than this are found (0: no limit),
  // as Storm's --state-limit: a model too large for the machine ends with a message,
  // not the out-of-memory killer.
  std::uint64_t state_limit = 0;
  // Stop with BuildLimitReached once the process's resident memory (or, should /proc
  // be missing, the model's arrays, the state table and the builder's buffers) passes
  // this many bytes (0: no limit). mdpvi's default is a share of the machine's memory,
  // so that a build too large ends with a message.
  std::size_t memory_limit = 0;
  // The model's labels to build (nullopt: all of them). A label costs a bit per state,
  // so a run builds only those its properties name: a model may declare thousands.
  std::optional<std::set<std::string>> labels{};
};

// The build stopped at BuildOptions::state_limit or memory_limit; what() says how far it got.
class BuildLimitReached : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws BuildLimitReached past options.state_limit or memory_limit, and LocatedError: an update
// leaving a variable's range, a command whose probabilities do not sum to 1, a negative
// probability, two modules updating the same variable in one synchronisation. Throws std::length_error beyond 2^31-1 states (a
// table slot keeps one bit to tell claims from indices, see state_table.h).
BuiltModel build_model(const ResolvedModel& model, const BuildOptions& options = {});

}  // namespace mdpvi
