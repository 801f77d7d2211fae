#include "engine/check/ltl.h"

#include "engine/automata/ltl_automaton.h"
#include "engine/check/ctl.h"
#include "engine/check/reachability.h"
#include "engine/check/rewards.h"
#include "graph/end_components.h"
#include "engine/model/stopwatch.h"
#include "graph/search_backend.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <utility>

namespace mdpvi {

namespace {

using automata::LtlAutomaton;

// The model's states paired with the automaton's, from every model state with the
// automaton after its letter; one sink for every pair whose automaton state rejects.
struct Product {
  SparseMdp mdp;
  std::vector<std::uint32_t> start;  // per model state: its pair
  StateSet accepting_part;           // pairs in the accepting component (not the sink)
  std::vector<std::uint32_t> marks, all_marks;  // per pair: its automaton state's
  std::vector<std::uint32_t> model_state;       // per pair
  PodVector<std::uint64_t> model_row;           // per product row: the model's, or kNoRow (a jump, the sink)
  static constexpr std::uint64_t kNoRow = ~std::uint64_t{0};
};

// Each state's letter: bit i where atom i holds.
std::vector<std::uint64_t> letters_of(std::uint32_t n, const std::vector<StateSet>& atoms) {
  std::vector<std::uint64_t> letters(n, 0);
  for (std::size_t i = 0; i < atoms.size(); ++i) {
    for (std::size_t s = atoms[i].find_first(); s != StateSet::npos; s = atoms[i].find_next(s)) {
      letters[s] |= std::uint64_t{1} << i;
    }
  }
  return letters;
}

class ProductBuilder {
 public:
  // How the product's choices are made.
  enum class Choices {
    model_and_jumps,  // the model's, and the automaton's jumps
    model_only,       // the model's (a co-safe path: its initial component decides)
    edges_and_jumps   // one per successor, probability 1 (the product's graph for E [ path ],
                      // whose end components are then its cycles), and the jumps
  };
  ProductBuilder(const SparseMdp& mdp, LtlAutomaton& automaton, const std::vector<StateSet>& atoms, Choices choices)
      : mdp_(mdp), automaton_(automaton), letters_(letters_of(mdp.num_states(), atoms)), choices_(choices) {
    number_letters();
  }

  Product build() {
    pair_of(0, LtlAutomaton::kRejecting);  // the sink is pair 0
    Product product;
    product.start.resize(mdp_.num_states());
    for (std::uint32_t s = 0; s < mdp_.num_states(); ++s) {
      product.start[s] = pair_of(s, step(automaton_.initial(), s));
    }
    SparseMdp& p = product.mdp;
    p.row_group_starts.push_back(0);
    p.row_starts.push_back(0);
    for (std::uint32_t i = 0; i < states_.size(); ++i) add_rows(i, p);
    p.values = CompactValues(std::move(values_));
    for (std::uint32_t s : mdp_.initial_states) p.initial_states.push_back(product.start[s]);
    std::sort(p.initial_states.begin(), p.initial_states.end());
    p.initial_states.erase(std::unique(p.initial_states.begin(), p.initial_states.end()), p.initial_states.end());
    compact_model(p);
    const std::size_t n = states_.size();
    product.accepting_part.resize(n);
    product.marks.resize(n);
    product.all_marks.resize(n);
    product.model_state.resize(n);
    product.model_row = std::move(model_rows_);
    for (std::uint32_t i = 0; i < n; ++i) {
      product.model_state[i] = states_[i].first;
      const LtlAutomaton::State q = states_[i].second;
      if (q != LtlAutomaton::kRejecting && automaton_.in_accepting_component(q)) product.accepting_part.set(i);
      product.marks[i] = automaton_.marks(q);
      product.all_marks[i] = automaton_.all_marks(q);
    }
    return product;
  }

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

