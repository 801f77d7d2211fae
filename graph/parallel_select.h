#pragma once
// Order-keeping selection on all cores, for the graph algorithms' arrays of one entry
// per state: on leader10 (1.5e9 states) one serial pass over such an array takes
// seconds, and an SCC decomposition made a dozen (running sums: parallel_indices.h).
// In blocks of consecutive indices: each block counts what it keeps, a running total
// over the blocks says where each block starts, and each block then writes its own.
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <vector>

namespace mdpvi::graph {

namespace detail {

struct Blocks {
  static constexpr std::size_t kLeast = std::size_t{1} << 15, kMost = 4096;
  explicit Blocks(std::size_t n) : n(n), count(std::clamp<std::size_t>(n / kLeast, 1, kMost)) {}
  std::size_t first_of(std::size_t b) const { return n * b / count; }
  std::size_t n, count;
};

// count(first, end) for each block of [0, n), then sized(total), then
// write(first, end, written_before) for each block: what the selections below share.
template <typename Count, typename Sized, typename Write>
void in_counted_blocks(std::size_t n, Count count, Sized sized, Write write) {
  const Blocks blocks(n);
  std::vector<std::size_t> at(blocks.count + 1, 0);  // at[b + 1]: block b's count, then where it ends
  oneapi::tbb::parallel_for(std::size_t{0}, blocks.count,
                            [&](std::size_t b) { at[b + 1] = count(blocks.first_of(b), blocks.first_of(b + 1)); });
  std::partial_sum(at.begin(), at.end(), at.begin());
  sized(at[blocks.count]);
  oneapi::tbb::parallel_for(std::size_t{0}, blocks.count,
                            [&](std::size_t b) { write(blocks.first_of(b), blocks.first_of(b + 1), at[b]); });
}

}  // namespace detail

// visit(i, k) for every i in [0, n) with keep(i), where k is how many kept indices come
// before i; sized(count) is called first, once the kept indices are counted. keep is
// called twice per index, and must answer the same both times (no claiming in it).
template <typename Keep, typename Sized, typename Visit>
void parallel_for_each_kept(std::size_t n, Keep keep, Sized sized, Visit visit) {
  detail::in_counted_blocks(
      n,
      [&](std::size_t first, std::size_t end) {
        std::size_t kept = 0;
        for (std::size_t i = first; i < end; ++i) kept += keep(i) ? 1 : 0;
        return kept;
      },
      sized,
      [&](std::size_t first, std::size_t end, std::size_t k) {
        for (std::size_t i = first; i < end; ++i) {
          if (keep(i)) visit(i, k++);
        }
      });
}

// value(i) for the indices i in [0, n) with keep(i), in increasing order of i.
template <typename Keep, typename Value>
std::vector<std::uint32_t> parallel_select(std::size_t n, Keep keep, Value value) {
  std::vector<std::uint32_t> selected;
  parallel_for_each_kept(
      n, keep, [&](std::size_t count) { selected.resize(count); },
      [&](std::size_t i, std::size_t k) { selected[k] = value(i); });
  return selected;
}

// The indices of the set bits of words[0 .. num_words), in increasing order.
inline std::vector<std::uint32_t> parallel_set_bits(const std::uint64_t* words, std::size_t num_words) {
  std::vector<std::uint32_t> set;
  detail::in_counted_blocks(
      num_words,
      [&](std::size_t first, std::size_t end) {
        std::size_t bits = 0;
        for (std::size_t w = first; w < end; ++w) bits += static_cast<std::size_t>(std::popcount(words[w]));
        return bits;
      },
      [&](std::size_t count) { set.resize(count); },
      [&](std::size_t first, std::size_t end, std::size_t k) {
        for (std::size_t w = first; w < end; ++w) {
          for (std::uint64_t bits = words[w]; bits != 0; bits &= bits - 1) {
            set[k++] = static_cast<std::uint32_t>(w * 64 + static_cast<unsigned>(std::countr_zero(bits)));
          }
        }
      });
  return set;
}

// The elements of `from` for which keep(element) holds, in their order.
template <typename Keep>
std::vector<std::uint32_t> parallel_select_from(const std::vector<std::uint32_t>& from, Keep keep) {
  return parallel_select(
      from.size(), [&](std::size_t i) { return keep(from[i]); }, [&](std::size_t i) { return from[i]; });
}

}  // namespace mdpvi::graph
