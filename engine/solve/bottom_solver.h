#pragma once
// A bottom SCC's stationary distribution (engine/check/steady_state.cpp asks for each):
// through its embedded chain's linear system, solved by BiCGStab relative to a likely
// state, then power iteration where the linear solves give up (bottom_chain.h's steps).
// Where a device takes the chain whole it is uploaded once and every step runs on it
// (gpu/resident_chain.h); else the chain is transposed on all cores, and its sweeps and
// system go to the device, in chunks, where that is worth it.
#include "engine/model/sparse_mdp.h"
#include "engine/solve/solve_request.h"

#include <cstdint>
#include <vector>

namespace mdpvi {

struct DeviceOptions;  // engine/solve/chunk_driver.h

// states: the BSCC's (at least two), in local order; local: scratch, one entry per
// model state where not empty (bottom_chain.h's: made here where needed, and written
// for states). Solved to options' epsilon
// (its linear systems to a far smaller share: see the .cpp). The runs go to report; a
// distribution that did not settle leaves report.stats not converged.
std::vector<double> bottom_stationary_distribution(const SparseMdp& mdp, const std::vector<std::uint32_t>& states,
                                                   std::vector<std::uint32_t>& local, const SolverOptions& options,
                                                   const DeviceOptions& device, SolveReport& report);

}  // namespace mdpvi
