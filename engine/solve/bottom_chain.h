#pragma once
// A bottom SCC of a DTMC, transposed: for each of its states i (in the order given),
// the entries P(j, i) from its states j, by j ascending. A stationary distribution
// pulls along them (pi' = pi P), so its sweeps and its linear system run on all cores
// with no write shared between states, and sum each state's terms in the order a
// push from j = 0 upwards would: the same bits as the serial references below.
#include "engine/model/pod_vector.h"
#include "engine/model/sparse_mdp.h"
#include "engine/solve/maybe_system.h"
#include "engine/solve/solve_progress.h"
#include "engine/solve/solve_request.h"
#include "gpu/stationary_sweeps.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace mdpvi {

struct DeviceOptions;  // engine/solve/chunk_driver.h

struct BottomChain {
  PodVector<std::uint64_t> starts;  // per state + 1, into from and probabilities
  PodVector<std::uint32_t> from;    // local j, ascending within a state
  PodVector<double> probabilities;  // P(j, i)
  std::vector<double> leaving;      // 1 - P(i, i): each state's probability of leaving itself

  std::size_t size() const { return leaving.size(); }
};

// states: the BSCC's, in local order; local[s]: the local index of model state s (read
// for the BSCC's states and their successors, which are the BSCC's). Pre: mdp is a
// DTMC and no entry leaves the BSCC.
BottomChain transpose_bottom(const SparseMdp& mdp, const std::vector<std::uint32_t>& states,
                             const std::vector<std::uint32_t>& local);

// Power iteration on the lazy embedded chain (I + E) / 2, E(j, i) = P(j, i) / (1 - P(j, j))
// for i != j (the chain without its self-loops: a uniformised CTMC's states stay put with
// probabilities up to 1 - 1e-3 and more, and the uniformised chain's sweeps crawl there),
// from the uniform distribution, until the mass left to move is at most tolerance or
// max_sweeps have run; the sweeps it took go to stats (not converged where it hit
// max_sweeps). Left to move: the last sweep's mass moved (the change's 1-norm: a bound
// on each entry's change, however many states share the mass, would stop a slowly
// mixing chain of millions of states far from its distribution), times rho / (1 - rho)
// where that is above 1, rho the mass's decline per sweep over the last 64 sweeps (a
// small change alone stops a slowly mixing chain far from its distribution too).
// Returns the chain's distribution, z_i / (1 - P(i, i)) normalised.
// progress, where given, hears of each sweep (what -v says of a long one).
std::vector<double> lazy_power_sweeps(const BottomChain& chain, std::uint64_t max_sweeps, double tolerance,
                                      SolveStats& stats, SolveProgress* progress = nullptr);
// The same sweeps on the device where the chain is large enough and one is usable
// (chunk_driver.h's use_device_for), else on all cores: the same stop and result bit
// for bit (gpu/stationary_sweeps.h). A device that fails leaves them to the cores
// (said in the log). report, where given, gets the device's run as a chunk and its
// bytes.
std::vector<double> lazy_power_sweeps_on(const BottomChain& chain, std::uint64_t max_sweeps, double tolerance,
                                         const DeviceOptions& device, SolveStats& stats, SolveReport* report = nullptr,
                                         SolveProgress* progress = nullptr);
// The sweeps of lazy_power_sweeps run on a device by run(block_states, after_sweep)
// (gpu/stationary_sweeps.h's contract: none where no device took them), with
// lazy_power_sweeps' stop, told to stats, progress and report (the device's run as a
// chunk of states and entries) as the cores' sweeps would tell them. Returns the run
// (from_embedded of its z and the chain's leaving is lazy_power_sweeps' result); none
// where run gave none. Throws what run throws.
using DeviceSweeps = std::function<std::optional<gpu::PowerSweeps>(std::uint64_t block_states,
                                                                   const std::function<bool(double moved)>& after_sweep)>;
std::optional<gpu::PowerSweeps> device_power_sweeps(const DeviceSweeps& run, std::size_t states, std::uint64_t entries,
                                                    std::uint64_t max_sweeps, double tolerance, SolveStats& stats,
                                                    SolveReport* report, SolveProgress* progress);
// The same, pushing each state's mass on one core: the reference.
std::vector<double> lazy_power_sweeps_reference(const SparseMdp& mdp, const std::vector<std::uint32_t>& states,
                                                const std::vector<std::uint32_t>& local, std::uint64_t max_sweeps,
                                                double tolerance, SolveStats& stats);

// The chain's stationary distribution from its embedded chain's (z, in any scale):
// z_i / (1 - P(i, i)), normalised, summed per block of states (the blocks' sums in
// order: the same bits on any number of cores).
std::vector<double> from_embedded(std::vector<double> z, const std::vector<double>& leaving);

// The embedded chain's system of the stationary distribution relative to the local
// state `reference`: E(j, i) = P(j, i) / (1 - P(j, j)) for i != j, and with y_i = z_i /
// z_reference for the other states i, y = Q^T y + e, where Q is E among those states
// and e_i = E(reference, i). One row per state but the reference, in local order
// (embedded_unknown), one SCC, one level; model_states the BSCC's states but the
// reference. Taking any state as the reference needs no new transpose of the chain.
// Pre: the chain has at least two states; reference < its size.
MaybeSystem embedded_system(const BottomChain& chain, const std::vector<std::uint32_t>& states, std::size_t reference);
// The same from the model, state by state on one core: the reference.
MaybeSystem embedded_system_reference(const SparseMdp& mdp, const std::vector<std::uint32_t>& states,
                                      const std::vector<std::uint32_t>& local, std::size_t reference);

// Local state i's unknown (its row and column) in the embedded system of reference
// (i != reference).
inline std::size_t embedded_unknown(std::size_t i, std::size_t reference) { return i < reference ? i : i - 1; }

}  // namespace mdpvi
