#include "engine/solve/bottom_solver.h"

#include "engine/model/stopwatch.h"
#include "engine/solve/bottom_chain.h"
#include "engine/solve/chunk_driver.h"
#include "engine/solve/krylov_system.h"
#include "engine/solve/maybe_system.h"
#include "engine/model/parallel_indices.h"
#include "gpu/resident_chain.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <utility>

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
// The power sweeps stop where what is left to move is within this share of epsilon.
constexpr double kSweepsShare = 1e-3;

// What the stationary distributions' linear systems are solved with: BiCGStab to
// kKrylovShare of epsilon (relative), at most kMostKrylovIterations.
SolverOptions krylov_options(const SolverOptions& options) {
  SolverOptions krylov;
  krylov.method = Method::bicgstab;
  krylov.stop.criterion = ConvergenceCriterion::relative;
  krylov.stop.epsilon = std::max(options.stop.epsilon * kKrylovShare, kFinestKrylovEpsilon);
  krylov.stop.max_sweeps = std::min<std::uint64_t>(options.stop.max_sweeps, kMostKrylovIterations);
  krylov.sweeps_after_krylov = false;  // a new reference state, then power iteration: below
  return krylov;
}

// A stationary distribution from its embedded chain's linear system, and whether the
// solve converged (if not, the estimate where it stopped, normalised).
struct KrylovAttempt {
  std::vector<double> pi;
  bool converged = false;
};

// y, the embedded system's solution relative to reference (bottom_chain.h), with the
// reference's 1 in its place: the embedded chain's z in some scale.
template <typename Values>
std::vector<double> with_reference(const Values& y, std::size_t reference) {
  std::vector<double> z(y.size() + 1);
  parallel_indices(0, z.size(), 1 << 14, [&](std::size_t i) {
    z[i] = i == reference ? 1.0 : y[embedded_unknown(i, reference)];
  });
  return z;
}

// local (bottom_chain.h's) for states, made where empty.
void write_local(const SparseMdp& mdp, const std::vector<std::uint32_t>& states, std::vector<std::uint32_t>& local) {
  if (local.empty()) local.resize(mdp.num_states());
  parallel_indices(0, states.size(), 1 << 14, [&](std::size_t i) { local[states[i]] = static_cast<std::uint32_t>(i); });
}

// The steps of a BSCC's stationary distribution, on some copy of its chain.
class BottomSolver {
 public:
  virtual ~BottomSolver() = default;
  // The likeliest state (the first of equals) after lazy_power_sweeps' sweeps from the
  // uniform distribution.
  virtual std::size_t likeliest_after_sweeps(std::uint64_t sweeps, double tolerance, SolveReport& report) = 0;
  // lazy_power_sweeps' contract (bottom_chain.h); report gets a device's run.
  virtual std::vector<double> power_sweeps(std::uint64_t max_sweeps, double tolerance, SolveStats& stats,
                                           SolveReport& report, SolveProgress* progress) = 0;
  // The embedded system relative to the local state reference, solved by BiCGStab
  // with krylov's stop, from 0.
  virtual KrylovAttempt solve_embedded(std::size_t reference, const SolverOptions& krylov, SolveReport& report) = 0;
};

// The chain transposed on all cores: its sweeps through lazy_power_sweeps_on, its
// systems built here and solved through the chunk driver (on the device where the
// chain is large enough: device_worth_starting).
class HostBottomSolver final : public BottomSolver {
 public:
  HostBottomSolver(const SparseMdp& mdp, const std::vector<std::uint32_t>& states, std::vector<std::uint32_t>& local,
                   const DeviceOptions& device)
      : states_(states), device_(device) {
    const auto start = std::chrono::steady_clock::now();
    write_local(mdp, states, local);
    chain_ = transpose_bottom(mdp, states, local);
    spdlog::debug("stationary distribution of {} states: transposed on all cores in {:.3f} s", states.size(),
                  seconds_since(start));
  }

