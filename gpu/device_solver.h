#pragma once
// The CUDA backend of the chunk driver (engine/solve/chunk_driver.h): chunks of the
// maybe-state system resident on the device, iterated by fused sweep kernels.
// Plain C++ header: the engine includes it without CUDA. Built without CUDA,
// open_device() returns nullptr and nothing else here is called.
//
// A chunk is a square system over its own states: x(s) = opt over the rows r of s of
// ( b(r) + sum_k P(r,k) * x(column k) ), every column inside the chunk (the engine has
// folded entries into yes-states and into chunks solved earlier into b).
#include "engine/numeric/bicgstab_steps.h"
#include "gpu/device_system.h"
#include "engine/numeric/optimistic_guess.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mdpvi::gpu {

// What the choice of a window's lanes (choose_window_shape) reads of it: its states,
// rows and entries, and where it is short of the device (fewer states than
// concurrent threads), the sum over its rows of the squared row length (a typical
// entry's row). From host arrays, or counted on the device for a chunk that has none
// there (an adopted system).
struct WindowRows {
  std::uint64_t states = 0, rows = 0, entries = 0;
  double squares = 0.0;
};

struct ChunkMatrix {  // host arrays, chunk-local indices
  std::uint32_t num_states = 0;
  std::uint64_t num_rows = 0;
  std::uint64_t num_entries = 0;
  const std::uint64_t* row_group_starts = nullptr;  // num_states + 1, starting at 0
  const std::uint64_t* row_starts = nullptr;        // num_rows + 1, starting at 0
  const std::uint32_t* columns = nullptr;
  // Plain doubles, or indices into a table of the distinct values (a host-built
  // system's chunk indexed for its upload: 1 or 2 bytes an entry cross PCIe and are
  // read by every sweep, where 8 were).
  ValuesView values;
};

// A chunk's rows where they lie in the whole system's arrays: offsets and columns
// system-wide, so the host uploads them as they are (no copy). The device cuts its
// chunk from them (upload_rows): the row offsets rebased, each entry into a state
// before first_state dropped (the host folds those into b), the others renumbered
// from it, in the system's order: engine/solve/prepared_chunk.h's inside arrays.
struct SystemRows {
  std::uint32_t first_state = 0, num_states = 0;
  std::uint64_t num_rows = 0, num_entries = 0;        // all of the rows' entries
  const std::uint64_t* row_group_starts = nullptr;  // num_states + 1, system-wide rows
  const std::uint64_t* row_starts = nullptr;        // num_rows + 1, system-wide entries
  const std::uint32_t* columns = nullptr;           // num_entries, system-wide states
  ValuesView values;                                // num_entries
  // The system's b of the rows (num_rows), or none: b's part that no earlier chunk
  // changes, uploaded with the rows (BoundInputs::corrections then gives the rest).
  const double* row_constants = nullptr;
};

// The rows of a chunk whose b reads earlier chunks, and b there for the lower iterate
// and, with_upper, the upper: the other rows' b is the system's.
struct RowCorrectionsView {
  std::size_t count = 0;
  const std::uint64_t* rows = nullptr;  // chunk-local, increasing
  const double* lower = nullptr;
  const double* upper = nullptr;  // count values, where with_upper
  bool with_upper = false;        // whether there is an upper iterate (whatever the count)
};

// How a sweep's lanes share a state: `lanes` per state (1, 2, 4, 8, 16 or 32; 0:
// chosen from the chunk), splitting each row's entries among them, or, with
// over_rows, taking the state's rows in turn (each lane sums whole rows: a state's
// many short rows are then read by consecutive lanes from consecutive entries).
struct GroupShape {
  int lanes = 0;
  bool over_rows = false;
};

// How a run of sweeps stops: at convergence (the largest change below epsilon, or
// for interval iteration every state within its target), after max_sweeps, or,
// with fixed_sweeps, after exactly max_sweeps with no convergence test.
struct SweepSettings {
  bool maximize = false;
  bool relative = true;
  double epsilon = 1e-6;
  std::uint64_t max_sweeps = 10000;
  bool fixed_sweeps = false;
  GroupShape group{};  // none (0 lanes): the resident chunk's (upload)
  // The chunk's states the sweeps update, [first_state, end_state) (chunk-local; end
  // clamped to the chunk): a level solved on its own. The others keep their values.
  std::uint32_t first_state = 0;
  std::uint32_t end_state = UINT32_MAX;
  // Told after each batch of sweeps read back: how many, and the last one's largest
  // change (interval iteration: width). For progress reports; may be empty.
  std::function<void(std::uint64_t sweeps, double measure)> on_batch{};
};

