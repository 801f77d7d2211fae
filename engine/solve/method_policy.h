#pragma once
// What a solving method contributes to the chunk driver: the device memory a chunk
// needs, how a run of SCCs is solved on the CPU, and how a resident chunk is solved
// on the device. Everything else (planning, preparing and uploading chunks, the
// fallback to the CPU, reports) is the driver's, shared by every method.
#include "engine/solve/bellman.h"
#include "engine/solve/solve_progress.h"
#include "engine/solve/solve_request.h"
#include "engine/model/state_numbers.h"
#include "gpu/device_solver.h"

#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <vector>

namespace mdpvi {

class SccSweeps;
struct LowerRun;

// The iterates of the whole system, per local state, each with a second buffer for
// the CPU's sweeps. Outside the SCC being solved both buffers of a pair agree, so a
// sweep may read any column from either. Value iteration uses lower alone. The
// second buffers are made when a CPU solve first needs them: a system solved on the
// device never does (filling them costs a pass over four model-sized vectors).
struct Iterates {
  PodVector<double> lower, lower_next, upper, upper_next;
  // The value every state of an iterate starts at, where it is one (a chunk not yet
  // solved still holds it: the device fills it rather than copying it).
  std::optional<double> lower_start, upper_start;

  // upper_unwritten: the upper iterate sized, not written here, for a system built
  // on the device, which starts its own there: the driver has it written beside the
  // device's solve (write_upper_beside), before the values come back into it.
  Iterates(const SolveRequest& request, bool with_upper, bool upper_unwritten = false);
  // The device's inputs for binding the iterates of states [first, ...): the host's
  // values, or where they start at a constant, that constant.
  void start_of(std::uint64_t first, gpu::DeviceSolver::BoundInputs& inputs) const;
  // The range's values back to where they start (the device solves into the
  // iterates themselves: after its failure, the CPU starts its chunk afresh). A lower
  // iterate with neither a start value nor start values (lower_start reset: a method
  // raised it from below) keeps its values, which are below the fixed point.
  void restart(const SolveRequest& request, StateRange range);
  // Before sweeps on the CPU: the second buffers, copies of the first, if not made yet.
  void make_second_buffers();
  // Reads the first buffers, writes the second ones. (The buffers are never swapped
  // whole: SCCs of one level are solved at the same time, each over its own range.)
  IntervalIterates interval_view() { return {lower.data(), upper.data(), lower_next.data(), upper_next.data()}; }
  // Copies the range of each iterate into its second buffer, where there is one.
  void sync(StateRange range);
  // Writes an upper iterate left unwritten (its start) on all cores, on a thread of
  // its own: beside the device's solve of a system built there, so that the copy back
  // of its values faults no pages in (bench/NOTES.md, session 22). Pre: nothing reads
  // or writes the upper iterate's host values until await_written().
  void write_upper_beside();
  // Before a device's values are copied back into the first buffers: that writing done.
  void await_written() const;

 private:
  // Last: done before the buffers are freed.
  std::shared_future<void> upper_written_;
};

// A chunk resident on the device, as a method solves it.
// The same chunk resident on another device, for a chunk spread over several.
struct DeviceReplica {
  gpu::DeviceSolver* device = nullptr;
  int ticket = -1;
};

// The rows of a chunk whose b reads earlier chunks, chunk-local and increasing, and b
// there for each iterate (upper empty without an upper iterate): the other rows' b is
// the system's (engine/solve/prepared_chunk.h's corrections_from_rows).
struct RowCorrections {
  PodVector<std::uint64_t> rows;
  PodVector<double> lower, upper;
  bool with_upper = false;  // an upper iterate's b too, even where no row is corrected

