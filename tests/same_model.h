#pragma once
// Two builds of one model are the same, array for array; or a model and what a file
// format gave back of it, whose labels may come in another order.
#include "engine/model/sparse_mdp.h"

#include <gtest/gtest.h>

namespace mdpvi::test {

// The same matrix and initial states.
inline void expect_same_structure(const SparseMdp& a, const SparseMdp& b) {
  EXPECT_EQ(a.type, b.type);
  EXPECT_EQ(a.row_group_starts, b.row_group_starts);
  EXPECT_EQ(a.row_starts, b.row_starts);
  EXPECT_EQ(a.columns, b.columns);
  EXPECT_EQ(a.values, b.values);
  EXPECT_EQ(a.initial_states, b.initial_states);
}

inline void expect_same_model(const SparseMdp& a, const SparseMdp& b) {
  expect_same_structure(a, b);
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

// The same matrix, initial states, valuations, rewards (in order, named alike) and
// actions; labels matched by name, where one that a format drops must hold nowhere
// (DRN and PRISM's UMB name no empty "deadlock").
inline void expect_same_model_by_name(const SparseMdp& a, const SparseMdp& b) {
  expect_same_structure(a, b);
  ASSERT_EQ(a.valuations.has_value(), b.valuations.has_value());
  if (a.valuations) {
    EXPECT_EQ(a.valuations->variables, b.valuations->variables);
    EXPECT_EQ(a.valuations->types, b.valuations->types);
    for (std::uint32_t s = 0; s < a.num_states(); ++s) {
      for (std::size_t v = 0; v < a.valuations->variables.size(); ++v) {
        ASSERT_EQ(a.valuations->value(s, v), b.valuations->value(s, v)) << "state " << s << " " << a.valuations->variables[v];
      }
    }
  }
  ASSERT_EQ(a.rewards.size(), b.rewards.size());
  for (std::size_t r = 0; r < a.rewards.size(); ++r) {
    EXPECT_EQ(a.rewards[r].name, b.rewards[r].name);
    for (std::uint32_t s = 0; s < a.num_states(); ++s) {
      for (std::uint64_t row = a.row_group_starts[s]; row < a.row_group_starts[s + 1]; ++row) {
        ASSERT_EQ(a.rewards[r].row_reward(s, row), b.rewards[r].row_reward(s, row)) << a.rewards[r].name << " state " << s;
      }
    }
  }
  auto same_label = [](const SparseMdp& m, const Label& label) {
    for (const Label& l : m.labels) {
      if (l.name == label.name) return l.states == label.states;
    }
    return label.states.none();
  };
  for (const Label& label : a.labels) EXPECT_TRUE(same_label(b, label)) << label.name;
  for (const Label& label : b.labels) EXPECT_TRUE(same_label(a, label)) << label.name;
  auto action = [](const SparseMdp& m, std::uint64_t row) {
    return m.actions ? m.actions->names[m.actions->of_choice[row]] : std::string();
  };
  for (std::uint64_t row = 0; row < a.num_choices(); ++row) ASSERT_EQ(action(a, row), action(b, row)) << "choice " << row;
}

}  // namespace mdpvi::test
