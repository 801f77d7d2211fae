// The device backend of engine/numeric/bicgstab_steps.h: eight vectors on the device,
// (I - P) applied by a kernel of a thread per row, which also takes the dot products
// the step after it needs, and the solution's update fused with the residual's and the
// largest entries of both. Per iteration the steps then read 20 vectors' worth where
// separate kernels read 34 (cuSPARSE's SpMV takes no dot product, and needs a copy
// of the vector before it): the solve is bound by memory. Every reduction is made per
// block, then summed in block order by one block: a solve gives the same bits run
// after run (policy iteration's schedulers depend on them).
#include "engine/model/stopwatch.h"
#include "gpu/graph_device.cuh"
#include "gpu/krylov.cuh"

#include <cub/block/block_reduce.cuh>

#include <array>
#include <chrono>
#include <utility>
#include <vector>

namespace mdpvi::gpu::detail {

namespace {

// Blocks of every kernel here: enough to fill the device, and a fixed count, so that
// the partial sums, and so the results, do not depend on the device.
constexpr unsigned kBlocks = 1024;

unsigned blocks_for(std::uint64_t n) {
  return static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>((n + kBlockSize - 1) / kBlockSize, kBlocks)));
}

struct Sum {
  __device__ double operator()(double a, double b) const { return a + b; }
};
// The larger of two, NaN where either is (fmax would drop it): a NaN in x or r must
// reach the convergence test, which then refuses it.
struct Larger {
  __host__ __device__ double operator()(double a, double b) const { return a > b || a != a ? a : b; }
};

// Two values per block into partials[block] and partials[gridDim.x + block].
template <typename Op>
__device__ void block_partials(double a, double b, Op op, double* partials) {
  using Reduce = cub::BlockReduce<double, kBlockSize>;
  __shared__ typename Reduce::TempStorage scratch;
  const double block_a = Reduce(scratch).Reduce(a, op);
  __syncthreads();
  const double block_b = Reduce(scratch).Reduce(b, op);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_a;
    partials[gridDim.x + blockIdx.x] = block_b;
  }
}

// The blocks' two partials each, reduced in block order by one block into result[0, 2).
template <typename Op>
__global__ void reduce_partials(unsigned blocks, const double* partials, Op op, double* result) {
  double a = 0.0, b = 0.0;
  for (unsigned i = threadIdx.x; i < blocks; i += blockDim.x) {
    a = op(a, partials[i]);
    b = op(b, partials[blocks + i]);
  }
  using Reduce = cub::BlockReduce<double, kBlockSize>;
  __shared__ typename Reduce::TempStorage scratch;
  const double total_a = Reduce(scratch).Reduce(a, op);
  __syncthreads();
  const double total_b = Reduce(scratch).Reduce(b, op);
  if (threadIdx.x == 0) {
    result[0] = total_a;
    result[1] = total_b;
  }
}

// Which dot products an application of (I - P) takes of its result `out`.
enum class Dots { none, with, self_and_in };

// out = in - P in, a thread per row; with Dots::with the partial sums of with.out,
// with Dots::self_and_in those of out.out and out.in.
template <Dots kDots>
__global__ void apply_kernel(DeviceRows m, const double* __restrict__ in, double* __restrict__ out,
                             const double* __restrict__ with, double* partials) {
  double a = 0.0, b = 0.0;
  for (std::uint64_t i = thread_index(); i < m.n; i += grid_stride()) {
    double product = 0.0;
    for (std::uint64_t k = m.starts[i]; k < m.starts[i + 1]; ++k) product += m.values[k] * in[m.columns[k]];
    const double o = in[i] - product;
    out[i] = o;
    if constexpr (kDots == Dots::with) a += with[i] * o;
    if constexpr (kDots == Dots::self_and_in) {
      a += o * o;
      b += o * in[i];
    }
  }
  if constexpr (kDots != Dots::none) block_partials(a, b, Sum(), partials);
}

// Partial sums of x.y and (z null: 0) z.w.
__global__ void dots_kernel(std::uint64_t n, const double* x, const double* y, const double* z, const double* w,
                            double* partials) {
  double a = 0.0, b = 0.0;
  for (std::uint64_t i = thread_index(); i < n; i += grid_stride()) {
    a += x[i] * y[i];
    if (z) b += z[i] * w[i];
  }
  block_partials(a, b, Sum(), partials);
}

