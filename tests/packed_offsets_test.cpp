#include "engine/model/packed_offsets.h"
#include "engine/model/sparse_mdp.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

namespace mdpvi {
namespace {

constexpr std::uint64_t k32 = std::uint64_t{1} << 32;

// Non-decreasing offsets with steps up to a 256th of 2^32 and runs of equal values,
// so that blocks start past 2^32, 2^33, ... and some lie across a multiple of 2^32.
PodVector<std::uint64_t> large_offsets(std::size_t n, unsigned seed) {
  std::mt19937_64 random(seed);
  PodVector<std::uint64_t> values(n);
  std::uint64_t at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t kind = random() % 4;
    at += kind == 0 ? 0 : kind == 1 ? random() % 7 : random() % (k32 / PackedOffsets::kBlock);
    values[i] = at;
  }
  return values;
}

TEST(PackedOffsets, ReadBackWhatWasWrittenInAnyOrder) {
  for (std::size_t n : {1u, 2u, 255u, 256u, 257u, 1000u, 4099u}) {
    const PodVector<std::uint64_t> values = large_offsets(n, static_cast<unsigned>(n));
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937(7));
    PackedOffsets packed(n);
    for (std::size_t i : order) packed.set(i, values[i]);
    ASSERT_TRUE(packed.spans_fit(values.back())) << n;
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(packed[i], values[i]) << n << " at " << i;
    EXPECT_EQ(packed.expanded(), values);
    EXPECT_EQ(packed, PackedOffsets(values));
    EXPECT_EQ(packed.back(), values.back());
  }
}

TEST(PackedOffsets, PushBackEqualsSet) {
  const PodVector<std::uint64_t> values = large_offsets(777, 3);
  PackedOffsets pushed;
  for (std::uint64_t v : values) pushed.push_back(v);
  EXPECT_EQ(pushed, PackedOffsets(values));
  std::vector<std::uint64_t> part(100);
  pushed.copy_to(part.data(), 300, part.size());
  EXPECT_TRUE(std::equal(part.begin(), part.end(), values.begin() + 300));
}

TEST(PackedOffsets, LowWordsAreTheOffsetsBelow2To32) {
  const PackedOffsets small{0, 3, 3, 9, 0xffffffffu};
  EXPECT_TRUE(small.fit_32_bits());
  EXPECT_EQ(small.lows()[3], 9u);
  EXPECT_EQ(small.lows()[4], 0xffffffffu);
  PodVector<std::uint64_t> past(300);
  for (std::size_t i = 0; i < past.size(); ++i) past[i] = i < 256 ? i : k32 - 1 + i;
  EXPECT_FALSE(PackedOffsets(past).fit_32_bits());
  EXPECT_TRUE(PackedOffsets().fit_32_bits());
  // 4 bytes an offset and 8 a block.
  EXPECT_EQ(PackedOffsets(PodVector<std::uint64_t>(1000, 0)).bytes(), 1000 * 4 + 4 * 8);
}

TEST(PackedOffsets, ABlockSpanning2To32IsFound) {
  PodVector<std::uint64_t> values(300);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = i < 100 ? i : k32 + i;  // block 0 spans past 2^32
  EXPECT_FALSE(PackedOffsets(values).spans_fit(values.back()));
  // A block is bounded by the next one's first offset (the 256 rows between hold
  // fewer than 2^32 entries), the last one by what follows it.
  values.resize(600);  // block 1 lies across 2^32
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = i < 256 ? i * 1000 : k32 - 300 + i;
  const PackedOffsets packed(values);
  EXPECT_TRUE(packed.spans_fit(values.back()));
  EXPECT_EQ(packed.expanded(), values);
  EXPECT_FALSE(packed.spans_fit(values[512] + k32));
}

TEST(PackedOffsets, AModelWhoseOffsetsDoNotFitIsRefusedByName) {
  SparseMdp mdp;
  mdp.type = ModelType::dtmc;
  mdp.row_group_starts = PackedOffsets{0, 1};
  mdp.row_starts = PackedOffsets{0, 1};
  mdp.columns = {0};
  mdp.values = CompactValues{1.0};
  mdp.initial_states = {0};
  EXPECT_NO_THROW(compact_model(mdp));
  // Offsets whose blocks span more than the entries allow: what a block of 2^32
  // entries or more would have written.
  PodVector<std::uint64_t> starts(300);
  for (std::size_t i = 0; i < starts.size(); ++i) starts[i] = i < 256 ? 0 : k32;
  mdp.row_starts = PackedOffsets(starts);
  EXPECT_THROW(compact_model(mdp), std::invalid_argument);
}

}  // namespace
}  // namespace mdpvi
