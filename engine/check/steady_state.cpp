#include "engine/check/steady_state.h"

#include "engine/solve/bottom_solver.h"
#include "engine/model/stopwatch.h"
#include "engine/solve/chunk_driver.h"
#include "engine/model/parallel_indices.h"
#include "graph/scc.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>

namespace mdpvi {

namespace {

// The SCCs of the whole chain that no transition leaves, each as its states, in the
// decomposition's order.
std::vector<std::vector<std::uint32_t>> bottom_sccs(const SparseMdp& mdp, const graph::SearchBackend& search) {
  graph::SccDecomposition sccs = graph::maybe_state_sccs(search, mdp, all_states(mdp.num_states()));
  // One SCC of every state (an irreducible chain, as a queueing model's): no entry leaves it.
  if (sccs.num_sccs() == 1) return {std::move(sccs.order)};
  PodVector<std::uint32_t> scc_of(mdp.num_states());  // each written below: the SCCs hold every state
  parallel_indices(0, sccs.num_sccs(), 1 << 10, [&](std::size_t c) {
    for (std::uint64_t i = sccs.scc_starts[c]; i < sccs.scc_starts[c + 1]; ++i) scc_of[sccs.order[i]] = c;
  });
  std::vector<std::uint8_t> left(sccs.num_sccs(), 0);  // per SCC: an entry leaves it
  parallel_indices(0, mdp.num_states(), 1 << 12, [&](std::size_t s) {
    for (std::uint64_t k = mdp.row_starts[mdp.row_group_starts[s]]; k < mdp.row_starts[mdp.row_group_starts[s + 1]]; ++k) {
      if (scc_of[mdp.columns[k]] != scc_of[s]) std::atomic_ref<std::uint8_t>(left[scc_of[s]]).store(1, std::memory_order_relaxed);
    }
  });
  std::vector<std::vector<std::uint32_t>> bottoms;
  for (std::size_t c = 0; c < sccs.num_sccs(); ++c) {
    if (!left[c]) bottoms.emplace_back(sccs.order.begin() + sccs.scc_starts[c], sccs.order.begin() + sccs.scc_starts[c + 1]);
  }
  return bottoms;
}

// Every bottom SCC's stationary distribution, solved to options' epsilon. Throws
// NotConvergedError (with result's summary) where one does not settle.
void solve_stationary(const SparseMdp& mdp, const graph::SearchBackend& search, const SolverOptions& options,
                      const DeviceOptions& device, StationaryDistributions& out, NumericResult& result) {
  out = {};
  auto start = std::chrono::steady_clock::now();
  std::vector<std::vector<std::uint32_t>> bottoms = bottom_sccs(mdp, search);
  out.sccs = {bottoms.size(), seconds_since(start), to_string(search.kind())};
  result.sccs = out.sccs;
  start = std::chrono::steady_clock::now();
  // Each state's index within its bottom SCC (written per BSCC: one array for all,
  // made by the first BSCC that needs it).
  std::vector<std::uint32_t> local;
  SolveReport& report = result.solve;
  for (std::vector<std::uint32_t>& bottom : bottoms) {
    std::vector<double> pi{1.0};
    if (bottom.size() > 1) pi = bottom_stationary_distribution(mdp, bottom, local, options, device, report);
    if (!report.stats.converged) {
      throw NotConvergedError("the stationary distribution of a bottom SCC of " + std::to_string(bottom.size()) +
                                  " states did not settle within " + std::to_string(options.stop.max_sweeps) + " sweeps",
                              std::move(result).summary());
    }
    out.bottoms.push_back(std::move(bottom));
    out.pi.push_back(std::move(pi));
  }
  out.report = report;
  out.epsilon = options.stop.epsilon;
  report.time_s = seconds_since(start);  // a property that reuses them takes none
}

}  // namespace

NumericResult compute_long_run(const SparseMdp& mdp, const graph::SearchBackend& search,
                               const StateNumbers& state_values, const SolverOptions& options,
                               const DeviceOptions& device, StationaryDistributions* kept) {
  NumericResult result;
  result.long_run = true;
  auto start = std::chrono::steady_clock::now();
  StationaryDistributions solved_here;
  StationaryDistributions& distributions = kept ? *kept : solved_here;
  if (distributions.epsilon != options.stop.epsilon) {
    solve_stationary(mdp, search, options, device, distributions, result);
  } else {
    result.sccs = distributions.sccs;
    result.solve = distributions.report;
    result.solve.time_s = 0.0;
  }
  start = std::chrono::steady_clock::now();  // the phases do not overlap: the solve has its own time
  result.values.assign(mdp.num_states(), 0.0);
  StateSet transient = all_states(mdp.num_states());
  for (std::size_t b = 0; b < distributions.bottoms.size(); ++b) {
    const std::vector<std::uint32_t>& bottom = distributions.bottoms[b];
    double value = 0.0;
    for (std::size_t i = 0; i < bottom.size(); ++i) value += distributions.pi[b][i] * state_values[bottom[i]];
    for (std::uint32_t s : bottom) {
      result.values[s] = value;
      transient.reset(s);
    }
  }
  result.qualitative = {0, 0, transient.count(), seconds_since(start), to_string(search.kind())};
  if (transient.none()) return result;
  start = std::chrono::steady_clock::now();
  graph::SccDecomposition sccs = graph::maybe_state_sccs(search, mdp, transient);
  MaybeSystem system = build_maybe_system(mdp, std::move(sccs), result.values);
  result.sccs.time_s += seconds_since(start);  // the transient states' SCCs and system beside the bottom ones'
  const SolveReport stationary = std::move(result.solve);
  solve_into({.system = system, .direction = Optimization::minimize, .options = options}, device, result);
  // The report says both solves: the BSCCs' and the transient states'.
  result.solve.stats.merge(stationary.stats);
  result.solve.chunks.insert(result.solve.chunks.begin(), stationary.chunks.begin(), stationary.chunks.end());
  if (result.solve.device.empty()) result.solve.device = stationary.device;
  result.solve.take_device_peaks(stationary);
  result.solve.time_s += stationary.time_s;
  result.lower.clear();  // the BSCC values carry no bound, so the transient ones have none either
  result.upper.clear();
  return result;
}

}  // namespace mdpvi
