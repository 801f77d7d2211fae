// The device backend of engine/numeric/bicgstab_steps.h: eight vectors on the device, (I - P)
// applied as a copy and one cusparseSpMV (y = -P x + y), dot products and largest
// entries by cub::DeviceReduce into one device word read back at once.
#include "engine/model/stopwatch.h"
#include "gpu/krylov.cuh"

#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <cusparse.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <array>
#include <chrono>
#include <climits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace mdpvi::gpu::detail {

namespace {

// cuSPARSE's second CSR algorithm: the same products run after run (the first was
// seen to vary policy iteration's schedulers between runs of one model: bench/NOTES.md).
constexpr cusparseSpMVAlg_t kSpmvAlgorithm = CUSPARSE_SPMV_CSR_ALG2;

void check_sparse(cusparseStatus_t status, const char* what) {
  if (status == CUSPARSE_STATUS_SUCCESS) return;
  const std::string message = std::string("cuSPARSE error in ") + what + ": " + cusparseGetErrorString(status);
  if (status == CUSPARSE_STATUS_ALLOC_FAILED || status == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES) {
    throw OutOfDeviceMemory(message);
  }
  throw DeviceError(message);
}

__global__ void narrow_offsets(std::uint64_t count, const std::uint64_t* __restrict__ d_in, int* __restrict__ d_out) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    d_out[i] = static_cast<int>(d_in[i]);
  }
}

// Calls body(i) for every i < n, on a grid-stride loop.
template <typename Body>
__device__ void for_each_index(std::uint64_t n, Body body) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    body(i);
  }
}

__global__ void combine_kernel(std::uint64_t n, double* d_y, const double* d_a, double s, const double* d_b) {
  for_each_index(n, [&](std::uint64_t i) { d_y[i] = d_a[i] + s * d_b[i]; });
}
__global__ void direction_kernel(std::uint64_t n, double* d_p, const double* d_r, const double* d_v, double beta,
                                 double omega) {
  for_each_index(n, [&](std::uint64_t i) { d_p[i] = d_r[i] + beta * (d_p[i] - omega * d_v[i]); });
}
__global__ void solution_kernel(std::uint64_t n, double* d_x, const double* d_p, const double* d_s, double alpha,
                                double omega) {
  for_each_index(n, [&](std::uint64_t i) { d_x[i] += alpha * d_p[i] + omega * d_s[i]; });
}

struct Product {
  const double* a;
  const double* b;
  __host__ __device__ double operator()(std::uint64_t i) const { return a[i] * b[i]; }
};
struct Magnitude {
  const double* a;
  __host__ __device__ double operator()(std::uint64_t i) const { return fabs(a[i]); }
};
struct Larger {
  __host__ __device__ double operator()(double a, double b) const { return fmax(a, b); }
};

// cuSPARSE's objects, destroyed in reverse order of creation (also when a later step
// of the constructor throws).
struct HandleDeleter {
  void operator()(cusparseHandle_t h) const { cusparseDestroy(h); }
};
struct MatrixDeleter {
  void operator()(cusparseSpMatDescr_t m) const { cusparseDestroySpMat(m); }
};
struct VectorDeleter {
  void operator()(cusparseDnVecDescr_t v) const { cusparseDestroyDnVec(v); }
};

template <typename F>
auto indexed(F f) {
  return thrust::make_transform_iterator(thrust::counting_iterator<std::uint64_t>(0), f);
}

// A chunk's matrix as cuSPARSE takes it: its 64-bit row offsets narrowed on the
// device, or, for a tiny chunk with more entries than n^2 (repeated columns, which
// cuSPARSE refuses beyond that; otherwise its SpMV sums repeats as they stand), each
// row's repeated columns merged on the host.
class ChunkCsr32 {
 public:
  ChunkCsr32(const DeviceMatrix& m, const ChunkMatrix& host, cudaStream_t stream) : d_offsets_(host.num_rows + 1) {
    if (host.num_rows != host.num_states) {
      throw DeviceError("BiCGStab on the device needs one row per state (a DTMC)");
    }
    if (host.num_entries > static_cast<std::uint64_t>(INT_MAX) || host.num_states > static_cast<std::uint64_t>(INT_MAX)) {
      throw DeviceError("a chunk too large for cuSPARSE's 32-bit indices");
    }
    const std::uint64_t n = host.num_states;
    csr_.n = n;
    csr_.offsets = d_offsets_.get();
    if (n == 0) return;
    const DeviceChunk view = m.view();
    if (view.values.index_bytes != 0) throw DeviceError("BiCGStab on the device needs plain values (cuSPARSE's SpMV)");
    if (host.num_entries > n * n) {
      merge_repeated_entries(host, stream);
      csr_.entries = merged_values_.size();
      csr_.columns = d_merged_columns_.get();
      csr_.values = d_merged_values_.get();
      return;
    }
    csr_.entries = host.num_entries;
    csr_.columns = const_cast<std::uint32_t*>(view.d_columns);
    csr_.values = const_cast<double*>(view.values.d_plain);
    narrow_offsets<<<blocks_for(n + 1), kBlockSize, 0, stream>>>(n + 1, view.d_row_starts, d_offsets_.get());
    check(cudaGetLastError(), "narrowing the row offsets");
  }
  const Csr32& csr() const { return csr_; }

