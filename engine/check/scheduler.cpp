#include "engine/check/scheduler.h"

#include <cmath>
#include <deque>
#include <limits>
#include <stdexcept>

namespace mdpvi {

namespace {

constexpr std::uint32_t kUnset = std::numeric_limits<std::uint32_t>::max();

// The rows with an entry into each state (a row names a state at most once: the
// builder and readers merge equal successors), and the state owning each row.
struct RowsInto {
  std::vector<std::uint64_t> offsets;  // num_states + 1
  std::vector<std::uint32_t> rows;
  std::vector<std::uint32_t> owner;  // per row

  explicit RowsInto(const SparseMdp& mdp) : offsets(mdp.num_states() + 1, 0), owner(mdp.num_choices()) {
    if (mdp.num_choices() > kUnset) throw std::length_error("--export-scheduler: more than 2^32-1 choices");
    for (std::uint32_t t : mdp.columns) ++offsets[t + 1];
    for (std::size_t t = 0; t < mdp.num_states(); ++t) offsets[t + 1] += offsets[t];
    rows.resize(mdp.num_transitions());
    std::vector<std::uint64_t> next(offsets.begin(), offsets.end() - 1);
    for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
      for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
        owner[r] = s;
        for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
          rows[next[mdp.columns[k]]++] = static_cast<std::uint32_t>(r);
        }
      }
    }
  }
};

class SchedulerBuilder {
 public:
  SchedulerBuilder(const SparseMdp& mdp, const ReachabilityQuery& query, const StateNumbers& values,
                   double tolerance)
      : mdp_(mdp), query_(query), values_(values), tolerance_(tolerance), into_(mdp) {
    choice_.assign(mdp.num_states(), kUnset);
  }

  Scheduler build() {
    const bool reward = query_.rewards != nullptr;
    const bool maximize = query_.direction == Optimization::maximize;
    if (reward && maximize) {
      infinite_reward_choices();
      greedy_everywhere();
    } else if (reward || maximize) {  // Rmin, Pmax: backwards from the target
      for (std::uint32_t s = 0; s < mdp_.num_states(); ++s) {
        if (!progresses(s)) choice_[s] = 0;  // whatever it does, its value stays
      }
      attract(target_states(), [&](std::uint64_t row, std::uint32_t s) { return attains(row, s); });
      greedy_everywhere();  // only where the values were too coarse to tell
    } else {
      greedy_everywhere();  // Pmin
    }
    return Scheduler{std::move(choice_)};
  }

 private:
  // Rmin and Pmax: whether the state's choice matters, and must lead towards the
  // target (a finite reward outside the target; a positive probability on phi).
  bool progresses(std::uint32_t s) const {
    if (query_.target->test(s)) return false;
    if (query_.rewards) return std::isfinite(values_[s]);
    return values_[s] > 0.0 && (query_.phi == nullptr || query_.phi->test(s));
  }

  std::vector<std::uint32_t> target_states() const {
    std::vector<std::uint32_t> states;
    for (auto s = query_.target->find_first(); s != StateSet::npos; s = query_.target->find_next(s)) {
      states.push_back(static_cast<std::uint32_t>(s));
    }
    return states;
  }

  // The row's value: its reward (for a reward query) plus its successors' values;
  // infinite when a successor's is.
  double row_value(std::uint64_t row, std::uint32_t s) const {
    double sum = query_.rewards ? query_.rewards->row_reward(s, row) : 0.0;
    for (std::uint64_t k = mdp_.row_starts[row]; k < mdp_.row_starts[row + 1]; ++k) {
      sum += mdp_.values[k] * values_[mdp_.columns[k]];
    }
    return sum;
  }

  bool attains(std::uint64_t row, std::uint32_t s) const {
    const double value = row_value(row, s);
    return std::isfinite(value) && std::abs(value - values_[s]) <= tolerance_;
  }

  // Backwards from seeds: an unset state takes the first row that `eligible` accepts
  // and that enters a state already taken (or a seed), breadth-first, so every
  // state's row leads one step nearer to the seeds.
  template <typename Eligible>
  void attract(const std::vector<std::uint32_t>& seeds, Eligible eligible) {
    std::deque<std::uint32_t> frontier(seeds.begin(), seeds.end());
    std::vector<bool> reached(mdp_.num_states(), false);
    for (std::uint32_t s : seeds) {
      reached[s] = true;
      if (choice_[s] == kUnset) choice_[s] = 0;
    }
    while (!frontier.empty()) {
      const std::uint32_t t = frontier.front();
      frontier.pop_front();
      for (std::uint64_t k = into_.offsets[t]; k < into_.offsets[t + 1]; ++k) {
        const std::uint32_t row = into_.rows[k];
        const std::uint32_t s = into_.owner[row];
        if (reached[s] || choice_[s] != kUnset || !eligible(row, s)) continue;
        choice_[s] = static_cast<std::uint32_t>(row - mdp_.row_group_starts[s]);
        reached[s] = true;
        frontier.push_back(s);
      }
    }
  }

  // Every unset state takes its best row (the first of equal ones).
  void greedy_everywhere() {
    const bool maximize = query_.direction == Optimization::maximize;
    for (std::uint32_t s = 0; s < mdp_.num_states(); ++s) {
      if (choice_[s] != kUnset) continue;
      const std::uint64_t first = mdp_.row_group_starts[s];
      std::uint64_t best = first;
      double best_value = row_value(first, s);
      for (std::uint64_t r = first + 1; r < mdp_.row_group_starts[s + 1]; ++r) {
        const double value = row_value(r, s);
        if (maximize ? value > best_value : value < best_value) best = r, best_value = value;
      }
      choice_[s] = static_cast<std::uint32_t>(best - first);
    }
  }

