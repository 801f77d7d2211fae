// Policy iteration (Howard 1960) with bounds, per SCC on the CPU and per chunk on the
// device (solve_chunk_on_device says what runs where; under Method::automatic, the
// default, device chunks go to optimistic value iteration), for the SCCs where value
// iteration crawls: where the chance of leaving an SCC per sweep is tiny
// (consensus protocols), value iteration takes hundreds of thousands of sweeps, and
// a handful of schedulers, each solved as a linear system by BiCGStab, reach the
// optimum instead (as Storm's topological policy iteration does).
//
// An SCC is first swept by value iteration from below, up to 500 sweeps. Where they
// converge, or their rate says they soon would, optimistic value iteration finishes
// it, from the iterates it has (the sweeps counted as its own). Otherwise:
//  1. Improve: each state takes its best row under the current values (the first
//     scheduler from the sweeps' values); evaluate: solve that scheduler's linear
//     system, warm-started from the last values. Until no state changes its row.
//  2. Bound. Let v be the final values, rho the largest Bellman residual |B(v) - v|,
//     and W >= 1/2 + M_a W for every row a (about the most expected steps any
//     scheduler takes before leaving the SCC, found by policy iteration on the steps,
//     times a margin: kStepsSwitchGain says how near). Then L = v - m W and
//     U = v + m W with m = 2 rho satisfy L <= B(L) and B(U) <= U, each row a losing
//     at least rho of W's slack against at most rho of residual. m also gets twice
//     the verification's tolerance (kRaiseTolerance, relative to the largest value),
//     so that the sweeps' check, which forgives that much, passes only where the
//     inequalities hold exactly:
//     else a value exact to the last place would pass as its own bound, and the
//     forgiven part, summed over the steps to leave, could put it past the truth.
//     B(U) <= U bounds the least fixed point from above (Park); L <= B(L) bounds it
//     from below because the fixed point is unique and attracts every start (the maybe-states keep no end component the optimum could stay in: Pmin
//     has none after Prob0, Pmax and Rmax are collapsed first, Rmin's zero-reward
//     ones are; its others cost infinitely much), as interval iteration's upper
//     iterate needs too. Each side is evaluated from its own inputs (the lower or
//     upper iterates of earlier SCCs).
//  3. Verify: interval sweeps from L and U, until one lowers no lower value and one
//     raises no upper value (then every later sweep stays sound) and the width is
//     within the SCC's target. The check decides; the steps above only guess.
// Where a step fails (a scheduler that never leaves the SCC, so its system is
// singular: Rmin's positive-reward cycles; a policy that does not settle; no
// verification), the SCC starts again under optimistic value iteration.
#include "engine/solve/krylov_system.h"
#include "engine/solve/method_policy.h"
#include "engine/model/parallel_indices.h"
#include "engine/solve/policy_steps.h"
#include "engine/solve/solve_progress.h"
#include "engine/numeric/bicgstab_steps.h"
#include "engine/numeric/optimistic_guess.h"
#include "engine/model/stopwatch.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

