#pragma once
// The one seam between the checker and the solvers: what is asked (SolveRequest:
// the system with its b, the direction, the method, the stop rule, optional
// bounds) and what comes back (SolveResult). The chunk driver
// (engine/solve/chunk_driver.h) answers every request, whatever the method.
#include "engine/model/optimization.h"
#include "engine/model/pod_vector.h"
#include "engine/model/state_numbers.h"
#include "engine/ranks/ranks.h"
#include "engine/solve/maybe_system.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mdpvi {

// How the system is solved. A new method is a sweep kernel (CPU reference in
// engine/solve/bellman.h, CUDA in gpu/sweep_kernels.cuh) plus a MethodPolicy
// (engine/solve/method_policy.h); see engine/README.md.
enum class Method {
  value_iteration,     // PRISM's default: stops when a sweep changes little; no error bound
  interval_iteration,  // a lower and an upper iterate from both ends; the truth lies between them
  // Optimistic value iteration (Hartmanns & Kaminski, CAV 2020): value iteration,
  // then an upper iterate guessed just above it and verified; bounds as interval
  // iteration's.
  optimistic_value_iteration,
  // BiCGStab (van der Vorst 1992), for DTMCs: a Krylov solver of each SCC's linear
  // system on the CPU, of each chunk's on the device; no error bound, like value
  // iteration.
  bicgstab,
  // Policy iteration (Howard 1960) per SCC (per chunk on the device) where value
  // iteration would crawl, each scheduler's system solved by BiCGStab; bounds as
  // interval iteration's, verified by its sweeps (engine/solve/policy_iteration.cpp).
  policy_iteration,
  // mdpvi's default: on the CPU, policy iteration's choice per SCC (value iteration's
  // first sweeps, then optimistic value iteration where they converge or soon would,
  // policy iteration where they crawl); on the device, optimistic value iteration
  // level by level, over a system built there, and where a level crawls under it
  // (chunk_driver.h's DeviceSystemCrawls), policy iteration over the system built on
  // the host (its steps need the host's matrix). Bounds as interval iteration's.
  automatic,
};

const char* to_string(Method method);    // "value iteration", "interval iteration", ...
const char* option_name(Method method);  // --method's: "vi", "ii", "ovi", "bicgstab", "pi", "auto"
// What each method needs and gives: engine/solve/method_requirements.h.

// How changes and widths are measured: absolute, or relative to the value (PRISM's default).
enum class ConvergenceCriterion { relative, absolute };

// When an SCC (on the CPU) or a chunk (on the device) stops iterating.
struct StopRule {
  ConvergenceCriterion criterion = ConvergenceCriterion::relative;
  double epsilon = 1e-6;
  // Value iteration stops once a sweep changes no state by epsilon or more; interval
  // iteration once every state's width is within its SCC's share (scc_targets).
  std::uint64_t max_sweeps = 10000;  // per SCC on the CPU, per chunk on the device (PRISM's -maxiters)
  // Step-bounded properties: exactly max_sweeps sweeps from the start vector, no
  // convergence test. Pre: the system is one SCC (the steps do not decompose).
  bool fixed_sweeps = false;
  // Interval iteration's width targets from the height levels where they apply
  // (level_width_targets); false: always from the rows (scc_width_targets_by_rows),
  // which do not depend on how the SCCs are grouped into levels.
  bool targets_from_levels = true;

  static StopRule exactly(std::uint64_t sweeps) {
    StopRule rule;
    rule.max_sweeps = sweeps;
    rule.fixed_sweeps = true;
    return rule;
  }
};

// What a user chooses: the method and when to stop.
struct SolverOptions {
  Method method = Method::automatic;
  StopRule stop;
  // The CPU solves each iterated SCC as this many parts that exchange the values
  // they read after each sweep (engine/solve/scc_sweeps.h), as several GPUs or MPI
  // ranks would; the answers are the same bit for bit.
  std::uint32_t partitions = 1;
  // BiCGStab: where it gives up, value iteration finishes from where it got to; false
  // leaves the system unconverged, for a caller with a better fallback of its own
  // (the stationary distributions: engine/check/steady_state.cpp).
  bool sweeps_after_krylov = true;
  // The parts on the CUDA devices (gpu/partitioned_sweeps.h), one a device where
  // there are enough: an SCC too large for one device's chunks goes to several.
  bool partitions_on_devices = false;
  // Under mpirun (engine/ranks/ranks.h): each iterated SCC is solved in parts, one a
  // rank, that exchange what they read through MPI. Null: one process. The answers
  // are the same bit for bit.
  Ranks* ranks = nullptr;
  // Only SCCs of at least this many rows plus entries are cut into parts (of ranks,
  // partitions or devices); smaller ones are solved whole, by every rank alike: a
  // small SCC's sweep costs less than an exchange.
  std::uint64_t parts_from = 0;
};

// The width each SCC of the system must reach so that every state ends within
// 2*epsilon of the truth under interval iteration (the argument is in the .cpp):
// level_width_targets' where it applies, else scc_width_targets_by_rows'.
// cyclic: per height level, whether it holds an SCC that is not trivial
// (cyclic_levels, which the chunk driver has made already where a device runs).
PodVector<double> scc_width_targets(const MaybeSystem& system, const std::vector<std::uint8_t>& cyclic, double epsilon);

