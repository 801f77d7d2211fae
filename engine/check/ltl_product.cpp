#include "engine/check/ltl_product.h"

#include "engine/check/product_values.h"
#include "engine/model/bit_words.h"
#include "engine/model/parallel_indices.h"
#include "engine/model/stopwatch.h"

#include <oneapi/tbb/enumerable_thread_specific.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <iterator>
#include <stdexcept>
#include <utility>

namespace mdpvi {

namespace {

using automata::PathAutomaton;
using State = PathAutomaton::State;
using product_detail::add_distinct;
using product_detail::Entries;
using product_detail::Entry;
using product_detail::ProductValues;

// The automaton on the model's letters, as tables all threads may read.
struct AutomatonTable {
  std::uint32_t letters = 0;           // distinct letters of the model's states
  std::vector<State> next;             // [q * letters + letter]
  std::vector<std::vector<State>> jumps;  // per automaton state
  std::vector<std::uint8_t> accepting, universal;
  std::vector<std::uint32_t> marks, all_marks;
  std::size_t states() const { return accepting.size(); }
  State step(State q, std::uint32_t letter) const { return next[static_cast<std::size_t>(q) * letters + letter]; }
};

AutomatonTable tabulate(PathAutomaton& automaton, const std::vector<std::uint64_t>& distinct_letters, bool with_jumps) {
  AutomatonTable table;
  table.letters = static_cast<std::uint32_t>(distinct_letters.size());
  std::vector<std::vector<State>> rows;
  std::vector<bool> seen;
  std::vector<State> queue{automaton.initial(), PathAutomaton::kRejecting};
  const auto visit = [&](State q) {
    if (q >= seen.size()) seen.resize(q + 1, false);
    if (!seen[q]) {
      seen[q] = true;
      queue.push_back(q);
    }
  };
  seen.assign(automaton.num_states(), false);
  seen[automaton.initial()] = seen[PathAutomaton::kRejecting] = true;
  for (std::size_t i = 0; i < queue.size(); ++i) {
    const State q = queue[i];
    if (q >= rows.size()) rows.resize(q + 1);
    for (std::uint64_t letter : distinct_letters) rows[q].push_back(automaton.step(q, letter));
    for (State t : rows[q]) visit(t);
    if (with_jumps && q != PathAutomaton::kRejecting && !automaton.in_accepting_component(q)) {
      if (q >= table.jumps.size()) table.jumps.resize(q + 1);
      table.jumps[q] = automaton.jumps(q);
      for (State t : table.jumps[q]) visit(t);
    }
  }
  const std::size_t n = automaton.num_states();
  rows.resize(n);
  table.jumps.resize(n);
  table.next.assign(n * table.letters, PathAutomaton::kRejecting);
  table.accepting.resize(n);
  table.universal.resize(n);
  table.marks.resize(n);
  table.all_marks.resize(n);
  for (State q = 0; q < n; ++q) {
    std::copy(rows[q].begin(), rows[q].end(), table.next.begin() + static_cast<std::ptrdiff_t>(q * table.letters));
    table.accepting[q] = q != PathAutomaton::kRejecting && automaton.in_accepting_component(q);
    table.universal[q] = q != PathAutomaton::kRejecting && automaton.universal(q);
    table.marks[q] = automaton.marks(q);
    table.all_marks[q] = automaton.all_marks(q);
  }
  return table;
}

// The distinct letters, in increasing order: those of each block of states on all
// cores, then of the blocks' together (a model has few: one per valuation of the
// path's state formulas that some state has).
std::vector<std::uint64_t> sorted_distinct(const std::vector<std::uint64_t>& letters) {
  constexpr std::size_t kBlock = std::size_t{1} << 16;
  oneapi::tbb::enumerable_thread_specific<std::vector<std::uint64_t>> found;
  parallel_indices(0, (letters.size() + kBlock - 1) / kBlock, 1, [&](std::size_t b) {
    std::vector<std::uint64_t> block(letters.begin() + static_cast<std::ptrdiff_t>(b * kBlock),
                                     letters.begin() + static_cast<std::ptrdiff_t>(std::min(letters.size(), (b + 1) * kBlock)));
    std::sort(block.begin(), block.end());
    std::vector<std::uint64_t>& local = found.local();
    std::unique_copy(block.begin(), block.end(), std::back_inserter(local));
  });
  std::vector<std::uint64_t> distinct;
  for (const std::vector<std::uint64_t>& part : found) distinct.insert(distinct.end(), part.begin(), part.end());
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  return distinct;
}

class ParallelProductBuilder {
 public:
  ParallelProductBuilder(const SparseMdp& mdp, PathAutomaton& automaton, const std::vector<StateSet>& atoms,
                         ProductChoices choices, ModelRows model_rows)
      : mdp_(mdp), choices_(choices), model_rows_(model_rows), words_((mdp.num_states() + 63) / 64) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::uint64_t> distinct = number_letters(atoms);
    table_ = tabulate(automaton, distinct, choices != ProductChoices::model_only);
    start_q_.resize(mdp.num_states());
    const State initial = automaton.initial();
    parallel_indices(0, mdp.num_states(), 1 << 14, [&](std::size_t s) { start_q_[s] = table_.step(initial, letter_[s]); });
    letters_s_ = seconds_since(start);
  }

