#pragma once
// body(i) for every i in [first, end), on all cores, in blocks of at least grain
// indices: the loop the solver's and the checks' parallel passes share.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_scan.h>

#include <cstddef>
#include <cstdint>
#include <functional>

namespace mdpvi {

template <typename Body>
void parallel_indices(std::size_t first, std::size_t end, std::size_t grain, const Body& body) {
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(first, end, grain), [&](const auto& part) {
    for (std::size_t i = part.begin(); i < part.end(); ++i) body(i);
  });
}

// values[0, count) replaced by their running totals (an inclusive scan), on all
// cores: the offsets of rows from their counts. Integers: the same whatever the split.
inline void parallel_running_totals(std::uint64_t* values, std::size_t count) {
  oneapi::tbb::parallel_scan(
      oneapi::tbb::blocked_range<std::size_t>(0, count, std::size_t{1} << 16), std::uint64_t{0},
      [values](const oneapi::tbb::blocked_range<std::size_t>& part, std::uint64_t sum, bool is_final) {
        for (std::size_t i = part.begin(); i < part.end(); ++i) {
          sum += values[i];
          if (is_final) values[i] = sum;
        }
        return sum;
      },
      std::plus<std::uint64_t>());
}

}  // namespace mdpvi