  std::size_t likeliest_after_sweeps(std::uint64_t sweeps, double tolerance, SolveReport& report) override {
    SolveStats ignored;
    const std::vector<double> pi = power_sweeps(sweeps, tolerance, ignored, report, nullptr);
    return std::max_element(pi.begin(), pi.end()) - pi.begin();
  }

  std::vector<double> power_sweeps(std::uint64_t max_sweeps, double tolerance, SolveStats& stats, SolveReport& report,
                                   SolveProgress* progress) override {
    return lazy_power_sweeps_on(chain_, max_sweeps, tolerance, device_, stats, &report, progress);
  }

  // E scales each state's equation by its leaving probability, as a Jacobi
  // preconditioner would: a uniformised CTMC's states stay put with probabilities up
  // to 1 - 1e-3 and more.
  KrylovAttempt solve_embedded(std::size_t reference, const SolverOptions& krylov, SolveReport& report) override {
    auto start = std::chrono::steady_clock::now();
    const MaybeSystem system = embedded_system(chain_, states_, reference);
    const double built_s = seconds_since(start);
    start = std::chrono::steady_clock::now();
    DeviceOptions on = device_;
    if (!device_worth_starting(system.num_states(), device_)) on.solver = SolverKind::cpu;
    SolveResult solved = solve({.system = system, .direction = Optimization::minimize, .options = krylov}, on);
    spdlog::debug("stationary distribution of {} states: the embedded system built in {:.3f} s, solved in {:.3f} s",
                  states_.size(), built_s, seconds_since(start));
    report.stats.add_run(solved.report.stats.iterations);
    if (!solved.report.device.empty()) report.device = solved.report.device;
    report.chunks.insert(report.chunks.end(), solved.report.chunks.begin(), solved.report.chunks.end());
    report.take_device_peaks(solved.report);
    return {from_embedded(with_reference(solved.lower, reference), chain_.leaving), solved.report.stats.converged};
  }

 private:
  const std::vector<std::uint32_t>& states_;
  const DeviceOptions& device_;
  BottomChain chain_;
};

// The chain uploaded once and transposed on the device, every step on it.
class ResidentBottomSolver final : public BottomSolver {
 public:
  explicit ResidentBottomSolver(std::unique_ptr<gpu::ResidentChain> chain) : chain_(std::move(chain)) {}

  // The largest z_i / (1 - P(i, i)), on the device: the normalised distribution's
  // largest entry, but for a tie its rounding might make.
  std::size_t likeliest_after_sweeps(std::uint64_t sweeps, double tolerance, SolveReport& report) override {
    SolveStats ignored;
    return swept(sweeps, tolerance, ignored, report, nullptr, &gpu::ResidentChain::likeliest_after_sweeps).likeliest;
  }

  std::vector<double> power_sweeps(std::uint64_t max_sweeps, double tolerance, SolveStats& stats, SolveReport& report,
                                   SolveProgress* progress) override {
    gpu::PowerSweeps run =
        swept(max_sweeps, tolerance, stats, report, progress, &gpu::ResidentChain::lazy_power_sweeps);
    return from_embedded(std::move(run.z), chain_->leaving());
  }

  KrylovAttempt solve_embedded(std::size_t reference, const SolverOptions& krylov, SolveReport& report) override {
    const auto start = std::chrono::steady_clock::now();
    SolveProgress progress("BiCGStab", size() - 1);
    KrylovLimits limits = krylov_limits(krylov.stop);
    limits.on_iteration = [&progress](double residual) { note_progress(&progress, 1, residual); };
    std::vector<double> y(size() - 1, 0.0);
    const gpu::KrylovChunkStats solved = chain_->solve_embedded(reference, limits, y.data());
    spdlog::debug("stationary distribution of {} states: the embedded system built and solved on the device in {:.3f} s",
                  size(), seconds_since(start));
    report.stats.add_run(solved.stats.iterations);
    add_device_run(report, {size() - 1, chain_->entries(), solved.stats.iterations, solved.stats.upload_s,
                            solved.stats.solve_s + solved.stats.download_s, chain_->peak_bytes(),
                            chain_->solve_in_use_bytes()});
    return {from_embedded(with_reference(y, reference), chain_->leaving()), solved.stats.converged};
  }

