#include "engine/solve/spread_levels.h"

#include <exception>
#include <future>

namespace mdpvi {

std::vector<LevelSegment> split_level(const MaybeSystem& system, const LevelSegment& level, std::uint64_t chunk_first,
                                      std::size_t parts) {
  const auto local = [&](std::size_t scc) { return static_cast<std::uint32_t>(system.scc_starts[scc] - chunk_first); };
  const std::uint64_t first_state = system.scc_starts[level.first_scc];
  const std::uint64_t states = system.scc_starts[level.end_scc] - first_state;
  std::vector<LevelSegment> groups;
  std::size_t begin = level.first_scc;
  for (std::size_t scc = level.first_scc; scc < level.end_scc; ++scc) {
    // The group ends with this SCC where it reaches the next share, or at the level's end.
    const std::uint64_t done = system.scc_starts[scc + 1] - first_state;
    const std::uint64_t share = states * (groups.size() + 1) / parts;
    if (done >= share || scc + 1 == level.end_scc) {
      groups.push_back({level.acyclic, begin, scc + 1, {local(begin), local(scc + 1)}});
      begin = scc + 1;
    }
  }
  return groups;
}

std::vector<DeviceChunkJob> jobs_on_each_device(const DeviceChunkJob& job) {
  std::vector<DeviceChunkJob> jobs;
  const auto on = [&](gpu::DeviceSolver& device, int ticket) {
    DeviceChunkJob each{device, ticket, job.states, job.first_scc, job.end_scc, job.row_constants};
    each.b_on_device = job.b_on_device;
    each.by_levels = job.by_levels;
    each.cyclic = job.cyclic;
    jobs.push_back(std::move(each));
  };
  on(job.device, job.ticket);
  for (const DeviceReplica& r : job.replicas) on(*r.device, r.ticket);
  return jobs;
}

void on_each(std::size_t n, const std::function<void(std::size_t)>& f) {
  std::vector<std::future<void>> running;
  for (std::size_t i = 1; i < n; ++i) running.push_back(std::async(std::launch::async, f, i));
  std::exception_ptr first;
  try {
    if (n > 0) f(0);
  } catch (...) {
    first = std::current_exception();
  }
  for (std::future<void>& r : running) {
    try {
      r.get();
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

}  // namespace mdpvi
