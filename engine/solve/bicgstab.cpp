// BiCGStab (van der Vorst 1992) as a MethodPolicy, for DTMCs: every SCC's states
// satisfy the linear system x = M x + c, with M the SCC's own entries and c its rows'
// constants plus the entries into SCCs already solved. BiCGStab solves (I - M) x = c
// with a Krylov method instead of Jacobi sweeps; trivial SCCs take their one exact
// update, as in value iteration. On the device a chunk is one system, solved by
// gpu/krylov.cu with the same steps (engine/numeric/bicgstab_steps.h). Where BiCGStab breaks
// down after its restarts or runs out of iterations, value iteration finishes from
// where it got to (unless SolverOptions::sweeps_after_krylov says not to). Like value
// iteration, it claims no bound: it stops when the true residual is below epsilon
// (relative to the largest value, or absolute).
#include "engine/solve/krylov_system.h"
#include "engine/solve/method_policy.h"
#include "engine/numeric/bicgstab_steps.h"

#include <algorithm>
#include <vector>

namespace mdpvi {

namespace {

class BicgstabPolicy final : public MethodPolicy {
 public:
  explicit BicgstabPolicy(const SolveRequest& request) : r_(request), stop_(request.options.stop) {}

  bool has_upper_iterate() const override { return false; }
  bool solves_by_levels() const override { return false; }
  // The matrix and b, BiCGStab's eight vectors, with room for its partial sums;
  // value iteration's fallback fits inside.
  std::size_t footprint_bytes(std::uint64_t states, std::uint64_t rows, std::uint64_t entries) const override {
    return matrix_bytes(states, rows, entries) + rows * sizeof(double) + 8 * states * sizeof(double) +
           (std::size_t{1} << 20);
  }

  void solve_sccs_on_cpu(std::size_t first_scc, std::size_t end_scc, Iterates& x, SolveStats& stats) override {
    const MaybeSystem& system = r_.system;
    const auto range_of = [&](std::size_t scc) { return StateRange{system.scc_starts[scc], system.scc_starts[scc + 1]}; };
    for_each_level(
        system, first_scc, end_scc,
        [&](std::size_t scc) { solve_trivial_scc(r_, range_of(scc), x); },
        [&](std::size_t scc, SolveStats& own) { solve_scc(range_of(scc), x, own); }, stats, sccs_concurrent(r_));
  }

  // The whole chunk as one linear system (its SCCs need no order: the Krylov space
  // spans them all), then value iteration from there where BiCGStab gave up.
  gpu::ChunkSolveStats solve_chunk_on_device(const DeviceChunkJob& job, Iterates& x, SolveStats& stats) override {
    PodVector<double> storage;
    const double* b = job.row_constants(x.lower.data(), storage);
    double* values = x.lower.data() + job.states.begin;  // to the device and back, no copy of its own
    const gpu::KrylovChunkStats krylov = job.device.solve_linear(job.ticket, b, limits_with_progress(), values);
    gpu::ChunkSolveStats total = krylov.stats;
    stats.add_run(krylov.stats.iterations);
    stats.iterated_sccs += count_iterated(r_.system, job.first_scc, job.end_scc);
    if (!krylov.stats.converged && !r_.options.sweeps_after_krylov) {
      report_not_converged(stats, {"BiCGStab", "a chunk on the GPU", krylov.stats.iterations, job.states.size(),
                                   "last residual", krylov.stats.last_measure, stop_.epsilon});
    } else if (!krylov.stats.converged) {
      const gpu::ChunkSolveStats sweeps = job.device.iterate(job.ticket, b, sweep_settings(r_, progress_), values);
      total += sweeps;
      stats.add_run(sweeps.iterations);
      if (!sweeps.converged) {
        report_not_converged(stats, {"BiCGStab, then value iteration", "a chunk on the GPU",
                                     krylov.stats.iterations + sweeps.iterations, job.states.size(), "last change",
                                     sweeps.last_measure, stop_.epsilon});
      }
    }
    x.sync(job.states);
    return total;
  }

 private:
  void solve_scc(StateRange range, Iterates& x, SolveStats& stats) {
    ++stats.iterated_sccs;
    KrylovSystem a(r_.system, range, x.lower.data());
    const KrylovRun run = run_bicgstab(a, limits_with_progress());
    std::copy(a.solution().begin(), a.solution().end(), x.lower.begin() + range.begin);
    x.sync(range);
    stats.add_run(run.iterations);
    if (run.converged) return;
    if (!r_.options.sweeps_after_krylov) {
      report_not_converged(stats, {"BiCGStab", "an SCC", run.iterations, range.size(), "last residual",
                                   run.residual, stop_.epsilon});
      return;
    }
    // Broken down after its restarts, or out of iterations: value iteration finishes
    // from here.
    const LowerRun sweeps = sweep_lower(r_, progress_, range, x, stop_.epsilon, stop_.max_sweeps);
    stats.add_run(sweeps.sweeps);
    if (sweeps.change >= stop_.epsilon) {
      report_not_converged(stats, {"BiCGStab, then value iteration", "an SCC", run.iterations + sweeps.sweeps,
                                   range.size(), "last change", sweeps.change, stop_.epsilon});
    }
  }

  // The stop rule's limits, each iteration told to the progress report (-v's line for
  // a long solve).
  KrylovLimits limits_with_progress() const {
    KrylovLimits limits = krylov_limits(stop_);
    limits.on_iteration = [progress = progress_](double residual) { note_progress(progress, 1, residual); };
    return limits;
  }

  const SolveRequest& r_;
  const StopRule& stop_;
};

}  // namespace

std::unique_ptr<MethodPolicy> make_bicgstab_policy(const SolveRequest& request) {
  return std::make_unique<BicgstabPolicy>(request);
}

}  // namespace mdpvi
