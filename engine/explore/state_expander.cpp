#include "engine/explore/state_expander.h"

#include "engine/model/located_error.h"
#include "engine/model/property_value.h"

#include <algorithm>
#include <cmath>

namespace mdpvi {

StateExpander::StateExpander(const ModelIndex& index, bool cache_local_transitions)
    : index_(index), model_(index.model), layout_(index.layout), values_(model_.variables.size()),
      next_(layout_.words()), written_(model_.variables.size(), 0), stamp_(model_.commands.size(), 0),
      written_bits_(layout_.words()) {
  if (!cache_local_transitions) return;
  for (std::uint32_t m = 0; m < index.modules.size(); ++m) caches_.emplace_back(index, m);
  entries_.resize(caches_.size());
  next_command_.resize(caches_.size());
}

void StateExpander::expand(std::uint64_t state, const std::uint64_t* words, ExpandedBlock& out) {
  current_ = state;
  words_ = words;
  out_ = &out;
  decoded_ = false;
  deadlock_ = false;
  choices_.clear();
  const std::size_t first_successor = out.probabilities.size();
  if (caches_.empty() || !combine_cached()) {
    // The plain way, from scratch: also where a cached entry says an error is due.
    out.probabilities.resize(first_successor);
    out.keys.resize(first_successor * layout_.words());
    choices_.clear();
    decode();
    explore();
  }
  if (choices_.empty()) {
    deadlock_ = true;
    out.deadlocks.push_back(static_cast<std::uint32_t>(state));
    out.keys.insert(out.keys.end(), words, words + layout_.words());
    out.probabilities.push_back(1.0);
    choices_.push_back({kNoAction, first_successor, first_successor + 1});
  }
  if (!model_.rewards.empty()) {
    if (index_.rewards_read_state) decode();
    add_rewards(out);
  }
  if (has_one_choice_per_state(model_.type) && choices_.size() > 1) {
    // A DTMC resolves the choices of a state by picking one uniformly, as PRISM does;
    // a CTMC races them: their rates add up.
    if (model_.type == ModelType::dtmc) {
      const double weight = 1.0 / static_cast<double>(choices_.size());
      for (std::size_t k = first_successor; k < out.probabilities.size(); ++k) out.probabilities[k] *= weight;
    }
    choices_ = {{kNoAction, first_successor, out.probabilities.size()}};
  }
  out.choices_per_state.push_back(static_cast<std::uint32_t>(choices_.size()));
  for (const ChoiceSpan& c : choices_) {
    out.row_lengths.push_back(static_cast<std::uint32_t>(c.end - c.begin));
    out.actions.push_back(c.action);
  }
}

std::pair<std::uint64_t, std::uint64_t> StateExpander::cache_statistics() const {
  std::pair<std::uint64_t, std::uint64_t> total{0, 0};
  for (const LocalTransitionCache& cache : caches_) total.first += cache.lookups(), total.second += cache.misses();
  return total;
}

void StateExpander::decode() {
  if (!decoded_) layout_.decode(words_, values_.data());
  decoded_ = true;
}

// The choices of the current state from the modules' cached entries, in the order
// explore() makes them: unlabelled commands module by module, then the actions in
// order. False where the plain way must decide: an entry is faulty, or two
// synchronising modules write one variable.
bool StateExpander::combine_cached() {
  auto values = [this] {
    decode();
    return static_cast<const double*>(values_.data());
  };
  for (std::uint32_t m = 0; m < caches_.size(); ++m) {
    const LocalEntry& entry = caches_[m].find(words_, values);
    if (entry.faulty) return false;
    entries_[m] = &entry;
  }
  for (std::uint32_t m = 0; m < caches_.size(); ++m) {
    const LocalCommand* command = caches_[m].commands(*entries_[m]).data();
    const LocalCommand* end = end_command(m);
    for (; command != end && command->action == kNoAction; ++command) add_cached_single(kNoAction, {&caches_[m], command});
    next_command_[m] = command;
  }
  // An action is a choice where every module of its alphabet enables it. (The
  // entries' commands are grouped by action, so no sorting per state.)
  for (std::uint32_t w = 0; w < index_.action_words(); ++w) {
    std::uint64_t enabled = 0, blocked = 0;
    for (std::uint32_t m = 0; m < caches_.size(); ++m) {
      const std::uint64_t actions = caches_[m].actions(*entries_[m])[w];
      enabled |= actions;
      blocked |= index_.alphabet_masks[m][w] & ~actions;
    }
    for (std::uint64_t rest = enabled & ~blocked; rest != 0; rest &= rest - 1) {
      if (!add_cached_action(static_cast<int>(64 * w + __builtin_ctzll(rest)))) return false;
    }
  }
  return true;
}

const LocalCommand* StateExpander::end_command(std::uint32_t m) const {
  const std::span<const LocalCommand> commands = caches_[m].commands(*entries_[m]);
  return commands.data() + commands.size();
}

// The choices of a synchronised action every module of its alphabet enables; the
// actions come in order, so each module's next commands are the action's.
bool StateExpander::add_cached_action(int action) {
  parts_.clear();
  group_ranges_.clear();
  for (std::uint32_t m : index_.alphabet_modules[action]) {
    const LocalCommand* command = next_command_[m];
    const LocalCommand* end = end_command(m);
    // Skipping actions other modules block: the module has a command for this one.
    while (command->action < action) ++command;
    const std::size_t begin = parts_.size();
    for (; command != end && command->action == action; ++command) parts_.push_back({&caches_[m], command});
    next_command_[m] = command;
    group_ranges_.emplace_back(begin, parts_.size());
  }
  return add_cached_combinations(action);
}

// Every combination of one command per group_ranges_ entry (one per module).
bool StateExpander::add_cached_combinations(int action) {
  const std::size_t k = group_ranges_.size();
  if (parts_.size() == k) {
    // One command per module (leader6: every synchronisation): the parts are the
    // one combination, side by side.
    return add_cached_product(action, parts_.data(), k);
  }
  pick_.assign(k, 0);
  combined_.resize(k);
  while (true) {
    for (std::size_t m = 0; m < k; ++m) combined_[m] = parts_[group_ranges_[m].first + pick_[m]];
    if (!add_cached_product(action, combined_.data(), k)) return false;
    std::size_t m = 0;
    while (m < k && ++pick_[m] == group_ranges_[m].second - group_ranges_[m].first) pick_[m++] = 0;
    if (m == k) return true;
  }
}

// As add_product, from cached updates: probabilities multiply, written bits combine.
bool StateExpander::add_cached_product(int action, const Part* parts, std::size_t count) {
  if (count == 1) {
    add_cached_single(action, parts[0]);
    return true;
  }
  if (std::all_of(parts, parts + count, [](const Part& p) { return p.command->end_update - p.command->first_update == 1; })) {
    return add_cached_single_updates(action, parts, count);
  }
  const std::uint32_t words = layout_.words();
  const std::size_t begin = out_->probabilities.size();
  update_pick_.assign(count, 0);
  while (true) {
    double probability = 1.0;
    for (std::size_t i = 0; i < count; ++i) {
      probability *= parts[i].cache->update(parts[i].command->first_update + update_pick_[i]).probability;
    }
    if (probability > 0.0) {
      const std::size_t at = out_->keys.size();
      out_->keys.insert(out_->keys.end(), words_, words_ + words);
      std::uint64_t* next = &out_->keys[at];
      std::fill(written_bits_.begin(), written_bits_.end(), 0);
      for (std::size_t i = 0; i < count; ++i) {
        const LocalTransitionCache& cache = *parts[i].cache;
        const LocalUpdate& update = cache.update(parts[i].command->first_update + update_pick_[i]);
        const std::uint64_t* clear = cache.clear_bits(update);
        const std::uint64_t* set = cache.set_bits(update);
        for (std::uint32_t w = 0; w < words; ++w) {
          if (written_bits_[w] & clear[w]) return false;  // two modules write one variable
          written_bits_[w] |= clear[w];
          next[w] = (next[w] & ~clear[w]) | set[w];
        }
      }
      out_->probabilities.push_back(probability);
    }
    std::size_t i = 0;
    while (i < count && ++update_pick_[i] == parts[i].command->end_update - parts[i].command->first_update) {
      update_pick_[i++] = 0;
    }
    if (i == count) break;
  }
  choices_.push_back({action, begin, out_->probabilities.size()});
  return true;
}

// Commands of one update each (leader6: every synchronisation): one successor, and
// the written bits combine word by word without the product's bookkeeping.
bool StateExpander::add_cached_single_updates(int action, const Part* parts, std::size_t count) {
  const std::uint32_t words = layout_.words();
  const std::size_t begin = out_->probabilities.size();
  double probability = 1.0;
  for (std::size_t i = 0; i < count; ++i) probability *= parts[i].cache->update(parts[i].command->first_update).probability;
  if (probability > 0.0) {
    const std::size_t at = out_->keys.size();
    out_->keys.resize(at + words);
    std::uint64_t* next = &out_->keys[at];
    for (std::uint32_t w = 0; w < words; ++w) {
      std::uint64_t cleared = 0, set = 0;
      for (std::size_t i = 0; i < count; ++i) {
        const LocalTransitionCache& cache = *parts[i].cache;
        const LocalUpdate& update = cache.update(parts[i].command->first_update);
        const std::uint64_t clear = cache.clear_bits(update)[w];
        if (cleared & clear) return false;  // two modules write one variable
        cleared |= clear;
        set |= cache.set_bits(update)[w];
      }
      next[w] = (words_[w] & ~cleared) | set;
    }
    out_->probabilities.push_back(probability);
  }
  choices_.push_back({action, begin, out_->probabilities.size()});
  return true;
}

// One module's command alone, most choices (coin6: all): no other module can write
// its variables, so its updates apply without the product's bookkeeping.
void StateExpander::add_cached_single(int action, const Part& part) {
  const LocalTransitionCache& cache = *part.cache;
  const std::uint32_t words = layout_.words();
  const std::size_t begin = out_->probabilities.size();
  for (std::uint32_t u = part.command->first_update; u < part.command->end_update; ++u) {
    const LocalUpdate& update = cache.update(u);
    if (!(update.probability > 0.0)) continue;
    const std::uint64_t* clear = cache.clear_bits(update);
    const std::uint64_t* set = cache.set_bits(update);
    const std::size_t at = out_->keys.size();
    out_->keys.resize(at + words);
    std::uint64_t* next = &out_->keys[at];
    for (std::uint32_t w = 0; w < words; ++w) next[w] = (words_[w] & ~clear[w]) | set[w];
    out_->probabilities.push_back(update.probability);
  }
  choices_.push_back({action, begin, out_->probabilities.size()});
}

void StateExpander::fail(SourcePosition at, const std::string& message) const {
  throw LocatedError(model_.file, at.line, at.column, message + " in state " + describe_state());
}

std::string StateExpander::describe_state() const {
  std::string text = "(";
  for (std::size_t v = 0; v < model_.variables.size(); ++v) {
    const ResolvedVariable& var = model_.variables[v];
    std::int32_t x = static_cast<std::int32_t>(values_[v]);
    text += (v ? "," : "") + var.name + "=" +
            (var.type == ValueType::boolean ? (x ? "true" : "false") : std::to_string(x));
  }
  return text + ")";
}

void StateExpander::explore() {
  for (const ModuleIndex& module : index_.modules) {
    for (std::uint32_t c : module.candidates(values_.data())) {
      if (!model_.commands[c].guard.holds(values_.data())) continue;
      stamp_[c] = current_ + 1;
      if (model_.commands[c].action == kNoAction) {
        single_[0] = c;
        add_product(kNoAction, single_, 1);
      }
    }
  }
  for (std::size_t a = 0; a < index_.commands_by_action.size(); ++a) add_synchronised(static_cast<int>(a));
}

// Every combination of one enabled command per module of the action's alphabet is
// a choice; a module of the alphabet without an enabled command blocks the action.
void StateExpander::add_synchronised(int action) {
  enabled_flat_.clear();
  module_ranges_.clear();
  for (const auto& module_commands : index_.commands_by_action[action]) {
    if (module_commands.empty()) continue;  // not in this module's alphabet
    std::size_t begin = enabled_flat_.size();
    for (std::uint32_t c : module_commands) {
      if (enabled(c)) enabled_flat_.push_back(c);
    }
    if (enabled_flat_.size() == begin) return;
    module_ranges_.emplace_back(begin, enabled_flat_.size());
  }
  if (module_ranges_.empty()) return;
  const std::size_t k = module_ranges_.size();
  pick_.assign(k, 0);
  combination_.resize(k);
  while (true) {
    for (std::size_t m = 0; m < k; ++m) combination_[m] = enabled_flat_[module_ranges_[m].first + pick_[m]];
    add_product(action, combination_.data(), k);
    std::size_t m = 0;
    while (m < k && ++pick_[m] == module_ranges_[m].second - module_ranges_[m].first) pick_[m++] = 0;
    if (m == k) break;
  }
}

// The distribution of commands executed together: probabilities multiply, updates combine.
void StateExpander::add_product(int action, const std::uint32_t* commands, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) check_distribution(model_.commands[commands[i]]);
  const std::size_t begin = out_->probabilities.size();
  update_pick_.assign(count, 0);
  while (true) {
    double probability = 1.0;
    for (std::size_t i = 0; i < count; ++i) {
      probability *= model_.commands[commands[i]].updates[update_pick_[i]].probability.evaluate(values_.data());
    }
    if (probability > 0.0) {
      std::copy(words_, words_ + layout_.words(), next_.begin());
      for (std::size_t i = 0; i < count; ++i) apply(model_.commands[commands[i]], update_pick_[i], count > 1);
      if (count > 1) std::fill(written_.begin(), written_.end(), 0);
      out_->keys.insert(out_->keys.end(), next_.begin(), next_.end());
      out_->probabilities.push_back(probability);
    }
    std::size_t i = 0;
    while (i < count && ++update_pick_[i] == model_.commands[commands[i]].updates.size()) update_pick_[i++] = 0;
    if (i == count) break;
  }
  choices_.push_back({action, begin, out_->probabilities.size()});
}

