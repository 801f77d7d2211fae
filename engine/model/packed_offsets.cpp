#include "engine/model/packed_offsets.h"

#include <tbb/parallel_for.h>

#include <algorithm>

namespace mdpvi {

PackedOffsets::PackedOffsets(std::initializer_list<std::uint64_t> values) {
  for (std::uint64_t v : values) push_back(v);
}

PackedOffsets::PackedOffsets(const PodVector<std::uint64_t>& values) : PackedOffsets(values.size()) {
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, values.size(), std::size_t{1} << 16),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      for (std::size_t i = r.begin(); i < r.end(); ++i) set(i, values[i]);
                    });
}

void PackedOffsets::copy_to(std::uint64_t* out, std::size_t begin, std::size_t count) const {
  for (std::size_t i = 0; i < count; ++i) out[i] = (*this)[begin + i];
}

PodVector<std::uint64_t> PackedOffsets::expanded() const {
  PodVector<std::uint64_t> out(size());
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, size(), std::size_t{1} << 16),
                    [&](const tbb::blocked_range<std::size_t>& r) { copy_to(out.data() + r.begin(), r.begin(), r.size()); });
  return out;
}

bool PackedOffsets::spans_fit(std::uint64_t bound) const {
  constexpr std::uint64_t kSpan = std::uint64_t{1} << 32;
  for (std::size_t b = 0; b < firsts_.size(); ++b) {
    const std::uint64_t next = b + 1 < firsts_.size() ? firsts_[b + 1] : bound;
    if (next < firsts_[b] || next - firsts_[b] >= kSpan) return false;
  }
  return true;
}

bool operator==(const PackedOffsets& a, const PackedOffsets& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

}  // namespace mdpvi
