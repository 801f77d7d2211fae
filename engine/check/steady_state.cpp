#include "engine/check/steady_state.h"

#include "engine/model/stopwatch.h"
#include "engine/solve/krylov_system.h"
#include "graph/scc.h"

#include <algorithm>
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

// The SCCs of the whole chain that no transition leaves, each as its states.
std::vector<std::vector<std::uint32_t>> bottom_sccs(const SparseMdp& mdp, const graph::SearchBackend& search) {
  const graph::SccDecomposition sccs = graph::maybe_state_sccs(search, mdp, all_states(mdp.num_states()));
  std::vector<std::uint32_t> scc_of(mdp.num_states());
  for (std::size_t c = 0; c < sccs.num_sccs(); ++c) {
    for (std::uint64_t i = sccs.scc_starts[c]; i < sccs.scc_starts[c + 1]; ++i) scc_of[sccs.order[i]] = c;
  }
  std::vector<std::vector<std::uint32_t>> bottoms;
  for (std::size_t c = 0; c < sccs.num_sccs(); ++c) {
    bool bottom = true;
    for (std::uint64_t i = sccs.scc_starts[c]; i < sccs.scc_starts[c + 1] && bottom; ++i) {
      const std::uint32_t s = sccs.order[i];
      for (std::uint64_t k = mdp.row_starts[mdp.row_group_starts[s]]; k < mdp.row_starts[mdp.row_group_starts[s + 1]];
           ++k) {
        if (scc_of[mdp.columns[k]] != c) bottom = false;
      }
    }
    if (bottom) bottoms.emplace_back(sccs.order.begin() + sccs.scc_starts[c], sccs.order.begin() + sccs.scc_starts[c + 1]);
  }
  return bottoms;
}

// The stationary distribution of a BSCC (its states, in any order; local: each
// one's index among them), by power iteration on the lazy chain until no entry moves
// by more than a thousandth of epsilon; the sweeps it took go to stats.
std::vector<double> stationary(const SparseMdp& mdp, const std::vector<std::uint32_t>& states,
                               const std::vector<std::uint32_t>& local, const SolverOptions& options,
                               SolveStats& stats) {
  const std::size_t n = states.size();
  if (n == 1) return {1.0};
  std::vector<double> pi(n, 1.0 / static_cast<double>(n)), next(n);
  const double tolerance = options.stop.epsilon * 1e-3;
  for (std::uint64_t sweep = 1; sweep <= options.stop.max_sweeps; ++sweep) {
    for (std::size_t i = 0; i < n; ++i) next[i] = 0.5 * pi[i];
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t s = states[i];
      for (std::uint64_t k = mdp.row_starts[mdp.row_group_starts[s]]; k < mdp.row_starts[mdp.row_group_starts[s + 1]];
           ++k) {
        next[local[mdp.columns[k]]] += 0.5 * pi[i] * mdp.values[k];
      }
    }
    double moved = 0.0;
    for (std::size_t i = 0; i < n; ++i) moved = std::max(moved, std::abs(next[i] - pi[i]));
    pi.swap(next);
    if (moved <= tolerance) {
      stats.add_run(sweep);
      return pi;
    }
  }
  stats.add_run(options.stop.max_sweeps);
  stats.converged = false;
  return pi;
}

// The stationary distribution of a BSCC as a linear system, solved for the embedded
// chain's: E(j, i) = P(j, i) / (1 - P(j, j)) for i != j, the chain without its
// self-loops, whose stationary z gives pi_i proportional to z_i / (1 - P(i, i)).
// (E scales each state's equation by its leaving probability, as a Jacobi
// preconditioner would: a uniformised CTMC's states stay put with probabilities up to
// 1 - 1e-3 and more.) With y_i = z_i / z_0 for the
// BSCC's states i other than its first, z = z E says y = Q^T y + e, where Q is E among
// those states and e_i = E(0, i). Q is strictly substochastic in an irreducible chain
// with state 0 taken out, so I - Q^T is nonsingular. Returns nothing where BiCGStab
// gives up.
std::optional<std::vector<double>> stationary_by_krylov(const SparseMdp& mdp, const std::vector<std::uint32_t>& states,
                                                        const std::vector<std::uint32_t>& local,
                                                        const SolverOptions& options, SolveStats& stats) {
  const std::size_t n = states.size();
  // Each state's probability of leaving itself (positive: the BSCC has other states).
  std::vector<double> leaving(n, 1.0);
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint32_t s = states[j];
    for (std::uint64_t k = mdp.row_starts[mdp.row_group_starts[s]]; k < mdp.row_starts[mdp.row_group_starts[s + 1]];
         ++k) {
      if (mdp.columns[k] == s) leaving[j] -= mdp.values[k];
    }
  }
  // Q^T row by row: the entries into each state i > 0, from j > 0 (column j - 1).
  std::vector<std::vector<std::pair<std::uint32_t, double>>> into(n);
  MaybeSystem system;
  system.row_constants.assign(n - 1, 0.0);
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint32_t s = states[j];
    for (std::uint64_t k = mdp.row_starts[mdp.row_group_starts[s]]; k < mdp.row_starts[mdp.row_group_starts[s + 1]];
         ++k) {
      const std::uint32_t i = local[mdp.columns[k]];
      if (i == 0 || mdp.columns[k] == s) continue;
      const double embedded = mdp.values[k] / leaving[j];
      if (j == 0) {
        system.row_constants[i - 1] += embedded;
      } else {
        into[i].emplace_back(static_cast<std::uint32_t>(j - 1), embedded);
      }
    }
  }
  system.row_group_starts.push_back(0);
  system.row_starts.push_back(0);
  for (std::size_t i = 1; i < n; ++i) {
    for (const auto& [column, value] : into[i]) {
      system.columns.push_back(column);
      system.values.push_back(value);
    }
    system.row_starts.push_back(system.columns.size());
    system.row_group_starts.push_back(i);
    system.model_states.push_back(states[i]);
  }
  KrylovLimits limits;
  limits.max_iterations = std::min<std::uint64_t>(options.stop.max_sweeps, kMostKrylovIterations);
  limits.epsilon = std::max(options.stop.epsilon * kKrylovShare, kFinestKrylovEpsilon);
  const std::vector<double> start(n - 1, 0.0);
  KrylovSystem krylov(system, {0, n - 1}, start.data());
  const KrylovRun run = run_bicgstab(krylov, limits);
  stats.add_run(run.iterations);
  if (!run.converged) return std::nullopt;
  std::vector<double> pi(n);
  pi[0] = 1.0 / leaving[0];
  for (std::size_t i = 1; i < n; ++i) pi[i] = krylov.solution()[i - 1] / leaving[i];
  double total = 0.0;
  for (double p : pi) total += p;
  for (double& p : pi) p /= total;
  return pi;
}

