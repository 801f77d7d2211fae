#pragma once
// The host loop every device method runs its sweeps in, written once. Reading a
// sweep's result back costs a synchronisation (~10-20 us), as much as a whole sweep
// of a small chunk, so sweeps run in batches, each writing its result to its own
// slot, and a batch is read at once. Batches grow with the sweeps done so far (at
// most a tenth of them), so sweeps past convergence stay under ~10%; they only bring
// the values closer to the fixed point. Internal to gpu/.
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace mdpvi::gpu::detail {

inline constexpr std::size_t kMaxBatch = 64;

// launch(slot) enqueues one sweep that writes its result to slot; finished(count)
// reads the batch's count results and says whether to stop. With read_results
// false (a fixed number of sweeps) nothing is read and all max_sweeps run.
// Returns the sweeps run.
template <typename Launch, typename Finished>
std::uint64_t run_in_batches(std::uint64_t max_sweeps, bool read_results, Launch launch, Finished finished) {
  std::uint64_t sweeps = 0;
  bool done = false;
  while (!done && sweeps < max_sweeps) {
    std::size_t batch = std::clamp<std::uint64_t>(sweeps / 10, 1, kMaxBatch);
    batch = std::min<std::uint64_t>(batch, max_sweeps - sweeps);
    for (std::size_t slot = 0; slot < batch; ++slot) launch(slot);
    sweeps += batch;
    if (read_results) done = finished(batch);
  }
  return sweeps;
}

}  // namespace mdpvi::gpu::detail