  // The pair's number, made where it is new. Per automaton state an index over the
  // model's states, made at its first pair: few automaton states meet a model, and a
  // look-up is then one load where a hash table's was a miss and a probe.
  std::uint32_t pair_of(std::uint32_t s, LtlAutomaton::State q) {
    if (q == LtlAutomaton::kRejecting) s = 0;
    if (q >= index_.size()) index_.resize(q + 1);
    if (index_[q].empty()) index_[q].assign(mdp_.num_states(), kNone);
    std::uint32_t& number = index_[q][s];
    if (number == kNone) {
      number = static_cast<std::uint32_t>(states_.size());
      states_.emplace_back(s, q);
    }
    return number;
  }

  // The automaton's step on model state t's letter, remembered per letter.
  LtlAutomaton::State step(LtlAutomaton::State q, std::uint32_t t) {
    if (q >= steps_.size()) steps_.resize(q + 1);
    std::vector<LtlAutomaton::State>& by_letter = steps_[q];
    if (by_letter.empty()) by_letter.assign(letter_count_, kNone);
    LtlAutomaton::State& next = by_letter[letter_ids_[t]];
    if (next == kNone) next = automaton_.step(q, letters_[t]);
    return next;
  }

  void add_row(SparseMdp& p, std::vector<std::pair<std::uint32_t, double>>& entries,
               std::uint64_t model_row = Product::kNoRow) {
    model_rows_.push_back(model_row);
    std::sort(entries.begin(), entries.end());
    std::size_t out = 0;
    for (std::size_t k = 0; k < entries.size(); ++k) {  // successors that meet in the sink
      if (out > 0 && entries[out - 1].first == entries[k].first) {
        entries[out - 1].second += entries[k].second;
      } else {
        entries[out++] = entries[k];
      }
    }
    for (std::size_t k = 0; k < out; ++k) {
      p.columns.push_back(entries[k].first);
      values_.push_back(entries[k].second);
    }
    p.row_starts.push_back(p.columns.size());
    entries.clear();
  }

  void add_rows(std::uint32_t i, SparseMdp& p) {
    const auto [s, q] = states_[i];
    std::vector<std::pair<std::uint32_t, double>> entries;
    if (q == LtlAutomaton::kRejecting) {
      entries.emplace_back(i, 1.0);
      add_row(p, entries);
    } else if (choices_ == Choices::edges_and_jumps) {
      std::vector<std::uint32_t> successors;
      for (std::uint64_t r = mdp_.row_group_starts[s]; r < mdp_.row_group_starts[s + 1]; ++r) {
        for (std::uint64_t k = mdp_.row_starts[r]; k < mdp_.row_starts[r + 1]; ++k) {
          if (mdp_.values[k] > 0.0) successors.push_back(successor(q, mdp_.columns[k]));
        }
      }
      if (successors.empty()) successors.push_back(0);  // no path goes on: as the sink
      std::sort(successors.begin(), successors.end());
      successors.erase(std::unique(successors.begin(), successors.end()), successors.end());
      for (std::uint32_t t : successors) {
        entries.emplace_back(t, 1.0);
        add_row(p, entries);
      }
    } else {
      for (std::uint64_t r = mdp_.row_group_starts[s]; r < mdp_.row_group_starts[s + 1]; ++r) {
        for (std::uint64_t k = mdp_.row_starts[r]; k < mdp_.row_starts[r + 1]; ++k) {
          entries.emplace_back(successor(q, mdp_.columns[k]), mdp_.values[k]);
        }
        add_row(p, entries, r);
      }
    }
    if (choices_ != Choices::model_only && q != LtlAutomaton::kRejecting && !automaton_.in_accepting_component(q)) {
      const std::vector<LtlAutomaton::State> jumps = automaton_.jumps(q);  // a copy: pair_of grows the automaton
      for (LtlAutomaton::State a : jumps) {
        entries.emplace_back(pair_of(s, a), 1.0);
        add_row(p, entries);
      }
    }
    p.row_group_starts.push_back(p.row_starts.size() - 1);
  }

  std::uint32_t successor(LtlAutomaton::State q, std::uint32_t t) { return pair_of(t, step(q, t)); }

