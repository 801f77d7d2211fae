#pragma once
// The builder's expansion of one state: its enabled commands, combined across the
// synchronising modules, as choices of packed successors with their probabilities.
// Two ways give the same choices in the same order: the cached way combines the
// modules' cached local transitions (local_transitions.h) with word operations; the
// plain way evaluates every guard and update, and reports errors with positions.
#include "engine/explore/local_transitions.h"
#include "engine/explore/model_index.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mdpvi {

// What expanding a run of consecutive states of one level yields: their choices, each
// successor as a packed state and its target (what the state table says of it); then,
// equal successors of a choice merged, the rows.
struct ExpandedBlock {
  struct Claim {
    std::uint32_t slot, offset;  // the table slot, the successor claiming it
  };

  std::uint64_t first_state = 0, end_state = 0;
  std::vector<std::uint32_t> choices_per_state;
  std::vector<std::uint32_t> row_lengths;  // successors per choice; once merged, entries per row
  std::vector<std::int32_t> actions;       // per choice: an index into ResolvedModel::actions, or kNoAction
  std::vector<std::uint64_t> keys;  // words() per successor
  // Per successor; once merged, per entry. A target is a state's index, or the slot
  // its state was claimed in (kClaimedTarget), or while the block looks up, the
  // successor whose repeat it is (kRepeatTarget).
  std::vector<double> probabilities;
  std::vector<std::uint64_t> targets;
  // The successors looked up (the first of equal ones), how many of them are looked up
  // so far (all, unless the table ran out of room), and the claims among them in
  // order; once counted, only the won claims, in order.
  std::vector<std::uint32_t> distinct;
  std::size_t looked_up = 0;
  std::vector<Claim> claims;
  std::uint64_t first_new = 0;  // the index of the first state new here
  std::vector<std::vector<double>> state_rewards, choice_rewards;  // per structure
  // Per structure: the first negative reward the block met, as "file:line:col: ... in
  // state (...)", else empty (PRISM rejects them for reachability rewards only).
  std::vector<std::string> negative_reward;
  std::vector<std::uint32_t> deadlocks;

  // Empties the block but keeps its memory: blocks are reused level after level, and
  // fresh buffers cost page faults and copies as they grow (measured: 40% of a build).
  void reset(std::uint64_t first, std::uint64_t end) {
    first_state = first;
    end_state = end;
    for (auto* v : {&choices_per_state, &row_lengths, &deadlocks, &distinct}) v->clear();
    actions.clear();
    keys.clear();
    probabilities.clear();
    targets.clear();
    claims.clear();
    looked_up = 0;
    for (auto& r : state_rewards) r.clear();
    for (auto& r : choice_rewards) r.clear();
    for (auto& r : negative_reward) r.clear();
  }
  bool all_looked_up() const { return looked_up == distinct.size(); }
  std::size_t capacity_bytes() const {
    std::size_t bytes = keys.capacity() * 8 + probabilities.capacity() * 8 + targets.capacity() * 8 +
                        claims.capacity() * sizeof(Claim) +
                        4 * (distinct.capacity() + row_lengths.capacity() + actions.capacity() + choices_per_state.capacity());
    for (const auto* rewards : {&state_rewards, &choice_rewards}) {
      for (const std::vector<double>& r : *rewards) bytes += r.capacity() * 8;
    }
    return bytes;
  }
};

// Expands one state at a time into an ExpandedBlock. One per worker thread.
class StateExpander {
 public:
  StateExpander(const ModelIndex& index, bool cache_local_transitions);

  // Appends the choices of state (its packed form: words) to out, with its rewards.
  void expand(std::uint64_t state, const std::uint64_t* words, ExpandedBlock& out);

  // (cache look-ups, misses) over all modules
  std::pair<std::uint64_t, std::uint64_t> cache_statistics() const;

 private:
  // A choice of the current state: its successors are the block's successors [begin, end).
  struct ChoiceSpan {
    int action;
    std::size_t begin, end;
  };

  // A command enabled in the current state, as its module's cache has it.
  struct Part {
    const LocalTransitionCache* cache;
    const LocalCommand* command;
  };

  void decode();

  // The cached way.
  bool combine_cached();
  const LocalCommand* end_command(std::uint32_t m) const;
  bool add_cached_action(int action);
  bool add_cached_combinations(int action);
  bool add_cached_product(int action, const Part* parts, std::size_t count);
  bool add_cached_single_updates(int action, const Part* parts, std::size_t count);
  void add_cached_single(int action, const Part& part);

  // The plain way.
  bool enabled(std::uint32_t command) const { return stamp_[command] == current_ + 1; }
  void explore();
  void add_synchronised(int action);
  void add_product(int action, const std::uint32_t* commands, std::size_t count);
  void check_distribution(const ResolvedCommand& command);
  void apply(const ResolvedCommand& command, std::size_t update, bool check_conflicts);
  [[noreturn]] void fail(SourcePosition at, const std::string& message) const;
  std::string describe_state() const;

  void add_rewards(ExpandedBlock& out);
  double transition_reward(const ResolvedReward& reward, int action, std::string& negative) const;
  double checked_reward(const CompiledExpression& value, SourcePosition at, std::string& negative) const;

  const ModelIndex& index_;
  const ResolvedModel& model_;
  const StateLayout& layout_;
  std::vector<double> values_;          // the current state's variables
  std::uint64_t current_ = 0;           // its index
  const std::uint64_t* words_ = nullptr;  // its packed form
  ExpandedBlock* out_ = nullptr;
  std::vector<std::uint64_t> next_;     // the successor being built
  std::vector<std::uint8_t> written_;   // variables set in the current combination
  std::vector<std::uint64_t> stamp_;    // per command: current_ + 1 when enabled now
  std::vector<ChoiceSpan> choices_;     // successors as positions in out_
  std::vector<std::uint32_t> enabled_flat_, combination_;
  std::vector<std::pair<std::size_t, std::size_t>> module_ranges_;
  std::vector<std::size_t> pick_, update_pick_;
  std::uint32_t single_[1] = {0};
  bool decoded_ = false;  // values_ holds the current state
  bool deadlock_ = false;  // the current state has no choice of its own: its one is the added self-loop

  // The cached way (combine_cached): one cache per module, the current state's entries.
  std::vector<LocalTransitionCache> caches_;
  std::vector<const LocalEntry*> entries_;
  std::vector<const LocalCommand*> next_command_;  // per module, its first command not combined yet
  std::vector<Part> parts_, combined_;
  std::vector<std::pair<std::size_t, std::size_t>> group_ranges_;  // parts_ of one action, per module
  std::vector<std::uint64_t> written_bits_;
};

}  // namespace mdpvi