// The BSCC's states with a likely one first: the linear system solves for the others'
// probabilities relative to the first's, which must not be vanishingly small (a full
// queue's, 1e-100 of an empty one's). Likely: the largest after a few sweeps of power
// iteration from the uniform distribution.
std::vector<std::uint32_t> likeliest_first(const SparseMdp& mdp, std::vector<std::uint32_t> states,
                                           std::vector<std::uint32_t>& local, const SolverOptions& options) {
  constexpr std::uint64_t kRoughSweeps = 32;
  if (states.size() < 2) return states;
  for (std::size_t i = 0; i < states.size(); ++i) local[states[i]] = static_cast<std::uint32_t>(i);
  SolverOptions rough = options;
  rough.stop.max_sweeps = kRoughSweeps;
  SolveStats ignored;
  const std::vector<double> pi = stationary(mdp, states, local, rough, ignored);
  std::swap(states[0], states[std::max_element(pi.begin(), pi.end()) - pi.begin()]);
  return states;
}

// Every bottom SCC's stationary distribution, solved to options' epsilon. Throws
// NotConvergedError (with result's summary) where one does not settle.
void solve_stationary(const SparseMdp& mdp, const graph::SearchBackend& search, const SolverOptions& options,
                      StationaryDistributions& out, NumericResult& result) {
  out = {};
  auto start = std::chrono::steady_clock::now();
  std::vector<std::vector<std::uint32_t>> bottoms = bottom_sccs(mdp, search);
  out.sccs = {bottoms.size(), seconds_since(start), to_string(search.kind())};
  result.sccs = out.sccs;
  start = std::chrono::steady_clock::now();
  // Each state's index within its bottom SCC (written per BSCC: one array for all).
  std::vector<std::uint32_t> local(mdp.num_states(), 0);
  for (std::vector<std::uint32_t>& bottom_states : bottoms) {
    std::vector<std::uint32_t> bottom = likeliest_first(mdp, std::move(bottom_states), local, options);
    for (std::size_t i = 0; i < bottom.size(); ++i) local[bottom[i]] = static_cast<std::uint32_t>(i);
    std::optional<std::vector<double>> by_krylov;
    if (bottom.size() > 1) {
      by_krylov = stationary_by_krylov(mdp, bottom, local, options, result.solve.stats);
    }
    // Power iteration where BiCGStab gave up.
    std::vector<double> pi =
        by_krylov ? *std::move(by_krylov) : stationary(mdp, bottom, local, options, result.solve.stats);
    if (!result.solve.stats.converged) {
      throw NotConvergedError("the stationary distribution of a bottom SCC of " + std::to_string(bottom.size()) +
                                  " states did not settle within " + std::to_string(options.stop.max_sweeps) + " sweeps",
                              std::move(result).summary());
    }
    out.bottoms.push_back(std::move(bottom));
    out.pi.push_back(std::move(pi));
  }
  out.stats = result.solve.stats;
  out.epsilon = options.stop.epsilon;
  result.solve.time_s = seconds_since(start);  // a property that reuses them takes none
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
    solve_stationary(mdp, search, options, distributions, result);
  } else {
    result.sccs = distributions.sccs;
    result.solve.stats = distributions.stats;
  }
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
  graph::SccDecomposition sccs = graph::maybe_state_sccs(search, mdp, transient);
  MaybeSystem system = build_maybe_system(mdp, std::move(sccs), result.values);
  solve_into({.system = system, .direction = Optimization::minimize, .options = options}, device, result);
  result.lower.clear();  // the BSCC values carry no bound, so the transient ones have none either
  result.upper.clear();
  return result;
}

}  // namespace mdpvi
