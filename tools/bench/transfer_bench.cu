// How fast can a large host array reach the device? The ways the chunk driver could
// upload a maybe-state system: one pageable copy, pageable copies from several host
// threads, registering the host memory first, or allocating it pinned. Prints one
// line per way: seconds and GB/s (the registration or allocation counted in).
// Also staged through a few pinned buffers by several host threads, as they are or
// narrowed (the rate counts the host's bytes).
// Usage: transfer_bench [GiB=3.4]
#include <cuda_runtime.h>
#include <sys/mman.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <thread>
#include <vector>

namespace {

void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
  std::exit(1);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Touches every page in parallel, as a built system's arrays are.
void fill(char* host, std::size_t bytes, unsigned threads) {
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([=] {
      std::size_t first = bytes / threads * t, end = t + 1 == threads ? bytes : bytes / threads * (t + 1);
      std::memset(host + first, 1, end - first);
    });
  }
  for (auto& w : workers) w.join();
}

// Copies [0, bytes) in `parts` pieces from `threads` host threads, each on its own stream.
double copy_from_threads(char* device, const char* host, std::size_t bytes, unsigned threads) {
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([=] {
      cudaStream_t stream;
      check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
      std::size_t first = bytes / threads * t, end = t + 1 == threads ? bytes : bytes / threads * (t + 1);
      check(cudaMemcpyAsync(device + first, host + first, end - first, cudaMemcpyHostToDevice, stream), "copy");
      check(cudaStreamSynchronize(stream), "sync");
      cudaStreamDestroy(stream);
    });
  }
  for (auto& w : workers) w.join();
  return seconds_since(start);
}

// Registers [0, bytes) in pieces from `threads` host threads.
double register_from_threads(char* host, std::size_t bytes, unsigned threads) {
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([=] {
      std::size_t first = bytes / threads * t, end = t + 1 == threads ? bytes : bytes / threads * (t + 1);
      check(cudaHostRegister(host + first, end - first, cudaHostRegisterDefault), "cudaHostRegister");
    });
  }
  for (auto& w : workers) w.join();
  return seconds_since(start);
}

void unregister_pieces(char* host, std::size_t bytes, unsigned threads) {
  for (unsigned t = 0; t < threads; ++t) check(cudaHostUnregister(host + bytes / threads * t), "cudaHostUnregister");
}

// Registers and copies piece by piece: piece i copies while piece i+1 is registered.
double register_and_copy_pipelined(char* device, char* host, std::size_t bytes, std::size_t piece) {
  auto start = std::chrono::steady_clock::now();
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  for (std::size_t first = 0; first < bytes; first += piece) {
    std::size_t size = std::min(piece, bytes - first);
    check(cudaHostRegister(host + first, size, cudaHostRegisterDefault), "cudaHostRegister");
    check(cudaMemcpyAsync(device + first, host + first, size, cudaMemcpyHostToDevice, stream), "copy");
  }
  check(cudaStreamSynchronize(stream), "sync");
  const double s = seconds_since(start);
  for (std::size_t first = 0; first < bytes; first += piece) check(cudaHostUnregister(host + first), "unregister");
  cudaStreamDestroy(stream);
  return s;
}

// Copies through `slots` pinned buffers of `piece` bytes: each piece is copied into a
// free buffer by `threads` host threads (narrowed from 8 to 4 bytes an element where
// `narrow`: the device then receives half), and its copy enqueued while the next piece
// is staged; a buffer is reused once its copy is done. The buffers are made first,
// outside the time (a run keeps them).
double staged(char* device, const char* host, std::size_t bytes, std::size_t piece, unsigned slots, unsigned threads,
              bool narrow) {
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  std::vector<char*> buffers(slots);
  std::vector<cudaEvent_t> done(slots);
  for (unsigned i = 0; i < slots; ++i) {
    check(cudaHostAlloc(&buffers[i], piece, cudaHostAllocPortable), "cudaHostAlloc");
    std::memset(buffers[i], 0, piece);
    check(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming), "event");
  }
  std::vector<bool> used(slots, false);
  auto start = std::chrono::steady_clock::now();
  std::size_t sent = 0;
  for (std::size_t first = 0, index = 0; first < bytes; first += piece, ++index) {
    const std::size_t size = std::min(piece, bytes - first);
    const unsigned slot = index % slots;
    if (used[slot]) check(cudaEventSynchronize(done[slot]), "event");
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t) {
      workers.emplace_back([=, &buffers] {
        const std::size_t words = size / 8, a = words / threads * t, b = t + 1 == threads ? words : words / threads * (t + 1);
        const auto* from = reinterpret_cast<const std::uint64_t*>(host + first);
        if (narrow) {
          auto* to = reinterpret_cast<std::uint32_t*>(buffers[slot]);
          for (std::size_t w = a; w < b; ++w) to[w] = static_cast<std::uint32_t>(from[w] - 7);
        } else {
          std::memcpy(buffers[slot] + a * 8, from + a, (b - a) * 8);
        }
      });
    }
    for (auto& w : workers) w.join();
    const std::size_t out = narrow ? size / 2 : size;
    check(cudaMemcpyAsync(device + sent, buffers[slot], out, cudaMemcpyHostToDevice, stream), "copy");
    check(cudaEventRecord(done[slot], stream), "record");
    used[slot] = true;
    sent += out;
  }
  check(cudaStreamSynchronize(stream), "sync");
  const double s = seconds_since(start);
  for (unsigned i = 0; i < slots; ++i) {
    cudaFreeHost(buffers[i]);
    cudaEventDestroy(done[i]);
  }
  cudaStreamDestroy(stream);
  return s;
}