namespace mdpvi {

std::unique_ptr<MethodPolicy> make_interval_iteration_policy(const SolveRequest& request, bool optimistic,
                                                             bool crawls_to_policy_iteration);

namespace {

// Value iteration's sweeps first, at most these. Where they converge, or their rate
// over the last kRateWindow of them says that fewer than kCrawlSweeps more would,
// optimistic value iteration finishes the SCC: a scheduler's system takes BiCGStab
// thousands of products to the precision the bounds need. (The rate is read late
// and over many sweeps: the fast modes die first, and an early or short rate
// promises too much.)
constexpr std::uint64_t kWarmSweeps = 500;
constexpr std::uint64_t kRateWindow = 100;
constexpr double kCrawlSweeps = 1000;
// Policy iteration may spend at most this multiple of the sweeps value iteration is
// predicted to still need (its BiCGStab products and sweeps counted alike): where a
// scheduler's system converges slowly, it gives up, and the SCC costs optimistic
// value iteration's sweeps and at most this much more. The prediction is rough (the
// rate late in the warm-up, to optimistic value iteration's first precision only):
// consensus SCCs take policy iteration up to about twice it, and optimistic value
// iteration about three times it; a share below that cuts the largest off just short
// of the end, and they pay for both (bench/NOTES.md, session 10).
constexpr double kBudgetShare = 3.0;
// A device chunk's share is larger: its sweeps' rate, read over the whole chunk,
// predicts a tenth of what its levels take under optimistic value iteration (coin8_4:
// 3,500 more sweeps predicted, tens of thousands a level taken), and the chunk comes to
// policy iteration because a level crawled there (DeviceSystemCrawls). coin8_4 Pmin
// takes 6,000-7,400 sweeps and products; Pmax ran out of a share of 2 after 9 schedulers.
constexpr double kDeviceChunkBudgetShare = 10.0;
constexpr int kMaxPolicies = 100;
// Bellman sweeps between a scheduler's solve and its improvement (look_ahead).
constexpr int kLookAhead = 16;
// Once the scheduler settles at kSwitchTolerance, gains down to this are taken too,
// at most kFinePolicies times (rows that tie may trade places in rounding).
constexpr double kFineSwitchTolerance = 1e-13;
constexpr int kFinePolicies = 8;
// BiCGStab's residual, relative to the largest value: the bounds' width is about
// the residual times the steps to leave the SCC, so the schedulers of the fine
// switches are solved to this; those before only need to tell rows apart at
// kSwitchTolerance, and each solve starts from the last.
constexpr double kEvaluationEpsilon = 1e-14;
constexpr double kCoarseEvaluationEpsilon = 1e-10;
// A restart continues from the last x with its true residual: where rounding breaks
// BiCGStab down near the fine precision, restarts refine the solution as iterative
// refinement would. The coarse solves (the first schedulers, the steps to leave) get
// few: the consensus models' need at most 3, and a system that breaks down more
// often there is ill-conditioned (wlan4's and wlan5's largest SCCs under Rmax: 64
// restarts in 3,500 iterations, still far from converged), which value iteration
// answers sooner.
constexpr unsigned kRestarts = 64;
constexpr unsigned kCoarseRestarts = 4;
// The steps to leave need less: they only weigh the bounds' margins.
constexpr double kStepsEpsilon = 1e-6;
// A row replaces a state's row for the steps to leave only where it gains more than
// this many steps (absolute). At kSwitchTolerance (relative 1e-10 of thousands of
// steps) the differences of tied rows in a solution to kStepsEpsilon switched
// millions of states in every improvement, and the scheduler settled only by chance
// (bench/NOTES.md, session 11). Step 2 of the header needs a slack of 1/2 a row: with
// the steps' residual r (kStepsEpsilon relative, 0.005 steps at coin8_4's 4,600) every
// row a has 1 + M_a W <= W + r + this, which holds it while r + this <= 1/2. Where it
// does not (W in the hundreds of thousands), the verification's sweeps still decide.
constexpr double kStepsSwitchGain = 0.25;
// W is the steps' solution times this: the steps' own residual must not eat the slack.
constexpr double kStepsMargin = 1.01;
constexpr std::uint64_t kVerifySweeps = 64;
constexpr const char* kOverBudget = "more sweeps and products than value iteration's share (kBudgetShare)";

// The sweeps value iteration would still need to bring its change from change to
// below precision, at rate.
double sweeps_to_go(double change, double rate, double precision) {
  if (change < precision) return 0.0;
  if (rate >= 1.0) return std::numeric_limits<double>::infinity();
  return std::log(precision / change) / std::log(rate);
}

// Where a device chunk's policy iteration spends its time, for -v: the improvements
// (the values and the scheduler up and back included), the device's chain gathers and
// BiCGStab calls, the look-ahead sweeps (b and the values up and back included), the
// rows' constants bound for each side, the residuals, the bracket and its verification.
struct PolicyClock {
  double improve_s = 0.0, krylov_s = 0.0, look_ahead_s = 0.0, bind_s = 0.0, residual_s = 0.0, verify_s = 0.0;
};

struct PolicyRun {
  PolicyClock clock;
  std::uint64_t sweeps = 0;  // Bellman sweeps, and two per BiCGStab iteration (its products)
  std::uint64_t budget = 0;  // the most sweeps and products it may take (kBudgetShare)
  int policies = 0;
  const char* failure = nullptr;  // why the SCC goes to optimistic value iteration
  double residual = 0.0;          // rho
  double most_steps = 0.0;        // the largest entry of W
  double width = 0.0;
};

class PolicyIterationPolicy final : public MethodPolicy {
 public:
  // optimistic_on_device: device chunks go to optimistic value iteration, level by
  // level (Method::automatic; a level of a system built on the device where it crawls
  // hands the system back, for policy iteration on the host's matrix: chunk_driver.h's
  // DeviceSystemCrawls), else policy iteration solves them as units.
  PolicyIterationPolicy(const SolveRequest& request, bool optimistic_on_device)
      : r_(request),
        fallback_(make_interval_iteration_policy(request, true, /*crawls_to_policy_iteration=*/optimistic_on_device)),
        optimistic_on_device_(optimistic_on_device) {}

  bool has_upper_iterate() const override { return true; }
  bool solves_by_levels() const override { return optimistic_on_device_; }
  bool corrects_b_on_device() const override { return optimistic_on_device_; }
  // Optimistic value iteration's (the chunk, its b and vectors) and, for policy
  // iteration on the device, the policy's b of every row and a scheduler's chain
  // beside it (at most the chunk's entries, its row offsets, its constants and the
  // scheduler), with BiCGStab's eight vectors.
  std::size_t footprint_bytes(std::uint64_t states, std::uint64_t rows, std::uint64_t entries) const override {
    const std::size_t optimistic = fallback_->footprint_bytes(states, rows, entries);
    if (optimistic_on_device_) return optimistic;
    return optimistic + rows * sizeof(double) + matrix_bytes(states, states, entries) +
           (8 + 2) * states * sizeof(double) + (std::size_t{1} << 20);
  }