void StateExpander::check_distribution(const ResolvedCommand& command) {
  if (command.updates.size() == 1 && command.updates[0].probability.is_constant() &&
      command.updates[0].probability.constant_value() == 1.0) {
    return;  // the common "-> (x'=...)" needs no check
  }
  const bool rates = model_.type == ModelType::ctmc;
  double sum = 0.0;
  for (const ResolvedUpdate& u : command.updates) {
    double p = u.probability.evaluate(values_.data());
    if (!(p >= 0.0) || !std::isfinite(p)) {
      fail(command.position, rates ? "rate " + format_number(p) + " is not a finite number >= 0"
                                   : "probability " + std::to_string(p) + " is not in [0,1]");
    }
    sum += p;
  }
  if (!rates && std::abs(sum - 1.0) > kSumTolerance) {
    fail(command.position, "probabilities of the command sum to " + std::to_string(sum) + ", not 1");
  }
}

void StateExpander::apply(const ResolvedCommand& command, std::size_t update, bool check_conflicts) {
  for (const ResolvedAssignment& a : command.updates[update].assignments) {
    const ResolvedVariable& v = model_.variables[a.variable];
    double value = a.value.evaluate(values_.data());
    if (!(value >= v.low && value <= v.high)) {  // NaN too: no value to cast
      const std::string shown = std::isnan(value) ? "NaN" : std::isfinite(value) ? std::to_string(static_cast<std::int64_t>(value)) : std::to_string(value);
      fail(a.position, "update sets '" + v.name + "' to " + shown + ", outside its range [" + std::to_string(v.low) +
                           ".." + std::to_string(v.high) + "],");
    }
    if (check_conflicts && written_[a.variable]++) {
      fail(a.position, "'" + v.name + "' is updated by two modules synchronising on [" +
                           model_.actions[command.action] + "]");
    }
    layout_.set(next_.data(), a.variable, static_cast<std::int32_t>(value));
  }
}

