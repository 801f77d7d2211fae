#include "engine/check/rewards.h"

#include "engine/check/collapsed_sccs.h"
#include "engine/solve/end_component_quotient.h"
#include "engine/model/bit_words.h"
#include "engine/model/process_memory.h"
#include "engine/model/property_value.h"
#include "engine/model/stopwatch.h"
#include "graph/qualitative.h"
#include "graph/scc.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <limits>
#include <optional>

namespace mdpvi {

namespace {

// Rmin only: a scheduler could stay forever in an end component of zero-reward
// choices among the finite states, collecting 0 without reaching the target. Value
// iteration from 0 would take that as the minimum, but only schedulers that reach
// the target almost surely count; collapsing those components removes the option.
// These are the rows such components may use (as in all of PRISM's benchmarks, they
// hold none).
StateSet zero_reward_rows(const SparseMdp& mdp, const RewardStructure& rewards, const StateSet& maybe) {
  BitWords zero(mdp.num_choices());  // in parallel: two states' rows may share a word
  oneapi::tbb::parallel_for(std::uint32_t{0}, mdp.num_states(), [&](std::uint32_t s) {
    if (!maybe.test(s) || (!rewards.state_rewards.empty() && rewards.state_rewards[s] != 0.0)) return;
    for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
      if (rewards.choice_rewards.empty() || rewards.choice_rewards[r] == 0.0) zero.claim(r);
    }
  });
  return zero.to_set(mdp.num_choices());
}

// The first index of values that is negative, NaN or infinite; values.size() if none.
std::size_t first_unfit(const CompactValues& values) {
  return oneapi::tbb::parallel_reduce(
      oneapi::tbb::blocked_range<std::size_t>(0, values.size()), values.size(),
      [&](const oneapi::tbb::blocked_range<std::size_t>& range, std::size_t first) {
        for (std::size_t i = range.begin(); i < range.end() && i < first; ++i) {
          if (!(values[i] >= 0.0) || std::isinf(values[i])) return i;
        }
        return first;
      },
      [](std::size_t a, std::size_t b) { return std::min(a, b); });
}

}  // namespace

// The builder names the reward item; an explicit model's values are found here.
StateNumbers reward_per_state(const SparseMdp& chain, const RewardStructure& rewards) {
  StateNumbers per_state(chain.num_states());
  for (std::uint32_t s = 0; s < chain.num_states(); ++s) per_state[s] = rewards.row_reward(s, chain.row_group_starts[s]);
  return per_state;
}

void require_fit_rewards(const RewardStructure& rewards, const std::string& what) {
  const std::string which = rewards.name.empty() ? "the reward structure" : "reward structure \"" + rewards.name + "\"";
  const std::string need = ": " + what + " need rewards that are finite and not negative";
  if (!rewards.first_negative.empty()) throw std::runtime_error(rewards.first_negative + need);
  const std::size_t state = first_unfit(rewards.state_rewards);
  if (state < rewards.state_rewards.size()) {
    throw std::runtime_error(which + ": state reward " + format_number(rewards.state_rewards[state]) + " in state " +
                             std::to_string(state) + need);
  }
  const std::size_t row = first_unfit(rewards.choice_rewards);
  if (row < rewards.choice_rewards.size()) {
    throw std::runtime_error(which + ": transition reward " + format_number(rewards.choice_rewards[row]) + " on choice " +
                             std::to_string(row) + need);
  }
}

NumericResult compute_reachability_reward(const SparseMdp& mdp, const graph::SearchBackend& search,
                                          Optimization direction, const RewardStructure& rewards,
                                          const StateSet& target, const SolverOptions& options,
                                          const DeviceOptions& device, const StateSet* constraint) {
  require_fit_rewards(rewards, "reachability rewards (R[F])");
  NumericResult result;
  result.reward = true;
  auto start = std::chrono::steady_clock::now();
  const StateSet all = constraint ? *constraint : all_states(mdp.num_states());
  // Rmin needs one scheduler reaching the target almost surely (Pmax = 1); Rmax needs
  // all of them to (Pmin = 1); under a constraint, through constraint states only (a
  // choice into another state leads where the reward is infinite: for Rmin its row
  // gets b = infinity and is left out).
  StateSet finite = direction == Optimization::minimize ? graph::partition_for_max(search, all, target).yes
                                                        : graph::partition_for_min(search, all, target).yes;
  StateSet maybe = finite - target;
  result.qualitative = {target.count(), mdp.num_states() - finite.count(), maybe.count(), seconds_since(start),
                        to_string(search.kind())};

  start = std::chrono::steady_clock::now();
  CollapsedSccs decomposed;
  if (direction == Optimization::minimize) {
    decomposed = sccs_after_collapsing(search, mdp, maybe, zero_reward_rows(mdp, rewards, maybe), &rewards);
    spdlog::debug("zero-reward end components: {}", decomposed.collapsed ? "collapsed" : "none");
  } else {
    decomposed.sccs = graph::maybe_state_sccs(search, mdp, maybe);
  }
  const std::optional<CollapsedModel>& collapsed = decomposed.collapsed;
  const SparseMdp& model = decomposed.model(mdp);
  graph::SccDecomposition sccs = std::move(decomposed.sccs);
  spdlog::debug("SCCs of {} maybe-states: {:.3f} s; {}", sccs.order.size(), seconds_since(start), memory_so_far());
  // For Rmax no choice of a finite state can reach an infinite one (it would be
  // infinite itself); for Rmin such choices get b = infinity and are left out.
  const char* sccs_ran_on = sccs.ran_on;
  const RewardStructure* model_rewards = collapsed ? &collapsed->rewards : &rewards;
  // Outside the system: 0 on the targets, infinity on the other states (not finite).
  const double infinity = std::numeric_limits<double>::infinity();
  const TwoValuedOutside outside{target, 0.0, infinity};
  const HostSystemBuilder on_host = [&](graph::SccDecomposition&& decomposition) {
    MaybeSystem built =
        build_maybe_system(model, std::move(decomposition), outside, model_rewards, host_system_values(device));
    if (model.uniformisation_rate > 0.0) remove_self_loops(built);  // a CTMC: its embedded chain's system
    return built;
  };
  MaybeSystem system = build_system(search, model, std::move(sccs), options, device, outside, model_rewards, on_host);
  spdlog::debug("maybe-state system: {} rows ({}), {:.3f} s since the SCCs began; {}", system.num_rows(),
                where_kept(system), seconds_since(start), memory_so_far());
  result.sccs = {system.num_sccs(), seconds_since(start), sccs_ran_on};
  // No known upper bound: the upper iterate's start is guessed and verified.
  solve_system_into(
      system, [&](const MaybeSystem& s) { return SolveRequest{.system = s, .direction = direction, .options = options}; },
      device, result, on_host, [&] { return numbers_on(finite, 0.0, infinity); });
  return result;
}

}  // namespace mdpvi