// Height levels with cycles past which level_width_targets gives none: each is a
// factor on how much tighter its targets may be than the rows' (bench/NOTES.md,
// session 19).
constexpr std::size_t kMostCyclicLevelsForLevelTargets = 256;
// One target per height level, from the height levels alone (no pass over the rows):
// an SCC's count of iterated SCCs on a chain is bounded by the height levels with
// cycles at or below its own. Empty where the system has no height levels or, but for
// a view (MaybeSystem::view), more than kMostCyclicLevelsForLevelTargets of them have cycles.
std::vector<double> level_width_targets(const MaybeSystem& system, const std::vector<std::uint8_t>& cyclic,
                                        double epsilon);

// The tighter targets of each SCC's own count, from a pass over the rows a height
// level at a time (in parallel).
PodVector<double> scc_width_targets_by_rows(const MaybeSystem& system, const std::vector<std::uint8_t>& cyclic,
                                            double epsilon);
// The same, one SCC after another in solving order: the reference the level-parallel
// version above is tested against.
PodVector<double> scc_width_targets_reference(const MaybeSystem& system, double epsilon);

struct SolveRequest {
  const MaybeSystem& system;
  Optimization direction = Optimization::minimize;
  SolverOptions options;
  // Interval iteration: a value above every state's (1 for probabilities). Without
  // one (expected rewards), each SCC's or chunk's upper start is guessed from its
  // converged lower iterate and verified.
  std::optional<double> known_upper_bound{};
  // The lower iterate's start, per local state (default 0, below the least fixed
  // point, where reachability values lie); step-bounded properties start elsewhere.
  const StateNumbers* start_values = nullptr;
  // The system again, writable, where it is a view over the model (MaybeSystem::view)
  // that the CPU may solve: its rows are written into its own arrays there a window at
  // a time (engine/solve/view_windows.h). Null: a view's chunks go to a GPU only.
  MaybeSystem* view_rows = nullptr;
};

struct SolveStats {
  std::uint64_t iterations = 0;          // sweeps summed over all SCCs (chunks)
  std::uint64_t max_scc_iterations = 0;  // sweeps of the slowest SCC (chunk)
  std::uint64_t iterated_sccs = 0;       // SCCs that needed iteration
  std::uint64_t policy_sccs = 0;         // of those, solved by policy iteration (the rest: by sweeps)
  std::uint64_t largest_scc = 0;         // states
  bool converged = true;                 // false when some SCC (chunk) hit max_sweeps
  std::uint64_t unconverged = 0;         // SCCs (GPU chunks) that hit it
  std::string first_unconverged{};       // the first of them, said in words

  void add_run(std::uint64_t sweeps) {
    iterations += sweeps;
    if (sweeps > max_scc_iterations) max_scc_iterations = sweeps;
  }
  // Another part's stats (SCCs solved at the same time, each into its own) added in.
  void merge(const SolveStats& other);
};

struct ChunkReport {
  std::uint64_t states = 0, rows = 0, entries = 0;
  std::size_t sccs = 0;
  std::size_t footprint_bytes = 0;
  bool on_gpu = false;
  bool by_levels = false;  // on the GPU level by level (else iterated as a whole)
  int devices = 0;         // the GPUs it was on at once (a level's SCCs spread over them)
  int gpu = 0;             // which of the run's GPUs it was on (chunks take turns over them)
  bool built_on_device = false;  // its matrix and b were built on the device, never uploaded
  bool device_view = false;      // and kept as a view over the resident model (gpu/device_system.h)
  bool cut_on_device = false;    // cut on the device from the system's rows uploaded as they are
  int group_lanes = 0;            // the sweeps' lanes per state on the GPU (0: none ran)
  bool lanes_over_rows = false;   // each lane summing whole rows, else splitting each row
  unsigned value_bytes = 8;       // an entry's value on the GPU: 8 plain, else an index's bytes
  std::uint64_t iterations = 0;
  double upload_s = 0.0, solve_s = 0.0, download_s = 0.0;
  // What one sweep must move at the least: the matrix, b, the row offsets, and the
  // value vector read once and written once. Over solve_s/iterations: bandwidth.
  std::size_t bytes_per_sweep = 0;
};

// How a request was solved, without the values: what the reports print.
struct SolveReport {
  Method method = Method::value_iteration;
  SolveStats stats;
  std::vector<ChunkReport> chunks;
  std::string device;  // where chunks ran; empty: everything on the CPU
  double time_s = 0.0;
  std::size_t peak_host_bytes = 0;  // the process's peak resident memory at the solve's end
  // The most device memory the solve's chunks held at once (the graph searches' copy of
  // the model aside): the largest chunk's footprint (chunks are there one at a time).
  std::size_t peak_device_bytes = 0;
  // Measured: the device's memory in use at the end of a solve on the device, before
  // its chunk is released (the graph's copy, its values, the system and the vectors);
  // 0 where nothing ran there.
  std::size_t device_in_use_bytes = 0;

  // from's device peaks, where larger than these: the most any of their solves held.
  void take_device_peaks(const SolveReport& from) {
    peak_device_bytes = std::max(peak_device_bytes, from.peak_device_bytes);
    device_in_use_bytes = std::max(device_in_use_bytes, from.device_in_use_bytes);
  }
};

struct SolveResult {
  PodVector<double> lower;  // per local state; value iteration: the values
  PodVector<double> upper;  // interval iteration only: the truth lies in [lower, upper]
  SolveReport report;

  bool bounded() const { return !upper.empty(); }
  // The reported value of local state i: the midpoint of its bounds where there are
  // bounds (off by at most half the width), else the value.
  double value(std::size_t i) const { return bounded() ? lower[i] + (upper[i] - lower[i]) / 2 : lower[i]; }
};

}  // namespace mdpvi