  // Each state's letter numbered among the distinct letters.
  void number_letters() {
    std::vector<std::uint64_t> distinct = letters_;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    letter_count_ = static_cast<std::uint32_t>(distinct.size());
    letter_ids_.resize(letters_.size());
    for (std::size_t s = 0; s < letters_.size(); ++s) {
      letter_ids_[s] = static_cast<std::uint32_t>(std::lower_bound(distinct.begin(), distinct.end(), letters_[s]) - distinct.begin());
    }
  }

  const SparseMdp& mdp_;
  LtlAutomaton& automaton_;
  std::vector<std::uint64_t> letters_;
  Choices choices_;
  PodVector<std::uint64_t> model_rows_;
  std::vector<std::pair<std::uint32_t, LtlAutomaton::State>> states_;  // per pair
  std::vector<std::vector<std::uint32_t>> index_;  // per automaton state, per model state: the pair
  std::vector<std::uint32_t> letter_ids_;
  std::uint32_t letter_count_ = 0;
  std::vector<std::vector<LtlAutomaton::State>> steps_;  // per automaton state, per letter
  PodVector<double> values_;
};

// The pairs in accepting end components: maximal end components of the accepting
// part that see every mark of their guess.
StateSet accepting_end_components(const Product& product) {
  const SparseMdp& p = product.mdp;
  const graph::EndComponents mecs = graph::maximal_end_components(p, product.accepting_part, all_states(p.num_choices()),
                                                                  graph::SearchKind::cpu_parallel);
  std::vector<std::uint32_t> seen(mecs.count, 0), needed(mecs.count, 0);
  for (std::uint32_t i = 0; i < p.num_states(); ++i) {
    const std::uint32_t c = mecs.component_of[i];
    if (c == graph::EndComponents::kNone) continue;
    seen[c] |= product.marks[i];
    needed[c] = product.all_marks[i];  // one guess per component: the jump is never undone
  }
  StateSet target(p.num_states());
  for (std::uint32_t i = 0; i < p.num_states(); ++i) {
    const std::uint32_t c = mecs.component_of[i];
    if (c != graph::EndComponents::kNone && seen[c] == needed[c]) target.set(i);
  }
  return target;
}

// values per pair, read at each model state's starting pair.
StateNumbers at_starts(const StateNumbers& values, const std::vector<std::uint32_t>& start) {
  if (values.empty()) return {};
  StateNumbers out(start.size());
  for (std::size_t s = 0; s < start.size(); ++s) out[s] = values[start[s]];
  return out;
}

// Per-pair values of a product computation, read at each model state's starting pair.
NumericResult at_model_states(NumericResult on_pairs, const Product& product) {
  NumericResult result = std::move(on_pairs);
  result.values = at_starts(result.values, product.start);
  result.lower = at_starts(result.lower, product.start);
  result.upper = at_starts(result.upper, product.start);
  return result;
}

// The product, its size and time said under -v.
Product product_of(const SparseMdp& mdp, LtlAutomaton& automaton, const std::vector<StateSet>& atoms,
                   ProductBuilder::Choices choices) {
  const auto start = std::chrono::steady_clock::now();
  Product product = ProductBuilder(mdp, automaton, atoms, choices).build();
  spdlog::debug("LTL product: {} pairs of {} model states and {} automaton states, {} choices, {} entries: {:.3f} s",
                product.mdp.num_states(), mdp.num_states(), automaton.num_states(), product.mdp.num_choices(),
                product.mdp.num_transitions(), seconds_since(start));
  return product;
}

StateSet accepting_pairs(const Product& product) {
  const auto start = std::chrono::steady_clock::now();
  StateSet target = accepting_end_components(product);
  spdlog::debug("LTL accepting end components: {} pairs of {} in the accepting part: {:.3f} s", target.count(),
                product.accepting_part.count(), seconds_since(start));
  return target;
}

NumericResult maximal_probabilities(const SparseMdp& mdp, const PathFormula& formula, const std::vector<StateSet>& atoms,
                                    const SolverOptions& options, const DeviceOptions& device) {
  LtlAutomaton automaton(formula, static_cast<std::uint32_t>(atoms.size()));
  const Product product = product_of(mdp, automaton, atoms, ProductBuilder::Choices::model_and_jumps);
  const StateSet target = accepting_pairs(product);
  const auto search = graph::make_search_backend(product.mdp, graph::SearchKind::cpu_parallel);
  return at_model_states(compute_until_probabilities(product.mdp, *search, Optimization::maximize,
                                                     all_states(product.mdp.num_states()), target, options, device),
                         product);
}

// The model's rewards on the product: each pair its state's, each row its model row's.
RewardStructure lifted_rewards(const RewardStructure& rewards, const Product& product) {
  const std::uint32_t n = product.mdp.num_states();
  PodVector<double> per_state(n), per_row(product.mdp.num_choices());
  for (std::uint32_t i = 0; i < n; ++i) {
    per_state[i] = rewards.state_rewards.empty() ? 0.0 : rewards.state_rewards[product.model_state[i]];
  }
  for (std::uint64_t r = 0; r < per_row.size(); ++r) {
    const std::uint64_t row = product.model_row[r];
    per_row[r] = row == Product::kNoRow || rewards.choice_rewards.empty() ? 0.0 : rewards.choice_rewards[row];
  }
  RewardStructure lifted;
  lifted.name = rewards.name;
  lifted.state_rewards = CompactValues(std::move(per_state));
  lifted.choice_rewards = CompactValues(std::move(per_row));
  return lifted;
}

}  // namespace

NumericResult compute_ltl_reward(const SparseMdp& mdp, Optimization direction, const RewardStructure& rewards,
                                 const PathFormula& formula, const std::vector<StateSet>& atoms,
                                 const SolverOptions& options, const DeviceOptions& device) {
  LtlAutomaton automaton(formula, static_cast<std::uint32_t>(atoms.size()));
  if (!automaton.co_safe()) {
    throw std::runtime_error("a reward over an LTL path needs a co-safe path (X, U and F over state formulas, "
                             "negations pushed to them): the reward until it is satisfied");
  }
  const Product product = product_of(mdp, automaton, atoms, ProductBuilder::Choices::model_only);
  const auto search = graph::make_search_backend(product.mdp, graph::SearchKind::cpu_parallel);
  const RewardStructure lifted = lifted_rewards(rewards, product);
  return at_model_states(compute_reachability_reward(product.mdp, *search, direction, lifted, product.accepting_part,
                                                     options, device),
                         product);
}

NumericResult compute_ltl_probabilities(const SparseMdp& mdp, Optimization direction, const PathFormula& formula,
                                        const std::vector<StateSet>& atoms, const SolverOptions& options,
                                        const DeviceOptions& device) {
  if (has_one_choice_per_state(mdp.type) || direction == Optimization::maximize) {
    return maximal_probabilities(mdp, formula, atoms, options, device);
  }
  // Pmin [ path ] = 1 - Pmax [ !path ]: [l, u] becomes [1 - u, 1 - l].
  NumericResult result =
      maximal_probabilities(mdp, PathFormula::unary(PathFormula::Op::negation, formula), atoms, options, device);
  for (StateNumbers* v : {&result.values, &result.lower, &result.upper}) {
    for (double& x : *v) x = 1.0 - x;
  }
  std::swap(result.lower, result.upper);
  std::swap(result.qualitative.yes, result.qualitative.no);
  return result;
}

StateSet exists_ltl_path(const SparseMdp& mdp, const PathFormula& formula, const std::vector<StateSet>& atoms) {
  LtlAutomaton automaton(formula, static_cast<std::uint32_t>(atoms.size()));
  const Product product = product_of(mdp, automaton, atoms, ProductBuilder::Choices::edges_and_jumps);
  const StateSet target = accepting_pairs(product);
  const auto search = graph::make_search_backend(product.mdp, graph::SearchKind::cpu_parallel);
  const StateSet on_pairs = ctl_until(product.mdp, *search, false, all_states(product.mdp.num_states()), target, 0, std::nullopt);
  StateSet holds(mdp.num_states());
  for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
    if (on_pairs.test(product.start[s])) holds.set(s);
  }
  return holds;
}

}  // namespace mdpvi
