#include "engine/model/state_layout.h"

#include <algorithm>
#include <bit>
#include <climits>

namespace mdpvi {

StateLayout::StateLayout(const std::vector<std::pair<std::int32_t, std::int32_t>>& ranges) {
  std::uint32_t word = 0;
  std::uint32_t used = 0;
  for (auto [low, high] : ranges) {
    std::uint64_t span = static_cast<std::uint64_t>(static_cast<std::int64_t>(high) - low);
    std::uint32_t width = span == 0 ? 0 : static_cast<std::uint32_t>(std::bit_width(span));
    if (used + width > 64) {
      ++word;
      used = 0;
    }
    Field f;
    f.word = word;
    f.shift = used;
    f.mask = width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
    f.low = low;
    f.high = high;
    fields_.push_back(f);
    used += width;
  }
  words_ = word + 1;
}

StateValuations pack_valuations(std::vector<std::string> variables, std::vector<ValueType> types,
                                const std::vector<std::int32_t>& values, std::uint64_t num_states) {
  const std::size_t width = variables.size();
  std::vector<std::pair<std::int32_t, std::int32_t>> ranges(width, {INT32_MAX, INT32_MIN});
  for (std::uint64_t s = 0; s < num_states; ++s) {
    for (std::size_t v = 0; v < width; ++v) {
      std::int32_t x = values[s * width + v];
      ranges[v] = {std::min(ranges[v].first, x), std::max(ranges[v].second, x)};
    }
  }
  for (auto& r : ranges) {
    if (r.first > r.second) r = {0, 0};  // no states
  }
  StateValuations valuations{std::move(variables), std::move(types), StateLayout(ranges), {}};
  const std::uint32_t words = valuations.layout.words();
  valuations.packed.assign(num_states * words, 0);
  for (std::uint64_t s = 0; s < num_states; ++s) {
    for (std::size_t v = 0; v < width; ++v) valuations.layout.set(&valuations.packed[s * words], v, values[s * width + v]);
  }
  return valuations;
}

}  // namespace mdpvi
