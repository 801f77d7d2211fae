#pragma once
// Value iteration of one chunk of the maybe-state system on a CUDA device.
// Plain C++ header: the engine includes it without CUDA.
//
// A chunk is a square system over its own states: x(s) = opt over the rows r of s of
// ( b(r) + sum_k P(r,k) * x(column k) ), every column inside the chunk (the engine has
// folded entries into yes-states and into chunks solved earlier into b).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <stdexcept>

namespace mdpvi::gpu {

struct ChunkMatrix {  // host arrays, chunk-local indices
  std::uint32_t num_states = 0;
  std::uint64_t num_rows = 0;
  std::uint64_t num_entries = 0;
  const std::uint64_t* row_group_starts = nullptr;  // num_states + 1, starting at 0
  const std::uint64_t* row_starts = nullptr;        // num_rows + 1, starting at 0
  const std::uint32_t* columns = nullptr;
  const double* values = nullptr;
  const double* row_constants = nullptr;  // b, num_rows
};

struct SweepSettings {
  bool maximize = false;
  bool relative = true;
  double epsilon = 1e-6;
  std::uint64_t max_iterations = 10000;
  int group_size = 0;  // lanes per state: 1, 2, 4, 8, 16 or 32; 0 = chosen from the row lengths
};

struct ChunkSolveStats {
  std::uint64_t iterations = 0;
  bool converged = true;
  int group_size = 0;
  double upload_s = 0.0;
  double solve_s = 0.0;
  double download_s = 0.0;
};

// A CUDA call failed. OutOfDeviceMemory when it was an allocation.
class DeviceError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};
class OutOfDeviceMemory : public DeviceError {
  using DeviceError::DeviceError;
};

// The device memory a chunk needs: matrix, b, two value vectors, scratch.
std::size_t chunk_footprint_bytes(std::uint64_t states, std::uint64_t rows, std::uint64_t entries);

// Free memory of the current device; none without a usable device.
std::optional<std::size_t> free_device_memory();
std::string device_name();

// Iterates from x (host, num_states values) until the largest change of a sweep is
// below epsilon or max_iterations; x receives the result. Throws DeviceError.
ChunkSolveStats solve_chunk_on_device(const ChunkMatrix& chunk, const SweepSettings& settings, double* x);

// Interval iteration of one chunk (engine/interval_solver.h): a lower and an upper
// iterate in one fused sweep, which reads the matrix once for both. Each has its own
// b (entries into earlier chunks are folded in from their lower and upper values).
// The chunk is done when every state's width (absolute, or relative to its lower
// value) is within its own target.
struct IntervalInputs {  // host arrays
  const double* b_lower = nullptr;  // num_rows
  const double* b_upper = nullptr;  // num_rows
  const double* targets = nullptr;  // num_states
  // The upper start is a guess (rewards): the chunk is done only once some sweep
  // found B(upper) <= upper everywhere (which proves it an upper bound), and it stops
  // early, unverified, when the upper iterate falls below the lower one.
  bool verify_upper = false;
};

struct IntervalSweepResult {  // of one sweep, as engine/bellman.h's IntervalSweep
  double width = 0.0;
  bool upper_raised = false;
  bool crossed = false;
  bool above_target = false;  // some state's width exceeds its target
};

struct IntervalChunkStats {
  ChunkSolveStats stats;     // converged: no state above its target (and verified)
  bool verified = true;      // the upper iterate is proven an upper bound
  bool crossed = false;      // the guessed upper start was below the lower iterate somewhere
};

// Iterates from lower/upper (host, num_states each) until no state is above its
// target (and, with verify_upper, the upper vector is verified), the guess fails,
// or max_iterations; both receive the result. Throws DeviceError.
IntervalChunkStats solve_chunk_interval_on_device(const ChunkMatrix& chunk, const IntervalInputs& inputs,
                                                  const SweepSettings& settings, double* lower, double* upper);

// One interval sweep on the device, for the equivalence tests.
IntervalSweepResult interval_sweep_once_on_device(const ChunkMatrix& chunk, const IntervalInputs& inputs,
                                                  const SweepSettings& settings, const double* lower_in,
                                                  const double* upper_in, double* lower_out, double* upper_out);

// One sweep x_out = opt(P x_in + b) and its largest change: the CUDA implementation of
// engine/bellman.h's sweep, for the equivalence tests.
double sweep_once_on_device(const ChunkMatrix& chunk, const SweepSettings& settings, const double* x_in, double* x_out);

// Page-locked host memory, so that uploads run asynchronously to the host. Without a
// device (or CUDA) it is ordinary memory. Never returns null: throws std::bad_alloc.
void* allocate_pinned(std::size_t bytes);
void free_pinned(void* pointer) noexcept;

template <typename T>
struct PinnedAllocator {
  using value_type = T;
  PinnedAllocator() = default;
  template <typename U>
  PinnedAllocator(const PinnedAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(allocate_pinned(n * sizeof(T))); }
  void deallocate(T* p, std::size_t) noexcept { free_pinned(p); }
  template <typename U>
  bool operator==(const PinnedAllocator<U>&) const { return true; }
};

// Solves chunks one after the other while the next chunk's matrix is already on its
// way: upload() starts copying a chunk's offsets, columns and values on a copy
// stream and returns at once; solve() waits for that copy, uploads b and x, iterates
// on the compute stream and downloads only x. At most two chunks are on the device.
class ChunkPipeline {
 public:
  ChunkPipeline();
  ~ChunkPipeline();
  ChunkPipeline(const ChunkPipeline&) = delete;
  ChunkPipeline& operator=(const ChunkPipeline&) = delete;

  // Pre: the chunk's arrays stay alive and unchanged until its solve() returns
  // (pinned memory makes the copy asynchronous). Returns the ticket for solve().
  int upload(const ChunkMatrix& chunk);
  // Pre: ticket from upload(); b has chunk.num_rows values (replacing
  // chunk.row_constants), x num_states. Throws DeviceError.
  ChunkSolveStats solve(int ticket, const double* b, const SweepSettings& settings, double* x);

 private:
  struct Slot;
  struct Streams;
  Slot* slots_[2] = {nullptr, nullptr};
  Streams* streams_ = nullptr;
};

// The lanes per state chosen for a chunk: a power of two near its mean row length.
int choose_group_size(const ChunkMatrix& chunk);

// Device-to-device copy bandwidth (bytes read + written per second), for reports.
double measure_copy_bandwidth(std::size_t bytes);

}  // namespace mdpvi::gpu
