#pragma once
// body(i) for every i in [first, end), on all cores, in blocks of at least grain
// indices: the loop the solver's parallel passes share.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <cstddef>

namespace mdpvi {

template <typename Body>
void parallel_indices(std::size_t first, std::size_t end, std::size_t grain, const Body& body) {
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(first, end, grain), [&](const auto& part) {
    for (std::size_t i = part.begin(); i < part.end(); ++i) body(i);
  });
}

}  // namespace mdpvi