  gpu::RowCorrectionsView view() const {
    return {rows.size(), rows.data(), lower.data(), with_upper ? upper.data() : nullptr, with_upper};
  }
};

struct DeviceChunkJob {
  gpu::DeviceSolver& device;
  int ticket = -1;
  StateRange states;  // the chunk's local states, a range of the system's
  std::size_t first_scc = 0, end_scc = 0;
  // b of the chunk's rows, with its entries into earlier chunks taken from `final`
  // (an iterate of the whole system, final before the chunk). Returns the system's
  // own b where nothing precedes the chunk, else fills and returns storage.
  std::function<const double*(const double* final, PodVector<double>& storage)> row_constants;
  // Where the chunk was cut on the device with its rows' b: b's corrections for the
  // final lower and upper iterates (upper none: no upper iterate), bound in place of
  // both b (BoundInputs::corrections), once. Empty otherwise.
  std::function<RowCorrections(const double* lower, const double* upper)> corrections;
  // The chunk's b is its own on the device (a system built there, MaybeSystem::on_device):
  // row_constants is not called, and the vectors are bound with own_b (bound_inputs).
  bool b_on_device = false;
  // Solve level by level (level_segments) rather than iterate the chunk as a whole.
  bool by_levels = false;
  const std::vector<std::uint8_t>* cyclic = nullptr;  // cyclic_levels of the system (the driver has them)
  // The chunk on other devices too (by levels only): a level's SCCs are then spread
  // over all of them (engine/solve/interval_iteration.cpp). Empty: this device alone.
  std::vector<DeviceReplica> replicas{};
};

// The device's inputs for binding a chunk's vectors: b_lower and b_upper (null: no
// upper iterate), or, where the chunk's b is on the device (job.b_on_device), that
// for each iterate x has; the iterates' starts as x has them.
gpu::DeviceSolver::BoundInputs bound_inputs(const DeviceChunkJob& job, const Iterates& x, const double* b_lower,
                                            const double* b_upper);

// A chunk's levels as the device solves them: a run of acyclic levels (trivial SCCs
// only), one exact pass each, or a single level with cycles, iterated on its own.
struct LevelSegment {
  bool acyclic = true;
  std::size_t first_scc = 0, end_scc = 0;
  std::vector<std::uint32_t> level_starts;  // chunk-local state boundaries: levels + 1 (with cycles: 2)
};

// Per level of the system: 1 where some SCC of it is not trivial (computed in
// parallel: a system may have as many SCCs as states).
std::vector<std::uint8_t> cyclic_levels(const MaybeSystem& system);

// The segments of the chunk of SCCs [first_scc, end_scc), in chunk-local states.
std::vector<LevelSegment> level_segments(const MaybeSystem& system, const std::vector<std::uint8_t>& cyclic,
                                         std::size_t first_scc, std::size_t end_scc);

// The first height level with cycles (cyclic.size(): none).
std::size_t first_cyclic_level(const std::vector<std::uint8_t>& cyclic);

// A run of acyclic levels of a chunk on the device: one exact pass each, on the
// chunk's bound vectors (from final inputs, as the CPU's trivial SCCs).
gpu::ChunkSolveStats pass_acyclic_segment(const DeviceChunkJob& job, const LevelSegment& segment, Optimization direction);

// The height level of SCC scc (the first h with level_starts[h + 1] > scc).
std::size_t level_of(const MaybeSystem& system, std::size_t scc);

// Where each height level's states begin within chunk (num_levels + 1 offsets,
// chunk-local: levels outside it are empty at its ends).
std::vector<std::uint64_t> level_state_starts(const MaybeSystem& system, StateRange chunk);

// Whether any level that SCCs [first_scc, end_scc) touch has cycles.
bool touches_cyclic_level(const MaybeSystem& system, const std::vector<std::uint8_t>& cyclic, std::size_t first_scc,
                          std::size_t end_scc);

// How many of SCCs [first_scc, end_scc) are not trivial.
std::size_t count_iterated(const MaybeSystem& system, std::size_t first_scc, std::size_t end_scc);

// Whether SCCs [first_scc, end_scc) are all trivial.
bool all_trivial(const MaybeSystem& system, std::size_t first_scc, std::size_t end_scc);

// Whether every SCC of the system is trivial (one state, no self-loop): in parallel,
// and at once false where some SCC has several states.
bool without_cycles(const MaybeSystem& system);

// How many levels SCCs [first_scc, end_scc) span.
std::size_t levels_spanned(const MaybeSystem& system, std::size_t first_scc, std::size_t end_scc);

class MethodPolicy {
 public:
  virtual ~MethodPolicy() = default;