void report(const char* way, double seconds, std::size_t bytes) {
  std::printf("%-44s %8.3f s %8.2f GB/s\n", way, seconds, bytes / seconds / 1e9);
}

}  // namespace

int main(int argc, char** argv) {
  const double gib = argc > 1 ? std::atof(argv[1]) : 3.4;
  const std::size_t bytes = static_cast<std::size_t>(gib * (1ull << 30));
  const unsigned cores = std::thread::hardware_concurrency();
  check(cudaFree(nullptr), "context");
  auto start = std::chrono::steady_clock::now();
  char* device = nullptr;
  check(cudaMalloc(&device, bytes), "cudaMalloc");
  report("cudaMalloc", seconds_since(start), bytes);

  char* host = static_cast<char*>(std::malloc(bytes));
  fill(host, bytes, cores);
  for (unsigned threads : {1u, 2u, 4u, 8u, 16u}) {
    char name[64];
    std::snprintf(name, sizeof name, "pageable, %u thread(s)", threads);
    report(name, copy_from_threads(device, host, bytes, threads), bytes);
  }

  start = std::chrono::steady_clock::now();
  check(cudaHostRegister(host, bytes, cudaHostRegisterDefault), "cudaHostRegister");
  const double register_s = seconds_since(start);
  report("cudaHostRegister alone", register_s, bytes);
  report("registered copy, 1 thread", copy_from_threads(device, host, bytes, 1), bytes);
  report("registered copy, 4 threads", copy_from_threads(device, host, bytes, 4), bytes);
  start = std::chrono::steady_clock::now();
  check(cudaHostUnregister(host), "cudaHostUnregister");
  report("cudaHostUnregister alone", seconds_since(start), bytes);
  for (unsigned threads : {4u, 16u}) {
    char name[64];
    std::snprintf(name, sizeof name, "cudaHostRegister from %u threads", threads);
    report(name, register_from_threads(host, bytes, threads), bytes);
    unregister_pieces(host, bytes, threads);
  }
  for (std::size_t mib : {16u, 64u, 256u}) {
    char name[64];
    std::snprintf(name, sizeof name, "register+copy pipelined, %zu MiB pieces", mib);
    report(name, register_and_copy_pipelined(device, host, bytes, mib << 20), bytes);
  }
  for (bool narrow : {false, true}) {
    for (std::size_t mib : {16u, 32u, 64u}) {
      for (unsigned threads : {1u, 4u, 8u, 16u}) {
        char name[80];
        std::snprintf(name, sizeof name, "staged%s, 3 x %zu MiB, %u threads", narrow ? " 8->4 B" : "", mib, threads);
        report(name, staged(device, host, bytes, mib << 20, 3, threads, narrow), bytes);
      }
    }
  }
  std::free(host);

  // As engine/model/pod_vector.h maps large arrays (the maybe-state system's): an
  // anonymous mapping with transparent huge pages.
  void* mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapped == MAP_FAILED) return 1;
  madvise(mapped, bytes, MADV_HUGEPAGE);
  fill(static_cast<char*>(mapped), bytes, cores);
  report("huge pages: pageable, 1 thread", copy_from_threads(device, static_cast<char*>(mapped), bytes, 1), bytes);
  report("huge pages: register+copy pipelined, 64 MiB",
         register_and_copy_pipelined(device, static_cast<char*>(mapped), bytes, std::size_t{64} << 20), bytes);
  report("huge pages: cudaHostRegister from 16 threads", register_from_threads(static_cast<char*>(mapped), bytes, 16),
         bytes);
  unregister_pieces(static_cast<char*>(mapped), bytes, 16);
  munmap(mapped, bytes);

  start = std::chrono::steady_clock::now();
  char* pinned = nullptr;
  check(cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault), "cudaHostAlloc");
  report("cudaHostAlloc alone", seconds_since(start), bytes);
  start = std::chrono::steady_clock::now();
  fill(pinned, bytes, cores);
  report("filling pinned memory, all cores", seconds_since(start), bytes);
  report("pinned copy, 1 thread", copy_from_threads(device, pinned, bytes, 1), bytes);
  report("pinned copy, 4 threads", copy_from_threads(device, pinned, bytes, 4), bytes);
  start = std::chrono::steady_clock::now();
  cudaFreeHost(pinned);
  report("cudaFreeHost alone", seconds_since(start), bytes);

  start = std::chrono::steady_clock::now();
  char* fresh = static_cast<char*>(std::malloc(bytes));
  fill(fresh, bytes, cores);
  report("malloc and fill, all cores (for comparison)", seconds_since(start), bytes);
  std::free(fresh);
  cudaFree(device);
  return 0;
}
