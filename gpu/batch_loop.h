#pragma once
// The host loop every device method runs its sweeps in, written once. Reading a
// sweep's result back costs a round trip, as much as a sweep of a level of a few
// hundred thousand states, so sweeps run in batches, each sweep writing its result to its own
// slot, and a batch is read as a whole while the next batch runs: the device does not
// wait for the host. That next batch is the price of stopping; batches grow with the
// sweeps done so far (a twentieth of them, at most kMaxBatch), so that the sweeps
// past convergence, within the batch that converged and the one after it, stay
// under ~10%. They only bring the values closer to the fixed point. (Read in turn,
// one batch at a time, levels with cycles spend most of their time waiting on
// read-backs.) Internal to gpu/.
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace mdpvi::gpu::detail {

inline constexpr std::size_t kMaxBatch = 64;
inline constexpr std::size_t kBatchSlots = 2 * kMaxBatch;  // two batches: one read, one running
inline constexpr std::uint64_t kBatchGrowth = 20;

// launch(slot) enqueues one sweep that writes its result to slot; sent(first, count)
// enqueues the copy back of the batch in slots [first, first + count); finished(first,
// count) waits for that copy, reads it, and says whether to stop. With read_results
// false (a fixed number of sweeps) nothing is sent or read and all max_sweeps run.
// Returns the sweeps run.
template <typename Launch, typename Sent, typename Finished>
std::uint64_t run_in_batches(std::uint64_t max_sweeps, bool read_results, Launch launch, Sent sent, Finished finished) {
  std::uint64_t sweeps = 0;
  std::size_t next_first = 0;
  std::size_t pending_first = 0, pending_count = 0;  // sent and not read yet (0: none)
  while (sweeps < max_sweeps) {
    std::size_t batch = std::clamp<std::uint64_t>(sweeps / kBatchGrowth, 1, kMaxBatch);
    batch = std::min<std::uint64_t>(batch, max_sweeps - sweeps);
    for (std::size_t slot = 0; slot < batch; ++slot) launch(next_first + slot);
    sweeps += batch;
    if (!read_results) continue;
    sent(next_first, batch);
    if (pending_count > 0 && finished(pending_first, pending_count)) return sweeps;
    pending_first = next_first;
    pending_count = batch;
    next_first = kMaxBatch - next_first;
  }
  if (pending_count > 0) finished(pending_first, pending_count);  // the budget's last batch
  return sweeps;
}

}  // namespace mdpvi::gpu::detail
