#include "engine/solve/method_policy.h"
#include "engine/model/parallel_indices.h"

#include "engine/solve/scc_sweeps.h"

#include "engine/solve/method_requirements.h"
#include "engine/solve/solve_progress.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <functional>
#include <cmath>
#include <stdexcept>

namespace mdpvi {

std::unique_ptr<MethodPolicy> make_value_iteration_policy(const SolveRequest& request);     // value_iteration.cpp
// interval_iteration.cpp; optimistic: the upper iterate starts from a verified guess
std::unique_ptr<MethodPolicy> make_interval_iteration_policy(const SolveRequest& request, bool optimistic,
                                                             bool crawls_to_policy_iteration = false);
std::unique_ptr<MethodPolicy> make_bicgstab_policy(const SolveRequest& request);  // bicgstab.cpp
// policy_iteration.cpp; optimistic_on_device: device chunks by optimistic value iteration
std::unique_ptr<MethodPolicy> make_policy_iteration_policy(const SolveRequest& request, bool optimistic_on_device);

const char* to_string(Method method) {
  switch (method) {
    case Method::value_iteration: return "value iteration";
    case Method::interval_iteration: return "interval iteration";
    case Method::optimistic_value_iteration: return "optimistic value iteration";
    case Method::bicgstab: return "BiCGStab";
    case Method::policy_iteration: return "policy iteration";
    case Method::automatic: return "optimistic value or policy iteration";
  }
  return "?";
}

const char* option_name(Method method) {
  switch (method) {
    case Method::value_iteration: return "vi";
    case Method::interval_iteration: return "ii";
    case Method::optimistic_value_iteration: return "ovi";
    case Method::bicgstab: return "bicgstab";
    case Method::policy_iteration: return "pi";
    case Method::automatic: return "auto";
  }
  return "?";
}

MethodRequirements requirements_of(Method method) {
  MethodRequirements needs;
  switch (method) {
    case Method::value_iteration: break;
    case Method::interval_iteration:
    case Method::optimistic_value_iteration:
      needs.gives_bounds = true;
      needs.end_components_collapsed_when_maximizing = true;
      needs.uses_upper_bound = true;
      break;
    case Method::bicgstab:
      needs.one_choice_per_state = true;
      needs.solves_by_levels = false;
      break;
    case Method::policy_iteration:
    case Method::automatic:
      needs.gives_bounds = true;
      needs.end_components_collapsed_when_maximizing = true;
      needs.uses_upper_bound = true;
      needs.solves_by_levels = method == Method::automatic;
      break;
  }
  return needs;
}

std::unique_ptr<MethodPolicy> make_method_policy(const SolveRequest& request) {
  if (request.options.stop.fixed_sweeps) return make_value_iteration_policy(request);
  const Method method = request.options.method;
  if (requirements_of(method).one_choice_per_state && request.system.num_rows() != request.system.num_states()) {
    throw std::invalid_argument(std::string("--method ") + option_name(method) +
                                " solves DTMCs (one choice per state); for an MDP use ovi, ii or vi");
  }
  switch (method) {
    case Method::value_iteration: return make_value_iteration_policy(request);
    case Method::interval_iteration: return make_interval_iteration_policy(request, false);
    case Method::optimistic_value_iteration: return make_interval_iteration_policy(request, true);
    case Method::bicgstab: return make_bicgstab_policy(request);
    case Method::policy_iteration: return make_policy_iteration_policy(request, false);
    case Method::automatic: return make_policy_iteration_policy(request, true);
  }
  return make_value_iteration_policy(request);
}

void solve_trivial_scc(const SolveRequest& request, StateRange range, Iterates& x) {
  bellman_sweep_reference(request.system, range, request.direction, request.options.stop.criterion, x.lower.data(),
                          x.lower_next.data());
  x.lower[range.begin] = x.lower_next[range.begin];
}

void solve_trivial_scc_both(const SolveRequest& request, std::uint64_t state, Iterates& x) {
  const MaybeSystem& system = request.system;
  const auto [lower, upper] = request.direction == Optimization::minimize
                                  ? bellman_pair<Optimization::minimize>(system, state, x.lower.data(), x.upper.data())
                                  : bellman_pair<Optimization::maximize>(system, state, x.lower.data(), x.upper.data());
  x.lower[state] = x.lower_next[state] = lower;
  x.upper[state] = x.upper_next[state] = upper;
}

Iterates::Iterates(const SolveRequest& request, bool with_upper, bool upper_unwritten) {
  const std::size_t n = request.system.num_states();
  if (!request.start_values) lower_start = 0.0;
  lower = request.start_values ? copy_of(request.start_values->data(), n) : filled(n, *lower_start);
  if (with_upper) {
    upper_start = request.known_upper_bound.value_or(0.0);
    upper = upper_unwritten ? PodVector<double>(n) : filled(n, *upper_start);
  }
}

void Iterates::start_of(std::uint64_t first, gpu::DeviceSolver::BoundInputs& inputs) const {
  inputs.lower = lower_start ? nullptr : lower.data() + first;
  inputs.lower_constant = lower_start.value_or(0.0);
  if (upper.empty()) return;
  inputs.upper = upper_start ? nullptr : upper.data() + first;
  inputs.upper_constant = upper_start.value_or(0.0);
}

gpu::DeviceSolver::BoundInputs bound_inputs(const DeviceChunkJob& job, const Iterates& x, const double* b_lower,
                                            const double* b_upper) {
  gpu::DeviceSolver::BoundInputs inputs{b_lower, b_upper};
  if (job.b_on_device) {
    inputs = {};
    inputs.own_b = true;
    inputs.with_upper = !x.upper.empty();
  }
  x.start_of(job.states.begin, inputs);
  return inputs;
}

void Iterates::restart(const SolveRequest& request, StateRange range) {
  const std::size_t n = request.system.num_states();
  for (PodVector<double>* v : {&lower, &lower_next}) {
    if (v->size() != n) continue;  // a second buffer not made yet
    if (lower_start) {
      std::fill(v->begin() + range.begin, v->begin() + range.end, *lower_start);
    } else if (request.start_values) {
      std::copy(request.start_values->begin() + range.begin, request.start_values->begin() + range.end, v->begin() + range.begin);
    }  // else a method has raised it from below already (policy iteration's sweeps): still a lower start
  }
  for (PodVector<double>* v : {&upper, &upper_next}) {
    if (v->size() == n) std::fill(v->begin() + range.begin, v->begin() + range.end, upper_start.value_or(0.0));
  }
}

void Iterates::make_second_buffers() {
  if (lower_next.size() != lower.size()) lower_next = copy_of(lower.data(), lower.size());
  if (upper_next.size() != upper.size()) upper_next = copy_of(upper.data(), upper.size());
}

void Iterates::sync(StateRange range) {
  if (lower_next.size() == lower.size()) parallel_copy(lower.data() + range.begin, range.size(), lower_next.data() + range.begin);
  if (upper_next.size() != upper.size() || upper.empty()) return;
  parallel_copy(upper.data() + range.begin, range.size(), upper_next.data() + range.begin);
}

void Iterates::write_upper_beside() {
  if (upper.empty()) return;
  upper_written_ = std::async(std::launch::async, [this] {
                     parallel_indices(0, upper.size(), 1 << 16, [&](std::size_t i) { upper[i] = upper_start.value_or(0.0); });
                   }).share();
}

void Iterates::await_written() const {
  if (upper_written_.valid()) upper_written_.wait();
}

std::size_t matrix_bytes(std::uint64_t states, std::uint64_t rows, std::uint64_t entries) {
  return (states + 1) * sizeof(std::uint64_t) + (rows + 1) * sizeof(std::uint64_t) +
         entries * (sizeof(std::uint32_t) + sizeof(double));
}

std::size_t plain_sweep_bytes(std::uint64_t states, std::uint64_t rows, std::uint64_t entries) {
  return matrix_bytes(states, rows, entries) + rows * sizeof(double) + 2 * states * sizeof(double);
}

LowerRun sweep_lower(const SolveRequest& request, SolveProgress* progress, StateRange range, Iterates& x,
                     double precision, std::uint64_t budget, bool fixed) {
  const std::unique_ptr<SccSweeps> sweeps = make_scc_sweeps(request, range, x);
  return sweep_lower(*sweeps, progress, precision, budget, fixed);
}

LowerRun sweep_lower(SccSweeps& sweeps, SolveProgress* progress, double precision, std::uint64_t budget, bool fixed) {
  // The rate is measured over the last kWindow sweeps: the largest change of an MDP
  // need not fall every sweep (periodic chains alternate).
  constexpr std::uint64_t kWindow = 8;
  std::array<double, kWindow> recent{};
  LowerRun run;
  do {
    run.change = sweeps.sweep_lower();
    recent[run.sweeps % kWindow] = run.change;
    ++run.sweeps;
    note_progress(progress, 1, run.change);
  } while ((fixed || run.change >= precision) && run.sweeps < budget);
  sweeps.sync();
  const std::uint64_t gap = std::min(run.sweeps - 1, kWindow - 1);
  run.rate = convergence_rate(recent[(run.sweeps - 1 - gap) % kWindow], run.change, gap);
  return run;
}

double convergence_rate(double earlier, double last, std::uint64_t gap) {
  if (gap == 0 || !(earlier > 0.0) || !(last > 0.0) || last >= earlier) return 1.0;
  return std::pow(last / earlier, 1.0 / static_cast<double>(gap));
}

double change_within(double distance, double rate) {
  return rate >= 1.0 ? 0.0 : distance * (1.0 - rate) / rate;
}

gpu::SweepSettings sweep_settings(const SolveRequest& request, SolveProgress* progress) {
  const StopRule& stop = request.options.stop;
  gpu::SweepSettings settings;
  settings.maximize = request.direction == Optimization::maximize;
  settings.relative = stop.criterion == ConvergenceCriterion::relative;
  settings.epsilon = stop.epsilon;
  settings.max_sweeps = stop.max_sweeps;
  settings.fixed_sweeps = stop.fixed_sweeps;
  if (progress != nullptr) {
    settings.on_batch = [progress](std::uint64_t sweeps, double measure) { progress->note(sweeps, measure); };
  }
  return settings;
}

namespace {

bool has_self_loop(const MaybeSystem& system, std::uint64_t state) {
  if (system.on_device) return system.on_device->has_self_loop(static_cast<std::uint32_t>(state));
  if (system.view) return system.view->self_loops.test(state);
  for (std::uint64_t k = system.row_starts[system.row_group_starts[state]];
       k < system.row_starts[system.row_group_starts[state + 1]]; ++k) {
    if (system.columns[k] == state) return true;
  }
  return false;
}

}  // namespace

bool is_trivial_scc(const MaybeSystem& system, std::size_t scc) {
  return system.scc_starts[scc + 1] - system.scc_starts[scc] == 1 && !has_self_loop(system, system.scc_starts[scc]);
}

bool sccs_concurrent(const SolveRequest& request) {
  return request.options.partitions <= 1 && request.options.ranks == nullptr;
}

void for_each_level(const MaybeSystem& system, std::size_t first_scc, std::size_t end_scc,
                    const std::function<void(std::size_t)>& trivial,
                    const std::function<void(std::size_t, SolveStats&)>& iterated, SolveStats& stats,
                    bool concurrent, const std::function<void()>& prepare) {
  bool prepared = !prepare;
  // Below this many SCCs a level is walked on one thread: a parallel loop costs more
  // than the updates.
  constexpr std::size_t kParallelFrom = 4096;
  const std::vector<std::uint64_t>& levels = system.level_starts;
  auto level = std::upper_bound(levels.begin(), levels.end(), first_scc);
  for (std::size_t begin = first_scc; begin < end_scc; ++level) {
    // Without levels (a system made by hand), every SCC is a level of its own.
    const std::size_t level_end = levels.empty() ? begin + 1 : level == levels.end() ? end_scc : *level;
    const std::size_t end = std::min<std::size_t>(end_scc, level_end);
    if (end - begin >= kParallelFrom) {
      oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(begin, end, 1024), [&](const auto& part) {
        for (std::size_t scc = part.begin(); scc < part.end(); ++scc) {
          if (is_trivial_scc(system, scc)) trivial(scc);
        }
      });
    } else {
      for (std::size_t scc = begin; scc < end; ++scc) {
        if (is_trivial_scc(system, scc)) trivial(scc);
      }
    }
    std::vector<std::size_t> iterated_sccs;
    for (std::size_t scc = begin; scc < end; ++scc) {
      if (!is_trivial_scc(system, scc)) iterated_sccs.push_back(scc);
    }
    if (!iterated_sccs.empty() && !prepared) {
      prepare();
      prepared = true;
    }
    if (concurrent && iterated_sccs.size() > 1) {
      std::vector<SolveStats> each(iterated_sccs.size());
      oneapi::tbb::parallel_for(std::size_t{0}, iterated_sccs.size(),
                                [&](std::size_t i) { iterated(iterated_sccs[i], each[i]); });
      for (const SolveStats& s : each) stats.merge(s);
    } else {
      for (std::size_t scc : iterated_sccs) iterated(scc, stats);
    }
    begin = end;
  }
}

