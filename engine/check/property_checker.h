#pragma once
// Answers a property (io/property.h) on a built model: every sub-formula is
// evaluated in all states, bottom-up, and the filter (or PRISM's default one over
// the initial states) makes the single value that is reported.
#include "engine/check/reachability.h"
#include "engine/check/scheduler.h"
#include "engine/check/steady_state.h"
#include "engine/check/state_formula.h"
#include "engine/model/property_value.h"

#include <optional>
#include <string>

namespace mdpvi {

struct CheckContext {
  const SparseMdp& mdp;
  const graph::SearchBackend& search;
  PropertyScope scope;
  SolverOptions solver;
  DeviceOptions device;
  bool keep_state_values = false;  // --export-vector: every state's value, in PropertyResult
  bool keep_scheduler = false;     // --export-scheduler: an optimal scheduler, in PropertyResult
  bool fairness = false;           // --fair: Pmin of an MDP's until over fair schedulers (engine/check/fairness.h)
  // The model's stationary distributions, kept between its S and R[S] properties; none:
  // each solves its own.
  StationaryDistributions* stationary = nullptr;
};

struct PropertyResult {
  PropertyValue value;
  // The last numerical computation's stages (its per-state vectors released); none
  // where the property needed no graph analysis or solve.
  std::optional<NumericResult> computation;
  // Every state's value (and bounds), where the context asked to keep them and the
  // property is not a filter (whose value is one number).
  std::optional<StateValues> state_values;
  // An optimal scheduler, where the context asked for one and the property is a
  // Pmin/Pmax/Rmin/Rmax=? of an unbounded F or U (engine/check/scheduler.h); else
  // why there is none.
  std::optional<Scheduler> scheduler;
  std::string no_scheduler;
};

// Throws LocatedError for type errors, unknown names, missing reward structures and
// P=?/R=? without min or max on an MDP; std::runtime_error from the solvers.
PropertyResult check_property(const Formula& property, const CheckContext& context);

}  // namespace mdpvi