__global__ void max_abs_kernel(std::uint64_t n, const double* x, double* partials) {
  double a = 0.0;
  for (std::uint64_t i = thread_index(); i < n; i += grid_stride()) a = Larger()(a, fabs(x[i]));
  block_partials(a, 0.0, Larger(), partials);
}

__global__ void combine_kernel(std::uint64_t n, double* d_y, const double* d_a, double s, const double* d_b) {
  for (std::uint64_t i = thread_index(); i < n; i += grid_stride()) d_y[i] = d_a[i] + s * d_b[i];
}
__global__ void direction_kernel(std::uint64_t n, double* d_p, const double* d_r, const double* d_v, double beta,
                                 double omega) {
  for (std::uint64_t i = thread_index(); i < n; i += grid_stride()) d_p[i] = d_r[i] + beta * (d_p[i] - omega * d_v[i]);
}
// x += alpha p + omega s; r = s - omega t; the partial largest |r| and |x|.
__global__ void finish_kernel(std::uint64_t n, double* d_x, double* d_r, const double* d_p, const double* d_s,
                              const double* d_t, double alpha, double omega, double* partials) {
  double largest_r = 0.0, largest_x = 0.0;
  for (std::uint64_t i = thread_index(); i < n; i += grid_stride()) {
    const double x = d_x[i] + (alpha * d_p[i] + omega * d_s[i]);
    const double r = d_s[i] + -omega * d_t[i];
    d_x[i] = x;
    d_r[i] = r;
    largest_r = Larger()(largest_r, fabs(r));
    largest_x = Larger()(largest_x, fabs(x));
  }
  block_partials(largest_r, largest_x, Larger(), partials);
}

// I - P of a DTMC's rows, with the vectors BiCGStab works on.
class DeviceKrylov {
 public:
  static constexpr bool kFusedSteps = true;

  DeviceKrylov(const DeviceRows& rows, cudaStream_t stream)
      : rows_(rows), n_(rows.n), stream_(stream), blocks_(blocks_for(rows.n)), partials_(2 * kBlocks), result_(2) {
    for (std::size_t i = 0; i < 8; ++i) vectors_.emplace_back(n_);
  }
  DeviceKrylov(const DeviceKrylov&) = delete;
  DeviceKrylov& operator=(const DeviceKrylov&) = delete;

  double* at(KrylovVector v) const { return vectors_[static_cast<std::size_t>(v)].get(); }

  void apply(KrylovVector in, KrylovVector out) { apply_with<Dots::none>(in, out, nullptr); }
  double apply_dot(KrylovVector in, KrylovVector out, KrylovVector with) {
    apply_with<Dots::with>(in, out, at(with));
    return reduced(Sum()).first;
  }
  std::pair<double, double> apply_dots(KrylovVector in, KrylovVector out) {
    apply_with<Dots::self_and_in>(in, out, nullptr);
    return reduced(Sum());
  }
  double dot(KrylovVector a, KrylovVector b) {
    launch(dots_kernel, at(a), at(b), static_cast<const double*>(nullptr), static_cast<const double*>(nullptr), partials_.get());
    return reduced(Sum()).first;
  }
  std::pair<double, double> dot_pair(KrylovVector a, KrylovVector b, KrylovVector c, KrylovVector d) {
    launch(dots_kernel, at(a), at(b), at(c), at(d), partials_.get());
    return reduced(Sum());
  }
  double max_abs(KrylovVector a) {
    launch(max_abs_kernel, at(a), partials_.get());
    return reduced(Larger()).first;
  }
  void copy(KrylovVector from, KrylovVector to) {
    if (n_ > 0) check(cudaMemcpyAsync(at(to), at(from), n_ * sizeof(double), cudaMemcpyDeviceToDevice, stream_), "copy");
  }
  void zero(KrylovVector a) {
    if (n_ > 0) check(cudaMemsetAsync(at(a), 0, n_ * sizeof(double), stream_), "cudaMemset");
  }
  void combine(KrylovVector y, KrylovVector a, double s, KrylovVector b) { launch(combine_kernel, at(y), at(a), s, at(b)); }
  void update_direction(double beta, double omega) {
    launch(direction_kernel, at(KrylovVector::p), at(KrylovVector::r), at(KrylovVector::v), beta, omega);
  }
  std::pair<double, double> finish_step(double alpha, double omega) {
    using V = KrylovVector;
    launch(finish_kernel, at(V::x), at(V::r), at(V::p), at(V::s), at(V::t), alpha, omega, partials_.get());
    return reduced(Larger());
  }

