// Width targets filled in per state from one per height level (gpu/level_targets.cuh):
// a state finds its level among the few level starts by binary search.
#include "gpu/level_targets.cuh"

namespace mdpvi::gpu::detail {

namespace {

__global__ void fill_kernel(const std::uint64_t* __restrict__ starts, const double* __restrict__ targets,
                            std::uint64_t num_levels, std::uint64_t n, float* __restrict__ d_targets) {
  for (std::uint64_t s = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; s < n;
       s += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    std::uint64_t low = 0, high = num_levels;  // starts[low] <= s < starts[high]
    while (high - low > 1) {
      const std::uint64_t mid = (low + high) / 2;
      if (starts[mid] <= s) low = mid; else high = mid;
    }
    d_targets[s] = __double2float_rz(targets[low]);  // toward 0: width_target_as_float's (exact for the host's)
  }
}

}  // namespace

void fill_level_targets(const LevelWidthTargets& levels, std::uint64_t num_states, float* d_targets,
                        cudaStream_t stream, int sm_count) {
  if (num_states == 0 || levels.num_levels == 0) return;
  DeviceArray<std::uint64_t> d_starts(levels.num_levels + 1);
  DeviceArray<double> d_level_targets(levels.num_levels);
  d_starts.upload(levels.state_starts, levels.num_levels + 1, stream);
  d_level_targets.upload(levels.targets, levels.num_levels, stream);
  fill_kernel<<<sweep_blocks(num_states, 1, sm_count), kBlockSize, 0, stream>>>(
      d_starts.get(), d_level_targets.get(), levels.num_levels, num_states, d_targets);
  check(cudaGetLastError(), "level targets kernel launch");
  check(cudaStreamSynchronize(stream), "level targets");
}

}  // namespace mdpvi::gpu::detail
