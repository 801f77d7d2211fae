// The state table's wave protocol: however threads interleave their look-ups, the new
// states are numbered by the first position that reached them.
#include "engine/explore/state_table.h"
#include "engine/model/process_memory.h"

#include <gtest/gtest.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <map>
#include <random>

namespace mdpvi {
namespace {

// Handing the states over frees the slots' pages there and then: the builder makes the
// model's values after it (model_builder.cpp), on memory the slots held. (An empty
// list assigned to the slots kept their capacity, so leader10's 17 GB of slots stayed
// through the build's last step.)
TEST(StateTable, HandingTheStatesOverFreesTheSlots) {
  StateTable table(1);
  table.reserve(std::uint64_t{1} << 24);  // 2^25 slots of 4 bytes, each written empty
  const std::size_t held = resident_bytes();
  const PodVector<std::uint64_t> states = table.release_states();
  EXPECT_GE(held, resident_bytes() + (std::uint64_t{100} << 20)) << "128 MiB of slots freed";
}

TEST(StateTable, InsertNumbersNewStatesInOrderAndFindsOldOnes) {
  StateTable table(1);
  for (std::uint64_t s = 0; s < 5000; ++s) {
    std::uint64_t key = s * 7919;
    EXPECT_EQ(table.insert(&key), std::make_pair(static_cast<std::uint32_t>(s), true));
  }
  std::uint64_t again = 42 * 7919;
  EXPECT_EQ(table.insert(&again), std::make_pair(42u, false));
  EXPECT_EQ(table.size(), 5000u);
  EXPECT_EQ(*table.state(4999), 4999u * 7919);
}

// One wave of words-word keys, several occurrences each, some known before the wave,
// looked up from many threads in a shuffled order.
void check_wave_numbering(std::uint32_t words) {
  StateTable table(words);
  auto key_of = [&](std::uint64_t id) { return std::vector<std::uint64_t>(words, id * 0x9E3779B97F4A7C15ull + 1); };
  for (std::uint64_t id = 0; id < 100; ++id) table.insert(key_of(id).data());  // known: ids 0..99

  std::mt19937 random(7);
  std::vector<std::uint64_t> keys;  // position -> key words
  std::vector<std::uint64_t> ids;
  for (std::uint32_t p = 0; p < 60000; ++p) {
    ids.push_back(random() % 20000);
    std::vector<std::uint64_t> key = key_of(ids.back());
    keys.insert(keys.end(), key.begin(), key.end());
  }
  auto key_at = [&](std::uint32_t p) { return &keys[std::size_t{p} * words]; };
  std::vector<std::uint32_t> order(ids.size());
  for (std::uint32_t p = 0; p < order.size(); ++p) order[p] = p;
  std::shuffle(order.begin(), order.end(), random);

  table.reserve(ids.size());  // the table grows here, from 100 states
  std::vector<StateTable::Lookup> found(ids.size());
  oneapi::tbb::parallel_for(std::size_t{0}, order.size(), [&](std::size_t k) {
    std::uint32_t p = order[k];
    found[p] = table.find_or_claim(key_at(p), table.hash(key_at(p)), p, key_at);
  });
  // What a sequential breadth-first search does: number new ids in order of first position.
  std::map<std::uint64_t, std::uint32_t> expected;
  for (std::uint64_t id : ids) {
    if (id >= 100 && !expected.count(id)) expected.emplace(id, static_cast<std::uint32_t>(100 + expected.size()));
  }
  std::uint64_t next = table.size();
  std::vector<std::pair<std::uint32_t, std::uint32_t>> won;  // slot, position
  for (std::uint32_t p = 0; p < ids.size(); ++p) {
    ASSERT_EQ(found[p].known, ids[p] < 100) << p;
    if (found[p].known) {
      EXPECT_EQ(found[p].value, ids[p]);
    } else if (table.claimed_at(found[p].value, p)) {
      won.emplace_back(found[p].value, p);
    }
  }
  ASSERT_EQ(won.size(), expected.size());
  // Each winner renamed to its rank: every claimant then reads the rank of its state.
  for (std::uint32_t w = 0; w < won.size(); ++w) table.rename_claim(won[w].first, w);
  for (std::uint32_t p = 0; p < ids.size(); ++p) {
    if (found[p].known) continue;
    const StateTable::Claim claim = table.claim_in(found[p].value);
    EXPECT_FALSE(claim.numbered);
    EXPECT_EQ(next + claim.value, expected.at(ids[p])) << p;
  }
  table.add_room(won.size());
  oneapi::tbb::parallel_for(std::size_t{0}, won.size(), [&](std::size_t w) {
    table.number(won[w].first, next + w, key_at(won[w].second));
  });
  table.finish_wave(won.size());
  for (std::uint32_t p = 0; p < ids.size(); ++p) {
    if (!found[p].known) {
      const StateTable::Claim claim = table.claim_in(found[p].value);
      EXPECT_TRUE(claim.numbered);
      EXPECT_EQ(claim.value, expected.at(ids[p])) << p;
    }
  }
  for (const auto& [id, index] : expected) {
    std::vector<std::uint64_t> key = key_of(id);
    EXPECT_EQ(table.insert(key.data()), std::make_pair(index, false));
    EXPECT_TRUE(std::equal(key.begin(), key.end(), table.state(index)));
  }
}

TEST(StateTable, WaveNumbersNewStatesByFirstPositionOneWord) { check_wave_numbering(1); }
TEST(StateTable, WaveNumbersNewStatesByFirstPositionThreeWords) { check_wave_numbering(3); }

TEST(PodVector, ReservedAddressSpaceLetsItGrowInPlace) {
  PodVector<double> values;
  reserve_address_space(values);
  if (values.capacity() < (std::size_t{1} << 24)) GTEST_SKIP() << "this system refused the reservation";
  values.push_back(1.0);
  const double* first = values.data();
  values.resize(std::size_t{1} << 24);
  values.back() = 2.0;
  EXPECT_EQ(values.data(), first);
  EXPECT_EQ(values.front(), 1.0);
}

TEST(PodVector, LargeBuffersStartOnAHugePageBoundary) {
  // Not a whole number of huge pages: a kernel that aligns such mappings itself would
  // not do so for this size.
  for (std::size_t count : {(std::size_t{1} << 20) + 3, std::size_t{5} << 20}) {
    PodVector<double> values;
    values.reserve(count);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(values.data()) % (std::uintptr_t{2} << 20), 0u) << count;
    values.resize(count);
    values.back() = 1.0;  // the whole length is mapped
    values.front() = 2.0;
  }
}

}  // namespace
}  // namespace mdpvi
