#pragma once
// Pmin/Pmax of (phi U psi) in every state, stage by stage: Prob0/Prob1 (the
// qualitative sets), the maybe-states' SCCs in solving order and their system,
// then the solve. The other numerical properties (engine/check/step_bounded.h,
// engine/check/rewards.h) share solve_into.
#include "engine/check/numeric_result.h"
#include "engine/solve/chunk_driver.h"
#include "engine/solve/maybe_system.h"
#include "graph/search_backend.h"

#include <functional>

namespace mdpvi {

// Prob0/Prob1 for the minimising or the maximising scheduler.
graph::QualitativePartition qualitative_partition(const graph::SearchBackend& search, Optimization direction,
                                                  const StateSet& phi, const StateSet& psi);

// Pre: phi and psi have num_states bits; search was made for mdp.
NumericResult compute_until_probabilities(const SparseMdp& mdp, const graph::SearchBackend& search,
                                          Optimization direction, const StateSet& phi, const StateSet& psi,
                                          const SolverOptions& options, const DeviceOptions& device = {});

// How a maybe-state system is built on the host from its SCCs.
using HostSystemBuilder = std::function<MaybeSystem(graph::SccDecomposition&&)>;

// The maybe-state system of sccs: built on the device, from the graph searches' copy
// of the model, where the device then solves it whole (the model itself, not a
// quotient of it; no chunking asked for; a method by levels; where every SCC is one
// state, enough of them for chunk_driver.h's rule, else a schedule by levels), and
// the device manages; else by build_on_host. A system built there has no host copy
// of its matrix: on a large model that copy is the host's largest step (bench/NOTES.md).
MaybeSystem build_system(const graph::SearchBackend& search, const SparseMdp& model, graph::SccDecomposition&& sccs,
                         const SolverOptions& options, const DeviceOptions& device, const TwoValuedOutside& outside,
                         const RewardStructure* rewards, const HostSystemBuilder& build_on_host);

// solve_into(request_for(system), ...); a system built on the device that the device
// then fails (DeviceSystemFailed) is built again by build_on_host and solved from there,
// under policy iteration where the default method found value iteration crawling
// there (DeviceSystemCrawls). Once solved, the system keeps only its state map
// (model_states) for the solution's way into the model's states; then
// outside_values, where given, makes result.values (until then unneeded: a
// model-sized vector fewer during the solve).
void solve_system_into(MaybeSystem& system, const std::function<SolveRequest(const MaybeSystem&)>& request_for,
                       const DeviceOptions& device, NumericResult& result, const HostSystemBuilder& build_on_host,
                       const std::function<PodVector<double>()>& outside_values = {});

// Solves request (engine/solve/chunk_driver.h) and writes its values into
// result.values at their model states, and where it gives bounds, result.lower and
// result.upper (from result.values outside the system); records the report.
// Pre: result.values has one entry per model state.
// Throws NotConvergedError when some SCC stopped at the request's max_sweeps.
void solve_into(const SolveRequest& request, const DeviceOptions& device, NumericResult& result);

// solve_into's second half: solution into result at the model states, the report, and
// NotConvergedError where the solve stopped at stop.max_sweeps somewhere.
void place_solution(const std::vector<std::uint32_t>& model_states, SolveResult&& solution, const StopRule& stop,
                    NumericResult& result);

}  // namespace mdpvi
