#pragma once
// Two builds of one model are the same, array for array.
#include "engine/model/sparse_mdp.h"

#include <gtest/gtest.h>

namespace mdpvi::test {

inline void expect_same_model(const SparseMdp& a, const SparseMdp& b) {
  EXPECT_EQ(a.row_group_starts, b.row_group_starts);
  EXPECT_EQ(a.row_starts, b.row_starts);
  EXPECT_EQ(a.columns, b.columns);
  EXPECT_EQ(a.values, b.values);
  EXPECT_EQ(a.initial_states, b.initial_states);
  ASSERT_EQ(a.valuations.has_value(), b.valuations.has_value());
  if (a.valuations) {
    EXPECT_EQ(a.valuations->packed, b.valuations->packed);
  }
  ASSERT_EQ(a.rewards.size(), b.rewards.size());
  for (std::size_t r = 0; r < a.rewards.size(); ++r) {
    EXPECT_EQ(a.rewards[r].state_rewards, b.rewards[r].state_rewards);
    EXPECT_EQ(a.rewards[r].choice_rewards, b.rewards[r].choice_rewards);
  }
  ASSERT_EQ(a.labels.size(), b.labels.size());
  for (std::size_t l = 0; l < a.labels.size(); ++l) EXPECT_EQ(a.labels[l].states, b.labels[l].states);
}

}  // namespace mdpvi::test