// A DTMC row's reward is the average over the choices it mixes. A deadlock's added
// self-loop is no command: it earns no transition reward, even where `[] true : r`
// rewards every unlabelled one (PRISM, issue #29); its state rewards stand.
void StateExpander::add_rewards(ExpandedBlock& out) {
  out.state_rewards.resize(model_.rewards.size());
  out.choice_rewards.resize(model_.rewards.size());
  out.negative_reward.resize(model_.rewards.size());
  for (std::size_t r = 0; r < model_.rewards.size(); ++r) {
    const ResolvedReward& reward = model_.rewards[r];
    if (!reward.state_items.empty()) {
      double total = 0.0;
      for (const auto& item : reward.state_items) {
        if (item.guard.holds(values_.data())) total += checked_reward(item.value, item.position, out.negative_reward[r]);
      }
      out.state_rewards[r].push_back(total);
    }
    if (reward.transition_items.empty()) continue;
    if (deadlock_) {
      out.choice_rewards[r].push_back(0.0);
    } else if (model_.type == ModelType::dtmc) {
      double total = 0.0;
      for (const ChoiceSpan& c : choices_) total += transition_reward(reward, c.action, out.negative_reward[r]);
      out.choice_rewards[r].push_back(total / static_cast<double>(choices_.size()));
    } else if (model_.type == ModelType::ctmc) {
      // A CTMC's transition rewards, as a rate: each command's reward times the rate
      // at which it fires (its updates' rates summed).
      double rate = 0.0;
      for (const ChoiceSpan& c : choices_) {
        double fired = 0.0;
        for (std::size_t k = c.begin; k < c.end; ++k) fired += out.probabilities[k];
        rate += fired * transition_reward(reward, c.action, out.negative_reward[r]);
      }
      out.choice_rewards[r].push_back(rate);
    } else {
      for (const ChoiceSpan& c : choices_) {
        out.choice_rewards[r].push_back(transition_reward(reward, c.action, out.negative_reward[r]));
      }
    }
  }
}

double StateExpander::transition_reward(const ResolvedReward& reward, int action, std::string& negative) const {
  double total = 0.0;
  for (const auto& item : reward.transition_items) {
    if (item.action == action && item.guard.holds(values_.data())) total += checked_reward(item.value, item.position, negative);
  }
  return total;
}

// A reward item's value here: NaN or infinite is an error (PRISM's too), naming the
// item and the state; the first negative one is noted in `negative`.
double StateExpander::checked_reward(const CompiledExpression& value, SourcePosition at, std::string& negative) const {
  const double v = value.evaluate(values_.data());
  if (!std::isfinite(v)) fail(at, std::string("the reward is ") + (std::isnan(v) ? "NaN" : "infinite"));
  if (v < 0.0 && negative.empty()) {
    negative = model_.file + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": negative reward " +
               format_number(v) + " in state " + describe_state();
  }
  return v;
}

}  // namespace mdpvi