// In parallel where there are many SCCs: each looks at its state's rows, and a level
// of leader9 holds millions of SCCs.
constexpr std::size_t kSccsPerTask = std::size_t{1} << 14;

std::size_t count_iterated(const MaybeSystem& system, std::size_t first_scc, std::size_t end_scc) {
  return oneapi::tbb::parallel_reduce(
      oneapi::tbb::blocked_range<std::size_t>(first_scc, end_scc, kSccsPerTask), std::size_t{0},
      [&](const auto& part, std::size_t count) {
        for (std::size_t scc = part.begin(); scc < part.end(); ++scc) count += !is_trivial_scc(system, scc);
        return count;
      },
      std::plus<>());
}

bool without_cycles(const MaybeSystem& system) {
  if (system.num_sccs() != system.num_states()) return false;
  if (system.on_device) return system.on_device->self_loops() == 0;
  return oneapi::tbb::parallel_reduce(
      oneapi::tbb::blocked_range<std::uint64_t>(0, system.num_states(), 1 << 14), true,
      [&](const oneapi::tbb::blocked_range<std::uint64_t>& part, bool none) {
        for (std::uint64_t s = part.begin(); none && s < part.end(); ++s) none = !has_self_loop(system, s);
        return none;
      },
      [](bool a, bool b) { return a && b; });
}

