#pragma once
// The loop every oneTBB graph algorithm here is built on: a worklist processed a level
// at a time, each level in parallel, each thread pushing what it claims onto its own
// part of the next level. Levels narrower than a few hundred vertices run on the
// calling thread: a parallel level costs tens of microseconds of overhead, and
// searches of the benchmark models have thousands of narrow levels. (A barrier-free
// worklist, tbb::parallel_for_each with a feeder, was slower: a task per vertex.)
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include <cstdint>
#include <vector>

namespace mdpvi::graph {

// visit(v, next) for every vertex of frontier, then of each next level, until a level
// is empty; visit pushes onto next what it claims.
template <typename Visit>
void level_by_level(std::vector<std::uint32_t> frontier, Visit visit) {
  constexpr std::size_t kParallelLevel = 512;
  oneapi::tbb::enumerable_thread_specific<std::vector<std::uint32_t>> parts;
  std::vector<std::uint32_t> next;
  while (!frontier.empty()) {
    if (frontier.size() < kParallelLevel) {
      for (std::uint32_t v : frontier) visit(v, next);
    } else {
      oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, frontier.size(), 64), [&](const auto& range) {
        std::vector<std::uint32_t>& local = parts.local();
        for (std::size_t i = range.begin(); i < range.end(); ++i) visit(frontier[i], local);
      });
      for (std::vector<std::uint32_t>& part : parts) {
        next.insert(next.end(), part.begin(), part.end());
        part.clear();
      }
    }
    frontier.swap(next);
    next.clear();
  }
}

}  // namespace mdpvi::graph