  // Where the sweeps are told of (the chunk driver's SolveProgress; none: not told).
  void report_progress_to(SolveProgress* progress) { progress_ = progress; }

  virtual bool has_upper_iterate() const = 0;
  // False for a method with no device kernels: the driver keeps every chunk on the CPU.
  virtual bool runs_on_device() const { return true; }
  // False for a method that solves a device chunk as one system whatever its levels.
  virtual bool solves_by_levels() const { return true; }
  // Whether a chunk cut on the device binds its b as the rows' b and corrections
  // (DeviceChunkJob::corrections): the rows' b then goes up with the rows. Else the
  // host's b is bound, and the rows' b would only take device memory.
  virtual bool corrects_b_on_device() const { return false; }
  // Upper bound of the device memory a chunk of this size needs.
  virtual std::size_t footprint_bytes(std::uint64_t states, std::uint64_t rows, std::uint64_t entries) const = 0;
  // Solves SCCs [first_scc, end_scc) in order. Pre: x holds the final iterates of
  // all earlier SCCs; afterwards it does for these too.
  virtual void solve_sccs_on_cpu(std::size_t first_scc, std::size_t end_scc, Iterates& x, SolveStats& stats) = 0;
  // Makes what solving SCCs would otherwise make lazily (interval iteration's width
  // targets), before SCCs are solved at the same time (for_each_level): made inside
  // one of them, a oneTBB thread waiting for its own parallel loop could run another
  // SCC that waits for the same thing, and never return.
  virtual void prepare_cpu_sccs() {}
  // Each SCC's width target (interval iteration's, made when first asked for), for a
  // method that hands SCCs on to this one and needs the same (policy iteration);
  // null for a method without them.
  virtual const PodVector<double>* width_targets() { return nullptr; }
  // Solves iterated SCC scc whose lower iterate the sweeps of prior (value
  // iteration's) have raised already, from a method handing SCCs on (policy
  // iteration), counting them as its own. By default, solve_sccs_on_cpu with the
  // sweeps added to stats.
  virtual void finish_scc_on_cpu(std::size_t scc, const LowerRun& prior, Iterates& x, SolveStats& stats);
  // Solves a chunk on the device into x (same pre and post). Throws gpu::DeviceError.
  virtual gpu::ChunkSolveStats solve_chunk_on_device(const DeviceChunkJob& job, Iterates& x, SolveStats& stats) = 0;

