#include "engine/explore/block_rows.h"

namespace mdpvi {

std::uint32_t merge_row(const std::uint64_t* targets, const double* probabilities, std::uint32_t count,
                        std::uint64_t* out_targets, double* out_probabilities) {
  std::uint32_t length = 0;
  if (count <= kLongRow) {
    for (std::uint32_t i = 0; i < count; ++i) {
      const std::uint64_t target = targets[i];  // read before an entry is written over it
      const double probability = probabilities[i];
      std::uint32_t j = 0;
      while (j < length && out_targets[j] != target) ++j;
      if (j < length) {
        out_probabilities[j] += probability;
      } else {
        out_targets[length] = target;
        out_probabilities[length++] = probability;
      }
    }
    return length;
  }
  struct Successor {
    std::uint64_t target;
    std::uint32_t order;
    double probability;
  };
  thread_local std::vector<Successor> sorted;
  sorted.clear();
  for (std::uint32_t i = 0; i < count; ++i) sorted.push_back({targets[i], i, probabilities[i]});
  std::sort(sorted.begin(), sorted.end(),
            [](const Successor& x, const Successor& y) { return std::tie(x.target, x.order) < std::tie(y.target, y.order); });
  for (const Successor& successor : sorted) {
    if (length > 0 && out_targets[length - 1] == successor.target) {
      out_probabilities[length - 1] += successor.probability;
    } else {
      out_targets[length] = successor.target;
      out_probabilities[length++] = successor.probability;
    }
  }
  return length;
}

void merge_block_rows(ExpandedBlock& block) {
  std::uint64_t* targets = block.targets.data();
  double* probabilities = block.probabilities.data();
  std::size_t read = 0, write = 0;
  for (std::uint32_t& length : block.row_lengths) {
    const std::uint32_t count = length;
    length = merge_row(targets + read, probabilities + read, count, targets + write, probabilities + write);
    read += count;
    write += length;
  }
  block.targets.resize(write);
  block.probabilities.resize(write);
}

}  // namespace mdpvi
