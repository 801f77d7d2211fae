#include "engine/model/state_numbers.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>

namespace mdpvi {

namespace {

// Below this, one thread is done before a parallel loop has started.
constexpr std::size_t kParallelFrom = std::size_t{1} << 20;
constexpr std::size_t kGrain = std::size_t{1} << 16;

}  // namespace

StateNumbers filled(std::size_t n, double value) {
  StateNumbers v(n);
  if (n < kParallelFrom) {
    std::fill(v.begin(), v.end(), value);
    return v;
  }
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, n, kGrain),
                            [&](const auto& part) { std::fill(v.begin() + part.begin(), v.begin() + part.end(), value); });
  return v;
}

StateNumbers numbers_on(const StateSet& set, double inside, double outside) {
  StateNumbers v(set.size());
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, v.size(), kGrain), [&](const auto& part) {
    for (std::size_t s = part.begin(); s < part.end(); ++s) v[s] = set.test(s) ? inside : outside;
  });
  return v;
}

void parallel_copy(const double* from, std::size_t count, double* to) {
  if (count < kParallelFrom) {
    std::copy(from, from + count, to);
    return;
  }
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, count, kGrain), [&](const auto& part) {
    std::copy(from + part.begin(), from + part.end(), to + part.begin());
  });
}

StateNumbers copy_of(const double* from, std::size_t count) {
  StateNumbers v(count);
  parallel_copy(from, count, v.data());
  return v;
}

}  // namespace mdpvi
