#pragma once
// What a solving method needs of the system it is given, and what its results are.
// The checker meets the needs without naming methods, as Storm's solvers state
// theirs (end components eliminated, bounds known, a DTMC only). A new method
// states its requirements here, beside its policy's registration
// (engine/solve/method_policy.cpp).
#include "engine/solve/solve_request.h"

#include <cstdint>

namespace mdpvi {

struct MethodRequirements {
  // The results carry bounds that contain the truth.
  bool gives_bounds = false;
  // Maximising, the maybe-states' end components must be collapsed first: an upper
  // iterate starting above the truth never falls inside one.
  bool end_components_collapsed_when_maximizing = false;
  // Starts its upper iterate at a known upper bound where the property has one (1 for
  // probabilities); without one it guesses and verifies.
  bool uses_upper_bound = false;
  // One choice per state: it solves linear systems (DTMCs), and a bottom SCC's
  // stationary distribution as one too (else power iteration).
  bool one_choice_per_state = false;
  // Solves a device chunk level by level, so an acyclic system may be built on the
  // device and solved there whole (engine/check/reachability.h's build_system).
  bool solves_by_levels = true;
};

MethodRequirements requirements_of(Method method);

// The command's default max_sweeps: PRISM's 10000 for value iteration. A sound
// answer is worth more sweeps: a bound verifies only once the lower iterate is well
// converged, which can take tens of thousands of sweeps per SCC.
inline std::uint64_t default_max_sweeps(Method method) { return requirements_of(method).gives_bounds ? 1000000 : 10000; }

}  // namespace mdpvi