  void solve_sccs_on_cpu(std::size_t first_scc, std::size_t end_scc, Iterates& x, SolveStats& stats) override {
    fallback_->report_progress_to(progress_);
    const MaybeSystem& system = r_.system;
    for_each_level(
        system, first_scc, end_scc, [&](std::size_t scc) { solve_trivial_scc_both(r_, system.scc_starts[scc], x); },
        [&](std::size_t scc, SolveStats& own) { solve_scc(scc, x, own); }, stats, sccs_concurrent(r_),
        [&] { fallback_->prepare_cpu_sccs(); });
  }

  // The chunk as one unit: value iteration's sweeps on the device first, and where
  // they would crawl, policy iteration over the chunk's states, its improvements, each
  // scheduler's chain (gathered there) solved by the device's BiCGStab, the look-ahead
  // sweeps, the residuals and the bracket's verification on the device; the bracket
  // itself on the host. Otherwise, or where it fails,
  // optimistic value iteration on the device, from the sweeps' lower iterate.
  gpu::ChunkSolveStats solve_chunk_on_device(const DeviceChunkJob& job, Iterates& x, SolveStats& stats) override {
    fallback_->report_progress_to(progress_);
    if (optimistic_on_device_) return fallback_->solve_chunk_on_device(job, x, stats);
    const auto start = std::chrono::steady_clock::now();
    const StateRange range = job.states;
    const double target = tightest_target(job.first_scc, job.end_scc);
    if (target <= 0.0) return fallback_->solve_chunk_on_device(job, x, stats);  // acyclic: exact passes
    gpu::SweepSettings warm_settings = sweep_settings(r_, progress_);
    warm_settings.epsilon = target * kLowerDistance / 2;  // optimistic value iteration's first precision
    warm_settings.max_sweeps = kWarmSweeps;
    PodVector<double> storage;
    const gpu::ChunkSolveStats warm = job.device.iterate(job.ticket, job.row_constants(x.lower.data(), storage),
                                                         warm_settings, x.lower.data() + range.begin);
    x.sync(range);
    x.lower_start.reset();  // the chunk's lower iterate is the sweeps' now
    const double rate = convergence_rate(warm.earlier_measure, warm.last_measure, warm.measure_gap);
    const double to_go = warm.converged ? 0.0 : sweeps_to_go(warm.last_measure, rate, warm_settings.epsilon);
    if (to_go < kCrawlSweeps) {
      stats.iterations += warm.iterations;
      gpu::ChunkSolveStats rest = fallback_->solve_chunk_on_device(by_levels(job), x, stats);
      rest += warm;
      return rest;
    }
    const std::vector<double> warm_lower(x.lower.begin() + range.begin, x.lower.begin() + range.end);
    spdlog::debug("policy iteration on a chunk of {} states on the device: value iteration's predicted {:.3g} more sweeps, "
                  "a budget of {}", range.size(), to_go, budget_for(to_go, kDeviceChunkBudgetShare));
    const PolicyRun run = iterate_policies(range, target, budget_for(to_go, kDeviceChunkBudgetShare), x, &job);
    gpu::ChunkSolveStats total = warm;
    total.iterations += run.sweeps;
    if (run.failure != nullptr) {
      spdlog::debug("policy iteration on a chunk of {} states on the device: {} after {} schedulers; optimistic value "
                    "iteration instead", range.size(), run.failure, run.policies);
      stats.iterations += total.iterations;
      x.restart(r_, range);  // the upper iterate at its start (a failed bracket is no bound)
      std::copy(warm_lower.begin(), warm_lower.end(), x.lower.begin() + range.begin);
      x.sync(range);
      gpu::ChunkSolveStats rest = fallback_->solve_chunk_on_device(by_levels(job), x, stats);
      rest += total;
      return rest;
    }
    const std::size_t iterated = count_iterated(r_.system, job.first_scc, job.end_scc);
    stats.iterated_sccs += iterated;
    stats.policy_sccs += iterated;
    stats.add_run(total.iterations);
    total.converged = true;
    total.solve_s = seconds_since(start);
    spdlog::debug("policy iteration on a chunk of {} states on the device: {} schedulers, {} sweeps and products, "
                  "residual {:.3g}, at most {:.3g} steps to leave, width {:.3g}; {:.3f} s, of which the first sweeps {:.3f} s, "
                  "improvements {:.3f} s, chain gathers and BiCGStab {:.3f} s, look-ahead sweeps {:.3f} s, the rows' "
                  "constants bound {:.3f} s, residuals {:.3f} s, bracket and verification {:.3f} s (all on the device but "
                  "the constants and the bracket)",
                  range.size(), run.policies, total.iterations, run.residual, run.most_steps, run.width,
                  seconds_since(start), warm.solve_s + warm.upload_s + warm.download_s, run.clock.improve_s,
                  run.clock.krylov_s, run.clock.look_ahead_s, run.clock.bind_s, run.clock.residual_s, run.clock.verify_s);
    return total;
  }