  LtlProduct build() {
    auto start = std::chrono::steady_clock::now();
    find_pairs();
    const double found_s = seconds_since(start);
    start = std::chrono::steady_clock::now();
    number_pairs();
    const double numbered_s = seconds_since(start);
    LtlProduct product;
    write_rows(product);
    start = std::chrono::steady_clock::now();
    product.start.resize(mdp_.num_states());
    parallel_indices(0, mdp_.num_states(), 1 << 14, [&](std::size_t s) {
      const auto [q, t] = pair_key(start_q_[s], static_cast<std::uint32_t>(s));
      product.start[s] = number(q, t);
    });
    for (std::uint32_t s : mdp_.initial_states) product.mdp.initial_states.push_back(product.start[s]);
    std::sort(product.mdp.initial_states.begin(), product.mdp.initial_states.end());
    product.mdp.initial_states.erase(std::unique(product.mdp.initial_states.begin(), product.mdp.initial_states.end()),
                                     product.mdp.initial_states.end());
    const std::size_t n = pair_q_.size();
    BitWords accepting(n), universal(n);
    product.marks.resize(n);
    product.all_marks.resize(n);
    product.model_state = std::move(pair_s_);
    // A word of 64 pairs at a time, each written by one thread.
    parallel_indices(0, accepting.size(), 1 << 10, [&](std::size_t w) {
      for (std::size_t p = w * 64; p < std::min(n, w * 64 + 64); ++p) {
        const State q = pair_q_[p];
        accepting.word(w) |= std::uint64_t{table_.accepting[q]} << (p % 64);
        universal.word(w) |= std::uint64_t{table_.universal[q]} << (p % 64);
        product.marks[p] = table_.marks[q];
        product.all_marks[p] = table_.all_marks[q];
      }
    });
    product.accepting_part = accepting.to_set(n);
    product.universal = universal.to_set(n);
    spdlog::debug("LTL product's steps: letters and starts {:.3f} s; pairs found {:.3f} s, numbered {:.3f} s; rows "
                  "counted {:.3f} s, written {:.3f} s; starts and pairs' sets {:.3f} s",
                  letters_s_, found_s, numbered_s, counted_s_, written_s_, seconds_since(start));
    return product;
  }

 private:
  // Each state's letter numbered among the distinct letters; returns those.
  std::vector<std::uint64_t> number_letters(const std::vector<StateSet>& atoms) {
    const std::uint32_t n = mdp_.num_states();
    const std::vector<std::uint64_t> letters = letters_of(n, atoms);
    const std::vector<std::uint64_t> distinct = sorted_distinct(letters);
    letter_.resize(n);
    parallel_indices(0, n, 1 << 14, [&](std::size_t s) {
      letter_[s] = static_cast<std::uint32_t>(std::lower_bound(distinct.begin(), distinct.end(), letters[s]) - distinct.begin());
    });
    return distinct;
  }

  // Every rejecting pair is the sink, (kRejecting, 0).
  static std::pair<State, std::uint32_t> pair_key(State q, std::uint32_t s) {
    return q == PathAutomaton::kRejecting ? std::pair<State, std::uint32_t>{q, 0} : std::pair{q, s};
  }
  static std::uint64_t packed(State q, std::uint32_t s) { return (static_cast<std::uint64_t>(q) << 32) | s; }

  bool claim(State q, std::uint32_t s) {
    const std::uint64_t bit = std::uint64_t{1} << (s & 63);
    return (bits_[q * words_ + s / 64].fetch_or(bit, std::memory_order_relaxed) & bit) == 0;
  }

  // The pair that moving from automaton state q to model state t makes.
  std::pair<State, std::uint32_t> successor(State q, std::uint32_t t) const {
    return pair_key(table_.step(q, letter_[t]), t);
  }