 private:
  static unsigned blocks_for(std::uint64_t count) {
    return static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>((count + kBlockSize - 1) / kBlockSize, 4096)));
  }
  // Kept until the copies are done: the stream is synchronised at once.
  void merge_repeated_entries(const ChunkMatrix& host, cudaStream_t stream) {
    const std::uint64_t n = host.num_states;
    std::vector<double> dense(n * n, 0.0);
    for (std::uint64_t i = 0; i < n; ++i) {
      for (std::uint64_t k = host.row_starts[i]; k < host.row_starts[i + 1]; ++k) {
        dense[i * n + host.columns[k]] += host.values[k];
      }
    }
    std::vector<int> offsets{0};
    for (std::uint64_t i = 0; i < n; ++i) {
      for (std::uint64_t j = 0; j < n; ++j) {
        if (dense[i * n + j] == 0.0) continue;
        merged_columns_.push_back(static_cast<int>(j));
        merged_values_.push_back(dense[i * n + j]);
      }
      offsets.push_back(static_cast<int>(merged_values_.size()));
    }
    d_merged_columns_ = DeviceArray<int>(merged_columns_.data(), merged_columns_.size());
    d_merged_values_ = DeviceArray<double>(merged_values_.data(), merged_values_.size());
    d_offsets_.upload(offsets.data(), offsets.size(), stream);
    check(cudaStreamSynchronize(stream), "uploading the merged matrix");
  }

  Csr32 csr_;
  DeviceArray<int> d_offsets_;
  std::vector<int> merged_columns_;
  std::vector<double> merged_values_;
  DeviceArray<int> d_merged_columns_{0};
  DeviceArray<double> d_merged_values_{0};
};