struct ChunkSolveStats {
  std::uint64_t iterations = 0;
  bool converged = true;
  double last_measure = 0.0;  // the last sweep's largest change (interval iteration: width)
  // The largest change measure_gap sweeps before the last (0: none read): the two
  // give value iteration's rate of convergence.
  double earlier_measure = 0.0;
  std::uint64_t measure_gap = 0;
  GroupShape group{};
  double upload_s = 0.0;    // how long the solve waited for its matrix, b and start vectors
  double solve_s = 0.0;
  double download_s = 0.0;

  ChunkSolveStats& operator+=(const ChunkSolveStats& later);
};

// A CUDA call failed. OutOfDeviceMemory when it was an allocation.
class DeviceError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};
class OutOfDeviceMemory : public DeviceError {
  using DeviceError::DeviceError;
};

// Interval iteration's inputs beside the matrix: a b per iterate (entries into
// earlier chunks are folded in from their lower and from their upper values) and a
// width target per state.
struct IntervalInputs {  // host arrays
  const double* b_lower = nullptr;  // num_rows
  const double* b_upper = nullptr;  // num_rows
  const double* targets = nullptr;  // num_states
  // The upper start is a guess (rewards): the run is done only once some sweep found
  // B(upper) <= upper everywhere (which proves it an upper bound), and it stops
  // early, unverified, when the upper iterate falls below the lower one.
  bool verify_upper = false;
  // Likewise the lower start (policy iteration's bracket): done only once some sweep
  // also found B(lower) >= lower everywhere.
  bool verify_lower = false;
};

struct IntervalSweepResult {  // of one sweep, as engine/solve/bellman.h's IntervalSweep
  double width = 0.0;
  bool upper_raised = false;
  bool lower_lowered = false;
  bool crossed = false;
  bool above_target = false;  // some state's width exceeds its target
};

// Acyclic levels of a chunk, solved by one exact update each, in order: level i is
// the states [level_starts[i], level_starts[i+1]) (chunk-local), each depending only
// on states of earlier levels or outside the levels (final). With b_upper, both
// iterates of interval iteration are updated; else the one of value iteration.
struct LevelPasses {
  const std::uint32_t* level_starts = nullptr;  // num_levels + 1
  std::size_t num_levels = 0;
  const double* b_lower = nullptr;  // num_rows
  const double* b_upper = nullptr;  // num_rows, or none
  bool maximize = false;
  GroupShape group{};  // as SweepSettings
};

struct IntervalChunkStats {
  ChunkSolveStats stats;  // converged: no state above its target (and verified)
  bool verified = true;   // the upper iterate is proven an upper bound
  bool crossed = false;   // the guessed upper start was below the lower iterate somewhere
};

// BiCGStab on a chunk: stats.iterations are its iterations, stats.converged says the
// true residual met the limits, last_measure is that residual.
struct KrylovChunkStats {
  ChunkSolveStats stats;
  unsigned restarts = 0;
  bool broke_down = false;
};

// Policy iteration's improvement on a chunk (engine/solve/policy_steps.h's contract
// over the chunk's states): each state's row in chosen (row numbers from first_row:
// the system's, where the chunk's rows start there) moves to another only where that
// is better by more than tolerance (relative to the larger value, absolute below
// 1), or, without keep, to its best row (the first of equals). A row is worth
// b(r) + sum_k P(r,k) x(column k), b the chunk's bound policy constants
// (DeviceSolver::bind_policy_constants), or with steps_to_leave 1 + that sum (the
// expected steps before leaving the chunk).
struct ChunkImprovement {
  bool maximize = false;
  bool keep = true;
  double tolerance = 0.0;
  std::uint64_t first_row = 0;
  bool steps_to_leave = false;
};

// Interval iteration's width targets one per height level (engine/solve/
// solve_request.h's level_width_targets), for DeviceSolver::bind_level_width_targets:
// the chunk's states [state_starts[h], state_starts[h + 1]) take targets[h].
struct LevelWidthTargets {  // host arrays
  const std::uint64_t* state_starts = nullptr;  // num_levels + 1, chunk-local, non-decreasing
  const double* targets = nullptr;              // num_levels
  std::size_t num_levels = 0;
};

// One device, its streams and at most two resident chunks: one iterating while the
// next one's matrix is copied on a stream of its own. Methods throw DeviceError.
class DeviceSolver {
 public:
  virtual ~DeviceSolver() = default;

  virtual std::string name() const = 0;
  // Free device memory now.
  virtual std::size_t free_memory() const = 0;
  // Device memory in use now, by everything on the device (the resident graph, this
  // solver's chunks, the CUDA context): what a run takes there, measured.
  virtual std::size_t used_memory() const = 0;