  // Rmax's infinite states: those from which some scheduler never reaches the target
  // (Pmin = 0) keep a row that stays among them; the other infinite states take
  // rows that reach those with positive probability. The target is then missed with
  // positive probability from every infinite state, and the reward is infinite.
  void infinite_reward_choices() {
    std::vector<std::uint32_t> avoiding = states_avoiding_target();
    attract(avoiding, [&](std::uint64_t, std::uint32_t s) { return std::isinf(values_[s]); });
  }

  // The greatest set of infinite states in which every state has a row whose
  // successors all stay in the set, each given such a row: counts of leaving
  // entries per row and of staying rows per state, lowered as states drop out.
  std::vector<std::uint32_t> states_avoiding_target() {
    const std::uint32_t n = mdp_.num_states();
    std::vector<bool> in(n);
    for (std::uint32_t s = 0; s < n; ++s) in[s] = std::isinf(values_[s]) && !query_.target->test(s);
    std::vector<std::uint32_t> leaving(mdp_.num_choices(), 0), staying(n, 0);
    std::vector<std::uint32_t> dropped;
    for (std::uint32_t s = 0; s < n; ++s) {
      if (!in[s]) continue;
      for (std::uint64_t r = mdp_.row_group_starts[s]; r < mdp_.row_group_starts[s + 1]; ++r) {
        for (std::uint64_t k = mdp_.row_starts[r]; k < mdp_.row_starts[r + 1]; ++k) leaving[r] += !in[mdp_.columns[k]];
        staying[s] += leaving[r] == 0;
      }
      if (staying[s] == 0) dropped.push_back(s);
    }
    for (std::uint32_t s : dropped) in[s] = false;
    while (!dropped.empty()) {
      const std::uint32_t t = dropped.back();
      dropped.pop_back();
      for (std::uint64_t k = into_.offsets[t]; k < into_.offsets[t + 1]; ++k) {
        const std::uint32_t row = into_.rows[k];
        const std::uint32_t s = into_.owner[row];
        if (!in[s] || leaving[row]++ != 0) continue;
        if (--staying[s] == 0) {
          in[s] = false;
          dropped.push_back(s);
        }
      }
    }
    std::vector<std::uint32_t> avoiding;
    for (std::uint32_t s = 0; s < n; ++s) {
      if (!in[s]) continue;
      std::uint64_t r = mdp_.row_group_starts[s];
      while (leaving[r] != 0) ++r;
      choice_[s] = static_cast<std::uint32_t>(r - mdp_.row_group_starts[s]);
      avoiding.push_back(s);
    }
    return avoiding;
  }

  const SparseMdp& mdp_;
  const ReachabilityQuery& query_;
  const StateNumbers& values_;
  const double tolerance_;
  const RowsInto into_;
  std::vector<std::uint32_t> choice_;
};

}  // namespace

Scheduler optimal_scheduler(const SparseMdp& mdp, const ReachabilityQuery& query, const StateNumbers& values,
                            double tolerance) {
  return SchedulerBuilder(mdp, query, values, tolerance).build();
}

SparseMdp induced_dtmc(const SparseMdp& mdp, const Scheduler& scheduler) {
  SparseMdp dtmc;
  dtmc.type = ModelType::dtmc;
  const std::uint32_t n = mdp.num_states();
  dtmc.row_group_starts.resize(n + 1);
  dtmc.row_starts.resize(n + 1);
  dtmc.row_starts.set(0, 0);
  for (std::uint32_t s = 0; s <= n; ++s) dtmc.row_group_starts.set(s, s);
  std::vector<std::uint64_t> rows(n);
  for (std::uint32_t s = 0; s < n; ++s) {
    rows[s] = scheduler.row(mdp, s);
    const std::uint64_t begin = mdp.row_starts[rows[s]], end = mdp.row_starts[rows[s] + 1];
    dtmc.columns.insert(dtmc.columns.end(), mdp.columns.begin() + begin, mdp.columns.begin() + end);
    for (std::uint64_t k = begin; k < end; ++k) dtmc.values.push_back(mdp.values[k]);
    dtmc.row_starts.set(s + 1, dtmc.columns.size());
  }
  dtmc.initial_states = mdp.initial_states;
  dtmc.labels = mdp.labels;
  dtmc.valuations = mdp.valuations;
  for (const RewardStructure& r : mdp.rewards) {
    RewardStructure& kept = dtmc.rewards.emplace_back();
    kept.name = r.name;
    kept.state_rewards = r.state_rewards;
    if (!r.choice_rewards.empty()) {
      PodVector<double>& chosen = kept.choice_rewards.plain();
      chosen.resize(n);
      for (std::uint32_t s = 0; s < n; ++s) chosen[s] = r.choice_rewards[rows[s]];
    }
  }
  if (mdp.actions) {
    dtmc.actions.emplace().names = mdp.actions->names;
    dtmc.actions->of_choice.resize(n);
    for (std::uint32_t s = 0; s < n; ++s) dtmc.actions->of_choice[s] = mdp.actions->of_choice[rows[s]];
  }
  compact_model(dtmc);
  return dtmc;
}

}  // namespace mdpvi
