// Interval iteration (Haddad & Monmege 2018; Baier, Klein, Leuschner, Parker and
// Wunderlich, CAV 2017) and optimistic value iteration (Hartmanns & Kaminski, CAV
// 2020) as one MethodPolicy: every SCC (CPU) or chunk (device) keeps a lower vector,
// rising from below, and an upper vector, falling from above, until the two are
// within the SCC's share of the precision; the truth lies between them everywhere,
// so the midpoint's error is at most half the width. They differ in where the upper
// vector starts: interval iteration at a known bound (1 for probabilities), which
// it then has to bring all the way down; optimistic value iteration just above a
// converged lower vector, a guess that sweeps then verify. The upper iterate
// converges only where the optimum cannot stay in an end component forever: Pmin
// after Prob0E has none among the maybe-states; for Pmax the caller collapses them
// first (engine/solve/end_component_quotient.h).
#include "engine/solve/chunk_driver.h"
#include "engine/solve/method_policy.h"
#include "engine/model/parallel_indices.h"
#include "engine/solve/scc_sweeps.h"
#include "engine/solve/solve_progress.h"
#include "engine/solve/spread_levels.h"
#include "engine/model/stopwatch.h"
#include "engine/numeric/optimistic_guess.h"
#include "engine/numeric/width_target.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <future>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