// I - P of a DTMC in cuSPARSE's terms, with the vectors BiCGStab works on.
class DeviceKrylov {
 public:
  DeviceKrylov(const Csr32& csr, cudaStream_t stream) : n_(csr.n), stream_(stream), d_scalar_(1) {
    for (std::size_t i = 0; i < dense_.size(); ++i) vectors_.emplace_back(n_);
    if (n_ == 0) return;  // nothing to multiply or reduce
    cusparseHandle_t handle = nullptr;
    check_sparse(cusparseCreate(&handle), "cusparseCreate");
    handle_.reset(handle);
    check_sparse(cusparseSetStream(handle_.get(), stream_), "cusparseSetStream");
    cusparseSpMatDescr_t matrix = nullptr;
    check_sparse(cusparseCreateCsr(&matrix, n_, n_, csr.entries, csr.offsets, csr.columns, csr.values,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
                 "cusparseCreateCsr");
    matrix_.reset(matrix);
    for (std::size_t i = 0; i < vectors_.size(); ++i) {
      cusparseDnVecDescr_t vector = nullptr;
      check_sparse(cusparseCreateDnVec(&vector, n_, vectors_[i].get(), CUDA_R_64F), "cusparseCreateDnVec");
      dense_[i].reset(vector);
    }
    std::size_t spmv_bytes = 0;
    const double minus_one = -1.0, one = 1.0;
    check_sparse(cusparseSpMV_bufferSize(handle_.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &minus_one, matrix_.get(),
                                         dense_[0].get(), &one, dense_[1].get(), CUDA_R_64F, kSpmvAlgorithm,
                                         &spmv_bytes),
                 "cusparseSpMV_bufferSize");
    spmv_buffer_ = DeviceArray<unsigned char>(spmv_bytes);
    std::size_t dot_bytes = 0, max_bytes = 0;
    check(cub::DeviceReduce::Reduce(nullptr, dot_bytes, indexed(Product{nullptr, nullptr}), d_scalar_.get(), n_,
                                    cuda::std::plus<double>(), 0.0, stream_),
          "cub::DeviceReduce");
    check(cub::DeviceReduce::Reduce(nullptr, max_bytes, indexed(Magnitude{nullptr}), d_scalar_.get(), n_, Larger(),
                                    0.0, stream_),
          "cub::DeviceReduce");
    reduce_bytes_ = std::max(dot_bytes, max_bytes);
    reduce_buffer_ = DeviceArray<unsigned char>(reduce_bytes_);
  }
  DeviceKrylov(const DeviceKrylov&) = delete;
  DeviceKrylov& operator=(const DeviceKrylov&) = delete;

  double* at(KrylovVector v) const { return vectors_[index(v)].get(); }

  void apply(KrylovVector in, KrylovVector out) {
    if (n_ == 0) return;
    check(cudaMemcpyAsync(at(out), at(in), n_ * sizeof(double), cudaMemcpyDeviceToDevice, stream_), "copy");
    const double minus_one = -1.0, one = 1.0;
    check_sparse(cusparseSpMV(handle_.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, &minus_one, matrix_.get(),
                              dense_[index(in)].get(), &one, dense_[index(out)].get(), CUDA_R_64F,
                              kSpmvAlgorithm, spmv_buffer_.get()),
                 "cusparseSpMV");
  }
  double dot(KrylovVector a, KrylovVector b) {
    return reduce(indexed(Product{at(a), at(b)}), cuda::std::plus<double>());
  }
  double max_abs(KrylovVector a) { return reduce(indexed(Magnitude{at(a)}), Larger()); }
  void copy(KrylovVector from, KrylovVector to) {
    if (n_ > 0) check(cudaMemcpyAsync(at(to), at(from), n_ * sizeof(double), cudaMemcpyDeviceToDevice, stream_), "copy");
  }
  void zero(KrylovVector a) {
    if (n_ > 0) check(cudaMemsetAsync(at(a), 0, n_ * sizeof(double), stream_), "cudaMemset");
  }
  void combine(KrylovVector y, KrylovVector a, double s, KrylovVector b) {
    launch(combine_kernel, at(y), at(a), s, at(b));
  }
  void update_direction(double beta, double omega) {
    launch(direction_kernel, at(KrylovVector::p), at(KrylovVector::r), at(KrylovVector::v), beta, omega);
  }
  void update_solution(double alpha, double omega) {
    launch(solution_kernel, at(KrylovVector::x), at(KrylovVector::p), at(KrylovVector::s), alpha, omega);
  }

 private:
  static std::size_t index(KrylovVector v) { return static_cast<std::size_t>(v); }
  unsigned blocks(std::uint64_t count) const {
    return static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>((count + kBlockSize - 1) / kBlockSize, 4096)));
  }
  template <typename Kernel, typename... Args>
  void launch(Kernel kernel, Args... args) {
    if (n_ == 0) return;
    kernel<<<blocks(n_), kBlockSize, 0, stream_>>>(n_, args...);
    check(cudaGetLastError(), "vector kernel launch");
  }
  template <typename Iterator, typename Op>
  double reduce(Iterator in, Op op) {
    if (n_ == 0) return 0.0;
    std::size_t bytes = reduce_bytes_;
    check(cub::DeviceReduce::Reduce(reduce_buffer_.get(), bytes, in, d_scalar_.get(), n_, op, 0.0, stream_),
          "cub::DeviceReduce");
    double value = 0.0;
    d_scalar_.download(&value, 1, stream_);
    check(cudaStreamSynchronize(stream_), "reduction");
    return value;
  }

  std::uint64_t n_;
  cudaStream_t stream_;
  DeviceArray<double> d_scalar_;
  std::vector<DeviceArray<double>> vectors_;  // by KrylovVector
  DeviceArray<unsigned char> spmv_buffer_{0}, reduce_buffer_{0};
  std::size_t reduce_bytes_ = 0;
  std::unique_ptr<std::remove_pointer_t<cusparseHandle_t>, HandleDeleter> handle_;
  std::unique_ptr<std::remove_pointer_t<cusparseSpMatDescr_t>, MatrixDeleter> matrix_;
  std::array<std::unique_ptr<std::remove_pointer_t<cusparseDnVecDescr_t>, VectorDeleter>, 8> dense_;
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
  const ChunkCsr32 matrix(m, host, stream);
  DeviceKrylov a(matrix.csr(), stream);
  const std::uint64_t n = host.num_states;
  return run_on_device(
      a, n, stream, [&](HostCopies& copies) { copies.to_device(a.at(KrylovVector::c), b, n * sizeof(double)); }, limits, x);
}

KrylovChunkStats solve_csr_on_device(const Csr32& csr, cudaStream_t stream, const double* d_c,
                                     const KrylovLimits& limits, double* x) {
  DeviceKrylov a(csr, stream);
  return run_on_device(
      a, csr.n, stream,
      [&](HostCopies&) {
        if (csr.n > 0) {
          check(cudaMemcpyAsync(a.at(KrylovVector::c), d_c, csr.n * sizeof(double), cudaMemcpyDeviceToDevice, stream),
                "copy");
        }
      },
      limits, x);
}

}  // namespace mdpvi::gpu::detail