  // Copies a chunk's matrix to the device and returns a ticket: large pageable
  // arrays through locked pieces (gpu/host_copies.cuh), copied when it returns;
  // pinned ones asynchronously. The chunk's sweeps use shape (no lanes:
  // choose_group_shape's). Pre: the arrays stay alive and unchanged until the ticket
  // is released; fewer than two tickets are held.
  virtual int upload(const ChunkMatrix& chunk, GroupShape shape = {}) = 0;
  // The chunk of rows, cut on the device from the rows as they are (SystemRows):
  // copied and cut on a thread of its own, as upload's copy. The device then holds
  // the raw rows and the cut chunk together, once. Its window lanes are counted on
  // the device (no host arrays). Pre: as upload's.
  virtual int upload_rows(const SystemRows& rows, GroupShape shape = {}) = 0;
  // A system built on this device (gpu/device_system.h) as a resident chunk, its
  // arrays taken over (the system no longer holds them), with its own b: bind it
  // with own_b. Its lanes per state are the chunk's in every window (a window's own
  // are sized from host arrays, which it has none of); no BiCGStab. Pre: fewer than
  // two tickets are held.
  virtual int adopt(DeviceSystem& system, GroupShape shape = {}) = 0;
  // Frees a chunk's device memory.
  virtual void release(int ticket) = 0;
  // Waits until the chunk's upload has read all of its host arrays. Two uploads of the
  // same host arrays must not overlap: each locks and unlocks their pages as it goes
  // (gpu/host_copies.cuh), and one's unlock would pull the pages from under the
  // other's copy. Throws the upload's DeviceError.
  virtual void finish_upload(int ticket) = 0;

  // Vectors kept on the device with a resident chunk, for a chunk solved in many
  // calls (level by level, or a guess and its verification): the calls below given
  // no b then use these, start from where the last call left them, and keep their
  // result on the device until read_bound brings the iterates back, once (rather than
  // each call's window through pageable memory, and the iterates copied in and out of
  // the chunk's own host vectors).
  struct BoundInputs {
    const double* b_lower = nullptr;  // num_rows
    const double* b_upper = nullptr;  // num_rows, or none (value iteration)
    const double* targets = nullptr;  // num_states, or none
    const double* lower = nullptr;    // num_states, or none: lower_constant everywhere
    const double* upper = nullptr;    // num_states, or none: upper_constant everywhere (with b_upper)
    // Where the iterates start without host values: filled on the device, not copied
    // (two model-sized iterates, which an acyclic chunk overwrites whole).
    double lower_constant = 0.0;
    double upper_constant = 0.0;
    // An adopted chunk's own b for every iterate, in place of b_lower and b_upper;
    // with_upper then says whether there is an upper iterate.
    bool own_b = false;
    bool with_upper = false;
    // A chunk cut on the device with its rows' b (SystemRows::row_constants): each
    // iterate's b is that, these rows replaced; in place of b_lower and b_upper. A
    // chunk takes this once (its b becomes the lower iterate's).
    const RowCorrectionsView* corrections = nullptr;
  };
  virtual void bind(int ticket, const BoundInputs& inputs) = 0;
  // The bound vectors' width targets (num_states), where bind had none: they may be
  // computed while the iterates upload. Pre: bind.
  virtual void bind_targets(int ticket, const double* targets) = 0;
  // The width targets filled in on the device from one per height level
  // (gpu/level_targets.cuh), where bind_targets would copy one per state. Pre: bind.
  virtual void bind_level_width_targets(int ticket, const LevelWidthTargets& levels) = 0;
  // The bound iterates into lower and upper (num_states each; upper none: not read).
  virtual void read_bound(int ticket, double* lower, double* upper) = 0;
  // States [first, end) of both bound iterates into to's bound iterates of to_ticket,
  // the same chunk resident there (another device's solver: NVLink where the devices
  // have it). Pre: both bound; no sweep of either runs.
  virtual void copy_bound_range_to(int ticket, DeviceSolver& to, int to_ticket, std::uint64_t first,
                                   std::uint64_t end) = 0;
  // The bound lower iterate's values over the settings' window kept in the upper
  // iterate (both buffers), for guess_upper after a few more sweeps.
  virtual void keep_lower_in_upper(int ticket, const SweepSettings& settings) = 0;
  // Optimistic value iteration's guess on the bound vectors over the settings'
  // window: per state guessed_upper (engine/numeric/optimistic_guess.h) from the
  // lower value, the value kept in the upper iterate and the state's target, into
  // both buffers of the upper iterate. Runs no sweep (its stats count none).
  virtual ChunkSolveStats guess_upper(int ticket, const SweepSettings& settings, const GuessParameters& guess) = 0;
  // States [first, end) of the bound upper iterate set to value.
  virtual void fill_upper(int ticket, std::uint32_t first, std::uint32_t end, double value) = 0;