 private:
  std::size_t size() const { return chain_->leaving().size(); }

  using Sweeps = gpu::PowerSweeps (gpu::ResidentChain::*)(std::uint64_t, std::uint64_t,
                                                          const std::function<bool(double)>&);
  gpu::PowerSweeps swept(std::uint64_t max_sweeps, double tolerance, SolveStats& stats, SolveReport& report,
                         SolveProgress* progress, Sweeps sweeps) {
    std::optional<gpu::PowerSweeps> run = device_power_sweeps(
        [&](std::uint64_t block_states, const std::function<bool(double)>& after_sweep) {
          return std::optional<gpu::PowerSweeps>(((*chain_).*sweeps)(max_sweeps, block_states, after_sweep));
        },
        size(), chain_->entries(), max_sweeps, tolerance, stats, &report, progress);
    return std::move(*run);  // the run above always gives one
  }

  std::unique_ptr<gpu::ResidentChain> chain_;
};

// Whether states are 0, 1, ..., the model's every state: then the BSCC's rows are the
// model's own.
bool whole_model(const SparseMdp& mdp, const std::vector<std::uint32_t>& states) {
  if (states.size() != mdp.num_states()) return false;
  std::atomic<bool> identity = true;
  parallel_indices(0, states.size(), 1 << 14, [&](std::size_t i) {
    if (states[i] != i) identity.store(false, std::memory_order_relaxed);
  });
  return identity;
}

// The BSCC's rows in local numbers (bottom_chain.h's local), one per state: plain
// arrays that gpu::ChainRows views.
struct LocalRows {
  PackedOffsets starts;
  PodVector<std::uint32_t> columns;
  CompactValues values;
};
LocalRows local_rows(const SparseMdp& mdp, const std::vector<std::uint32_t>& states,
                     std::vector<std::uint32_t>& local) {
  const std::size_t n = states.size();
  write_local(mdp, states, local);
  PodVector<std::uint64_t> starts(n + 1);
  starts[0] = 0;
  parallel_indices(0, n, 1 << 14, [&](std::size_t i) {
    starts[i + 1] = mdp.row_starts[states[i] + 1] - mdp.row_starts[states[i]];
  });
  parallel_running_totals(starts.data() + 1, n);
  PodVector<std::uint32_t> columns(starts[n]);
  PodVector<double> values(starts[n]);
  parallel_indices(0, n, 1 << 12, [&](std::size_t i) {
    std::uint64_t at = starts[i];
    for (std::uint64_t k = mdp.row_starts[states[i]]; k < mdp.row_starts[states[i] + 1]; ++k, ++at) {
      columns[at] = local[mdp.columns[k]];
      values[at] = mdp.values[k];
    }
  });
  return {PackedOffsets(starts), std::move(columns), CompactValues(std::move(values))};
}

// The chain resident on the device, where one is usable and the chain and its steps
// fit the device budget; else none (a device that failed said so in the log).
std::unique_ptr<BottomSolver> resident_solver(const SparseMdp& mdp, const std::vector<std::uint32_t>& states,
                                              std::vector<std::uint32_t>& local, const DeviceOptions& device) {
  // One row a state (a DTMC's): row s is state s's.
  if (mdp.num_choices() != mdp.num_states() || !use_device_for(states.size(), device)) return nullptr;
  const std::optional<std::size_t> budget = device_budget_now(device);
  if (!budget) return nullptr;
  const auto start = std::chrono::steady_clock::now();
  std::optional<LocalRows> gathered;
  gpu::ChainRows rows{states.size(), &mdp.row_starts, mdp.columns.data(), device_view(mdp.values)};
  if (!whole_model(mdp, states)) {
    gathered = local_rows(mdp, states, local);
    rows = {states.size(), &gathered->starts, gathered->columns.data(), device_view(gathered->values)};
  }
  try {
    std::unique_ptr<gpu::ResidentChain> chain = gpu::make_resident_chain(rows, *budget);
    if (!chain) return nullptr;
    spdlog::debug("stationary distribution of {} states: {} rows, uploaded in {:.3f} s, transposed on the device in "
                  "{:.3f} s ({:.3f} s in all)",
                  states.size(), gathered ? "its gathered" : "the model's", chain->upload_s(), chain->transpose_s(),
                  seconds_since(start));
    return std::make_unique<ResidentBottomSolver>(std::move(chain));
  } catch (const gpu::DeviceError& error) {
    spdlog::warn("{}; the stationary distribution's chain is transposed on the CPU instead", error.what());
    return nullptr;
  }
}