  // The pairs a pair's rows lead to (successors and jump targets), as keys.
  template <typename Visit>
  void successors(State q, std::uint32_t s, const Visit& visit) const {
    if (q == PathAutomaton::kRejecting) return;
    for (std::uint64_t r = mdp_.row_group_starts[s]; r < mdp_.row_group_starts[s + 1]; ++r) {
      for (std::uint64_t k = mdp_.row_starts[r]; k < mdp_.row_starts[r + 1]; ++k) {
        const auto [qt, st] = successor(q, mdp_.columns[k]);
        visit(qt, st);
      }
    }
    if (choices_ == ProductChoices::model_only) return;
    for (State j : table_.jumps[q]) visit(j, s);
  }

  // Breadth first from every model state's starting pair, a level at a time.
  void find_pairs() {
    bits_ = std::vector<std::atomic<std::uint64_t>>(table_.states() * words_);
    using Frontier = std::vector<std::uint64_t>;
    oneapi::tbb::enumerable_thread_specific<Frontier> found;
    claim(PathAutomaton::kRejecting, 0);  // the sink always exists (pair 0)
    parallel_indices(0, mdp_.num_states(), 1 << 12, [&](std::size_t s) {
      const auto [q, t] = pair_key(start_q_[s], static_cast<std::uint32_t>(s));
      if (claim(q, t)) found.local().push_back(packed(q, t));
    });
    Frontier frontier = gathered(found);
    while (!frontier.empty()) {
      parallel_indices(0, frontier.size(), 256, [&](std::size_t i) {
        const State q = static_cast<State>(frontier[i] >> 32);
        const std::uint32_t s = static_cast<std::uint32_t>(frontier[i]);
        Frontier& local = found.local();
        successors(q, s, [&](State qt, std::uint32_t st) {
          if (claim(qt, st)) local.push_back(packed(qt, st));
        });
      });
      frontier = gathered(found);
    }
  }

  static std::vector<std::uint64_t> gathered(oneapi::tbb::enumerable_thread_specific<std::vector<std::uint64_t>>& parts) {
    std::vector<std::uint64_t> all;
    for (auto& part : parts) {
      all.insert(all.end(), part.begin(), part.end());
      part.clear();
    }
    return all;
  }

  // Pairs numbered by (automaton state, model state): the running count of set bits.
  void number_pairs() {
    const std::size_t total_words = bits_.size();
    before_.resize(total_words);
    parallel_indices(0, total_words, 1 << 14, [&](std::size_t w) {
      before_[w] = static_cast<std::uint64_t>(std::popcount(bits_[w].load(std::memory_order_relaxed)));
    });
    parallel_running_totals(before_.data(), total_words);
    const std::uint64_t pairs = total_words == 0 ? 0 : before_[total_words - 1];
    if (pairs > 0xffffffffull) {
      throw std::runtime_error("the LTL product has " + std::to_string(pairs) + " pairs: more than 2^32 - 1");
    }
    parallel_indices(0, total_words, 1 << 14, [&](std::size_t w) {  // running totals: inclusive to exclusive
      before_[w] -= static_cast<std::uint64_t>(std::popcount(bits_[w].load(std::memory_order_relaxed)));
    });
    pair_q_.resize(pairs);
    pair_s_.resize(pairs);
    parallel_indices(0, total_words, 1 << 12, [&](std::size_t w) {
      std::uint64_t word = bits_[w].load(std::memory_order_relaxed);
      std::uint64_t p = before_[w];
      while (word != 0) {
        const unsigned bit = static_cast<unsigned>(std::countr_zero(word));
        word &= word - 1;
        pair_q_[p] = static_cast<State>(w / words_);
        pair_s_[p] = static_cast<std::uint32_t>((w % words_) * 64 + bit);
        ++p;
      }
    });
  }

  // Within one pair's rows, the successor pairs of one automaton state (or the sink)
  // differ in their model state alone, so the model state tells them apart as well as
  // their number does, with no random reads of the bits and counts. (q, s) is a key
  // (pair_key: the sink's s is 0).
  static std::uint32_t counted_key(State q, std::uint32_t s) { return q == PathAutomaton::kRejecting ? 0 : s + 1; }

  std::uint32_t number(State q, std::uint32_t s) const {
    const std::size_t w = q * words_ + s / 64;
    const std::uint64_t below = bits_[w].load(std::memory_order_relaxed) & ((std::uint64_t{1} << (s & 63)) - 1);
    return static_cast<std::uint32_t>(before_[w] + static_cast<std::uint64_t>(std::popcount(below)));
  }

