// Value iteration as a MethodPolicy: topologically on the CPU (an SCC of one state
// without a self-loop depends only on final values, so one Bellman update solves it
// exactly; any other SCC is swept in parallel from its start until the largest
// change is below epsilon), and a chunk at a time on the device.
#include "engine/solve/method_policy.h"

#include <algorithm>

namespace mdpvi {

namespace {

class ValueIterationPolicy final : public MethodPolicy {
 public:
  explicit ValueIterationPolicy(const SolveRequest& request) : r_(request), stop_(request.options.stop) {}

  bool has_upper_iterate() const override { return false; }

  // The matrix, b, two value vectors and the per-sweep results of a batch.
  std::size_t footprint_bytes(std::uint64_t states, std::uint64_t rows, std::uint64_t entries) const override {
    return plain_sweep_bytes(states, rows, entries) + 1024;
  }

  void solve_sccs_on_cpu(std::size_t first_scc, std::size_t end_scc, Iterates& x, SolveStats& stats) override {
    const MaybeSystem& system = r_.system;
    const auto range_of = [&](std::size_t scc) { return StateRange{system.scc_starts[scc], system.scc_starts[scc + 1]}; };
    for_each_level(
        system, first_scc, end_scc,
        // A trivial SCC's one update, also for fixed sweeps: x_k = x_1 for every k >= 1.
        [&](std::size_t scc) { solve_trivial_scc(r_, range_of(scc), x); },
        [&](std::size_t scc, SolveStats& own) {
          const StateRange range = range_of(scc);
          ++own.iterated_sccs;
          const LowerRun run = sweep_lower(r_, progress_, range, x, stop_.epsilon, stop_.max_sweeps, stop_.fixed_sweeps);
          if (!stop_.fixed_sweeps && run.change >= stop_.epsilon) {
            report_not_converged(own, {"value iteration", "an SCC", run.sweeps, range.size(), "last change", run.change,
                                       stop_.epsilon});
          }
          own.add_run(run.sweeps);
        },
        stats, sccs_concurrent(r_));
  }

  // The chunk's iterate goes to the device from the system's own and comes back into
  // it, with no copy of its own.
  gpu::ChunkSolveStats solve_chunk_on_device(const DeviceChunkJob& job, Iterates& x, SolveStats& stats) override {
    PodVector<double> storage;
    const double* b = job.b_on_device ? nullptr : job.row_constants(x.lower.data(), storage);
    double* values = x.lower.data() + job.states.begin;
    gpu::ChunkSolveStats s = job.by_levels ? solve_by_levels(job, b, x, stats) : solve_whole(job, b, values, stats);
    x.sync(job.states);
    return s;
  }

 private:
  // The chunk as one Jacobi system.
  gpu::ChunkSolveStats solve_whole(const DeviceChunkJob& job, const double* b, double* values, SolveStats& stats) {
    gpu::ChunkSolveStats s = job.device.iterate(job.ticket, b, sweep_settings(r_, progress_), values);
    stats.add_run(s.iterations);
    stats.iterated_sccs += job.end_scc - job.first_scc;
    if (!s.converged && !stop_.fixed_sweeps) {
      report_not_converged(stats, {"value iteration", "a chunk on the GPU", s.iterations, job.states.size(), "last change",
                                   s.last_measure, stop_.epsilon});
    }
    return s;
  }

  // Level by level: runs of acyclic levels one pass each, every level with cycles
  // iterated on its own states until it converges (as the CPU does an SCC).
  gpu::ChunkSolveStats solve_by_levels(const DeviceChunkJob& job, const double* b, Iterates& x, SolveStats& stats) {
    gpu::ChunkSolveStats total;
    // The vectors stay on the device until every level is solved.
    job.device.bind(job.ticket, bound_inputs(job, x, b, nullptr));
    for (const LevelSegment& segment : level_segments(r_.system, *job.cyclic, job.first_scc, job.end_scc)) {
      if (segment.acyclic) {
        total += pass_acyclic_segment(job, segment, r_.direction);
        continue;
      }
      gpu::SweepSettings settings = sweep_settings(r_, progress_);
      settings.first_state = segment.level_starts.front();
      settings.end_state = segment.level_starts.back();
      const gpu::ChunkSolveStats s = job.device.iterate(job.ticket, nullptr, settings, nullptr);
      total += s;
      stats.add_run(s.iterations);
      stats.iterated_sccs += count_iterated(r_.system, segment.first_scc, segment.end_scc);
      if (!s.converged && !stop_.fixed_sweeps) {
        report_not_converged(stats, {"value iteration", "a level on the GPU", s.iterations,
                                     settings.end_state - settings.first_state, "last change", s.last_measure,
                                     stop_.epsilon});
      }
    }
    x.await_written();
    job.device.read_bound(job.ticket, x.lower.data() + job.states.begin, nullptr);
    total.converged = stats.converged;
    return total;
  }

  const SolveRequest& r_;
  const StopRule& stop_;
};

}  // namespace

std::unique_ptr<MethodPolicy> make_value_iteration_policy(const SolveRequest& request) {
  return std::make_unique<ValueIterationPolicy>(request);
}

}  // namespace mdpvi