namespace mdpvi {

namespace {

// An SCC's target, 2*epsilon*count/highest, as the device keeps it (width_target.h).
double width_share(double epsilon, std::uint64_t count, std::uint64_t highest) {
  return width_target_as_float(2.0 * epsilon * static_cast<double>(count) / static_cast<double>(highest));
}

}  // namespace

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
// state ends within 2*epsilon*H/H = 2*epsilon. The targets are rounded down to floats
// (engine/numeric/width_target.h): tighter, and half the device memory.
PodVector<double> scc_width_targets_reference(const MaybeSystem& system, double epsilon) {
  const std::size_t n = system.num_sccs();
  // SCCs before the first iterated one are trivial and read only earlier ones: level
  // 0, target 0, without a look at their rows (an acyclic system is all of them).
  std::size_t first_iterated = 0;
  while (first_iterated < n && is_trivial_scc(system, first_iterated)) ++first_iterated;
  if (first_iterated == n) return PodVector<double>(n, 0.0);
  std::vector<std::uint32_t> scc_of(system.num_states());
  for (std::size_t c = 0; c < n; ++c) {
    std::fill(scc_of.begin() + system.scc_starts[c], scc_of.begin() + system.scc_starts[c + 1], static_cast<std::uint32_t>(c));
  }
  std::vector<std::uint64_t> level(n, 0);
  std::uint64_t highest = 1;
  for (std::size_t c = first_iterated; c < n; ++c) {
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
  PodVector<double> targets(n);
  for (std::size_t c = 0; c < n; ++c) targets[c] = width_share(epsilon, level[c], highest);
  return targets;
}

// The same argument with a coarser count, from the height levels alone. An SCC C
// reads only SCCs of lower height levels, so the iterated SCCs on a chain from C down
// lie on distinct height levels with cycles: let count(h) be the number of such
// levels at or below h, H' = count(highest), and give every SCC of level h the target
// 2*epsilon*count(h)/H'. By induction on the levels, every state of level h ends with
// width at most that: an iterated SCC reads widths at most 2*epsilon*(count(h)-1)/H'
// (its level has cycles), strictly below its target, and a trivial one passes on what
// it reads. The targets are up to H'/H tighter than the rows' (more sweeps by about
// log(H'/H) / log(1/epsilon) of a level's: bench/NOTES.md, session 19) and cost
// nothing to make, where the rows' take a pass over the system before a chunked
// solve's first chunk.
std::vector<double> level_width_targets(const MaybeSystem& system, const std::vector<std::uint8_t>& cyclic,
                                        double epsilon) {
  const std::size_t with_cycles = static_cast<std::size_t>(std::count(cyclic.begin(), cyclic.end(), 1));
  // A view has no rows at hand for the rows' targets: its levels' apply however many.
  const bool capped = !system.view && with_cycles > kMostCyclicLevelsForLevelTargets;
  if (system.level_starts.empty() || cyclic.size() != system.num_levels() || capped) {
    return {};
  }
  std::vector<double> targets(cyclic.size());
  std::size_t count = 0;
  for (std::size_t h = 0; h < cyclic.size(); ++h) {
    count += cyclic[h] ? 1 : 0;
    targets[h] = with_cycles == 0 ? 0.0 : width_share(epsilon, count, with_cycles);
  }
  spdlog::debug("width targets by height levels: {} of {} with cycles", with_cycles, cyclic.size());
  return targets;
}

PodVector<double> scc_width_targets(const MaybeSystem& system, const std::vector<std::uint8_t>& cyclic, double epsilon) {
  const std::vector<double> by_level = level_width_targets(system, cyclic, epsilon);
  if (by_level.empty()) return scc_width_targets_by_rows(system, cyclic, epsilon);
  PodVector<double> targets(system.num_sccs());
  for (std::size_t h = 0; h < by_level.size(); ++h) {
    parallel_indices(system.level_starts[h], system.level_starts[h + 1], 1 << 16,
                     [&](std::size_t c) { targets[c] = by_level[h]; });
  }
  return targets;
}

// SCCs of this many states or more are read on all cores (scc_width_targets_by_rows).
constexpr std::uint64_t kStatesOfALargeScc = 1 << 16;

// The same levels, a height level at a time: the SCCs of one (MaybeSystem::level_starts)
// read only lower ones, so they are computed in parallel (serially, a pass over a
// large system's rows takes seconds).
PodVector<double> scc_width_targets_by_rows(const MaybeSystem& system, const std::vector<std::uint8_t>& cyclic,
                                            double epsilon) {
  const auto start = std::chrono::steady_clock::now();
  const std::size_t n = system.num_sccs();
  if (system.level_starts.empty() && n > 0) return scc_width_targets_reference(system, epsilon);
  // Height levels below the first with cycles hold trivial SCCs reading only each
  // other: level 0, without a look at their rows (an acyclic system is all of them).
  const std::size_t first_cyclic = first_cyclic_level(cyclic);
  PodVector<double> targets(n);
  if (first_cyclic == cyclic.size()) {
    parallel_indices(0, n, 1 << 16, [&](std::size_t c) { targets[c] = 0.0; });
    return targets;
  }
  // Each state holds its SCC's level, so that a column's level is one read, and an
  // SCC being a range of states, whether a column is inside it is a comparison (an
  // SCC index per state and a level per SCC would take two dependent reads).
  const std::uint64_t states = system.scc_starts[n];  // the SCCs' (a test's system may list no model states)
  PodVector<std::uint32_t> level(states);
  const std::uint64_t first_read = system.scc_starts[system.level_starts[first_cyclic]];
  parallel_indices(0, first_read, 1 << 16, [&](std::size_t s) { level[s] = 0; });
  // The highest level read from outside SCC [first, end) by its states [from, to).
  const auto below_from = [&](std::uint64_t first, std::uint64_t end, std::uint64_t from, std::uint64_t to) {
    std::uint32_t below = 0;
    for (std::uint64_t s = from; s < to; ++s) {
      for (std::uint64_t k = system.row_starts[system.row_group_starts[s]]; k < system.row_starts[system.row_group_starts[s + 1]]; ++k) {
        const std::uint32_t column = system.columns[k];
        if (column < first || column >= end) below = std::max(below, level[column]);
      }
    }
    return below;
  };
  // A large SCC's states are read, and written, on all cores: one SCC may hold most of
  // a system (leader9's Rmin: the targets of its chunked solve took 1.2 s, bench/NOTES.md
  // session 15), and a level of it alone would be a pass on one core.
  const auto level_of = [&](std::size_t c) {
    const std::uint64_t first = system.scc_starts[c], end = system.scc_starts[c + 1];
    const std::uint32_t own = is_trivial_scc(system, c) ? 0u : 1u;
    if (end - first < kStatesOfALargeScc) return below_from(first, end, first, end) + own;
    return own + oneapi::tbb::parallel_reduce(
                     oneapi::tbb::blocked_range<std::uint64_t>(first, end, 1 << 12), std::uint32_t{0},
                     [&](const auto& part, std::uint32_t most) {
                       return std::max(most, below_from(first, end, part.begin(), part.end()));
                     },
                     [](std::uint32_t a, std::uint32_t b) { return std::max(a, b); });
  };
  for (std::size_t h = first_cyclic; h < system.num_levels(); ++h) {
    parallel_indices(system.level_starts[h], system.level_starts[h + 1], 1024, [&](std::size_t c) {
      const std::uint64_t first = system.scc_starts[c], end = system.scc_starts[c + 1];
      const std::uint32_t of_c = level_of(c);
      if (end - first < kStatesOfALargeScc) {
        std::fill(level.begin() + first, level.begin() + end, of_c);
      } else {
        parallel_indices(first, end, 1 << 14, [&](std::size_t s) { level[s] = of_c; });
      }
    });
  }
  const std::uint32_t highest = std::max<std::uint32_t>(
      1, oneapi::tbb::parallel_reduce(
             oneapi::tbb::blocked_range<std::size_t>(first_read, states, 1 << 16), std::uint32_t{0},
             [&](const auto& part, std::uint32_t most) {
               for (std::size_t s = part.begin(); s < part.end(); ++s) most = std::max(most, level[s]);
               return most;
             },
             [](std::uint32_t a, std::uint32_t b) { return std::max(a, b); }));
  parallel_indices(0, n, 1 << 16, [&](std::size_t c) {
    const std::uint64_t first = system.scc_starts[c];
    // An empty SCC (a test's system of no states) has its level only from level_of (at most 1).
    const std::uint32_t of_c = first < system.scc_starts[c + 1] ? level[first] : level_of(c);
    targets[c] = width_share(epsilon, of_c, highest);
  });
  spdlog::debug("width targets: at most {} iterated SCCs on a chain, {} height levels with cycles, {:.3f} s", highest,
                std::count(cyclic.begin(), cyclic.end(), 1), seconds_since(start));
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
  // than precision (all budget sweeps where precision is 0).
  virtual LowerRun iterate_lower(double precision, std::uint64_t budget) = 0;
  // The lower iterate's values kept in the upper iterate (for guess_upper).
  virtual void keep_lower_in_upper() = 0;
  // The upper iterate guessed from the lower iterate and the values kept
  // (guessed_upper) for a lower iterate converging at rate between the two.
  virtual void guess_upper(double bound, double rate) = 0;
  // The upper iterate set to bound everywhere.
  virtual void reset_upper(double bound) = 0;
  // Interval sweeps, at most budget, until every state is within its target (and,
  // verifying, some sweep raised no upper value), or, verifying, the guess crossed.
  virtual IntervalRun iterate_both(std::uint64_t budget, bool verify) = 0;
  // The precision the lower iterate is first brought to before a guess.
  virtual double tightest_target() const = 0;
  virtual std::uint64_t states() const = 0;
};

// The guess after a window of sweeps of the lower iterate (engine/numeric/optimistic_guess.h
// says why a window); returns the sweeps, at least 1 and at most budget.
std::uint64_t guess_over_window(IntervalUnit& unit, double bound, double rate, std::uint64_t budget) {
  unit.keep_lower_in_upper();
  const std::uint64_t sweeps = unit.iterate_lower(0.0, std::min<std::uint64_t>(kGuessWindow, budget)).sweeps;
  unit.guess_upper(bound, rate < 1.0 ? std::pow(rate, static_cast<double>(sweeps)) : rate);
  return sweeps;
}

// Where the upper iterate starts: at the known bound (interval iteration), or at a
// guess (optimistic value iteration, and interval iteration without a known bound).
// U with B(U) <= U bounds the least fixed point from above (Knaster-Tarski), and the
// values solved here are least fixed points; so the lower iterate is brought to a
// precision, a guess is made above it (guessed_upper: where value iteration is
// heading, and a little more), and interval sweeps run until one proves the guess
// (B raised no upper value) or shows it too low (the iterates cross). A failed
// guess tightens the lower iterate's precision tenfold. Verification is given as
// many sweeps as the lower iterate took, at least 64 (Hartmanns & Kaminski); the
// lower iterate keeps improving meanwhile. When no guess verifies, the upper iterate
// starts again from the known bound; without one, throws std::runtime_error.
// prior: value iteration's sweeps on the lower iterate before the unit came here,
// counted as the unit's own (towards max_sweeps and the verification's share); its
// rate stands in where the unit's own first sweeps are too few to measure one.
IntervalRun run_interval_iteration(IntervalUnit& unit, std::uint64_t max_sweeps, std::optional<double> known_upper,
                                   bool optimistic, const char* where, const LowerRun& prior = {}) {
  if (known_upper && !optimistic) {
    IntervalRun run = unit.iterate_both(max_sweeps > prior.sweeps ? max_sweeps - prior.sweeps : 0, /*verify=*/false);
    run.sweeps += prior.sweeps;
    return run;
  }
  constexpr int kGuesses = 8;
  const double bound = known_upper.value_or(std::numeric_limits<double>::infinity());
  std::uint64_t sweeps = prior.sweeps;
  const auto left = [&] { return sweeps < max_sweeps ? max_sweeps - sweeps : 0; };  // the guess's sweep may pass it
  const double distance = unit.tightest_target() * kLowerDistance;
  double precision = distance / 2;
  for (int guess = 0; guess < kGuesses && left() > 0; ++guess, precision /= 10) {
    LowerRun lower = unit.iterate_lower(precision, left());
    sweeps += lower.sweeps;
    if (guess == 0 && lower.rate >= 1.0) lower.rate = prior.rate;
    // The last change understates the distance to the fixed point by about
    // 1/(1 - rate): where the rate says the guess would fall short, the lower iterate
    // goes closer first, to at most a thousandth of the precision (a rate misread
    // near 1 must not ask for sweeps without end). Guesses that fail cost a
    // verification each; this saves most of them on slowly converging SCCs.
    const double closer = std::max(change_within(distance, lower.rate), precision / 1000);
    double rate = lower.rate;
    if (closer < lower.change && left() > 0) {
      const LowerRun closer_run = unit.iterate_lower(closer, left());
      sweeps += closer_run.sweeps;
      if (closer_run.rate < 1.0) rate = closer_run.rate;  // the latest, where it was measured
      precision = closer;
    }
    if (left() == 0) break;
    sweeps += guess_over_window(unit, bound, rate, left());
    IntervalRun run = unit.iterate_both(std::min(left(), std::max<std::uint64_t>(64, sweeps)), true);
    sweeps += run.sweeps;
    if (!run.verified) {
      spdlog::debug("guess {} above a lower iterate at precision {:.3g} not verified {} of {} states in {} sweeps ({})",
                    guess + 1, precision, where, unit.states(), run.sweeps, run.crossed ? "crossed" : "budget spent");
      continue;
    }
    if (!run.converged && left() > 0) {  // verified: the rest of the budget for the targets
      run = unit.iterate_both(left(), false);
      sweeps += run.sweeps;
    }
    run.sweeps = sweeps;
    return run;
  }
  if (known_upper) {  // the lower iterate is kept: it only ever rose towards the truth
    unit.reset_upper(*known_upper);
    IntervalRun run = unit.iterate_both(left(), false);
    run.sweeps += sweeps;
    return run;
  }
  throw std::runtime_error(std::string("no upper bound could be verified ") + where + " of " +
                           std::to_string(unit.states()) + " states within " + std::to_string(sweeps) +
                           " sweeps; raise --max-iters or run with --method vi (no bound)");
}

// One SCC on the CPU, its sweeps parallel over its states.
class CpuSccUnit final : public IntervalUnit {
 public:
  CpuSccUnit(const SolveRequest& request, SolveProgress* progress, StateRange range, double target, Iterates& x)
      : r_(request), progress_(progress), range_(range), target_(target), sweeps_(make_scc_sweeps(request, range, x)) {}

  LowerRun iterate_lower(double precision, std::uint64_t budget) override {
    return sweep_lower(*sweeps_, progress_, precision, budget);
  }

  void keep_lower_in_upper() override { sweeps_->keep_lower_in_upper(); }

  void guess_upper(double bound, double rate) override {
    sweeps_->guess_upper(target_, {rate, bound, criterion() == ConvergenceCriterion::relative});
    sweeps_->sync();
  }

  void reset_upper(double bound) override { sweeps_->fill_upper(bound); }

  IntervalRun iterate_both(std::uint64_t budget, bool verify) override {
    IntervalRun run;
    run.verified = !verify;
    while (run.sweeps < budget) {
      IntervalSweep last = sweeps_->sweep_both();
      ++run.sweeps;
      run.width = last.width;
      note_progress(progress_, 1, last.width);
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
    sweeps_->sync();
    return run;
  }

  double tightest_target() const override { return target_; }
  std::uint64_t states() const override { return range_.size(); }

 private:
  ConvergenceCriterion criterion() const { return r_.options.stop.criterion; }

  const SolveRequest& r_;
  SolveProgress* progress_;
  StateRange range_;
  double target_;
  std::unique_ptr<SccSweeps> sweeps_;
};

// The host's b of each iterate for the device's chunks, kept from one chunk to the
// next: its pages are faulted in once (by the cores that fill it), not at every
// chunk (a chunk of leader10 has 10^9 rows).
struct ChunkConstants {
  // Both with room for rows; one that must grow starts empty (nothing copied).
  void fit(std::size_t rows) {
    for (PodVector<double>* b : {&lower, &upper}) {
      if (rows <= b->capacity()) continue;
      *b = PodVector<double>();
      b->reserve(rows);
    }
  }
  PodVector<double> lower, upper;
};

// What a chunk resident on the device needs beside its matrix: both b (fixed:
// earlier chunks are final) and, for a chunk with iterated levels, the width targets
// per state. The iterates are bound from the system's own and read back into them
// at the end, with no copies of their own (which would cost a model-sized copy each way).
struct DeviceChunkVectors {
  // b made on the host for both iterates, or where the chunk was cut on the device
  // with its rows' b, only its corrections (DeviceChunkJob::corrections).
  DeviceChunkVectors(const MaybeSystem& system, const DeviceChunkJob& job, const Iterates& x, ChunkConstants& storage) {
    if (job.b_on_device) return;
    const auto start = std::chrono::steady_clock::now();
    if (job.corrections) {
      corrections = job.corrections(x.lower.data(), x.upper.empty() ? nullptr : x.upper.data());
      spdlog::debug("device chunk: b's corrections of {} rows made on the host in {:.3f} s", corrections->rows.size(),
                    seconds_since(start));
      return;
    }
    storage.fit(system.row_group_starts[job.states.end] - system.row_group_starts[job.states.begin]);
    b_lower = job.row_constants(x.lower.data(), storage.lower);
    b_upper = job.row_constants(x.upper.data(), storage.upper);
    spdlog::debug("device chunk: b of both iterates made on the host in {:.3f} s", seconds_since(start));
  }

  // Without targets: an acyclic chunk never reads them, and they are computed meanwhile.
  void bind(const DeviceChunkJob& job, const Iterates& x) const {
    gpu::DeviceSolver::BoundInputs inputs = bound_inputs(job, x, b_lower, b_upper);
    const std::optional<gpu::RowCorrectionsView> view =
        corrections ? std::optional<gpu::RowCorrectionsView>(corrections->view()) : std::nullopt;
    if (view) inputs.corrections = &*view;
    job.device.bind(job.ticket, inputs);
  }

  // Each state gets its SCC's target.
  static void bind_targets(const MaybeSystem& system, const DeviceChunkJob& job, const PodVector<double>& scc_targets) {
    PodVector<double> targets(job.states.size());
    parallel_indices(job.first_scc, job.end_scc, 1 << 14, [&](std::size_t scc) {
      std::fill(targets.begin() + (system.scc_starts[scc] - job.states.begin),
                targets.begin() + (system.scc_starts[scc + 1] - job.states.begin), scc_targets[scc]);
    });
    job.device.bind_targets(job.ticket, targets.data());
  }

  static void store(const DeviceChunkJob& job, Iterates& x) {
    x.await_written();
    job.device.read_bound(job.ticket, x.lower.data() + job.states.begin, x.upper.data() + job.states.begin);
    x.sync(job.states);
  }

  const double* b_lower = nullptr;
  const double* b_upper = nullptr;
  std::optional<RowCorrections> corrections;
};

// A device chunk's width targets as its windows need them on the host: each
// window's tightest positive target. Per SCC where the host made them (and copied
// them to the device per state), per height level where the device filled them in.
struct WindowTargets {
  const PodVector<double>* per_scc = nullptr;
  const std::vector<double>* per_level = nullptr;  // level_width_targets', where they apply

  // The tightest positive target among SCCs [first_scc, end_scc) (0: none).
  double tightest(const MaybeSystem& system, std::size_t first_scc, std::size_t end_scc) const {
    if (end_scc <= first_scc) return 0.0;
    if (per_scc) return tightest_positive(*per_scc, first_scc, end_scc);
    double least = 0.0;
    for (std::size_t h = level_of(system, first_scc); h <= level_of(system, end_scc - 1); ++h) {
      const double target = (*per_level)[h];
      if (target > 0.0 && (least == 0.0 || target < least)) least = target;
    }
    return least;
  }

  static double tightest_positive(const PodVector<double>& targets, std::size_t first_scc, std::size_t end_scc) {
    const double tightest = oneapi::tbb::parallel_reduce(
        oneapi::tbb::blocked_range<std::size_t>(first_scc, end_scc, 1 << 16), std::numeric_limits<double>::infinity(),
        [&](const auto& part, double least) {
          for (std::size_t c = part.begin(); c < part.end(); ++c) {
            if (targets[c] > 0.0) least = std::min(least, targets[c]);
          }
          return least;
        },
        [](double a, double b) { return std::min(a, b); });
    return std::isinf(tightest) ? 0.0 : tightest;
  }
};

// A window of a resident chunk's states, [first, end) chunk-local, on its bound
// vectors: the whole chunk, or one level with cycles, the chunk's other states
// final or not yet due. Its SCCs are [window.first_scc, window.end_scc).
class DeviceWindowUnit final : public IntervalUnit {
 public:
  // tightest: the tightest positive target of its SCCs (0: none), see tightest_target.
  DeviceWindowUnit(const SolveRequest& request, SolveProgress* progress, const DeviceChunkJob& job,
                   const LevelSegment& window, double tightest)
      : r_(request), progress_(progress), job_(job), first_(window.level_starts.front()), end_(window.level_starts.back()),
        tightest_(tightest) {}

  LowerRun iterate_lower(double precision, std::uint64_t budget) override {
    gpu::SweepSettings plain = settings();
    plain.epsilon = precision;
    plain.max_sweeps = budget;
    plain.fixed_sweeps = precision <= 0.0;  // no read-backs where nothing is tested
    gpu::ChunkSolveStats s = job_.device.iterate(job_.ticket, nullptr, plain, nullptr);
    stats += s;
    return {s.iterations, s.last_measure, convergence_rate(s.earlier_measure, s.last_measure, s.measure_gap)};
  }

  void keep_lower_in_upper() override { job_.device.keep_lower_in_upper(job_.ticket, settings()); }

  void guess_upper(double bound, double rate) override {
    const bool relative = r_.options.stop.criterion == ConvergenceCriterion::relative;
    stats += job_.device.guess_upper(job_.ticket, settings(), {rate, bound, relative});
  }

  void reset_upper(double bound) override { job_.device.fill_upper(job_.ticket, first_, end_, bound); }

  IntervalRun iterate_both(std::uint64_t budget, bool verify) override {
    gpu::SweepSettings interval = settings();
    interval.max_sweeps = budget;
    gpu::IntervalInputs inputs{nullptr, nullptr, nullptr, verify};
    gpu::IntervalChunkStats s = job_.device.iterate_interval(job_.ticket, inputs, interval, nullptr, nullptr);
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
  double tightest_target() const override { return tightest_; }
  std::uint64_t states() const override { return end_ - first_; }

  gpu::ChunkSolveStats stats;  // summed over every run on the device

 private:
  gpu::SweepSettings settings() const {
    gpu::SweepSettings s = sweep_settings(r_, progress_);
    s.first_state = first_;
    s.end_state = end_;
    return s;
  }

  const SolveRequest& r_;
  SolveProgress* progress_;
  const DeviceChunkJob& job_;
  std::uint32_t first_, end_;
  double tightest_;
};

class IntervalIterationPolicy final : public MethodPolicy {
 public:
  IntervalIterationPolicy(const SolveRequest& request, bool optimistic, bool crawls_to_policy_iteration)
      : r_(request),
        optimistic_(optimistic),
        crawls_to_policy_iteration_(crawls_to_policy_iteration),
        name_(optimistic ? "optimistic value iteration" : "interval iteration") {}

  bool has_upper_iterate() const override { return true; }
  bool corrects_b_on_device() const override { return true; }

  // The matrix, a b and two vectors per iterate, the targets and the batch results.
  std::size_t footprint_bytes(std::uint64_t states, std::uint64_t rows, std::uint64_t entries) const override {
    return matrix_bytes(states, rows, entries) + 2 * rows * sizeof(double) + 5 * states * sizeof(double) + 1024;
  }

  void prepare_cpu_sccs() override { (void)targets(); }
  const PodVector<double>* width_targets() override { return &targets(); }

  void solve_sccs_on_cpu(std::size_t first_scc, std::size_t end_scc, Iterates& x, SolveStats& stats) override {
    const MaybeSystem& system = r_.system;
    for_each_level(
        system, first_scc, end_scc,
        [&](std::size_t scc) {  // exact from final inputs: no upper start needed
          solve_trivial_scc_both(r_, system.scc_starts[scc], x);
        },
        [&](std::size_t scc, SolveStats& own) { finish_scc_on_cpu(scc, {}, x, own); }, stats, sccs_concurrent(r_),
        [&] { prepare_cpu_sccs(); });
  }

  void finish_scc_on_cpu(std::size_t scc, const LowerRun& prior, Iterates& x, SolveStats& stats) override {
    const StateRange range{r_.system.scc_starts[scc], r_.system.scc_starts[scc + 1]};
    ++stats.iterated_sccs;
    CpuSccUnit unit(r_, progress_, range, targets()[scc], x);
    IntervalRun run = run_interval_iteration(unit, r_.options.stop.max_sweeps, r_.known_upper_bound, optimistic_,
                                             "for an SCC", prior);
    if (!run.converged) {
      report_not_converged(stats, {name_, "an SCC", run.sweeps, range.size(), "width", run.width, targets()[scc]});
    }
    stats.add_run(run.sweeps);
  }

  // The width targets: for a chunk that is the whole system, computed on the device
  // once its matrix is there (on the host they take a pass over the matrix);
  // otherwise on a thread of their own while the iterates upload and the
  // acyclic levels below the first iterated one are passed. Bound before the first
  // iterated window; never made for a chunk with none.
  gpu::ChunkSolveStats solve_chunk_on_device(const DeviceChunkJob& job, Iterates& x, SolveStats& stats) override {
    if (!job.replicas.empty() && job.by_levels) return solve_on_each_device(job, x, stats);
    const auto start = std::chrono::steady_clock::now();
    const std::vector<LevelSegment> segments =
        job.by_levels ? level_segments(r_.system, *job.cyclic, job.first_scc, job.end_scc)
                      : std::vector<LevelSegment>{{false, job.first_scc, job.end_scc, {0, static_cast<std::uint32_t>(job.states.size())}}};
    const bool iterated = std::any_of(segments.begin(), segments.end(), [](const LevelSegment& s) { return !s.acyclic; });
    const bool on_device = device_targets_apply(job);
    std::future<void> targets_made;
    if (iterated && !targets_ && !on_device) targets_made = std::async(std::launch::async, [&] { targets(job.cyclic); });
    const DeviceChunkVectors v(r_.system, job, x, constants_);
    v.bind(job, x);
    spdlog::debug("device chunk: {} segments, vectors bound, {:.3f} s", segments.size(), seconds_since(start));
    std::optional<WindowTargets> window_targets;
    // For -v: the host's time in each kind of segment against the device's.
    double passes_s = 0.0, windows_s = 0.0, windows_device_s = 0.0;
    gpu::ChunkSolveStats total;
    for (const LevelSegment& segment : segments) {
      const auto segment_start = std::chrono::steady_clock::now();
      if (segment.acyclic) {
        total += pass_acyclic_segment(job, segment, r_.direction);
        passes_s += seconds_since(segment_start);
        continue;
      }
      if (!window_targets) {
        window_targets = on_device ? bind_device_targets(job) : bind_host_targets(job, targets_made);
        spdlog::debug("device chunk: width targets bound ({}), {:.3f} s", window_targets->per_scc ? "host" : "device",
                      seconds_since(start));
      }
      const double tightest = window_targets->tightest(r_.system, segment.first_scc, segment.end_scc);
      const gpu::ChunkSolveStats s = solve_window(
          job, segment, tightest, job.by_levels ? "on the device for a level" : "on the device for a chunk", stats);
      total += s;
      windows_s += seconds_since(segment_start);
      windows_device_s += s.solve_s + s.upload_s + s.download_s;
    }
    spdlog::debug("device chunk: acyclic segments {:.3f} s; iterated windows {:.3f} s, of which device calls {:.3f} s",
                  passes_s, windows_s, windows_device_s);
    // (A whole system without an iterated SCC never comes here: solve() passes it
    // exactly, as value iteration, chunk_driver.cpp's solved_exactly.)
    DeviceChunkVectors::store(job, x);
    spdlog::debug("device chunk: stored, {:.3f} s", seconds_since(start));
    total.converged = stats.converged;
    return total;
  }

 private:
  // Whether the device fills in the chunk's width targets from one per height level
  // (level_width_targets applies), rather than copying the host's per SCC.
  bool device_targets_apply(const DeviceChunkJob& job) {
    if (job.cyclic == nullptr || !r_.options.stop.targets_from_levels) return false;
    if (!level_targets_) level_targets_ = level_width_targets(r_.system, *job.cyclic, r_.options.stop.epsilon);
    return !level_targets_->empty();
  }

  // Each height level's states within the chunk, chunk-local, with their target.
  WindowTargets bind_device_targets(const DeviceChunkJob& job) {
    const std::vector<std::uint64_t> starts = level_state_starts(r_.system, job.states);
    job.device.bind_level_width_targets(job.ticket, {starts.data(), level_targets_->data(), level_targets_->size()});
    WindowTargets t;
    t.per_level = &*level_targets_;
    return t;
  }

  WindowTargets bind_host_targets(const DeviceChunkJob& job, std::future<void>& made) {
    if (made.valid()) made.get();
    DeviceChunkVectors::bind_targets(r_.system, job, targets());
    WindowTargets t;
    t.per_scc = &targets();
    return t;
  }

  // The chunk resident on several devices (job.replicas), level by level: each device
  // passes the acyclic levels itself (the same exact values everywhere); each level
  // with cycles is cut into a group of SCCs per device (spread_levels.h), iterated
  // at the same time, each group's bounds its own SCCs' as on one device; then every
  // group's values are copied to the other devices.
  gpu::ChunkSolveStats solve_on_each_device(const DeviceChunkJob& job, Iterates& x, SolveStats& stats) {
    const auto start = std::chrono::steady_clock::now();
    const std::vector<DeviceChunkJob> jobs = jobs_on_each_device(job);
    const std::vector<LevelSegment> segments = level_segments(r_.system, *job.cyclic, job.first_scc, job.end_scc);
    const bool on_device = device_targets_apply(job);
    if (!on_device) (void)targets(job.cyclic);
    const DeviceChunkVectors v(r_.system, job, x, constants_);
    // One device at a time: each bind copies the same host arrays (b, the iterates,
    // the targets), whose pages a copy locks and unlocks as it goes.
    std::vector<WindowTargets> window_targets(jobs.size());
    for (std::size_t d = 0; d < jobs.size(); ++d) {
      v.bind(jobs[d], x);
      std::future<void> made;  // the host's targets are made already
      window_targets[d] = on_device ? bind_device_targets(jobs[d]) : bind_host_targets(jobs[d], made);
    }
    gpu::ChunkSolveStats total;
    for (const LevelSegment& segment : segments) {
      if (segment.acyclic) {
        std::vector<gpu::ChunkSolveStats> passed(jobs.size());
        on_each(jobs.size(), [&](std::size_t d) { passed[d] = pass_acyclic_segment(jobs[d], segment, r_.direction); });
        total += passed.front();
        continue;
      }
      const std::vector<LevelSegment> groups = split_level(r_.system, segment, job.states.begin, jobs.size());
      std::vector<SolveStats> own(groups.size());
      std::vector<gpu::ChunkSolveStats> solved(groups.size());
      const auto level_start = std::chrono::steady_clock::now();
      on_each(groups.size(), [&](std::size_t g) {
        const double tightest = window_targets[g].tightest(r_.system, groups[g].first_scc, groups[g].end_scc);
        solved[g] = solve_window(jobs[g], groups[g], tightest, "on a device for part of a level", own[g]);
      });
      if (spdlog::should_log(spdlog::level::debug)) log_groups(groups, solved, seconds_since(level_start));
      for (std::size_t g = 0; g < groups.size(); ++g) {
        stats.merge(own[g]);
        total += solved[g];
        for (std::size_t d = 0; d < jobs.size(); ++d) {
          if (d == g) continue;
          jobs[g].device.copy_bound_range_to(jobs[g].ticket, jobs[d].device, jobs[d].ticket,
                                             groups[g].level_starts.front(), groups[g].level_starts.back());
        }
      }
    }
    DeviceChunkVectors::store(job, x);
    spdlog::debug("device chunk on {} devices: {} segments, {:.3f} s", jobs.size(), segments.size(), seconds_since(start));
    total.converged = stats.converged;
    return total;
  }

  // For -v: a level's groups, their states, sweeps and device time, and the level's time.
  static void log_groups(const std::vector<LevelSegment>& groups, const std::vector<gpu::ChunkSolveStats>& solved,
                         double level_s) {
    std::string each;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      each += fmt::format("{}{} SCCs, {} states, {} sweeps, {:.3f} s", g ? "; " : "", groups[g].end_scc - groups[g].first_scc,
                          groups[g].level_starts.back() - groups[g].level_starts.front(), solved[g].iterations,
                          solved[g].solve_s);
    }
    spdlog::debug("a level over {} devices in {:.3f} s: {}", groups.size(), level_s, each);
  }

  // The states of one window (the chunk, or a level with cycles): its SCCs'.
  gpu::ChunkSolveStats solve_window(const DeviceChunkJob& job, const LevelSegment& window, double tightest,
                                    const char* where, SolveStats& stats) {
    DeviceWindowUnit unit(r_, progress_, job, window, tightest);
    const IntervalRun run = job.b_on_device && crawls_to_policy_iteration_ && tightest > 0.0
                                ? run_or_hand_back(unit, where)
                                : run_interval_iteration(unit, r_.options.stop.max_sweeps, r_.known_upper_bound, optimistic_, where);
    stats.add_run(run.sweeps);
    stats.iterated_sccs += job.by_levels ? count_iterated(r_.system, window.first_scc, window.end_scc)
                                         : window.end_scc - window.first_scc;
    if (!run.converged) {
      report_not_converged(stats, {name_, job.by_levels ? "a level on the GPU" : "a chunk on the GPU", run.sweeps,
                                   unit.states(), "width", run.width, tightest});
    }
    gpu::ChunkSolveStats s = unit.stats;
    s.converged = run.converged;
    return s;
  }

  // The default method on a level of a system built on the device: optimistic value
  // iteration, at most kDeviceCrawlSweeps; a level that needs more hands the system
  // back (DeviceSystemCrawls), for the caller to solve under policy iteration on the
  // host's matrix. (Value iteration's rate after its first sweeps, the CPU chooser's
  // rule, tells optimistic value iteration's cost poorly on a level: wlan6's largest
  // level is predicted 37,000 more sweeps and optimistic value iteration verifies it in
  // a few thousand; consensus levels are predicted 3,500 and take it tens of thousands.)
  IntervalRun run_or_hand_back(DeviceWindowUnit& unit, const char* where) const {
    const std::uint64_t most = r_.options.stop.max_sweeps;
    if (most <= kDeviceCrawlSweeps) return run_interval_iteration(unit, most, r_.known_upper_bound, optimistic_, where);
    IntervalRun run;
    try {
      run = run_interval_iteration(unit, kDeviceCrawlSweeps, r_.known_upper_bound, optimistic_, where);
    } catch (const gpu::DeviceError&) {
      throw;
    } catch (const std::runtime_error&) {  // no upper bound verified within the sweeps
      run.converged = false;
    }
    if (!run.converged) {
      throw DeviceSystemCrawls(fmt::format("optimistic value iteration crawls on a level of {} states (not within {} sweeps)",
                                           unit.states(), kDeviceCrawlSweeps));
    }
    return run;
  }

  const SolveRequest& r_;
  bool optimistic_;
  bool crawls_to_policy_iteration_;  // the default method's (make_interval_iteration_policy)
  const char* name_;
  // Per SCC, made on the host when first needed: by a CPU solve, by a device chunk
  // that is not the whole system (on a thread of its own, beside the uploads), or
  // for a report. cyclic: the system's cyclic_levels where the caller has them (a
  // device chunk's job), else made here.
  const PodVector<double>& targets(const std::vector<std::uint8_t>* cyclic = nullptr) {
    if (!targets_) {
      const std::vector<std::uint8_t> made = cyclic ? std::vector<std::uint8_t>{} : cyclic_levels(r_.system);
      const std::vector<std::uint8_t>& levels = cyclic ? *cyclic : made;
      const double epsilon = r_.options.stop.epsilon;
      targets_ = r_.options.stop.targets_from_levels || r_.system.view ? scc_width_targets(r_.system, levels, epsilon)
                                                                       : scc_width_targets_by_rows(r_.system, levels, epsilon);
    }
    return *targets_;
  }
  std::optional<PodVector<double>> targets_;
  std::optional<std::vector<double>> level_targets_;  // level_width_targets', made once
  ChunkConstants constants_;  // b for the device's chunks, reused by each
};

}  // namespace

// crawls_to_policy_iteration: the default method's (policy_iteration.cpp), whose
// levels of a system built on the device throw DeviceSystemCrawls where optimistic
// value iteration passes kDeviceCrawlSweeps.
std::unique_ptr<MethodPolicy> make_interval_iteration_policy(const SolveRequest& request, bool optimistic,
                                                             bool crawls_to_policy_iteration) {
  return std::make_unique<IntervalIterationPolicy>(request, optimistic, crawls_to_policy_iteration);
}

}  // namespace mdpvi