bool all_trivial(const MaybeSystem& system, std::size_t first_scc, std::size_t end_scc) {
  if (end_scc - first_scc > kSccsPerTask) {
    return oneapi::tbb::parallel_reduce(
        oneapi::tbb::blocked_range<std::size_t>(first_scc, end_scc, kSccsPerTask), true,
        [&](const auto& part, bool all) { return all && all_trivial(system, part.begin(), part.end()); },
        [](bool a, bool b) { return a && b; });
  }
  for (std::size_t scc = first_scc; scc < end_scc; ++scc) {
    if (!is_trivial_scc(system, scc)) return false;
  }
  return true;
}

std::size_t levels_spanned(const MaybeSystem& system, std::size_t first_scc, std::size_t end_scc) {
  if (first_scc >= end_scc) return 0;
  const auto& levels = system.level_starts;
  const auto first = std::upper_bound(levels.begin(), levels.end(), first_scc);
  const auto last = std::upper_bound(levels.begin(), levels.end(), end_scc - 1);
  return static_cast<std::size_t>(last - first) + 1;
}

std::vector<std::uint8_t> cyclic_levels(const MaybeSystem& system) {
  std::vector<std::uint8_t> cyclic(system.num_levels(), 0);
  oneapi::tbb::parallel_for(std::size_t{0}, system.num_levels(), [&](std::size_t h) {
    cyclic[h] = oneapi::tbb::parallel_reduce(
        oneapi::tbb::blocked_range<std::size_t>(system.level_starts[h], system.level_starts[h + 1], 4096), false,
        [&](const auto& part, bool found) { return found || !all_trivial(system, part.begin(), part.end()); },
        [](bool a, bool b) { return a || b; });
  });
  return cyclic;
}

