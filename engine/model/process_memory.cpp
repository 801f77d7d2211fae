#include "engine/model/process_memory.h"

#include <sys/resource.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <string>

namespace mdpvi {

namespace {

// A cgroup's limit in bytes; 0 when the file is missing or says "max".
std::size_t cgroup_limit(const char* path) {
  std::ifstream file(path);
  std::string text;
  if (!(file >> text) || text == "max") return 0;
  try {
    return static_cast<std::size_t>(std::stoull(text));
  } catch (const std::exception&) {
    return 0;
  }
}

// The most resident_bytes or peak_resident_bytes has said. The kernel's counts are
// approximate (each CPU's or thread's share is folded in now and then), so a peak read
// after a resident count could fall below it by a few hundred kilobytes (it did once:
// Pipeline.ReportsThePeakOfEachStage); peaks reported never fall below what was seen.
std::atomic<std::size_t> most_seen{0};

std::size_t noted(std::size_t bytes) {
  std::size_t seen = most_seen.load(std::memory_order_relaxed);
  while (seen < bytes && !most_seen.compare_exchange_weak(seen, bytes, std::memory_order_relaxed)) {
  }
  return bytes;
}

}  // namespace

std::size_t usable_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  std::size_t bytes = pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : 0;
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    const std::size_t limit = cgroup_limit(path);
    if (limit > 0 && (bytes == 0 || limit < bytes)) bytes = limit;  // v1 says "no limit" with a huge number
  }
  return bytes;
}

std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return noted(resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE)));
}

std::size_t peak_resident_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  noted(static_cast<std::size_t>(usage.ru_maxrss) * 1024);  // kilobytes on Linux
  (void)resident_bytes();
  return most_seen.load(std::memory_order_relaxed);
}

std::size_t unused_memory_bytes() {
  const std::size_t usable = usable_memory_bytes(), resident = resident_bytes();
  return usable > resident ? usable - resident : 0;
}

void return_large_frees_to_the_kernel() {
#if defined(__GLIBC__)
  constexpr int kOwnMappingBytes = 4 << 20;  // chosen in bench/NOTES.md, session 11
  mallopt(M_MMAP_THRESHOLD, kOwnMappingBytes);
#endif
}

std::string memory_so_far() {
  char text[64];
  std::snprintf(text, sizeof text, "peak %.3f GB, resident %.3f GB", peak_resident_bytes() / 1e9, resident_bytes() / 1e9);
  return text;
}

}  // namespace mdpvi
