#include "engine/check/steady_state.h"

#include "engine/solve/bottom_chain.h"
#include "engine/model/stopwatch.h"
#include "engine/solve/chunk_driver.h"
#include "engine/solve/parallel_indices.h"
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

// The stationary distributions are solved as linear systems to 1e-8 of epsilon, and
// no finer than double precision allows: a long-run probability is often tiny (a
// failure's share of the time), and only a residual far below it gives its leading
// digits. Where BiCGStab has not converged in this many iterations, power iteration
// takes over.
constexpr double kKrylovShare = 1e-8;
constexpr double kFinestKrylovEpsilon = 1e-15;
constexpr std::uint64_t kMostKrylovIterations = 20000;

// The SCCs of the whole chain that no transition leaves, each as its states, in the
// decomposition's order.
std::vector<std::vector<std::uint32_t>> bottom_sccs(const SparseMdp& mdp, const graph::SearchBackend& search) {
  const graph::SccDecomposition sccs = graph::maybe_state_sccs(search, mdp, all_states(mdp.num_states()));
  std::vector<std::uint32_t> scc_of(mdp.num_states());
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

// What the stationary distributions' linear systems are solved with: BiCGStab to
// kKrylovShare of epsilon (relative), at most kMostKrylovIterations.
SolverOptions krylov_options(const SolverOptions& options) {
  SolverOptions krylov;
  krylov.method = Method::bicgstab;
  krylov.stop.criterion = ConvergenceCriterion::relative;
  krylov.stop.epsilon = std::max(options.stop.epsilon * kKrylovShare, kFinestKrylovEpsilon);
  krylov.stop.max_sweeps = std::min<std::uint64_t>(options.stop.max_sweeps, kMostKrylovIterations);
  krylov.sweeps_after_krylov = false;  // a new reference state, then power iteration: solve_stationary
  return krylov;
}

// from's device peaks, where larger than into's: the most any of their solves held.
void take_device_peaks(SolveReport& into, const SolveReport& from) {
  into.peak_device_bytes = std::max(into.peak_device_bytes, from.peak_device_bytes);
  into.device_in_use_bytes = std::max(into.device_in_use_bytes, from.device_in_use_bytes);
}

// A stationary distribution from its embedded chain's linear system, and whether the
// solve converged (if not, the estimate where it stopped, normalised).
struct KrylovAttempt {
  std::vector<double> pi;
  bool converged = false;
};

// The stationary distribution of a BSCC (at least two states) through its embedded
// chain's linear system relative to the local state `reference` (bottom_chain.h), on
// the device where the chain is large enough (chunk_driver.h's device_worth_starting),
// else on all cores. E scales each state's equation by its leaving probability, as a
// Jacobi preconditioner would: a uniformised CTMC's states stay put with probabilities
// up to 1 - 1e-3 and more. Q is strictly substochastic in an irreducible chain with
// the reference taken out, so the system is nonsingular; its solution y_i = z_i /
// z_reference gives pi_i proportional to z_i / (1 - P(i, i)).
KrylovAttempt stationary_by_krylov(const BottomChain& chain, const std::vector<std::uint32_t>& states,
                                   std::size_t reference, const SolverOptions& options, const DeviceOptions& device,
                                   SolveReport& report) {
  const std::size_t n = states.size();
  auto start = std::chrono::steady_clock::now();
  const MaybeSystem system = embedded_system(chain, states, reference);
  const double built_s = seconds_since(start);
  start = std::chrono::steady_clock::now();
  DeviceOptions on = device;
  if (!device_worth_starting(system.num_states(), device)) on.solver = SolverKind::cpu;
  SolveResult solved = solve({.system = system, .direction = Optimization::minimize, .options = krylov_options(options)}, on);
  spdlog::debug("stationary distribution of {} states: the embedded system built in {:.3f} s, solved in {:.3f} s", n,
                built_s, seconds_since(start));
  report.stats.add_run(solved.report.stats.iterations);
  if (!solved.report.device.empty()) report.device = solved.report.device;
  report.chunks.insert(report.chunks.end(), solved.report.chunks.begin(), solved.report.chunks.end());
  take_device_peaks(report, solved.report);
  std::vector<double> z(n);  // y, with the reference's 1 in its place
  std::copy(solved.lower.begin(), solved.lower.begin() + reference, z.begin());
  z[reference] = 1.0;
  std::copy(solved.lower.begin() + reference, solved.lower.end(), z.begin() + reference + 1);
  return {from_embedded(std::move(z), chain.leaving), solved.report.stats.converged};
}

// The BSCC's chain transposed in its states' order (local numbered for them), and a
// likely state of it: the linear system solves for the others' probabilities relative
// to that one's, which must not be vanishingly small (a full queue's, 1e-100 of an
// empty one's). Likely: the largest after a few sweeps of power iteration from the
// uniform distribution.
struct TransposedBottom {
  BottomChain chain;
  std::size_t likeliest = 0;
};
TransposedBottom transposed_with_likeliest(const SparseMdp& mdp, const std::vector<std::uint32_t>& states,
                                          std::vector<std::uint32_t>& local, const SolverOptions& options,
                                          const DeviceOptions& device, SolveReport& report) {
  constexpr std::uint64_t kRoughSweeps = 32;
  auto start = std::chrono::steady_clock::now();
  parallel_indices(0, states.size(), 1 << 14, [&](std::size_t i) { local[states[i]] = static_cast<std::uint32_t>(i); });
  TransposedBottom out{transpose_bottom(mdp, states, local)};
  const double transposed_s = seconds_since(start);
  start = std::chrono::steady_clock::now();
  SolveStats ignored;
  const std::vector<double> pi =
      lazy_power_sweeps_on(out.chain, kRoughSweeps, options.stop.epsilon * 1e-3, device, ignored, &report);
  out.likeliest = std::max_element(pi.begin(), pi.end()) - pi.begin();
  spdlog::debug("stationary distribution of {} states: transposed in {:.3f} s, {} rough sweeps in {:.3f} s", states.size(),
                transposed_s, kRoughSweeps, seconds_since(start));
  return out;
}

// The index of the largest entry, or none where an entry is not finite.
std::optional<std::size_t> likeliest_of(const std::vector<double>& pi) {
  for (double p : pi) {
    if (!std::isfinite(p)) return std::nullopt;
  }
  return std::max_element(pi.begin(), pi.end()) - pi.begin();
}

// A BSCC's stationary distribution (at least two states), in the order of states. A
// few rough sweeps of a chain that mixes slowly (cluster N=512's 9.5M states) can pick
// a reference far less likely than others, whose system then spans many orders of
// magnitude and defeats BiCGStab; so where a solve gives up, its estimate's likeliest
// state becomes the next one's reference (up to kAttempts solves). Power iteration
// takes over where they all give up.
std::vector<double> stationary_of_bottom(const SparseMdp& mdp, const std::vector<std::uint32_t>& states,
                                         std::vector<std::uint32_t>& local, const SolverOptions& options,
                                         const DeviceOptions& device, SolveReport& report) {
  constexpr unsigned kAttempts = 3;
  const TransposedBottom bottom = transposed_with_likeliest(mdp, states, local, options, device, report);
  std::size_t reference = bottom.likeliest;
  for (unsigned attempt = 1;; ++attempt) {
    KrylovAttempt solved = stationary_by_krylov(bottom.chain, states, reference, options, device, report);
    if (solved.converged) return std::move(solved.pi);
    const std::optional<std::size_t> likeliest = likeliest_of(solved.pi);
    if (attempt == kAttempts || !likeliest || *likeliest == reference) break;
    spdlog::debug("stationary distribution of {} states: the linear solve gave up; again with its likeliest state",
                  states.size());
    reference = *likeliest;
  }
  spdlog::debug("stationary distribution of {} states: power iteration", states.size());
  SolveProgress progress("power iteration (mass moved a sweep)", states.size());
  return lazy_power_sweeps_on(bottom.chain, options.stop.max_sweeps, options.stop.epsilon * 1e-3, device, report.stats,
                              &report, &progress);
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
  // Each state's index within its bottom SCC (written per BSCC: one array for all).
  std::vector<std::uint32_t> local(mdp.num_states(), 0);
  SolveReport& report = result.solve;
  for (std::vector<std::uint32_t>& bottom : bottoms) {
    std::vector<double> pi{1.0};
    if (bottom.size() > 1) pi = stationary_of_bottom(mdp, bottom, local, options, device, report);
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
  take_device_peaks(result.solve, stationary);
  result.solve.time_s += stationary.time_s;
  result.lower.clear();  // the BSCC values carry no bound, so the transient ones have none either
  result.upper.clear();
  return result;
}

}  // namespace mdpvi
