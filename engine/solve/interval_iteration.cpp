// Interval iteration (Haddad & Monmege 2018; Baier, Klein, Leuschner, Parker and
// Wunderlich, CAV 2017) as a MethodPolicy: every SCC (CPU) or chunk (device)
// iterates a lower vector from below and an upper vector from above until the two
// are within the SCC's share of the precision; the truth lies between them
// everywhere, so the midpoint's error is at most half the width. The upper iterate
// converges only where the optimum cannot stay in an end component forever: Pmin
// after Prob0E has none among the maybe-states; for Pmax the caller collapses them
// first (engine/solve/end_component_quotient.h).
#include "engine/solve/method_policy.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace mdpvi {

// Why these targets bound the whole answer. An SCC's states depend on its own states
// and on states of SCCs solved before it, whose intervals are final. If those have
// width at most w, the SCC's own iterates converge to an interval of width at most w
// at every state (its fixed point is a convex combination of what flows in: the
// weights P are substochastic and b >= 0; relative widths likewise, since upper <=
// (1+w) lower holds for each input and so for the combination). So the SCC can reach
// any target above w, and a trivial SCC (one exact update) passes at most w on.
// Level(C) counts the iterated SCCs on the longest dependency chain from C down,
// C included; the target of C is 2*epsilon*level(C)/H with H the largest level.
// By induction on the order, everything C reads has width at most
// 2*epsilon*(level(C)-1)/H, strictly below C's target, so C terminates, and every
// state ends within 2*epsilon*H/H = 2*epsilon.
std::vector<double> scc_width_targets(const MaybeSystem& system, double epsilon) {
  const std::size_t n = system.num_sccs();
  std::vector<std::uint32_t> scc_of(system.num_states());
  for (std::size_t c = 0; c < n; ++c) {
    std::fill(scc_of.begin() + system.scc_starts[c], scc_of.begin() + system.scc_starts[c + 1], static_cast<std::uint32_t>(c));
  }
  std::vector<std::uint64_t> level(n, 0);
  std::uint64_t highest = 1;
  for (std::size_t c = 0; c < n; ++c) {
    std::uint64_t below = 0;
    for (std::uint64_t s = system.scc_starts[c]; s < system.scc_starts[c + 1]; ++s) {
      for (std::uint64_t k = system.row_starts[system.row_group_starts[s]]; k < system.row_starts[system.row_group_starts[s + 1]]; ++k) {
        std::uint32_t d = scc_of[system.columns[k]];
        if (d != c) below = std::max(below, level[d]);
      }
    }
    level[c] = below + (is_trivial_scc(system, c) ? 0 : 1);
    highest = std::max(highest, level[c]);
  }
  std::vector<double> targets(n);
  for (std::size_t c = 0; c < n; ++c) targets[c] = 2.0 * epsilon * static_cast<double>(level[c]) / static_cast<double>(highest);
  return targets;
}

namespace {

struct IntervalRun {
  std::uint64_t sweeps = 0;
  bool verified = true;    // the upper iterate is proven an upper bound
  bool crossed = false;    // a guessed upper start fell below the lower iterate
  bool converged = false;  // every state within its target, verified
  double width = std::numeric_limits<double>::infinity();
};

// The steps of interval iteration on one unit: an SCC on the CPU, a chunk on the
// device. run_interval_iteration strings them together, the same for both.
class IntervalUnit {
 public:
  virtual ~IntervalUnit() = default;
  // Plain sweeps of the lower iterate, at most budget, until one changes it by less
  // than precision; returns the sweeps.
  virtual std::uint64_t iterate_lower(double precision, std::uint64_t budget) = 0;
  // The upper iterate set a little above the lower one: by half each state's target.
  virtual void guess_upper() = 0;
  // Interval sweeps, at most budget, until every state is within its target (and,
  // verifying, some sweep raised no upper value), or, verifying, the guess crossed.
  virtual IntervalRun iterate_both(std::uint64_t budget, bool verify) = 0;
  // The precision the lower iterate is first brought to before a guess.
  virtual double tightest_target() const = 0;
  virtual std::uint64_t states() const = 0;
};

// With a known upper start, one run of interval sweeps. Without one (rewards): U with
// B(U) <= U bounds the least fixed point from above (Knaster-Tarski), and the values
// solved here are least fixed points; so the lower iterate is brought to a
// precision, a guess is made just above it, and interval sweeps run until one
// proves the guess (B raised no upper value) or shows it too low (the iterates
// cross). A failed guess tightens the lower iterate's precision tenfold.
// Verification may take about as many sweeps as the lower iterate took (optimistic
// value iteration, Hartmanns & Kaminski, CAV 2020), and the lower iterate keeps
// improving meanwhile. Throws std::runtime_error when no guess verifies.
IntervalRun run_interval_iteration(IntervalUnit& unit, std::uint64_t max_sweeps, bool upper_known, const char* where) {
  if (upper_known) return unit.iterate_both(max_sweeps, /*verify=*/false);
  constexpr int kGuesses = 8;
  std::uint64_t sweeps = 0;
  double precision = unit.tightest_target() / 4;
  for (int guess = 0; guess < kGuesses && sweeps < max_sweeps; ++guess, precision /= 10) {
    sweeps += unit.iterate_lower(precision, max_sweeps - sweeps);
    unit.guess_upper();
    IntervalRun run = unit.iterate_both(std::min(max_sweeps - sweeps, std::max<std::uint64_t>(64, sweeps)), true);
    sweeps += run.sweeps;
    if (!run.verified) continue;
    if (!run.converged && sweeps < max_sweeps) {  // verified: the rest of the budget for the targets
      run = unit.iterate_both(max_sweeps - sweeps, false);
      sweeps += run.sweeps;
    }
    run.sweeps = sweeps;
    return run;
  }
  throw std::runtime_error(std::string("interval iteration: no upper bound could be verified ") + where + " of " +
                           std::to_string(unit.states()) + " states within " + std::to_string(sweeps) +
                           " sweeps; raise --max-iters or run without --sound");
}

// One SCC on the CPU, its sweeps parallel over its states.
class CpuSccUnit final : public IntervalUnit {
 public:
  CpuSccUnit(const SolveRequest& request, StateRange range, double target, Iterates& x)
      : r_(request), range_(range), target_(target), x_(x) {}