std::size_t first_cyclic_level(const std::vector<std::uint8_t>& cyclic) {
  return static_cast<std::size_t>(std::find(cyclic.begin(), cyclic.end(), 1) - cyclic.begin());
}

gpu::ChunkSolveStats pass_acyclic_segment(const DeviceChunkJob& job, const LevelSegment& segment, Optimization direction) {
  const gpu::LevelPasses passes{segment.level_starts.data(), segment.level_starts.size() - 1, nullptr, nullptr,
                                direction == Optimization::maximize, {}};
  return job.device.pass_levels(job.ticket, passes, nullptr, nullptr);
}

std::size_t level_of(const MaybeSystem& system, std::size_t scc) {
  return static_cast<std::size_t>(std::upper_bound(system.level_starts.begin(), system.level_starts.end(), scc) -
                                  system.level_starts.begin()) - 1;
}

std::vector<std::uint64_t> level_state_starts(const MaybeSystem& system, StateRange chunk) {
  std::vector<std::uint64_t> starts(system.num_levels() + 1);
  for (std::size_t h = 0; h < starts.size(); ++h) {
    starts[h] = std::clamp(system.scc_starts[system.level_starts[h]], chunk.begin, chunk.end) - chunk.begin;
  }
  return starts;
}

bool touches_cyclic_level(const MaybeSystem& system, const std::vector<std::uint8_t>& cyclic, std::size_t first_scc,
                          std::size_t end_scc) {
  if (first_scc >= end_scc) return false;
  const std::size_t last = level_of(system, end_scc - 1);
  for (std::size_t h = level_of(system, first_scc); h <= last; ++h) {
    if (cyclic[h]) return true;
  }
  return false;
}

