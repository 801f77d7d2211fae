#include "engine/check/reachability.h"

#include "engine/model/process_memory.h"
#include "engine/model/stopwatch.h"
#include "engine/check/collapsed_sccs.h"
#include "engine/solve/end_component_quotient.h"
#include "engine/solve/method_requirements.h"
#include "graph/qualitative.h"
#include "graph/scc.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <optional>
#include <stdexcept>

namespace mdpvi {

graph::QualitativePartition qualitative_partition(const graph::SearchBackend& search, Optimization direction,
                                                  const StateSet& phi, const StateSet& psi) {
  return direction == Optimization::minimize ? graph::partition_for_min(search, phi, psi)
                                             : graph::partition_for_max(search, phi, psi);
}

namespace {

// What solving a view takes (view_solvable), for its errors.
constexpr const char* kViewNeeds =
    "needs a method that solves by levels (not --method pi or bicgstab), no fixed number of sweeps and the model's "
    "own rows (not a CTMC's embedded chain)";

// build_system's rule for the device. A system with an SCC of
// several states goes there whatever its size, as the chunk driver sends a host-built chunk with one; one
// of single states by the driver's rule for acyclic chunks (those with self-loops
// included: on the device they are iterated there, as a host-built chunk would be).
bool device_builds_system(const graph::SearchBackend& search, const SparseMdp& model,
                          const graph::SccDecomposition& sccs, const SolverOptions& options,
                          const DeviceOptions& device) {
  if (device.solver == SolverKind::cpu || search.device_graph() == nullptr || &model != &search.mdp() ||
      !requirements_of(options.method).solves_by_levels || options.stop.fixed_sweeps || !device.systems_on_device ||
      sccs.order.empty()) {
    return false;
  }
  const bool single_states = sccs.num_sccs() == sccs.order.size();
  return single_states ? acyclic_goes_to_device(sccs.order.size(), device.schedule)
                       : device.schedule != DeviceSchedule::whole;
}

// Whether the chunk driver can solve a view of the system (maybe_system.h's
// SystemView): by a method that runs chunk by chunk on a GPU and SCC by SCC on the
// CPU (whose windows of rows, view_windows.h, hold a few SCCs at a time), over the
// model's own rows (not a CTMC's embedded chain, whose rows the host divides).
bool view_solvable(const SparseMdp& model, const SolverOptions& options) {
  return model.uniformisation_rate == 0.0 && requirements_of(options.method).solves_by_levels &&
         !options.stop.fixed_sweeps;
}

// A view where asked for, or by default where the CPU solves it (the windows of its
// rows take a copy's time at a fraction of its memory: bench/NOTES.md, session 25).
// Else the host's copy of the system, where it fits the unused memory (the searches'
// graph released first where the copy would take more than half of it) or is asked
// for; else a view where one can be solved. A copy that cannot fit and cannot be a
// view is refused with the numbers, before the kernel's out-of-memory killer would
// end the run without a word.
bool host_system_is_view(const graph::SearchBackend& search, const SparseMdp& model, const SolverOptions& options,
                         const DeviceOptions& device, std::uint64_t states) {
  const bool solvable = view_solvable(model, options);
  if (device.host_system == gpu::SystemStorage::view) {
    if (!solvable) throw std::runtime_error("--host-system view: " + std::string(kViewNeeds));
    return true;
  }
  if (device.host_system == gpu::SystemStorage::automatic && solvable && !gpu_may_solve(device)) return true;
  const std::uint64_t estimate = host_system_bytes(model, host_system_values(device), states);
  graph::make_room_for(search, estimate, "the system");
  const std::size_t unused = unused_memory_bytes();
  if (estimate <= unused) return false;
  const std::string numbers =
      fmt::format("the maybe-state system would take up to {:.1f} GB of host memory, and {:.1f} GB are unused beside "
                  "the {:.1f} GB this run holds",
                  estimate / 1e9, unused / 1e9, resident_bytes() / 1e9);
  if (device.host_system == gpu::SystemStorage::copy) throw std::runtime_error(numbers + ": too large for this machine");
  if (!solvable) {
    throw std::runtime_error(numbers + ": too large for this machine (a view over the model instead " +
                             std::string(kViewNeeds) + ")");
  }
  spdlog::info("{}: a view over the model instead, each chunk copied from it as it goes to the GPU", numbers);
  return true;
}

}  // namespace

MaybeSystem build_system(const graph::SearchBackend& search, const SparseMdp& model, graph::SccDecomposition&& sccs,
                         const SolverOptions& options, const DeviceOptions& device, const TwoValuedOutside& outside,
                         const RewardStructure* rewards, const HostSystemBuilder& build_on_host) {
  if (device_builds_system(search, model, sccs, options, device)) {
    // A view by default, whose solve holds little beyond its vectors: under a chunk
    // budget, the solve sends it back to the host when even those exceed the budget.
    if (std::optional<MaybeSystem> built = build_maybe_system_on_device(*search.device_graph(), model, sccs, outside,
                                                                        rewards, device.system_storage)) {
      return std::move(*built);
    }
  }
  graph::release_for_the_last_property(search);  // bench/NOTES.md, session 22
  if (!host_system_is_view(search, model, options, device, sccs.order.size())) return build_on_host(std::move(sccs));
  graph::make_room_for(search, system_view_bytes(model, sccs.order.size()), "the system's view");
  return build_system_view(model, std::move(sccs), outside, rewards);
}

void solve_system_into(MaybeSystem& system, const std::function<SolveRequest(const MaybeSystem&)>& request_for,
                       const DeviceOptions& device, NumericResult& result, const HostSystemBuilder& build_on_host,
                       const std::function<PodVector<double>()>& outside_values) {
  // The solution reaches the model's states through the state map alone: the rest of
  // the system (its solving order, a host matrix, a device copy) goes first, and only
  // then come the model-sized vectors (bench/NOTES.md, session 13).
  const auto solve_then_place = [&](const SolveRequest& request) {
    SolveResult solution = solve(request, device);
    MaybeSystem map_only;
    map_only.model_states = std::move(system.model_states);
    system = std::move(map_only);
    if (outside_values) result.values = outside_values();
    place_solution(system.model_states, std::move(solution), request.options.stop, result);
  };
  try {
    SolveRequest request = request_for(system);
    if (system.view) request.view_rows = &system;
    solve_then_place(request);
  } catch (const DeviceSystemCrawls& error) {
    spdlog::info("{}: policy iteration instead, over a maybe-state system built on the host", error.what());
    system = build_on_host(sccs_of(std::move(system)));
    SolveRequest request = request_for(system);
    request.options.method = Method::policy_iteration;
    solve_then_place(request);
  } catch (const DeviceSystemFailed& error) {
    spdlog::warn("{}; solving again from a maybe-state system built on the host", error.what());
    system = build_on_host(sccs_of(std::move(system)));
    solve_then_place(request_for(system));
  }
}

NumericResult compute_until_probabilities(const SparseMdp& mdp, const graph::SearchBackend& search,
                                          Optimization direction, const StateSet& phi, const StateSet& psi,
                                          const SolverOptions& options, const DeviceOptions& device) {
  NumericResult result;
  spdlog::debug("until: its state formulas ready, the graph analysis next");
  auto start = std::chrono::steady_clock::now();
  graph::QualitativePartition partition = qualitative_partition(search, direction, phi, psi);
  result.qualitative = {partition.yes.count(), partition.no.count(), partition.maybe.count(), seconds_since(start),
                        to_string(search.kind())};

  start = std::chrono::steady_clock::now();
  const MethodRequirements needs = requirements_of(options.method);
  CollapsedSccs decomposed;
  if (needs.end_components_collapsed_when_maximizing && direction == Optimization::maximize) {
    decomposed = sccs_after_collapsing(search, mdp, partition.maybe, all_states(mdp.num_choices()));
  } else {
    decomposed.sccs = graph::maybe_state_sccs(search, mdp, partition.maybe);
  }
  const SparseMdp& model = decomposed.model(mdp);
  graph::SccDecomposition sccs = std::move(decomposed.sccs);
  spdlog::debug("SCCs of {} maybe-states: {:.3f} s; {}", sccs.order.size(), seconds_since(start), memory_so_far());
  const char* sccs_ran_on = sccs.ran_on;
  const HostSystemBuilder on_host = [&](graph::SccDecomposition&& decomposition) {
    MaybeSystem built = build_maybe_system(model, partition, std::move(decomposition), host_system_values(device));
    if (model.uniformisation_rate > 0.0) remove_self_loops(built);  // a CTMC: its embedded chain's system
    return built;
  };
  MaybeSystem system = build_system(search, model, std::move(sccs), options, device, {partition.yes, 1.0, 0.0}, nullptr, on_host);
  spdlog::debug("maybe-state system: {} rows ({}), {:.3f} s since the SCCs began; {}", system.num_rows(),
                where_kept(system), seconds_since(start), memory_so_far());
  result.sccs = {system.num_sccs(), seconds_since(start), sccs_ran_on};

  solve_system_into(
      system,
      [&](const MaybeSystem& s) {
        const std::optional<double> upper = needs.uses_upper_bound ? std::optional<double>(1.0) : std::nullopt;
        return SolveRequest{.system = s, .direction = direction, .options = options, .known_upper_bound = upper};
      },
      device, result, on_host, [&] { return numbers_on(partition.yes, 1.0); });
  return result;
}

namespace {

// The system's solution into the model's states (local state i is model state
// model_states[i]), the bounds' other states as result.values has them. On all cores:
// the solving order is random in the model's, and one thread writing three
// model-sized vectors takes seconds on a large model. Without bounds, the values in
// place. With them, the lower bound in the values' own storage, each local bound freed
// once placed, the upper bound into a copy, and the midpoints last from the two: three
// model-sized vectors at the peak beside the local ones as they go, where the values
// first, then each bound into a copy, took four.
void scatter_solution(const std::vector<std::uint32_t>& model_states, SolveResult& solution, NumericResult& result) {
  const auto each_state = [&](auto write) {
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, model_states.size(), 1 << 14), [&](const auto& part) {
      for (std::size_t i = part.begin(); i < part.end(); ++i) write(model_states[i], i);
    });
  };
  if (!solution.bounded()) {
    each_state([&](std::uint32_t s, std::size_t i) { result.values[s] = solution.lower[i]; });
    return;
  }
  result.lower = std::move(result.values);
  each_state([&](std::uint32_t s, std::size_t i) { result.lower[s] = solution.lower[i]; });
  solution.lower = PodVector<double>();
  result.upper = copy_of(result.lower.data(), result.lower.size());
  each_state([&](std::uint32_t s, std::size_t i) { result.upper[s] = solution.upper[i]; });
  solution.upper = PodVector<double>();
  result.values = copy_of(result.lower.data(), result.lower.size());
  const double* lower = result.lower.data();
  const double* upper = result.upper.data();
  // SolveResult::value's midpoint, from the same doubles.
  each_state([&](std::uint32_t s, std::size_t) { result.values[s] = lower[s] + (upper[s] - lower[s]) / 2; });
}

}  // namespace

void place_solution(const std::vector<std::uint32_t>& model_states, SolveResult&& solution, const StopRule& stop,
                    NumericResult& result) {
  auto start = std::chrono::steady_clock::now();
  scatter_solution(model_states, solution, result);
  spdlog::debug("solution in the model's states: {:.3f} s", seconds_since(start));
  result.solve = std::move(solution.report);
  const SolveStats& stats = result.solve.stats;
  if (!stats.converged) {
    // The message first: the summary takes the stats with it.
    const std::string message =
        fmt::format("did not converge within {} iterations per SCC (--max-iters; {} SCC{} or GPU chunk{} stopped there, "
                    "the first: {}); no result (raise --max-iters, or loosen --epsilon)",
                    stop.max_sweeps, stats.unconverged, stats.unconverged == 1 ? "" : "s",
                    stats.unconverged == 1 ? "" : "s", stats.first_unconverged);
    throw NotConvergedError(message, std::move(result).summary());
  }
}

void solve_into(const SolveRequest& request, const DeviceOptions& device, NumericResult& result) {
  place_solution(request.system.model_states, solve(request, device), request.options.stop, result);
}

}  // namespace mdpvi