 private:
  // Optimistic value iteration takes a chunk level by level where the driver knows
  // its levels (it does for every chunk on the device): policy iteration takes it
  // whole, which is no schedule for value iteration's sweeps.
  static DeviceChunkJob by_levels(const DeviceChunkJob& job) {
    DeviceChunkJob levels = job;
    levels.by_levels = job.by_levels || (job.cyclic != nullptr && job.replicas.empty());
    return levels;
  }

  void solve_scc(std::size_t scc, Iterates& x, SolveStats& stats) {
    const StateRange range{r_.system.scc_starts[scc], r_.system.scc_starts[scc + 1]};
    const double target = targets()[scc];
    const double precision = target * kLowerDistance / 2;  // optimistic value iteration's first
    const LowerRun early = sweep_lower(r_, progress_, range, x, precision, kWarmSweeps - kRateWindow);
    LowerRun late;
    if (early.change >= precision) late = sweep_lower(r_, progress_, range, x, precision, kRateWindow);
    const std::uint64_t warm_sweeps = early.sweeps + late.sweeps;
    // The sweeps so far, as optimistic value iteration would go on from them.
    const LowerRun warm{warm_sweeps, late.sweeps ? late.change : early.change,
                        late.sweeps ? convergence_rate(early.change, late.change, late.sweeps) : early.rate};
    const double to_go = early.change < precision ? 0.0 : sweeps_to_go(warm.change, warm.rate, precision);
    if (to_go < kCrawlSweeps) {
      fallback_->finish_scc_on_cpu(scc, warm, x, stats);  // from the lower iterate it has: still from below
      return;
    }
    // The sweeps' values stay a lower bound, for optimistic value iteration to go on
    // from should policy iteration fail.
    const std::vector<double> warm_lower(x.lower.begin() + range.begin, x.lower.begin() + range.end);
    const PolicyRun run = iterate_policies(range, target, budget_for(to_go, kBudgetShare), x, nullptr);
    if (run.failure != nullptr) {
      spdlog::debug("policy iteration on an SCC of {} states: {} after {} schedulers and {} sweeps and products (value "
                    "iteration's predicted: {:.0f}); optimistic value iteration instead",
                    range.size(), run.failure, run.policies, run.sweeps, to_go);
      stats.iterations += run.sweeps;
      x.restart(r_, range);  // the upper iterate at its start (a failed bracket is no bound)
      std::copy(warm_lower.begin(), warm_lower.end(), x.lower.begin() + range.begin);
      x.sync(range);
      fallback_->finish_scc_on_cpu(scc, warm, x, stats);
      return;
    }
    ++stats.iterated_sccs;
    ++stats.policy_sccs;
    stats.add_run(warm_sweeps + run.sweeps);
    spdlog::debug("policy iteration on an SCC of {} states: {} schedulers, {} sweeps and products (value iteration's "
                  "predicted: {:.0f} more), residual {:.3g}, at most {:.3g} steps to leave, width {:.3g}",
                  range.size(), run.policies, warm_sweeps + run.sweeps, to_go, run.residual, run.most_steps, run.width);
  }

  // job: where the range is a chunk resident on the device, whose sweeps and solves
  // run there (null: all on the CPU).
  PolicyRun iterate_policies(StateRange range, double target, std::uint64_t budget, Iterates& x,
                             const DeviceChunkJob* job) {
    PolicyRun run;
    run.budget = budget;
    std::vector<std::uint64_t> chosen(range.size());
    bind_constants(x.lower, job, run);
    improve(PolicyImprovement{range, r_.direction, RowObjective::values, false}, x.lower.data(), chosen, run, job);
    if (!settle_coarse(range, chosen, x.lower, x.lower_next, run, job)) return run;
    // W before the fine phases, which stop once the residual fits it.
    const std::optional<std::vector<double>> steps = most_steps_to_leave(range, chosen, run, job);
    if (!steps) {
      fail(run, "no bound on the steps before leaving the SCC");
      return run;
    }
    const std::optional<double> lower_residual = settle_fine(range, chosen, x.lower, x.lower_next, *steps, run, job);
    if (!lower_residual) return run;
    // The upper side from the upper inputs (on which another scheduler may be best),
    // starting from the lower side's scheduler and values.
    std::vector<std::uint64_t> chosen_upper = chosen;
    parallel_copy(x.lower.data() + range.begin, range.size(), x.upper.data() + range.begin);
    bind_constants(x.upper, job, run);
    if (!settle_coarse(range, chosen_upper, x.upper, x.upper_next, run, job)) return run;
    const std::optional<double> upper_residual = settle_fine(range, chosen_upper, x.upper, x.upper_next, *steps, run, job);
    if (!upper_residual) return run;
    run.residual = std::max(*lower_residual, *upper_residual);
    const auto start = std::chrono::steady_clock::now();
    run.most_steps = *std::max_element(steps->begin(), steps->end());
    bracket(range, 2 * run.residual + 2 * kRaiseTolerance * largest(range, x.upper), *steps, x);
    if (job != nullptr) {
      verify_on_device(*job, range, target, x, run);
    } else {
      verify(range, target, x, run);
    }
    run.clock.verify_s += seconds_since(start);
    return run;
  }