std::vector<LevelSegment> level_segments(const MaybeSystem& system, const std::vector<std::uint8_t>& cyclic,
                                         std::size_t first_scc, std::size_t end_scc) {
  std::vector<LevelSegment> segments;
  const std::uint64_t chunk_first = system.scc_starts[first_scc];
  const auto local = [&](std::size_t scc) { return static_cast<std::uint32_t>(system.scc_starts[scc] - chunk_first); };
  for (std::size_t begin = first_scc, h = level_of(system, first_scc); begin < end_scc; ++h) {
    const std::size_t end = std::min<std::size_t>(end_scc, system.level_starts[h + 1]);
    // A level cut by the chunk's edge may have its cycles outside the chunk: its part
    // here is then checked SCC by SCC (iterating trivial SCCs alone would not do:
    // the rows' width targets are 0 for them, met by the exact pass only).
    const bool cut = begin != system.level_starts[h] || end != system.level_starts[h + 1];
    const bool acyclic = !cyclic[h] || (cut && all_trivial(system, begin, end));
    if (acyclic && !segments.empty() && segments.back().acyclic) {
      segments.back().level_starts.push_back(local(end));
      segments.back().end_scc = end;
    } else {
      segments.push_back({acyclic, begin, end, {local(begin), local(end)}});
    }
    begin = end;
  }
  return segments;
}

// Said once, by the property's error (engine/check/reachability.cpp's solve_into);
// each unit only in the debug log (a model can have thousands of them).
void SolveStats::merge(const SolveStats& other) {
  iterations += other.iterations;
  max_scc_iterations = std::max(max_scc_iterations, other.max_scc_iterations);
  iterated_sccs += other.iterated_sccs;
  policy_sccs += other.policy_sccs;
  largest_scc = std::max(largest_scc, other.largest_scc);
  converged = converged && other.converged;
  unconverged += other.unconverged;
  if (first_unconverged.empty()) first_unconverged = other.first_unconverged;
}

void report_not_converged(SolveStats& stats, const NotConverged& what) {
  stats.converged = false;
  ++stats.unconverged;
  // An infinite width: the sweeps ran out before an upper bound was verified.
  const std::string reached = std::isinf(what.reached) ? std::string("no upper bound yet")
                                                       : fmt::format("{} {:.3g}", what.measure, what.reached);
  const std::string text = fmt::format("{} stopped after {} iterations on {} of {} states ({}, asked for {:.3g})",
                                       what.method, what.sweeps, what.unit, what.states, reached, what.target);
  if (stats.first_unconverged.empty()) stats.first_unconverged = text;
  spdlog::debug("not converged: {}", text);
}

}  // namespace mdpvi
