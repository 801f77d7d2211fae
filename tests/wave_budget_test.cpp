#include "engine/explore/wave_budget.h"

#include <gtest/gtest.h>

namespace mdpvi {
namespace {

constexpr std::size_t kMB = std::size_t{1} << 20;
const WaveBudget kBudget{4096, 262144, 8 * kMB, 8};

TEST(WaveBudget, AsWideAsAllowedBeforeAnyWave) {
  EXPECT_EQ(next_wave_states(kBudget, 0, 0, 0), 262144u);
  EXPECT_EQ(next_wave_states(kBudget, 5 * kMB, 0, 0), 262144u);
}

TEST(WaveBudget, AsWideAsAllowedWhileThePoolIsCheap) {
  // 10 bytes a state: 2^18 states cost 2.6 MB, within the least budget.
  EXPECT_EQ(next_wave_states(kBudget, 10 * 1000, 1000, 0), 262144u);
}

TEST(WaveBudget, HeldToTheLeastBudgetForASmallModel) {
  // 512 bytes a state, model 16 MB: an eighth is 2 MB, so the 8 MB floor holds.
  EXPECT_EQ(next_wave_states(kBudget, 512 * 1000, 1000, 16 * kMB), 8 * kMB / 512);
}

TEST(WaveBudget, GrowsWithTheModel) {
  // 512 bytes a state, model 256 MB: the budget is 32 MB.
  EXPECT_EQ(next_wave_states(kBudget, 512 * 1000, 1000, 256 * kMB), 32 * kMB / 512);
  // A large model allows the widest waves again.
  EXPECT_EQ(next_wave_states(kBudget, 512 * 1000, 1000, 8192 * kMB), 262144u);
}

TEST(WaveBudget, NeverNarrowerThanTheLeastWave) {
  // 1 MB a state would allow 8 states.
  EXPECT_EQ(next_wave_states(kBudget, kMB * 1000, 1000, 0), 4096u);
}

}  // namespace
}  // namespace mdpvi