  // A device chunk's rows' constants from values outside the range (the lower or the
  // upper side's), for its improvements and schedulers' chains.
  void bind_constants(const PodVector<double>& values, const DeviceChunkJob* job, PolicyRun& run) const {
    if (job == nullptr) return;
    const auto start = std::chrono::steady_clock::now();
    PodVector<double> storage;
    job->device.bind_policy_constants(job->ticket, job->row_constants(values.data(), storage));
    run.clock.bind_s += seconds_since(start);
  }

  // The improvement step on the device for a chunk (values: the system's with the
  // values objective, range-local with the steps to leave, as improve_policy_parallel
  // reads them), else on all cores.
  std::uint64_t improve(const PolicyImprovement& step, const double* values, std::vector<std::uint64_t>& chosen,
                        PolicyRun& run, const DeviceChunkJob* job) const {
    if (job == nullptr) return improve_policy_parallel(r_.system, step, values, chosen.data());
    const auto start = std::chrono::steady_clock::now();
    const bool steps = step.objective == RowObjective::steps_to_leave;
    const std::uint64_t changed =
        job->device.improve_policy(job->ticket, on_chunk(step), steps ? values : values + step.range.begin, chosen.data());
    run.clock.improve_s += seconds_since(start);
    spdlog::debug("  improvement at tolerance {:.0e}: {} states change their row", step.tolerance, changed);
    return changed;
  }

  // step as the device takes it for the chunk of its range.
  gpu::ChunkImprovement on_chunk(const PolicyImprovement& step) const {
    gpu::ChunkImprovement chunk;
    chunk.maximize = step.direction == Optimization::maximize;
    chunk.keep = step.keep;
    chunk.tolerance = step.tolerance;
    chunk.first_row = r_.system.row_group_starts[step.range.begin];
    chunk.steps_to_leave = step.objective == RowObjective::steps_to_leave;
    return chunk;
  }

  // Policy iteration on values' range, from the chosen scheduler: evaluate, improve,
  // until no state changes its row at kSwitchTolerance. False where it fails
  // (run.failure says why).
  bool settle_coarse(StateRange range, std::vector<std::uint64_t>& chosen, PodVector<double>& values,
                     PodVector<double>& scratch, PolicyRun& run, const DeviceChunkJob* job) {
    const PolicyImprovement step{range, r_.direction, RowObjective::values, true};
    while (true) {
      ++run.policies;
      if (!evaluate(range, chosen, values, kCoarseEvaluationEpsilon, run, job)) {
        return fail(run, "a scheduler's system did not converge");
      }
      look_ahead(range, values, scratch, run, job);
      if (improve(step, values.data(), chosen, run, job) == 0) return true;
      if (run.policies >= kMaxPolicies) return fail(run, "the scheduler did not settle");
      if (run.sweeps >= run.budget) return fail(run, kOverBudget);
    }
  }

  // Then the scheduler solved tightly, and as long as rows still gain at
  // kFineSwitchTolerance, at most kFinePolicies more, until the Bellman residual rho is
  // small enough that the bracket of W's steps (4 rho W and the check's tolerance) fits
  // half of what any SCC may add to its inputs' width (a gain left behind widens the
  // bounds by itself times the steps to leave, and rho counts it; values need not be the
  // last scheduler's: the bounds are taken from whatever they are). Tied rows (a
  // symmetric protocol's processes) trade places in rounding at this tolerance, so
  // without the residual's test nearly every SCC would take all kFinePolicies
  // (bench/NOTES.md, session 11). Returns the Bellman residual of values as it leaves
  // them (an improvement changes only chosen), the bracket's rho; nothing where it fails
  // (run.failure says why).
  std::optional<double> settle_fine(StateRange range, std::vector<std::uint64_t>& chosen, PodVector<double>& values,
                                    PodVector<double>& scratch, const std::vector<double>& steps, PolicyRun& run,
                                    const DeviceChunkJob* job) {
    PolicyImprovement step{range, r_.direction, RowObjective::values, true};
    step.tolerance = kFineSwitchTolerance;
    const double most = largest(range, values);
    const double enough = residual_enough(range, values, steps, most);
    // Each solve only as tightly as the residual needs (BiCGStab's tolerance is
    // relative to the largest value) while rows still gain: the residual left is then
    // theirs. Once none does, it is the solve's own, and the next solve is as tight as
    // it can be.
    double epsilon = std::clamp(enough / 2 / std::max(most, 1e-300), kEvaluationEpsilon, kCoarseEvaluationEpsilon);
    for (int fine = 0;; ++fine) {
      ++run.policies;
      if (!evaluate(range, chosen, values, epsilon, run, job)) {
        fail(run, "a scheduler's system did not converge");
        return std::nullopt;
      }
      const auto start = std::chrono::steady_clock::now();
      const double rho = bellman_residual(range, values, scratch, job);
      run.clock.residual_s += seconds_since(start);
      ++run.sweeps;
      if (rho <= enough) return rho;
      const bool tightest = epsilon <= kEvaluationEpsilon;
      if (improve(step, values.data(), chosen, run, job) == 0) {
        if (tightest) return rho;
        epsilon = kEvaluationEpsilon;
      }
      if (fine >= kFinePolicies) return rho;
      if (run.sweeps >= run.budget) {
        fail(run, kOverBudget);
        return std::nullopt;
      }
    }
  }

