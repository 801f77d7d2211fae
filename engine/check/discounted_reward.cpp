#include "engine/check/discounted_reward.h"

#include "engine/check/rewards.h"
#include "engine/model/stopwatch.h"
#include "graph/scc.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_reduce.h>

#include <algorithm>
#include <chrono>

namespace mdpvi {

namespace {

// The largest b of the system's rows (its rewards: nothing outside counts).
double largest_row_constant(const MaybeSystem& system) {
  const PodVector<double>& b = system.row_constants;
  return oneapi::tbb::parallel_reduce(
      oneapi::tbb::blocked_range<std::size_t>(0, b.size(), 1 << 16), 0.0,
      [&](const auto& part, double most) {
        for (std::size_t r = part.begin(); r < part.end(); ++r) most = std::max(most, b[r]);
        return most;
      },
      [](double a, double c) { return std::max(a, c); });
}

}  // namespace

NumericResult compute_discounted_reward(const SparseMdp& mdp, const graph::SearchBackend& search,
                                        Optimization direction, const RewardStructure& rewards, const StateSet* target,
                                        double discount, const SolverOptions& options, const DeviceOptions& device) {
  require_fit_rewards(rewards, "discounted rewards");
  NumericResult result;
  result.reward = true;
  auto start = std::chrono::steady_clock::now();
  const StateSet none(mdp.num_states());
  const StateSet& ends = target ? *target : none;
  const StateSet solved = ~ends;
  result.qualitative = {ends.count(), 0, solved.count(), 0.0, to_string(search.kind())};
  graph::SccDecomposition sccs = graph::maybe_state_sccs(search, mdp, solved);
  const char* sccs_ran_on = sccs.ran_on;
  // A copy on the host, its entries scaled by the discount: the target's value, 0,
  // adds nothing to b.
  const HostSystemBuilder on_host = [&](graph::SccDecomposition&& decomposition) {
    MaybeSystem built = build_maybe_system(mdp, std::move(decomposition), TwoValuedOutside{ends, 0.0, 0.0}, &rewards);
    discount_entries(built, discount);
    return built;
  };
  MaybeSystem system = on_host(std::move(sccs));
  result.sccs = {system.num_sccs(), seconds_since(start), sccs_ran_on};
  const double upper = largest_row_constant(system) / (1.0 - discount);
  solve_system_into(
      system,
      [&](const MaybeSystem& s) {
        return SolveRequest{.system = s, .direction = direction, .options = options, .known_upper_bound = upper};
      },
      device, result, on_host, [&] { return numbers_on(ends, 0.0, 0.0); });
  return result;
}

}  // namespace mdpvi