 private:
  template <Dots kDots>
  void apply_with(KrylovVector in, KrylovVector out, const double* with) {
    if (n_ == 0) return;
    apply_kernel<kDots><<<blocks_, kBlockSize, 0, stream_>>>(rows_, at(in), at(out), with, partials_.get());
    check(cudaGetLastError(), "(I - P) x kernel launch");
  }
  template <typename Kernel, typename... Args>
  void launch(Kernel kernel, Args... args) {
    if (n_ == 0) return;
    kernel<<<blocks_, kBlockSize, 0, stream_>>>(n_, args...);
    check(cudaGetLastError(), "vector kernel launch");
  }
  // The last kernel's partials reduced (both 0 for an empty system).
  template <typename Op>
  std::pair<double, double> reduced(Op op) {
    if (n_ == 0) return {0.0, 0.0};
    reduce_partials<<<1, kBlockSize, 0, stream_>>>(blocks_, partials_.get(), op, result_.get());
    check(cudaGetLastError(), "reduction kernel launch");
    std::array<double, 2> values{};
    result_.download(values.data(), 2, stream_);
    check(cudaStreamSynchronize(stream_), "reduction");
    return {values[0], values[1]};
  }

  DeviceRows rows_;
  std::uint64_t n_;
  cudaStream_t stream_;
  unsigned blocks_;
  DeviceArray<double> partials_, result_;
  std::vector<DeviceArray<double>> vectors_;  // by KrylovVector
};

// BiCGStab on a, whose c is loaded by load_c (on the stream), from x (host), which
// gets the result.
template <typename LoadC>
KrylovChunkStats run_on_device(DeviceKrylov& a, std::uint64_t n, cudaStream_t stream, LoadC load_c,
                               const KrylovLimits& limits, double* x) {
  KrylovChunkStats result;
  auto start = std::chrono::steady_clock::now();
  // Through locked pieces (gpu/host_copies.cuh): b and x may be model-sized, and x a
  // range of an iterate other copies have locked pieces of.
  {
    HostCopies copies(stream);
    load_c(copies);
    copies.to_device(a.at(KrylovVector::x), x, n * sizeof(double));
    copies.finish();
  }
  check(cudaStreamSynchronize(stream), "upload");
  result.stats.upload_s = seconds_since(start);

  start = std::chrono::steady_clock::now();
  const KrylovRun run = run_bicgstab(a, limits);
  result.stats.solve_s = seconds_since(start);
  result.stats.iterations = run.iterations;
  result.stats.converged = run.converged;
  result.stats.last_measure = run.residual;
  result.restarts = run.restarts;
  result.broke_down = run.broke_down;

  start = std::chrono::steady_clock::now();
  {
    HostCopies copies(stream);
    copies.to_host(x, a.at(KrylovVector::x), n * sizeof(double));
    copies.finish();
  }
  check(cudaStreamSynchronize(stream), "download");
  result.stats.download_s = seconds_since(start);
  return result;
}

}  // namespace

KrylovChunkStats solve_linear_on_device(const DeviceMatrix& m, const ChunkMatrix& host, cudaStream_t stream,
                                        const double* b, const KrylovLimits& limits, double* x) {
  if (host.num_rows != host.num_states) throw DeviceError("BiCGStab on the device needs one row per state (a DTMC)");
  const DeviceChunk view = m.view();
  DeviceKrylov a({host.num_states, view.d_row_starts, view.d_columns, view.values}, stream);
  const std::uint64_t n = host.num_states;
  return run_on_device(
      a, n, stream, [&](HostCopies& copies) { copies.to_device(a.at(KrylovVector::c), b, n * sizeof(double)); }, limits, x);
}

KrylovChunkStats solve_rows_on_device(const DeviceRows& rows, cudaStream_t stream, const double* d_c,
                                      const KrylovLimits& limits, double* x) {
  DeviceKrylov a(rows, stream);
  return run_on_device(
      a, rows.n, stream,
      [&](HostCopies&) {
        if (rows.n > 0) {
          check(cudaMemcpyAsync(a.at(KrylovVector::c), d_c, rows.n * sizeof(double), cudaMemcpyDeviceToDevice, stream),
                "copy");
        }
      },
      limits, x);
}

}  // namespace mdpvi::gpu::detail