  // The Bellman residual under which the bracket (margin m = 2 rho + 2 kRaiseTolerance
  // times the largest value, times each state's W on each side) stays within half the
  // least positive width target at every state: the least an SCC may add to its inputs'
  // width (interval_iteration.cpp's targets: 2 epsilon level / H), relative to the state's
  // value where the criterion is relative (interval_width). 0 where nothing would fit.
  // most: the largest value of the range.
  double residual_enough(StateRange range, const PodVector<double>& values, const std::vector<double>& steps,
                         double most) {
    const bool relative = r_.options.stop.criterion == ConvergenceCriterion::relative;
    const double least_per_step = oneapi::tbb::parallel_reduce(
        oneapi::tbb::blocked_range<std::size_t>(0, range.size(), 1 << 14), std::numeric_limits<double>::infinity(),
        [&](const auto& part, double least) {
          for (std::size_t i = part.begin(); i < part.end(); ++i) {
            const double v = values[range.begin + i];
            least = std::min(least, (relative && v > 0.0 ? v : 1.0) / steps[i]);
          }
          return least;
        },
        [](double a, double b) { return std::min(a, b); });
    const double margin = least_target() / 2 * least_per_step / 2;  // 2 m W_s <= half the target
    return std::max(0.0, (margin - 2 * kRaiseTolerance * most) / 2);
  }

  // The least positive width target of the system (made once).
  double least_target() {
    if (!least_target_) least_target_ = tightest_target(0, targets().size());
    return *least_target_;
  }

  // kLookAhead Bellman sweeps of values' range (scratch: its second buffer): an
  // improvement that one state makes reaches its predecessors before the next
  // improvement step, where it would otherwise take a scheduler's solve per state
  // along a chain.
  void look_ahead(StateRange range, PodVector<double>& values, PodVector<double>& scratch, PolicyRun& run,
                  const DeviceChunkJob* job) const {
    run.sweeps += kLookAhead;
    if (job != nullptr) {
      const auto start = std::chrono::steady_clock::now();
      gpu::SweepSettings fixed = sweep_settings(r_, nullptr);
      fixed.fixed_sweeps = true;
      fixed.max_sweeps = kLookAhead;
      PodVector<double> storage;
      (void)job->device.iterate(job->ticket, job->row_constants(values.data(), storage), fixed, values.data() + range.begin);
      run.clock.look_ahead_s += seconds_since(start);
      return;
    }
    for (int sweep = 0; sweep < kLookAhead; ++sweep) {
      (void)bellman_sweep_parallel(r_.system, range, r_.direction, r_.options.stop.criterion, values.data(), scratch.data());
      parallel_copy(scratch.data() + range.begin, range.size(), values.data() + range.begin);
    }
  }

  // Solves the scheduler's system into values' range, from its values there; false
  // where BiCGStab does not converge (a singular system among them).
  bool evaluate(StateRange range, const std::vector<std::uint64_t>& chosen, PodVector<double>& values, double epsilon,
                PolicyRun& run, const DeviceChunkJob* job) {
    if (job != nullptr) {
      const PolicyImprovement step{range, r_.direction, RowObjective::values};
      return solve_on_device(*job, step, chosen, values.data() + range.begin, epsilon, run);
    }
    KrylovSystem a(r_.system, range, values.data(), chosen.data());
    if (!solve(a, epsilon, run)) return false;
    std::copy(a.solution().begin(), a.solution().end(), values.begin() + range.begin);
    return true;
  }

