#include "graph/kept_sccs.h"

#include "graph/parallel_select.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>

namespace mdpvi::graph {

namespace {

// A copy on all cores (a large model's decomposition is gigabytes).
template <typename T>
std::vector<T> copied(const std::vector<T>& from) {
  std::vector<T> to(from.size());
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, from.size(), 1 << 20), [&](const auto& part) {
    std::copy(from.begin() + part.begin(), from.begin() + part.end(), to.begin() + part.begin());
  });
  return to;
}

// scc_starts again from the bits: the positions whose bit is set, then the order's end.
std::vector<std::uint64_t> starts_from_bits(const BitWords& starts, std::uint64_t positions) {
  std::vector<std::uint64_t> scc_starts;
  parallel_for_each_kept(
      positions, [&](std::size_t i) { return starts.test(i); },
      [&](std::size_t count) { scc_starts.resize(count + 1); },
      [&](std::size_t i, std::size_t k) { scc_starts[k] = i; });
  scc_starts.back() = positions;
  return scc_starts;
}

}  // namespace

KeptSccs KeptSccs::copy_of(const SccDecomposition& sccs) {
  KeptSccs kept;
  kept.order_ = copied(sccs.order);
  kept.starts_ = BitWords(sccs.order.size());
  // Set with an atomic claim: several SCCs start within one 64-bit word.
  oneapi::tbb::parallel_for(std::size_t{0}, sccs.num_sccs(),
                            [&](std::size_t c) { kept.starts_.claim(sccs.scc_starts[c]); });
  kept.level_starts_ = sccs.level_starts;
  kept.ran_on_ = sccs.ran_on;
  return kept;
}

std::uint64_t KeptSccs::bytes_for(const SccDecomposition& sccs) {
  return sccs.order.size() * 4 + sccs.order.size() / 8 + sccs.level_starts.size() * 8;
}

SccDecomposition KeptSccs::copy() const {
  SccDecomposition sccs;
  sccs.order = copied(order_);
  sccs.scc_starts = starts_from_bits(starts_, order_.size());
  sccs.level_starts = level_starts_;
  sccs.ran_on = ran_on_;
  return sccs;
}

SccDecomposition KeptSccs::take() && {
  SccDecomposition sccs;
  sccs.scc_starts = starts_from_bits(starts_, order_.size());
  starts_ = BitWords(0);
  sccs.order = std::move(order_);
  sccs.level_starts = std::move(level_starts_);
  sccs.ran_on = ran_on_;
  return sccs;
}

}  // namespace mdpvi::graph