  std::uint64_t iterate_lower(double precision, std::uint64_t budget) override {
    return sweep_lower(r_, range_, x_, precision, budget).sweeps;
  }

  void guess_upper() override {
    const bool relative = criterion() == ConvergenceCriterion::relative;
    for (std::uint64_t s = range_.begin; s < range_.end; ++s) {
      x_.upper[s] = relative ? x_.lower[s] * (1 + target_ / 2) : x_.lower[s] + target_ / 2;
    }
  }

  IntervalRun iterate_both(std::uint64_t budget, bool verify) override {
    IntervalRun run;
    run.verified = !verify;
    while (run.sweeps < budget) {
      IntervalSweep last = interval_sweep_parallel(r_.system, range_, r_.direction, criterion(), x_.interval_view());
      x_.swap_both();
      ++run.sweeps;
      run.width = last.width;
      if (!run.verified) {
        if (!last.upper_raised) {
          run.verified = true;
        } else if (last.crossed) {
          run.crossed = true;
          break;
        }
      }
      if (run.verified && last.width <= target_) {
        run.converged = true;
        break;
      }
    }
    x_.sync(range_);
    return run;
  }

  double tightest_target() const override { return target_; }
  std::uint64_t states() const override { return range_.size(); }

 private:
  ConvergenceCriterion criterion() const { return r_.options.stop.criterion; }

  const SolveRequest& r_;
  StateRange range_;
  double target_;
  Iterates& x_;
};

// One chunk resident on the device; both b are fixed (earlier chunks are final).
class DeviceChunkUnit final : public IntervalUnit {
 public:
  DeviceChunkUnit(const SolveRequest& request, const DeviceChunkJob& job, const std::vector<double>& scc_targets,
                  Iterates& x)
      : r_(request),
        job_(job),
        lower_(x.lower.begin() + job.states.begin, x.lower.begin() + job.states.end),
        upper_(x.upper.begin() + job.states.begin, x.upper.begin() + job.states.end),
        targets_(job.states.size()) {
    const MaybeSystem& system = request.system;
    for (std::size_t scc = job.first_scc; scc < job.end_scc; ++scc) {
      std::fill(targets_.begin() + (system.scc_starts[scc] - job.states.begin),
                targets_.begin() + (system.scc_starts[scc + 1] - job.states.begin), scc_targets[scc]);
    }
    b_lower_ = job.row_constants(x.lower, b_lower_storage_);
    b_upper_ = job.row_constants(x.upper, b_upper_storage_);
  }

  std::uint64_t iterate_lower(double precision, std::uint64_t budget) override {
    gpu::SweepSettings plain = sweep_settings(r_);
    plain.epsilon = precision;
    plain.max_sweeps = budget;
    gpu::ChunkSolveStats s = job_.device.iterate(job_.ticket, b_lower_, plain, lower_.data());
    stats += s;
    return s.iterations;
  }

  void guess_upper() override {
    const bool relative = r_.options.stop.criterion == ConvergenceCriterion::relative;
    for (std::size_t s = 0; s < lower_.size(); ++s) {
      upper_[s] = relative ? lower_[s] * (1 + targets_[s] / 2) : lower_[s] + targets_[s] / 2;
    }
  }