  // BiCGStab on the device on the chain of the chosen rows (the rows' values, or with
  // step's steps_to_leave their steps), from x (range-local), which gets the result;
  // as solve.
  bool solve_on_device(const DeviceChunkJob& job, const PolicyImprovement& step, const std::vector<std::uint64_t>& chosen,
                       double* x, double epsilon, PolicyRun& run) const {
    if (run.sweeps >= run.budget) return fail(run, kOverBudget);
    const auto start = std::chrono::steady_clock::now();
    const gpu::KrylovChunkStats solved = job.device.solve_scheduler(job.ticket, on_chunk(step), chosen.data(),
                                                                    limits(epsilon, run, /*whole_chunk=*/true), x);
    run.clock.krylov_s += seconds_since(start);
    spdlog::debug("  scheduler {} ({}, to {:.0e}): BiCGStab {} iterations, {} restarts, residual {:.3g}, {:.3f} s", run.policies,
                  step.objective == RowObjective::steps_to_leave ? "steps to leave" : "values", epsilon,
                  solved.stats.iterations, solved.restarts, solved.stats.last_measure, seconds_since(start));
    return counted(run, solved.stats.iterations, solved.stats.last_measure, solved.stats.converged);
  }

  // At most the iterations left of the run's budget (two products each). A device
  // chunk's system spans many SCCs, where a breakdown somewhere is no sign of an
  // ill-conditioned whole: its coarse solves keep every restart.
  KrylovLimits limits(double epsilon, const PolicyRun& run, bool whole_chunk = false) const {
    KrylovLimits limits;
    limits.max_iterations = std::max<std::uint64_t>(1, std::min(r_.options.stop.max_sweeps, (run.budget - run.sweeps) / 2));
    limits.epsilon = epsilon;
    limits.max_restarts = epsilon >= kCoarseEvaluationEpsilon && !whole_chunk ? kCoarseRestarts : kRestarts;
    return limits;
  }

  // BiCGStab on a to epsilon (relative), its products counted as sweeps; whether it
  // converged (not: run.failure says so where the budget ran out).
  bool solve(KrylovSystem& a, double epsilon, PolicyRun& run) const {
    if (run.sweeps >= run.budget) return fail(run, kOverBudget);
    const KrylovRun solved = run_bicgstab(a, limits(epsilon, run));
    return counted(run, solved.iterations, solved.residual, solved.converged);
  }

  // A BiCGStab run's products (two an iteration, and the first residual's) counted as
  // sweeps, in the run and the progress; converged back, and where it did not with the
  // budget spent, that is the run's failure.
  bool counted(PolicyRun& run, std::uint64_t iterations, double residual, bool converged) const {
    run.sweeps += 2 * iterations + 1;
    note_progress(progress_, 2 * iterations + 1, residual);
    if (!converged && run.sweeps >= run.budget) fail(run, kOverBudget);
    return converged;
  }

  // The budget of policy iteration on an SCC (chunk) where value iteration's sweeps
  // are predicted to take to_go more.
  static std::uint64_t budget_for(double to_go, double share) {
    const double budget = share * to_go;
    return budget >= 1e18 ? std::numeric_limits<std::uint64_t>::max() / 2 : static_cast<std::uint64_t>(budget);
  }

  // W of the header: policy iteration on the expected steps before leaving the range,
  // maximised, from the chosen scheduler; nullopt where some scheduler never leaves.
  std::optional<std::vector<double>> most_steps_to_leave(StateRange range, std::vector<std::uint64_t> chosen,
                                                         PolicyRun& run, const DeviceChunkJob* job) {
    PolicyImprovement step{range, Optimization::maximize, RowObjective::steps_to_leave, true};
    std::vector<double> steps(range.size(), 1.0);
    for (int policy = 0; policy < kMaxPolicies; ++policy) {
      if (job != nullptr) {
        if (!solve_on_device(*job, step, chosen, steps.data(), kStepsEpsilon, run)) return std::nullopt;
      } else {
        KrylovSystem a = KrylovSystem::steps_to_leave(r_.system, range, chosen.data(), steps.data());
        if (!solve(a, kStepsEpsilon, run)) return std::nullopt;
        steps = a.solution();
      }
      // The relative tolerance that is kStepsSwitchGain at the most steps, and less elsewhere.
      step.tolerance = kStepsSwitchGain / std::max(1.0, *std::max_element(steps.begin(), steps.end()));
      if (improve(step, steps.data(), chosen, run, job) == 0) {
        for (double& s : steps) s = std::max(1.0, s) * kStepsMargin;
        return steps;
      }
    }
    return std::nullopt;
  }

  static double largest(StateRange range, const PodVector<double>& v) {
    return oneapi::tbb::parallel_reduce(
        oneapi::tbb::blocked_range<std::uint64_t>(range.begin, range.end, 1 << 14), 0.0,
        [&](const auto& part, double most) {
          for (std::uint64_t s = part.begin(); s < part.end(); ++s) most = std::max(most, std::abs(v[s]));
          return most;
        },
        [](double a, double b) { return std::max(a, b); });
  }