  // Value iteration: sweeps from x (host, num_states values) with the given b
  // (num_rows) until settings say stop; x receives the result. Pre: ticket held.
  // With b null: on the bound vectors, which keep the result; x is not used.
  virtual ChunkSolveStats iterate(int ticket, const double* b, const SweepSettings& settings, double* x) = 0;
  // Interval iteration: the lower and upper iterates in one fused sweep, until no
  // state is above its target (and, with verify_upper, the upper vector is verified),
  // the guess fails, or max_sweeps; both receive the result.
  // With inputs.b_lower null: on the bound vectors, as iterate.
  virtual IntervalChunkStats iterate_interval(int ticket, const IntervalInputs& inputs,
                                              const SweepSettings& settings, double* lower, double* upper) = 0;

  // The passes over acyclic levels, from lower (and upper) (host, num_states each),
  // which receive the result; returns the time (upload_s, solve_s, download_s) and
  // the passes as iterations. With passes.b_lower null: on the bound vectors (both
  // iterates where an upper one is bound), which keep the result.
  virtual ChunkSolveStats pass_levels(int ticket, const LevelPasses& passes, double* lower, double* upper) = 0;

  // BiCGStab (engine/numeric/bicgstab_steps.h) on (I - P) x = b over the whole chunk, from x
  // (host, num_states values), which receives the result. Pre: one row per state (a
  // DTMC).
  virtual KrylovChunkStats solve_linear(int ticket, const double* b, const KrylovLimits& limits, double* x) = 0;

  // Policy iteration's steps on an uploaded chunk (not an adopted one), over its
  // resident matrix: only the vectors cross the bus. bind_policy_constants copies b
  // (host, num_rows) beside the chunk for the steps below (until the next bind or the
  // release). improve_policy improves chosen (host, num_states) under x (host,
  // num_states) as step says and returns how many states took another row (with
  // keep; 0 without).
  virtual void bind_policy_constants(int ticket, const double* b) = 0;
  virtual std::uint64_t improve_policy(int ticket, const ChunkImprovement& step, const double* x,
                                       std::uint64_t* chosen) = 0;
  // BiCGStab, as solve_linear, on the chain of the rows in chosen (numbered from
  // step.first_row; a state's constant its row's bound b, or 1 with
  // step.steps_to_leave), gathered on the device from the resident chunk.
  virtual KrylovChunkStats solve_scheduler(int ticket, const ChunkImprovement& step, const std::uint64_t* chosen,
                                           const KrylovLimits& limits, double* x) = 0;

  // A window's rows as the chunk's sweeps choose its lanes from: counted on the
  // device for an adopted chunk, from the host arrays for an uploaded one; for the
  // equivalence tests.
  virtual WindowRows window_rows(int ticket, std::uint64_t first, std::uint64_t end, bool with_squares) = 0;
  // The bound width targets (num_states), for the equivalence tests.
  virtual void read_bound_targets(int ticket, double* targets) = 0;
  // Single sweeps, for the equivalence tests against engine/solve/bellman.h.
  virtual double sweep_once(int ticket, const double* b, const SweepSettings& settings, const double* x_in,
                            double* x_out) = 0;
  virtual IntervalSweepResult interval_sweep_once(int ticket, const IntervalInputs& inputs,
                                                  const SweepSettings& settings, const double* lower_in,
                                                  const double* upper_in, double* lower_out, double* upper_out) = 0;
};

// The current device; nullptr when there is none usable (or mdpvi was built
// without CUDA).
std::unique_ptr<DeviceSolver> open_device();
// Device index (0 .. usable_device_count() - 1), bound to it whichever thread calls;
// nullptr where there is none such.
std::unique_ptr<DeviceSolver> open_device(int index);

// Free memory of the current device; none without a usable device.
std::optional<std::size_t> free_device_memory();
// The chunk upload_rows cuts from rows, brought back as doubles (for the tests
// against engine/solve/prepared_chunk.h's reference; no row constants). Throws
// DeviceError (always, built without CUDA).
HostSystemArrays cut_on_device(const SystemRows& rows);

// The lanes per state chosen for a chunk: a power of two near its mean row length.
GroupShape choose_group_shape(const ChunkMatrix& chunk);
// The lanes per state for sweeps over the chunk's states [first, end) alone (a level
// solved on its own): as choose_group_shape, except that a window of fewer states
// than the device runs threads at once gets lanes for its long rows, and one of at
// most a quarter of that many states gets 8 lanes at least (unless they go over rows).
GroupShape choose_window_shape(const ChunkMatrix& chunk, std::uint64_t first, std::uint64_t end,
                               std::uint64_t concurrent_threads);
WindowRows window_rows(const ChunkMatrix& chunk, std::uint64_t first, std::uint64_t end, bool with_squares);
GroupShape shape_of_window(const WindowRows& window, std::uint64_t concurrent_threads);

// Device-to-device copy bandwidth (bytes read + written per second), for reports.
double measure_copy_bandwidth(std::size_t bytes);

}  // namespace mdpvi::gpu
