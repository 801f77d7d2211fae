#pragma once
// A std::vector of plain numbers whose resize(n) and vector(n) leave the new elements
// uninitialised. The builder sizes arrays of gigabytes (offsets, columns, values,
// packed states) and fills them in parallel at once; a zero-filling resize would be
// one more sequential pass over all of that memory, and it would fault every page in
// from one thread.
//
// Large buffers are mapped directly (MAP_NORESERVE, transparent huge pages), so that
// reserve_address_space() can give an array of unknown final size room to grow to
// any size that fits in memory: pages are committed only when first written, and
// the array never moves. A vector's doubling instead copies each array about once
// more and writes up to twice its size of fresh pages, which the kernel must zero
// (bench/NOTES.md has what that cost a build).
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace mdpvi {

template <typename T>
class DefaultInitAllocator : public std::allocator<T> {
 public:
  static constexpr std::size_t kMapBytes = std::size_t{4} << 20;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  using std::allocator<T>::allocator;
  DefaultInitAllocator() noexcept = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}

  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };

  T* allocate(std::size_t n) {
    if (n * sizeof(T) < kMapBytes) return std::allocator<T>::allocate(n);
    void* p = map_aligned(n * sizeof(T));
    // Huge pages past the first huge page only: a small model's array uses a little
    // of its room, and a huge page there would zero a whole huge page per array at
    // every build (the property fuzzer builds a tiny model per input).
    if (n * sizeof(T) > kHugePage) madvise(static_cast<char*>(p) + kHugePage, n * sizeof(T) - kHugePage, MADV_HUGEPAGE);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kMapBytes) return std::allocator<T>::deallocate(p, n);
    munmap(p, n * sizeof(T));
  }

  // A mapping of bytes that starts on a huge-page boundary. The kernel places
  // mappings on 4 KiB boundaries, and a huge page then also covers the address space
  // before the array's start, which is of no use to anyone but is committed with it.
  static void* map_aligned(std::size_t bytes) {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::size_t length = (bytes + page - 1) / page * page;
    void* p = mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    const auto start = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
    if (aligned > start) munmap(p, aligned - start);
    const std::uintptr_t end = start + length + kHugePage;
    if (end > aligned + length) munmap(reinterpret_cast<void*>(aligned + length), end - (aligned + length));
    return reinterpret_cast<void*>(aligned);
  }

  // Value-less construction default-initialises: no zeroing for numbers.
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <typename T>
using PodVector = std::vector<T, DefaultInitAllocator<T>>;

template <typename T, typename U>
bool operator==(const DefaultInitAllocator<T>&, const DefaultInitAllocator<U>&) noexcept {
  return true;
}

// Gives an empty vector address space for as many elements as physical memory holds,
// so that it grows without moving. Where the system refuses the mapping (strict
// overcommit, an address-space limit), the vector simply grows as vectors do.
template <typename T>
void reserve_address_space(PodVector<T>& vector) {
  const std::size_t memory =
      static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  try {
    vector.reserve(std::max(vector.size(), memory / sizeof(T)));
  } catch (const std::bad_alloc&) {
  }
}

// Address space to back with memory ahead of its use (populate).
struct PageRange {
  void* begin = nullptr;
  std::size_t bytes = 0;
};

// The pages of the next count elements past the vector's size (the vector must have
// the capacity, as reserve_address_space gives), or an empty range where the vector
// is no mapping of its own. Taken while no other thread resizes the vector; populated
// later, from any thread, while others write there: the array never moves.
template <typename T>
PageRange room_ahead(const PodVector<T>& vector, std::size_t count) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t end = std::min(vector.size() + count, vector.capacity());
  if (vector.capacity() * sizeof(T) < DefaultInitAllocator<T>::kMapBytes) return {};
  auto begin_address = reinterpret_cast<std::uintptr_t>(vector.data() + vector.size()) / page * page;
  auto end_address = reinterpret_cast<std::uintptr_t>(vector.data() + end);
  if (end_address <= begin_address) return {};
  return {reinterpret_cast<void*>(begin_address), end_address - begin_address};
}

// Has the kernel back range with memory now, so that the threads filling it later meet
// no page fault. Zeroing a fresh huge page holds up the thread that first touches it
// while the other threads wait for it at the next barrier: done ahead, beside other
// work, that wait goes away. Where the kernel cannot (before Linux 5.14),
// the pages fault in as they would have; pages already there stay as they are.
inline void populate(PageRange range) {
#ifdef MADV_POPULATE_WRITE
  if (range.bytes > 0) madvise(range.begin, range.bytes, MADV_POPULATE_WRITE);
#endif
}

// Gives the whole pages of the vector's bytes [from, to) back to the kernel: they
// take no memory until written again, and read as zeros then. A vector of its own
// mapping only (kMapBytes and over); for others, and for a range without a whole page,
// nothing happens. Used where an array is sized whole but only a window of it is
// needed at once (engine/solve/view_windows.h). Returns where the released pages end
// (from, where none were): the next call's from, so that no page is left between.
template <typename T>
std::size_t release_pages(PodVector<T>& vector, std::size_t from, std::size_t to) {
  if (vector.capacity() * sizeof(T) < DefaultInitAllocator<T>::kMapBytes) return from;
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const auto base = reinterpret_cast<std::uintptr_t>(vector.data());  // page-aligned: its own mapping
  const std::size_t begin = (from + page - 1) / page * page, end = to / page * page;
  if (end <= begin) return from;
  madvise(reinterpret_cast<void*>(base + begin), end - begin, MADV_DONTNEED);
  return end;
}

// Backs the pages of [begin, begin + bytes) with memory, several threads at once,
// before one thread fills them from a stream (a file reader): the kernel zeroes each
// fresh page for the thread that touches it first, which was half of a UMB import's
// time when the reading thread met every page alone. Small ranges are left alone.
inline void populate_in_parallel(void* begin, std::size_t bytes) {
  constexpr std::size_t kChunk = std::size_t{16} << 20;
  if (bytes < 2 * kChunk) return;
  const std::size_t threads = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t at = next.fetch_add(kChunk); at < bytes; at = next.fetch_add(kChunk)) {
      populate({static_cast<char*>(begin) + at, std::min(kChunk, bytes - at)});
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
}

}  // namespace mdpvi
