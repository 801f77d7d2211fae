// Compiled without fused multiply-adds (gpu/CMakeLists.txt): each sum as the host's.
#include "gpu/stationary_sweeps.cuh"

#include "gpu/cuda_support.cuh"
#include "gpu/graph_device.cuh"
#include "gpu/host_copies.cuh"

#include <cub/block/block_reduce.cuh>

#include <chrono>
#include <numeric>

namespace mdpvi::gpu {

namespace {

using detail::ChainOnDevice;
using detail::check;
using detail::DeviceArray;
using detail::grid_for;
using detail::grid_stride;
using detail::HostCopies;
using detail::kBlockSize;
using detail::thread_index;

__global__ void uniform_kernel(std::uint64_t n, double* z) {
  const double each = 1.0 / static_cast<double>(n);
  for (std::uint64_t i = thread_index(); i < n; i += grid_stride()) z[i] = each;
}

// What each state sends along its entries per unit of their probability: half its
// mass over its probability of leaving itself.
__global__ void sent_kernel(ChainOnDevice c, const double* z, double* sent) {
  for (std::uint64_t j = thread_index(); j < c.n; j += grid_stride()) sent[j] = 0.5 * z[j] / c.leaving[j];
}

// Each state's next mass, its terms in the order of its entries (the host's), and how
// far it moved.
__global__ void pull_kernel(ChainOnDevice c, const double* __restrict__ z, const double* __restrict__ sent,
                            double* __restrict__ next, double* __restrict__ moved) {
  for (std::uint64_t i = thread_index(); i < c.n; i += grid_stride()) {
    double value = 0.5 * z[i];
    for (std::uint64_t e = c.starts[i]; e < c.starts[i + 1]; ++e) {
      if (c.from[e] != i) value += sent[c.from[e]] * c.probabilities[e];
    }
    next[i] = value;
    moved[i] = fabs(value - z[i]);
  }
}

// Each block of block_states states' moved mass, summed in state order from 0 (the
// host's per-block sum).
__global__ void block_sums_kernel(std::uint64_t n, std::uint64_t block_states, std::uint64_t blocks, const double* moved,
                                  double* sums) {
  for (std::uint64_t b = thread_index(); b < blocks; b += grid_stride()) {
    double sum = 0.0;
    const std::uint64_t end = b * block_states + block_states < n ? b * block_states + block_states : n;
    for (std::uint64_t i = b * block_states; i < end; ++i) sum += moved[i];
    sums[b] = sum;
  }
}

// The likelier of two states: the larger weight, the first of equals.
struct Candidate {
  double weight;
  std::uint64_t state;
};
struct Likelier {
  __device__ Candidate operator()(const Candidate& a, const Candidate& b) const {
    return b.weight > a.weight || (b.weight == a.weight && b.state < a.state) ? b : a;
  }
};

// Each block's likeliest state by z_i / leaving_i into partials; with one block and
// from_partials, the partials' likeliest into partials[0].
__global__ void likeliest_kernel(ChainOnDevice c, const double* z, const Candidate* from_partials, std::uint64_t count,
                                 Candidate* partials) {
  using BlockReduce = cub::BlockReduce<Candidate, kBlockSize>;
  __shared__ typename BlockReduce::TempStorage scratch;
  Candidate best{-1.0, ~std::uint64_t{0}};
  for (std::uint64_t i = thread_index(); i < count; i += grid_stride()) {
    const Candidate here = from_partials ? from_partials[i] : Candidate{z[i] / c.leaving[i], i};
    best = Likelier()(best, here);
  }
  const Candidate block_best = BlockReduce(scratch).Reduce(best, Likelier());
  if (threadIdx.x == 0) partials[blockIdx.x] = block_best;
}

// The state of the largest z_i / leaving_i (the first of equals), z on the device.
std::uint64_t likeliest_state(const ChainOnDevice& c, const double* d_z) {
  const unsigned blocks = grid_for(c.n, detail::multiprocessor_count());
  DeviceArray<Candidate> partials(blocks), best(1);
  likeliest_kernel<<<blocks, kBlockSize>>>(c, d_z, nullptr, c.n, partials.get());
  likeliest_kernel<<<1, kBlockSize>>>(c, d_z, partials.get(), blocks, best.get());
  check(cudaGetLastError(), "the likeliest state");
  return detail::read_from_device(best.get(), "reading the likeliest state").state;
}

}  // namespace

namespace detail {

void run_power_sweeps(const ChainOnDevice& c, std::uint64_t max_sweeps, std::uint64_t block_states,
                      const std::function<bool(double)>& after_sweep, SweepsEnd end, PowerSweeps& out) {
  const auto begin = std::chrono::steady_clock::now();
  const std::uint64_t n = c.n;
  const std::uint64_t blocks = (n + block_states - 1) / block_states;
  DeviceArray<double> d_z[2] = {DeviceArray<double>(n), DeviceArray<double>(n)};
  DeviceArray<double> d_sent(n), d_moved(n), d_sums(blocks);
  out.device_bytes += 4 * n * sizeof(double) + blocks * sizeof(double);
  const unsigned grid = grid_for(n, multiprocessor_count());
  uniform_kernel<<<grid, kBlockSize>>>(n, d_z[0].get());
  std::vector<double> sums(blocks);
  int current = 0;
  for (std::uint64_t sweep = 1; sweep <= max_sweeps; ++sweep) {
    sent_kernel<<<grid, kBlockSize>>>(c, d_z[current].get(), d_sent.get());
    pull_kernel<<<grid, kBlockSize>>>(c, d_z[current].get(), d_sent.get(), d_z[1 - current].get(), d_moved.get());
    block_sums_kernel<<<grid_for(blocks, multiprocessor_count()), kBlockSize>>>(n, block_states, blocks, d_moved.get(),
                                                                                d_sums.get());
    check(cudaGetLastError(), "the power sweeps");
    d_sums.download(sums.data(), blocks, 0);
    check(cudaStreamSynchronize(0), "the power sweeps' moved mass");
    current = 1 - current;
    out.sweeps = sweep;
    if (after_sweep(std::accumulate(sums.begin(), sums.end(), 0.0))) break;
  }
  if (end == SweepsEnd::likeliest) {
    out.likeliest = likeliest_state(c, d_z[current].get());
  } else {
    out.z.resize(n);
    HostCopies copies(0);
    copies.to_host(out.z.data(), d_z[current].get(), n * sizeof(double));
    copies.finish();
  }
  check(cudaStreamSynchronize(0), "downloading the mass");
  out.in_use_bytes = memory_in_use();  // the sweeps' vectors still held
  out.solve_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
}

}  // namespace detail

std::optional<PowerSweeps> lazy_power_sweeps(const TransposedChain& chain, std::uint64_t max_sweeps,
                                             std::uint64_t block_states, const std::function<bool(double)>& after_sweep) {
  const auto begin = std::chrono::steady_clock::now();
  const std::uint64_t n = chain.states;
  const std::uint64_t entries = n == 0 ? 0 : chain.starts[n];
  PowerSweeps out;
  DeviceArray<std::uint64_t> d_starts(n + 1);
  DeviceArray<std::uint32_t> d_from(entries);
  DeviceArray<double> d_probabilities(entries), d_leaving(n);
  {  // through locked pieces (gpu/host_copies.cuh): the chain is model-sized
    HostCopies copies(0);
    copies.to_device(d_starts.get(), chain.starts, (n + 1) * sizeof(std::uint64_t));
    copies.to_device(d_from.get(), chain.from, entries * sizeof(std::uint32_t));
    copies.to_device(d_probabilities.get(), chain.probabilities, entries * sizeof(double));
    copies.to_device(d_leaving.get(), chain.leaving, n * sizeof(double));
    copies.finish();
  }
  check(cudaDeviceSynchronize(), "uploading the chain");
  out.upload_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  out.device_bytes = (n + 1) * sizeof(std::uint64_t) + entries * (sizeof(std::uint32_t) + sizeof(double)) +
                     n * sizeof(double);
  const ChainOnDevice c{n, d_starts.get(), d_from.get(), d_probabilities.get(), d_leaving.get()};
  detail::run_power_sweeps(c, max_sweeps, block_states, after_sweep, detail::SweepsEnd::mass, out);
  return out;
}

}  // namespace mdpvi::gpu