 protected:
  SolveProgress* progress_ = nullptr;
};

// The policy of request's method (value iteration whenever the stop rule fixes the
// number of sweeps: bounds of a fixed number of steps are exact).
std::unique_ptr<MethodPolicy> make_method_policy(const SolveRequest& request);

// The device memory of a chunk's matrix (offsets, columns, values) alone.
std::size_t matrix_bytes(std::uint64_t states, std::uint64_t rows, std::uint64_t entries);

// The least a plain value-iteration sweep moves: the matrix, b, and the value vector
// read once and written once (value iteration's footprint, and the traffic the
// reports' bandwidth is measured against).
std::size_t plain_sweep_bytes(std::uint64_t states, std::uint64_t rows, std::uint64_t entries);

// Parallel value-iteration sweeps of the lower iterate over range, at most budget
// (Pre: budget >= 1), until one changes it by less than precision (with fixed, never:
// all budget sweeps). Afterwards both buffers agree on the range.
struct LowerRun {
  std::uint64_t sweeps = 0;
  double change = 0.0;  // the last sweep's largest change
  double rate = 1.0;    // the factor by which the largest change fell per sweep, lately (1: unknown)
};

inline void MethodPolicy::finish_scc_on_cpu(std::size_t scc, const LowerRun& prior, Iterates& x, SolveStats& stats) {
  stats.iterations += prior.sweeps;
  solve_sccs_on_cpu(scc, scc + 1, x, stats);
}
LowerRun sweep_lower(const SolveRequest& request, SolveProgress* progress, StateRange range, Iterates& x,
                     double precision, std::uint64_t budget, bool fixed = false);
// The same over given sweeps (engine/solve/scc_sweeps.h), which it syncs at the end.
LowerRun sweep_lower(SccSweeps& sweeps, SolveProgress* progress, double precision, std::uint64_t budget,
                     bool fixed = false);

// The per-sweep factor by which the largest change fell from earlier to last over
// gap sweeps; 1 where that says nothing (no gap, no change, or no fall).
double convergence_rate(double earlier, double last, std::uint64_t gap);

// On a level of a system built on the device, the default method's optimistic value
// iteration crawls past this many sweeps (interval_iteration.cpp's run_or_hand_back).
inline constexpr std::uint64_t kDeviceCrawlSweeps = 10000;

// The change at which value iteration converging at rate is within distance of its
// fixed point: the remaining changes sum to at most change * rate / (1 - rate) if
// the rate holds. An estimate, for a guess that is then verified.
double change_within(double distance, double rate);

// gpu::SweepSettings of a request (no group shape: each resident chunk has its own,
// given at upload).
gpu::SweepSettings sweep_settings(const SolveRequest& request, SolveProgress* progress);

// Solves a trivial SCC (one state without a self-loop) by its one Bellman update of the
// lower iterate, from the final values it depends on.
void solve_trivial_scc(const SolveRequest& request, StateRange range, Iterates& x);

// The same for both iterates of interval iteration (and the methods that keep two),
// each from its own final inputs; state is the SCC's one state.
void solve_trivial_scc_both(const SolveRequest& request, std::uint64_t state, Iterates& x);

// True when SCC scc is one state without a self-loop: one Bellman update solves it.
bool is_trivial_scc(const MaybeSystem& system, std::size_t scc);

// Solves SCCs [first_scc, end_scc) level by level (MaybeSystem::level_starts): a
// level's trivial SCCs at once, in parallel (trivial(scc) writes its own state only),
// then its other SCCs (iterated(scc, its stats), parallel inside), at the same time
// where there are several and concurrent is set, each into stats of its own, added
// to stats in SCC order. The SCCs of a level depend on lower levels only, so this is
// as exact as the SCC order. Not concurrent where an SCC's sweeps take the devices
// (SolverOptions::partitions_on_devices) or each SCC must have all cores. prepare,
// where given, runs once on the calling thread before the first iterated SCC
// (MethodPolicy::prepare_cpu_sccs), and not at all where every SCC is trivial.
void for_each_level(const MaybeSystem& system, std::size_t first_scc, std::size_t end_scc,
                    const std::function<void(std::size_t)>& trivial,
                    const std::function<void(std::size_t, SolveStats&)>& iterated, SolveStats& stats,
                    bool concurrent, const std::function<void()>& prepare = {});

// Whether a request's iterated SCCs of one level may be solved at the same time
// (for_each_level): not where they are swept in parts (on several devices or MPI
// ranks, which must take the SCCs in one order).
bool sccs_concurrent(const SolveRequest& request);

// An SCC or chunk that stopped at max_sweeps; report_not_converged records and says it.
struct NotConverged {
  const char* method;   // "value iteration", ...
  const char* unit;     // "an SCC", "a chunk"
  std::uint64_t sweeps = 0, states = 0;
  const char* measure;  // "last change", "width"
  double reached = 0.0, target = 0.0;
};
void report_not_converged(SolveStats& stats, const NotConverged& what);

}  // namespace mdpvi
