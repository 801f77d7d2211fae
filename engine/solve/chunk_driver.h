#pragma once
// Every SolveRequest is answered here, whatever its method: the SCCs (in solving
// order) are merged greedily into chunks whose device footprint (the method's)
// fits the budget; each chunk is solved on the device, or on the CPU when there is
// no device, when the CPU is asked for, when a single SCC alone exceeds the budget,
// when it holds trivial SCCs only (one exact pass), or when the device fails. A
// chunk's entries into states of earlier chunks are final by then and become part
// of its b. With several chunks, they are on the device one at a time, each as large
// as the budget allows; the next one's matrix is prepared on the host while the
// current one is solved.
#include "engine/solve/method_policy.h"
#include "engine/solve/solve_request.h"

#include <optional>
#include <stdexcept>
#include <vector>

namespace mdpvi {

struct Chunk {
  std::size_t first_scc = 0, end_scc = 0;
  std::uint64_t first_state = 0, end_state = 0;
  std::size_t footprint_bytes = 0;  // upper bound on the device memory it needs
  bool fits = true;                 // false: a single SCC over the budget
};

// Consecutive SCCs in chunks, each as many as fit the budget (an SCC alone over it is a
// chunk that does not fit). Pre: budget_bytes > 0. The footprints are the method's.
// The reference takes SCCs one at a time; plan_chunks bisects, with the same chunks.
std::vector<Chunk> plan_chunks(const MaybeSystem& system, std::size_t budget_bytes, const MethodPolicy& method);
std::vector<Chunk> plan_chunks_reference(const MaybeSystem& system, std::size_t budget_bytes, const MethodPolicy& method);

enum class SolverKind { automatic, gpu, cpu };

// How the device solves a chunk: level by level (acyclic levels one pass each, each
// level with cycles iterated on its own), or as one Jacobi system (whole); automatic
// picks by the rule in chunk_driver.cpp.
enum class DeviceSchedule { automatic, levels, whole };

struct DeviceOptions {
  SolverKind solver = SolverKind::automatic;
  std::optional<std::size_t> memory_limit_bytes{};// the chunk budget; default: free memory less a margin
  gpu::GroupShape group{};                        // lanes per state on the GPU; 0 lanes = automatic
  DeviceSchedule schedule = DeviceSchedule::automatic;
  // How a maybe-state system built on the device is kept there (gpu/device_system.h);
  // with a chunk budget, automatic is a view (solved whole where it fits the budget).
  gpu::SystemStorage system_storage = gpu::SystemStorage::automatic;
  // How a maybe-state system built on the host is kept there: copy (its own matrix in
  // solving order), view (maybe_system.h's SystemView: each chunk copied from the
  // model's rows as it goes to the device; solved on a GPU only), or automatic: a copy
  // where it fits the host's unused memory, else a view where one can be solved.
  gpu::SystemStorage host_system = gpu::SystemStorage::automatic;
  // A view's rows on the CPU are written this many bytes of a copy's arrays at a time
  // (engine/solve/view_windows.h), an SCC over it alone: small beside a large model's
  // other arrays, and enough for many levels' work for the cores.
  std::uint64_t view_window_bytes = std::uint64_t{8} << 20;
  // false: every system is built on the host and uploaded in chunks (for comparisons).
  bool systems_on_device = true;
  // false: a host-built system's chunks after the first are copied on the host and
  // uploaded, never cut on the device from its rows (for comparisons).
  bool chunks_cut_on_device = true;
  // The devices an SCC too large for one device's chunks is spread over, in parts
  // (engine/solve/scc_sweeps.h): 0, all; 1, none (the CPU solves it). Two or more,
  // given: a plan's chunks also take turns over them (engine/solve/chunk_feeder.h), and
  // a system built on the host that fits one device is put on each of them, each
  // level's SCCs spread over them (a level's SCCs read only lower levels).
  std::uint32_t gpus = 0;
};

// Whether a chunk of trivial SCCs only, of this many states, goes to the device (else
// the CPU's level-parallel pass solves it): the rule the driver applies, for callers
// that decide before the system exists (engine/check/reachability.cpp).
bool acyclic_goes_to_device(std::uint64_t states, DeviceSchedule schedule);

// Whether a chain of this many states goes to the device: always where the GPU is
// required, never where the CPU is; otherwise from 10,000 states, below which the
// device's start (its context where no search opened it, the upload) costs more
// than its steps save (tandem c=127's 32,640 states: a step 59 us on 16 cores, 3.7 us
// on the device; bench/NOTES.md, session 7).
bool device_worth_starting(std::uint64_t states, const DeviceOptions& device);

// Whether work of this many states outside the chunk driver (uniformisation's steps,
// the stationary power sweeps) goes to the device: worth starting there and one
// usable. Throws std::runtime_error where the options require the GPU and none is
// usable.
bool use_device_for(std::uint64_t states, const DeviceOptions& device);

// The device memory work outside the chunk driver may hold: the chunk budget where
// the options set one, else the current device's free memory less a margin; none
// without a device.
std::optional<std::size_t> device_budget_now(const DeviceOptions& options);

// A run of steps on the device outside the chunk driver (uniformisation's steps, the
// stationary power sweeps: one SCC, one row a state), added to report as its chunk,
// with its device bytes (what it held; in_use_bytes, measured at its end, 0 where not
// measured) and the device's name.
struct DeviceRun {
  std::uint64_t states = 0, entries = 0, steps = 0;
  double upload_s = 0.0, solve_s = 0.0;
  std::size_t device_bytes = 0, in_use_bytes = 0;
};
void add_device_run(SolveReport& report, const DeviceRun& run);

// Whether the options let a GPU solve and one is usable.
bool gpu_may_solve(const DeviceOptions& device);

// How a system built on the host keeps its values: as the model does where a device
// will take it (in chunks, 1 or 2 bytes an entry), else plain for the CPU's sweeps.
SystemValues host_system_values(const DeviceOptions& device);

// A system built on the device (MaybeSystem::on_device) could not be solved there; it
// has no host arrays for the CPU, so the caller builds it on the host and solves again.
class DeviceSystemFailed : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Under the default method, a level of a system built on the device where optimistic
// value iteration crawls (method_policy.h's kDeviceCrawlSweeps): policy iteration would take
// it, and its steps need the host's matrix, so the caller builds the system on the
// host and solves it under policy iteration (which still takes optimistic value
// iteration per chunk where that does not crawl).
class DeviceSystemCrawls : public DeviceSystemFailed {
  using DeviceSystemFailed::DeviceSystemFailed;
};

// Throws std::runtime_error when the GPU is required (SolverKind::gpu) and absent,
// and from the methods (interval iteration: no upper bound verified). Device
// failures otherwise fall back to the CPU with a warning, same answer.
SolveResult solve(const SolveRequest& request, const DeviceOptions& device);

// The most device memory a solve's chunks held at once: the largest chunk on the
// device (they are there one at a time); chunks solved on the CPU hold none.
std::size_t peak_device_bytes(const std::vector<ChunkReport>& chunks);

}  // namespace mdpvi
