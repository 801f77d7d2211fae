#include "engine/check/ltl.h"

#include "engine/automata/path_automaton.h"
#include "engine/check/ctl.h"
#include "engine/check/fairness.h"
#include "engine/check/ltl_acceptance.h"
#include "engine/check/ltl_product.h"
#include "engine/check/reachability.h"
#include "engine/check/rewards.h"
#include "engine/model/stopwatch.h"
#include "graph/search_backend.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <utility>

namespace mdpvi {

namespace {

using automata::PathAutomaton;

// values per pair, read at each model state's starting pair.
StateNumbers at_starts(const StateNumbers& values, const std::vector<std::uint32_t>& start) {
  if (values.empty()) return {};
  StateNumbers out(start.size());
  for (std::size_t s = 0; s < start.size(); ++s) out[s] = values[start[s]];
  return out;
}

// Per-pair values of a product computation, read at each model state's starting pair.
NumericResult at_model_states(NumericResult on_pairs, const LtlProduct& product) {
  NumericResult result = std::move(on_pairs);
  result.values = at_starts(result.values, product.start);
  result.lower = at_starts(result.lower, product.start);
  result.upper = at_starts(result.upper, product.start);
  return result;
}

// The product, its size and time said under -v.
LtlProduct product_of(const SparseMdp& mdp, PathAutomaton& automaton, const std::vector<StateSet>& atoms,
                      ProductChoices choices, ModelRows model_rows = ModelRows::dropped) {
  const auto start = std::chrono::steady_clock::now();
  LtlProduct product = build_ltl_product(mdp, automaton, atoms, choices, model_rows);
  spdlog::debug("LTL product: {} pairs of {} model states and {} automaton states, {} choices, {} entries: {:.3f} s",
                product.mdp.num_states(), mdp.num_states(), automaton.num_states(), product.mdp.num_choices(),
                product.mdp.num_transitions(), seconds_since(start));
  return product;
}

StateSet accepting_pairs(const LtlProduct& product, const graph::SearchBackend& search) {
  const auto start = std::chrono::steady_clock::now();
  StateSet target = almost_surely_accepted(product, search);
  spdlog::debug("LTL: {} pairs of {} in the accepting part accept almost surely: {:.3f} s", target.count(),
                product.accepting_part.count(), seconds_since(start));
  return target;
}

// The pairs where a fair scheduler is accepted surely: the accepting part's bottom SCCs
// (of the product's whole graph) that see every mark of their term.
StateSet fair_accepting_pairs(const LtlProduct& product, const graph::SearchBackend& search) {
  const std::uint32_t n = product.mdp.num_states();
  const std::vector<std::uint32_t> label = bottom_scc_labels(product.mdp, search, product.accepting_part);
  std::vector<std::uint32_t> seen(n, 0);  // per label: the marks its pairs see
  for (std::uint32_t i = 0; i < n; ++i) {
    if (label[i] != kNotBottom) seen[label[i]] |= product.marks[i];
  }
  StateSet target(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    if (label[i] != kNotBottom && (seen[label[i]] & product.all_marks[i]) == product.all_marks[i]) target.set(i);
  }
  return target;
}

// Pmax [ path ]: the accepting pairs' reachability in the product with jumps; over fair
// schedulers only, the fair accepting pairs' (the reachability itself needs no
// fairness: a scheduler made fair once there loses nothing).
NumericResult maximal_probabilities(const SparseMdp& mdp, PathAutomaton& automaton, const std::vector<StateSet>& atoms,
                                    const SolverOptions& options, const DeviceOptions& device, graph::SearchKind kind,
                                    bool fair = false) {
  const LtlProduct product = product_of(mdp, automaton, atoms, ProductChoices::model_and_jumps);
  const auto search = graph::make_search_backend(product.mdp, kind);
  const StateSet target = fair ? fair_accepting_pairs(product, *search) : accepting_pairs(product, *search);
  return at_model_states(compute_until_probabilities(product.mdp, *search, Optimization::maximize,
                                                     all_states(product.mdp.num_states()), target, options, device),
                         product);
}

// P [ path ] of a co-safe path, either way: reaching the pairs where the automaton's
// deterministic first part has accepted, in the product without jumps (a chain's
// product is a chain; no end components to find).
NumericResult co_safe_probabilities(const SparseMdp& mdp, PathAutomaton& automaton, const std::vector<StateSet>& atoms,
                                    Optimization direction, const SolverOptions& options, const DeviceOptions& device,
                                    graph::SearchKind kind, bool fair_minimum = false) {
  const LtlProduct product = product_of(mdp, automaton, atoms, ProductChoices::model_only);
  const auto search = graph::make_search_backend(product.mdp, kind);
  const StateSet all = all_states(product.mdp.num_states());
  return at_model_states(
      fair_minimum ? compute_fair_minimal_until(product.mdp, *search, all, product.universal, options, device)
                   : compute_until_probabilities(product.mdp, *search, direction, all, product.universal, options, device),
      product);
}

}  // namespace

NumericResult compute_ltl_reward(const SparseMdp& mdp, Optimization direction, const RewardStructure& rewards,
                                 const PathFormula& formula, const std::vector<StateSet>& atoms,
                                 const SolverOptions& options, const DeviceOptions& device, graph::SearchKind kind) {
  const std::unique_ptr<PathAutomaton> automaton = automata::automaton_for(formula, static_cast<std::uint32_t>(atoms.size()));
  if (!automaton->co_safe()) {
    throw std::runtime_error("a reward over an LTL path needs a co-safe path (X, U and F over state formulas, "
                             "negations pushed to them): the reward until it is satisfied");
  }
  const LtlProduct product = product_of(mdp, *automaton, atoms, ProductChoices::model_only, ModelRows::kept);
  const auto search = graph::make_search_backend(product.mdp, kind);
  const RewardStructure lifted = rewards_on_pairs(rewards, product.mdp, product.model_state, product.model_row);
  return at_model_states(compute_reachability_reward(product.mdp, *search, direction, lifted, product.accepting_part,
                                                     options, device),
                         product);
}

NumericResult compute_ltl_probabilities(const SparseMdp& mdp, Optimization direction, const PathFormula& formula,
                                        const std::vector<StateSet>& atoms, const SolverOptions& options,
                                        const DeviceOptions& device, graph::SearchKind kind, bool fair) {
  const bool chain = has_one_choice_per_state(mdp.type);
  fair = fair && !chain;
  const std::uint32_t count = static_cast<std::uint32_t>(atoms.size());
  const std::unique_ptr<PathAutomaton> automaton = automata::automaton_for(formula, count);
  if (automaton->co_safe()) {
    return co_safe_probabilities(mdp, *automaton, atoms, direction, options, device, kind,
                                 fair && direction == Optimization::minimize);
  }
  // Otherwise through the negation where it is co-safe (a safety path), or where the
  // minimum is asked: P [ path ] = 1 - P [ !path ], the direction swapped.
  const std::unique_ptr<PathAutomaton> negated =
      automata::automaton_for(PathFormula::unary(PathFormula::Op::negation, formula), count);
  if (negated->co_safe()) {
    return complemented(co_safe_probabilities(mdp, *negated, atoms, opposite(direction), options, device, kind,
                                              fair && direction == Optimization::maximize));
  }
  if (chain || direction == Optimization::maximize) {
    return maximal_probabilities(mdp, *automaton, atoms, options, device, kind, fair);
  }
  return complemented(maximal_probabilities(mdp, *negated, atoms, options, device, kind, fair));
}

StateSet exists_ltl_path(const SparseMdp& mdp, const PathFormula& formula, const std::vector<StateSet>& atoms,
                         graph::SearchKind kind) {
  const std::unique_ptr<PathAutomaton> automaton = automata::automaton_for(formula, static_cast<std::uint32_t>(atoms.size()));
  const LtlProduct product = product_of(mdp, *automaton, atoms, ProductChoices::edges_and_jumps);
  const auto search = graph::make_search_backend(product.mdp, kind);
  const StateSet target = accepting_pairs(product, *search);
  const StateSet on_pairs =
      ctl_until(product.mdp, *search, false, all_states(product.mdp.num_states()), target, 0, std::nullopt);
  StateSet holds(mdp.num_states());
  for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
    if (on_pairs.test(product.start[s])) holds.set(s);
  }
  return holds;
}

}  // namespace mdpvi