  IntervalRun iterate_both(std::uint64_t budget, bool verify) override {
    gpu::SweepSettings settings = sweep_settings(r_);
    settings.max_sweeps = budget;
    gpu::IntervalInputs inputs{b_lower_, b_upper_, targets_.data(), verify};
    gpu::IntervalChunkStats s = job_.device.iterate_interval(job_.ticket, inputs, settings, lower_.data(), upper_.data());
    stats += s.stats;
    IntervalRun run;
    run.sweeps = s.stats.iterations;
    run.verified = s.verified;
    run.crossed = s.crossed;
    run.converged = s.stats.converged;
    run.width = s.stats.last_measure;
    return run;
  }

  // The tightest target of an iterated SCC: trivial SCCs at level 0 have target 0
  // and are exact after a few sweeps anyway.
  double tightest_target() const override {
    double tightest = std::numeric_limits<double>::infinity();
    for (double t : targets_) {
      if (t > 0.0) tightest = std::min(tightest, t);
    }
    return std::isinf(tightest) ? 0.0 : tightest;
  }
  std::uint64_t states() const override { return lower_.size(); }

  void store(Iterates& x) const {
    std::copy(lower_.begin(), lower_.end(), x.lower.begin() + job_.states.begin);
    std::copy(upper_.begin(), upper_.end(), x.upper.begin() + job_.states.begin);
    x.sync(job_.states);
  }

  gpu::ChunkSolveStats stats;  // summed over every run on the device

 private:
  const SolveRequest& r_;
  const DeviceChunkJob& job_;
  std::vector<double> lower_, upper_, targets_;
  std::vector<double> b_lower_storage_, b_upper_storage_;
  const double* b_lower_ = nullptr;
  const double* b_upper_ = nullptr;
};

class IntervalIterationPolicy final : public MethodPolicy {
 public:
  explicit IntervalIterationPolicy(const SolveRequest& request)
      : r_(request), targets_(scc_width_targets(request.system, request.options.stop.epsilon)) {}

  bool has_upper_iterate() const override { return true; }

  // The matrix, a b and two vectors per iterate, the targets and the batch results.
  std::size_t footprint_bytes(std::uint64_t states, std::uint64_t rows, std::uint64_t entries) const override {
    return matrix_bytes(states, rows, entries) + 2 * rows * sizeof(double) + 5 * states * sizeof(double) + 1024;
  }

  void solve_sccs_on_cpu(std::size_t first_scc, std::size_t end_scc, Iterates& x, SolveStats& stats) override {
    const MaybeSystem& system = r_.system;
    for (std::size_t scc = first_scc; scc < end_scc; ++scc) {
      StateRange range{system.scc_starts[scc], system.scc_starts[scc + 1]};
      if (is_trivial_scc(system, scc)) {  // exact from final inputs: no upper start needed
        x.upper[range.begin] = x.upper_next[range.begin] = std::numeric_limits<double>::infinity();
        (void)interval_sweep_reference(system, range, r_.direction, r_.options.stop.criterion, x.interval_view());
        x.lower[range.begin] = x.lower_next[range.begin];
        x.upper[range.begin] = x.upper_next[range.begin];
        continue;
      }
      ++stats.iterated_sccs;
      CpuSccUnit unit(r_, range, targets_[scc], x);
      IntervalRun run = run_interval_iteration(unit, r_.options.stop.max_sweeps, r_.known_upper_bound.has_value(),
                                               "for an SCC");
      if (!run.converged) {
        report_not_converged(stats, {"interval iteration", "an SCC", run.sweeps, range.size(), "width", run.width,
                                     targets_[scc]});
      }
      stats.add_run(run.sweeps);
    }
  }

  gpu::ChunkSolveStats solve_chunk_on_device(const DeviceChunkJob& job, Iterates& x, SolveStats& stats) override {
    DeviceChunkUnit unit(r_, job, targets_, x);
    IntervalRun run = run_interval_iteration(unit, r_.options.stop.max_sweeps, r_.known_upper_bound.has_value(),
                                             "on the device for a chunk");
    unit.store(x);
    stats.add_run(run.sweeps);
    stats.iterated_sccs += job.end_scc - job.first_scc;
    if (!run.converged) {
      report_not_converged(stats, {"GPU interval iteration", "a chunk", run.sweeps, job.states.size(), "width",
                                   run.width, targets_[job.end_scc - 1]});
    }
    gpu::ChunkSolveStats s = unit.stats;
    s.converged = run.converged;
    return s;
  }

 private:
  const SolveRequest& r_;
  std::vector<double> targets_;  // per SCC
};

}  // namespace

std::unique_ptr<MethodPolicy> make_interval_iteration_policy(const SolveRequest& request) {
  return std::make_unique<IntervalIterationPolicy>(request);
}

}  // namespace mdpvi