// The index of the largest entry, or none where an entry is not finite.
std::optional<std::size_t> likeliest_of(const std::vector<double>& pi) {
  for (double p : pi) {
    if (!std::isfinite(p)) return std::nullopt;
  }
  return std::max_element(pi.begin(), pi.end()) - pi.begin();
}

// The linear system solves for the other states' probabilities relative to the
// reference's, which must not be vanishingly small (a full queue's, 1e-100 of an empty
// one's): the first reference is the likeliest state after a few sweeps of power
// iteration from the uniform distribution. A few rough sweeps of a chain that mixes
// slowly (cluster N=512's 9.5M states) can pick a reference far less likely than
// others, whose system then spans many orders of magnitude and defeats BiCGStab; so
// where a solve gives up, its estimate's likeliest state becomes the next one's
// reference (up to kAttempts solves). Power iteration takes over where they all give
// up.
std::vector<double> stationary_by(BottomSolver& solver, std::size_t n, const SolverOptions& options,
                                  SolveReport& report) {
  constexpr std::uint64_t kRoughSweeps = 32;
  constexpr unsigned kAttempts = 3;
  const double sweeps_tolerance = options.stop.epsilon * kSweepsShare;
  const auto start = std::chrono::steady_clock::now();
  std::size_t reference = solver.likeliest_after_sweeps(kRoughSweeps, sweeps_tolerance, report);
  spdlog::debug("stationary distribution of {} states: {} rough sweeps in {:.3f} s", n, kRoughSweeps,
                seconds_since(start));
  const SolverOptions krylov = krylov_options(options);
  for (unsigned attempt = 1;; ++attempt) {
    KrylovAttempt solved = solver.solve_embedded(reference, krylov, report);
    if (solved.converged) return std::move(solved.pi);
    const std::optional<std::size_t> likeliest = likeliest_of(solved.pi);
    if (attempt == kAttempts || !likeliest || *likeliest == reference) break;
    spdlog::debug("stationary distribution of {} states: the linear solve gave up; again with its likeliest state", n);
    reference = *likeliest;
  }
  spdlog::debug("stationary distribution of {} states: power iteration", n);
  SolveProgress progress("power iteration (mass moved a sweep)", n);
  return solver.power_sweeps(options.stop.max_sweeps, sweeps_tolerance, report.stats, report, &progress);
}

}  // namespace

std::vector<double> bottom_stationary_distribution(const SparseMdp& mdp, const std::vector<std::uint32_t>& states,
                                                   std::vector<std::uint32_t>& local, const SolverOptions& options,
                                                   const DeviceOptions& device, SolveReport& report) {
  if (std::unique_ptr<BottomSolver> resident = resident_solver(mdp, states, local, device)) {
    const SolveReport before = report;
    try {
      return stationary_by(*resident, states.size(), options, report);
    } catch (const gpu::DeviceError& error) {
      spdlog::warn("{}; the stationary distribution is solved again with its chain transposed on the CPU", error.what());
      report = before;
    }
  }
  HostBottomSolver host(mdp, states, local, device);
  return stationary_by(host, states.size(), options, report);
}

}  // namespace mdpvi