  // Pair p's rows, each as entries sorted by column with equal columns summed
  // (successors that meet in the sink), and its model row. column(q, s) numbers the pair
  // (q, s): number for the rows written; where they are only counted, any numbering that
  // tells the pairs of one row apart serves (counted_key, which reads no bit counts).
  template <typename Row, typename Column>
  void rows_of(std::size_t p, Entries& entries, const Row& row, const Column& column) const {
    const State q = pair_q_[p];
    const std::uint32_t s = pair_s_[p];
    const auto emit = [&](std::uint64_t model_row) {
      std::sort(entries.begin(), entries.end());
      std::size_t out = 0;
      for (std::size_t k = 0; k < entries.size(); ++k) {
        if (out > 0 && entries[out - 1].column == entries[k].column) {
          entries[out - 1].value += entries[k].value;
          entries[out - 1].model_entry = Entry::kNoModelEntry;
        } else {
          entries[out++] = entries[k];
        }
      }
      entries.resize(out);
      row(entries, model_row);
      entries.clear();
    };
    entries.clear();
    if (q == PathAutomaton::kRejecting) {
      entries.push_back({static_cast<std::uint32_t>(p), 1.0, Entry::kNoModelEntry});
      emit(LtlProduct::kNoRow);
      return;
    }
    if (choices_ == ProductChoices::edges_and_jumps) {
      std::vector<std::uint32_t> targets;
      for (std::uint64_t r = mdp_.row_group_starts[s]; r < mdp_.row_group_starts[s + 1]; ++r) {
        for (std::uint64_t k = mdp_.row_starts[r]; k < mdp_.row_starts[r + 1]; ++k) {
          if (!(mdp_.values[k] > 0.0)) continue;
          const auto [qt, st] = successor(q, mdp_.columns[k]);
          targets.push_back(column(qt, st));
        }
      }
      if (targets.empty()) targets.push_back(column(PathAutomaton::kRejecting, 0));  // no path goes on
      std::sort(targets.begin(), targets.end());
      targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
      for (std::uint32_t t : targets) {
        entries.push_back({t, 1.0, Entry::kNoModelEntry});
        emit(LtlProduct::kNoRow);
      }
    } else {
      for (std::uint64_t r = mdp_.row_group_starts[s]; r < mdp_.row_group_starts[s + 1]; ++r) {
        for (std::uint64_t k = mdp_.row_starts[r]; k < mdp_.row_starts[r + 1]; ++k) {
          const auto [qt, st] = successor(q, mdp_.columns[k]);
          entries.push_back({column(qt, st), mdp_.values[k], k});
        }
        emit(r);
      }
    }
    if (choices_ == ProductChoices::model_only) return;
    for (State j : table_.jumps[q]) {
      entries.push_back({column(j, s), 1.0, Entry::kNoModelEntry});
      emit(LtlProduct::kNoRow);
    }
  }

  // Each pair's rows counted (and the sums met in the sink gathered), then written where
  // the running counts put them.
  void write_rows(LtlProduct& product) {
    const std::size_t n = pair_q_.size();
    PodVector<std::uint64_t> rows(n), entries(n);
    oneapi::tbb::enumerable_thread_specific<Entries> scratch;
    oneapi::tbb::enumerable_thread_specific<std::vector<double>> sums;
    auto start = std::chrono::steady_clock::now();
    parallel_indices(0, n, 1 << 10, [&](std::size_t p) {
      std::uint64_t row_count = 0, entry_count = 0;
      rows_of(
          p, scratch.local(),
          [&](const Entries& row, std::uint64_t) {
            ++row_count;
            entry_count += row.size();
            for (const Entry& entry : row) {
              if (entry.model_entry == Entry::kNoModelEntry && entry.value != 1.0) add_distinct(sums.local(), entry.value);
            }
          },
          counted_key);
      rows[p] = row_count;
      entries[p] = entry_count;
    });
    counted_s_ = seconds_since(start);
    start = std::chrono::steady_clock::now();
    parallel_running_totals(rows.data(), n);
    parallel_running_totals(entries.data(), n);
    const std::uint64_t total_rows = n == 0 ? 0 : rows[n - 1], total_entries = n == 0 ? 0 : entries[n - 1];
    SparseMdp& m = product.mdp;
    const bool chain = choices_ == ProductChoices::model_only && has_one_choice_per_state(mdp_.type);
    m.type = chain ? ModelType::dtmc : ModelType::mdp;
    m.row_group_starts.resize(n + 1);
    m.row_starts.resize(total_rows + 1);
    m.row_group_starts.set(0, 0);
    m.row_starts.set(0, 0);
    m.columns.resize(total_entries);
    std::vector<double> all_sums;
    for (const std::vector<double>& part : sums) all_sums.insert(all_sums.end(), part.begin(), part.end());
    ProductValues values(mdp_.values, std::move(all_sums), total_entries);
    const bool keep_model_rows = model_rows_ == ModelRows::kept;
    if (keep_model_rows) product.model_row.resize(total_rows);
    parallel_indices(0, n, 1 << 10, [&](std::size_t p) {
      std::uint64_t row = p == 0 ? 0 : rows[p - 1], entry = p == 0 ? 0 : entries[p - 1];
      m.row_group_starts.set(p + 1, rows[p]);
      rows_of(
          p, scratch.local(),
          [&](const Entries& written, std::uint64_t model_row) {
            for (const Entry& written_entry : written) {
              m.columns[entry] = written_entry.column;
              values.write(entry, written_entry);
              ++entry;
            }
            if (keep_model_rows) product.model_row[row] = model_row;
            m.row_starts.set(++row, entry);
          },
          [&](State q, std::uint32_t s) { return number(q, s); });
    });
    m.values = std::move(values).finish();
    compact_model(m);
    written_s_ = seconds_since(start);
  }