  // max |B(v) - v| over the range (scratch: the second buffer's range), or on the
  // device for a chunk there: one sweep of a copy of v.
  double bellman_residual(StateRange range, const PodVector<double>& v, PodVector<double>& scratch,
                          const DeviceChunkJob* job) {
    if (job == nullptr) {
      return bellman_sweep_parallel(r_.system, range, r_.direction, ConvergenceCriterion::absolute, v.data(), scratch.data());
    }
    gpu::SweepSettings one = sweep_settings(r_, nullptr);
    one.relative = false;
    one.epsilon = 0.0;
    one.max_sweeps = 1;
    // The sweep writes its copy: a buffer kept for the run's residuals (a device chunk's
    // iterates have no second buffers), copied into on all cores.
    if (device_swept_.size() < range.size()) device_swept_ = PodVector<double>(range.size());
    parallel_copy(v.data() + range.begin, range.size(), device_swept_.data());
    PodVector<double> storage;
    return job->device.iterate(job->ticket, job->row_constants(v.data(), storage), one, device_swept_.data()).last_measure;
  }

  // L = v_lower - margin W and U = v_upper + margin W, within [0, the known bound].
  void bracket(StateRange range, double margin, const std::vector<double>& steps, Iterates& x) const {
    const double bound = r_.known_upper_bound.value_or(std::numeric_limits<double>::infinity());
    parallel_indices(0, range.size(), 4096, [&](std::size_t i) {
      const std::uint64_t s = range.begin + i;
      x.lower[s] = std::max(0.0, x.lower[s] - margin * steps[i]);
      x.upper[s] = std::min(bound, x.upper[s] + margin * steps[i]);
    });
    x.sync(range);
  }

  void verify(StateRange range, double target, Iterates& x, PolicyRun& run) const {
    bool lower_shown = false, upper_shown = false;
    for (std::uint64_t sweep = 0; sweep < kVerifySweeps; ++sweep) {
      // Into the second buffers and back (not swapped whole: other SCCs of the level
      // may be swept at the same time).
      const IntervalSweep swept = interval_sweep_parallel(r_.system, range, r_.direction, r_.options.stop.criterion,
                                                          x.interval_view());
      parallel_copy(x.lower_next.data() + range.begin, range.size(), x.lower.data() + range.begin);
      parallel_copy(x.upper_next.data() + range.begin, range.size(), x.upper.data() + range.begin);
      ++run.sweeps;
      run.width = swept.width;
      lower_shown = lower_shown || !swept.lower_lowered;
      upper_shown = upper_shown || !swept.upper_raised;
      if (swept.crossed) break;
      if (lower_shown && upper_shown && swept.width <= target) {
        x.sync(range);
        return;
      }
    }
    x.sync(range);
    fail(run, !lower_shown ? "the lower bound did not verify" : !upper_shown ? "the upper bound did not verify"
                                                                            : "the bounds stayed too wide");
  }

  // verify's sweeps on the device, each side's b from its own inputs, every state's
  // target the chunk's tightest, as verify's.
  void verify_on_device(const DeviceChunkJob& job, StateRange range, double target, Iterates& x, PolicyRun& run) const {
    PodVector<double> lower_storage, upper_storage, targets(range.size());
    std::fill(targets.begin(), targets.end(), target);
    gpu::SweepSettings settings = sweep_settings(r_, nullptr);
    settings.max_sweeps = kVerifySweeps;
    const gpu::IntervalInputs inputs{job.row_constants(x.lower.data(), lower_storage),
                                     job.row_constants(x.upper.data(), upper_storage), targets.data(),
                                     /*verify_upper=*/true, /*verify_lower=*/true};
    const gpu::IntervalChunkStats s =
        job.device.iterate_interval(job.ticket, inputs, settings, x.lower.data() + range.begin, x.upper.data() + range.begin);
    x.sync(range);
    run.sweeps += s.stats.iterations;
    run.width = s.stats.last_measure;
    if (!s.stats.converged) {
      fail(run, s.crossed ? "the bounds crossed" : !s.verified ? "the bounds did not verify" : "the bounds stayed too wide");
    }
  }

  // Keeps the first reason: a solve cut short by the budget stays "over budget".
  static bool fail(PolicyRun& run, const char* why) {
    if (run.failure == nullptr) run.failure = why;
    return false;
  }

  // The tightest positive width target of SCCs [first_scc, end_scc) (0: none, all trivial).
  double tightest_target(std::size_t first_scc, std::size_t end_scc) {
    const PodVector<double>& all = targets();
    double tightest = 0.0;
    for (std::size_t scc = first_scc; scc < end_scc; ++scc) {
      if (all[scc] > 0.0 && (tightest == 0.0 || all[scc] < tightest)) tightest = all[scc];
    }
    return tightest;
  }

  // Optimistic value iteration's, made once for both.
  const PodVector<double>& targets() { return *fallback_->width_targets(); }

  const SolveRequest& r_;
  std::unique_ptr<MethodPolicy> fallback_;
  bool optimistic_on_device_;
  std::optional<double> least_target_;
  PodVector<double> device_swept_;  // bellman_residual's copy of a device chunk's values
};

}  // namespace

std::unique_ptr<MethodPolicy> make_policy_iteration_policy(const SolveRequest& request, bool optimistic_on_device) {
  return std::make_unique<PolicyIterationPolicy>(request, optimistic_on_device);
}

}  // namespace mdpvi