  double letters_s_ = 0.0, counted_s_ = 0.0, written_s_ = 0.0;
  const SparseMdp& mdp_;
  ProductChoices choices_;
  ModelRows model_rows_;
  std::size_t words_;  // per automaton state: the model's states' bits
  AutomatonTable table_;
  std::vector<std::uint32_t> letter_;  // per model state: its letter's number
  std::vector<State> start_q_;         // per model state: the automaton after its letter
  std::vector<std::atomic<std::uint64_t>> bits_;  // [q * words_ + s / 64]: pair (q, s) found
  PodVector<std::uint64_t> before_;               // per word: the pairs numbered before it
  std::vector<State> pair_q_;
  std::vector<std::uint32_t> pair_s_;
};

}  // namespace

std::vector<std::uint64_t> letters_of(std::uint32_t n, const std::vector<StateSet>& atoms) {
  std::vector<BitWords> words;
  words.reserve(atoms.size());
  for (const StateSet& atom : atoms) words.push_back(BitWords::of(atom));
  std::vector<std::uint64_t> letters(n, 0);
  // A word of 64 states at a time, each written by one thread.
  parallel_indices(0, (std::size_t{n} + 63) / 64, 1 << 10, [&](std::size_t w) {
    const std::size_t first = w * 64;
    for (std::size_t i = 0; i < words.size(); ++i) {
      for (std::uint64_t bits = w < words[i].size() ? words[i].data()[w] : 0; bits != 0; bits &= bits - 1) {
        letters[first + static_cast<std::size_t>(std::countr_zero(bits))] |= std::uint64_t{1} << i;
      }
    }
  });
  return letters;
}

RewardStructure rewards_on_pairs(const RewardStructure& rewards, const SparseMdp& product,
                                 const std::vector<std::uint32_t>& model_state, const PodVector<std::uint64_t>& model_row) {
  if (model_row.size() != product.num_choices()) {
    throw std::logic_error("rewards on a product built without its model rows (ModelRows::kept)");
  }
  PodVector<double> per_row(product.num_choices());
  for (std::uint32_t s = 0; s < product.num_states(); ++s) {
    const double state = rewards.state_rewards.empty() ? 0.0 : rewards.state_rewards[model_state[s]];
    for (std::uint64_t r = product.row_group_starts[s]; r < product.row_group_starts[s + 1]; ++r) {
      const bool own = model_row[r] != LtlProduct::kNoRow && !rewards.choice_rewards.empty();
      per_row[r] = state + (own ? rewards.choice_rewards[model_row[r]] : 0.0);
    }
  }
  RewardStructure lifted;
  lifted.name = rewards.name;
  lifted.choice_rewards = CompactValues(std::move(per_row));
  return lifted;
}

LtlProduct build_ltl_product(const SparseMdp& mdp, automata::PathAutomaton& automaton, const std::vector<StateSet>& atoms,
                             ProductChoices choices, ModelRows model_rows) {
  return ParallelProductBuilder(mdp, automaton, atoms, choices, model_rows).build();
}

}  // namespace mdpvi
