#include "engine/model_builder.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "engine/state_table.h"

namespace mdpvi {

namespace {

// PRISM's tolerance for a distribution that does not sum to one.
constexpr double kSumTolerance = 1e-6;

using Successor = std::pair<std::uint32_t, double>;

// A choice of the current state: its successors are successors_[begin, end).
struct ChoiceSpan {
  int action;
  std::size_t begin, end;
};

// The commands of a module, bucketed by the value of the one module variable that
// most of its guards test with "v = c" (PRISM's program counters: s1=0, s1=1, ...).
// A state then evaluates only the guards that can hold in it.
struct ModuleIndex {
  int key = -1;  // variable index, or -1: evaluate every command
  std::int32_t low = 0;
  std::vector<std::vector<std::uint32_t>> buckets;  // by key value - low, command order
  std::vector<std::uint32_t> all;

  const std::vector<std::uint32_t>& candidates(const double* values) const {
    return key < 0 ? all : buckets[static_cast<std::size_t>(values[key]) - low];
  }
};

class Explorer {
 public:
  explicit Explorer(const ResolvedModel& model)
      : model_(model), layout_(ranges(model)), table_(layout_.words()), values_(model.variables.size()),
        next_(layout_.words()), written_(model.variables.size(), 0), stamp_(model.commands.size(), 0) {
    commands_by_action_.assign(model.actions.size(), std::vector<std::vector<std::uint32_t>>(model.module_names.size()));
    for (std::uint32_t c = 0; c < model.commands.size(); ++c) {
      const ResolvedCommand& command = model.commands[c];
      if (command.action != kNoAction) commands_by_action_[command.action][command.module].push_back(c);
    }
    index_modules();
  }

  BuiltModel run() {
    auto start = std::chrono::steady_clock::now();
    BuiltModel built;
    SparseMdp& mdp = built.mdp;
    mdp.type = model_.type;
    add_initial_states(mdp);
    mdp.row_group_starts.push_back(0);
    mdp.row_starts.push_back(0);
    std::vector<std::uint32_t> deadlocks;
    state_rewards_.resize(model_.rewards.size());
    choice_rewards_.resize(model_.rewards.size());

    for (std::uint64_t s = 0; s < table_.size(); ++s) {
      current_ = s;
      layout_.decode(table_.state(s), values_.data());
      choices_.clear();
      successors_.clear();
      explore();
      if (choices_.empty()) {
        deadlocks.push_back(static_cast<std::uint32_t>(s));
        successors_.emplace_back(static_cast<std::uint32_t>(s), 1.0);
        choices_.push_back({kNoAction, 0, 1});
      }
      add_rewards();
      if (model_.type == ModelType::dtmc) mix_uniformly();
      for (const ChoiceSpan& choice : choices_) {
        for (std::size_t k = choice.begin; k < choice.end; ++k) {
          mdp.columns.push_back(successors_[k].first);
          mdp.values.push_back(successors_[k].second);
        }
        mdp.row_starts.push_back(mdp.columns.size());
      }
      mdp.row_group_starts.push_back(mdp.row_starts.size() - 1);
    }
    built.statistics.table_bytes = table_.memory_bytes();
    built.statistics.deadlocks = deadlocks.size();
    finish(mdp, deadlocks);
    built.statistics.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return built;
  }

 private:
  static std::vector<std::pair<std::int32_t, std::int32_t>> ranges(const ResolvedModel& model) {
    std::vector<std::pair<std::int32_t, std::int32_t>> r;
    for (const ResolvedVariable& v : model.variables) r.emplace_back(v.low, v.high);
    return r;
  }

  // The value a guard pins variable v to ("v = c" among its conjuncts), if any.
  static std::optional<std::int32_t> pinned_value(const ResolvedCommand& command, std::uint32_t v) {
    for (const CompiledExpression& conjunct : command.guard.conjuncts()) {
      if (conjunct.is_variable_equals_constant() && conjunct.single_instruction().index == v) {
        return static_cast<std::int32_t>(conjunct.single_instruction().value);
      }
    }
    return std::nullopt;
  }

  void index_modules() {
    modules_.resize(model_.module_names.size());
    for (std::uint32_t c = 0; c < model_.commands.size(); ++c) modules_[model_.commands[c].module].all.push_back(c);
    for (std::size_t m = 0; m < modules_.size(); ++m) {
      ModuleIndex& index = modules_[m];
      // The module's own variable pinned by the most guards.
      std::size_t best_count = 0;
      for (std::uint32_t v = 0; v < model_.variables.size(); ++v) {
        const ResolvedVariable& var = model_.variables[v];
        if (var.module != static_cast<int>(m) || std::int64_t{var.high} - var.low > 4096) continue;
        std::size_t count = 0;
        for (std::uint32_t c : index.all) count += pinned_value(model_.commands[c], v).has_value();
        if (count > best_count) best_count = count, index.key = static_cast<int>(v);
      }
      if (index.key < 0) continue;
      const ResolvedVariable& key = model_.variables[index.key];
      index.low = key.low;
      index.buckets.assign(static_cast<std::size_t>(key.high - key.low) + 1, {});
      for (std::uint32_t c : index.all) {
        std::optional<std::int32_t> value = pinned_value(model_.commands[c], index.key);
        for (std::int32_t x = key.low; x <= key.high; ++x) {
          if (!value || *value == x) index.buckets[x - key.low].push_back(c);
        }
      }
    }
  }

  bool enabled(std::uint32_t command) const { return stamp_[command] == current_ + 1; }

  [[noreturn]] void fail(SourcePosition at, const std::string& message) const {
    throw LocatedError(model_.file, at.line, at.column, message + " in state " + describe_state());
  }

  std::string describe_state() const {
    std::string text = "(";
    for (std::size_t v = 0; v < model_.variables.size(); ++v) {
      const ResolvedVariable& var = model_.variables[v];
      std::int32_t x = static_cast<std::int32_t>(values_[v]);
      text += (v ? "," : "") + var.name + "=" +
              (var.type == ValueType::boolean ? (x ? "true" : "false") : std::to_string(x));
    }
    return text + ")";
  }

  void add_initial_states(SparseMdp& mdp) {
    std::vector<std::uint64_t> state(layout_.words(), 0);
    if (!model_.init) {
      for (std::size_t v = 0; v < model_.variables.size(); ++v) layout_.set(state.data(), v, model_.variables[v].init);
      mdp.initial_states.push_back(table_.insert(state.data()).first);
      return;
    }
    // init ... endinit: every valuation of the variables that satisfies it.
    const std::size_t n = model_.variables.size();
    std::vector<std::int32_t> x(n);
    for (std::size_t v = 0; v < n; ++v) x[v] = model_.variables[v].low;
    double combinations = 1;
    for (const ResolvedVariable& v : model_.variables) combinations *= double(v.high) - v.low + 1;
    if (combinations > 1e8) {
      throw LocatedError(model_.file, 0, 0, "init ... endinit over more than 10^8 valuations is not supported");
    }
    while (true) {
      for (std::size_t v = 0; v < n; ++v) values_[v] = x[v];
      if (model_.init->holds(values_.data())) {
        for (std::size_t v = 0; v < n; ++v) layout_.set(state.data(), v, x[v]);
        mdp.initial_states.push_back(table_.insert(state.data()).first);
      }
      std::size_t v = 0;
      while (v < n && x[v] == model_.variables[v].high) x[v] = model_.variables[v].low, ++v;
      if (v == n) break;
      ++x[v];
    }
    if (mdp.initial_states.empty()) throw LocatedError(model_.file, 0, 0, "no state satisfies the init ... endinit block");
  }

  // --- one state -------------------------------------------------------------------
  void explore() {
    for (const ModuleIndex& module : modules_) {
      for (std::uint32_t c : module.candidates(values_.data())) {
        if (!model_.commands[c].guard.holds(values_.data())) continue;
        stamp_[c] = current_ + 1;
        if (model_.commands[c].action == kNoAction) {
          single_[0] = c;
          add_product(kNoAction, single_, 1);
        }
      }
    }
    for (std::size_t a = 0; a < commands_by_action_.size(); ++a) add_synchronised(static_cast<int>(a));
  }

  // Every combination of one enabled command per module of the action's alphabet is
  // a choice; a module of the alphabet without an enabled command blocks the action.
  void add_synchronised(int action) {
    enabled_flat_.clear();
    module_ranges_.clear();
    for (const auto& module_commands : commands_by_action_[action]) {
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
  void add_product(int action, const std::uint32_t* commands, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) check_distribution(model_.commands[commands[i]]);
    const std::size_t begin = successors_.size();
    update_pick_.assign(count, 0);
    while (true) {
      double probability = 1.0;
      for (std::size_t i = 0; i < count; ++i) {
        probability *= model_.commands[commands[i]].updates[update_pick_[i]].probability.evaluate(values_.data());
      }
      if (probability > 0.0) {
        std::copy(table_.state(current_), table_.state(current_) + layout_.words(), next_.begin());
        for (std::size_t i = 0; i < count; ++i) apply(model_.commands[commands[i]], update_pick_[i], count > 1);
        if (count > 1) std::fill(written_.begin(), written_.end(), 0);
        std::uint32_t target = table_.insert(next_.data()).first;
        successors_.emplace_back(target, probability);
      }
      std::size_t i = 0;
      while (i < count && ++update_pick_[i] == model_.commands[commands[i]].updates.size()) update_pick_[i++] = 0;
      if (i == count) break;
    }
    choices_.push_back({action, begin, begin + merge_equal_successors(&successors_[begin], successors_.size() - begin)});
    successors_.resize(choices_.back().end);
  }

  void check_distribution(const ResolvedCommand& command) {
    if (command.updates.size() == 1 && command.updates[0].probability.is_constant() &&
        command.updates[0].probability.constant_value() == 1.0) {
      return;  // the common "-> (x'=...)" needs no check
    }
    double sum = 0.0;
    for (const ResolvedUpdate& u : command.updates) {
      double p = u.probability.evaluate(values_.data());
      if (!(p >= 0.0) || !std::isfinite(p)) fail(command.position, "probability " + std::to_string(p) + " is not in [0,1]");
      sum += p;
    }
    if (std::abs(sum - 1.0) > kSumTolerance) {
      fail(command.position, "probabilities of the command sum to " + std::to_string(sum) + ", not 1");
    }
  }

  void apply(const ResolvedCommand& command, std::size_t update, bool check_conflicts) {
    for (const ResolvedAssignment& a : command.updates[update].assignments) {
      const ResolvedVariable& v = model_.variables[a.variable];
      double value = a.value.evaluate(values_.data());
      if (value < v.low || value > v.high) {
        fail(a.position, "update sets '" + v.name + "' to " + std::to_string(static_cast<std::int64_t>(value)) +
                             ", outside its range [" + std::to_string(v.low) + ".." + std::to_string(v.high) + "],");
      }
      if (check_conflicts && written_[a.variable]++) {
        fail(a.position, "'" + v.name + "' is updated by two modules synchronising on [" +
                             model_.actions[command.action] + "]");
      }
      layout_.set(next_.data(), a.variable, static_cast<std::int32_t>(value));
    }
  }

  // Sorts by target and merges equal targets in place; returns the new length.
  static std::size_t merge_equal_successors(Successor* successors, std::size_t n) {
    std::sort(successors, successors + n);
    std::size_t out = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (out > 0 && successors[out - 1].first == successors[i].first) {
        successors[out - 1].second += successors[i].second;
      } else {
        successors[out++] = successors[i];
      }
    }
    return out;
  }

  // A DTMC resolves the choices of a state by picking one uniformly, as PRISM does.
  void mix_uniformly() {
    if (choices_.size() == 1) return;
    double weight = 1.0 / static_cast<double>(choices_.size());
    for (Successor& s : successors_) s.second *= weight;
    choices_ = {{kNoAction, 0, merge_equal_successors(successors_.data(), successors_.size())}};
    successors_.resize(choices_.front().end);
  }

  // Before mix_uniformly: a DTMC row's reward is the average over the choices it mixes.
  void add_rewards() {
    for (std::size_t r = 0; r < model_.rewards.size(); ++r) {
      const ResolvedReward& reward = model_.rewards[r];
      if (!reward.state_items.empty()) {
        double total = 0.0;
        for (const auto& [guard, value] : reward.state_items) {
          if (guard.holds(values_.data())) total += value.evaluate(values_.data());
        }
        state_rewards_[r].push_back(total);
      }
      if (reward.transition_items.empty()) continue;
      if (model_.type == ModelType::dtmc) {
        double total = 0.0;
        for (const ChoiceSpan& c : choices_) total += transition_reward(reward, c.action);
        choice_rewards_[r].push_back(total / static_cast<double>(choices_.size()));
      } else {
        for (const ChoiceSpan& c : choices_) choice_rewards_[r].push_back(transition_reward(reward, c.action));
      }
    }
  }

  double transition_reward(const ResolvedReward& reward, int action) const {
    double total = 0.0;
    for (const auto& item : reward.transition_items) {
      if (item.action == action && item.guard.holds(values_.data())) total += item.value.evaluate(values_.data());
    }
    return total;
  }

  void finish(SparseMdp& mdp, const std::vector<std::uint32_t>& deadlocks) {
    const std::uint64_t n = table_.size();
    Label init{"init", StateSet(n)};
    for (std::uint32_t s : mdp.initial_states) init.states.set(s);
    Label deadlock{"deadlock", StateSet(n)};
    for (std::uint32_t s : deadlocks) deadlock.states.set(s);
    mdp.labels.push_back(std::move(init));
    mdp.labels.push_back(std::move(deadlock));
    for (const auto& [name, expression] : model_.labels) {
      Label label{name, StateSet(n)};
      for (std::uint64_t s = 0; s < n; ++s) {
        layout_.decode(table_.state(s), values_.data());
        if (expression.holds(values_.data())) label.states.set(s);
      }
      mdp.labels.push_back(std::move(label));
    }
    for (std::size_t r = 0; r < model_.rewards.size(); ++r) {
      mdp.rewards.push_back({model_.rewards[r].name, std::move(state_rewards_[r]), std::move(choice_rewards_[r])});
    }
    StateValuations valuations;
    for (const ResolvedVariable& v : model_.variables) {
      valuations.variables.push_back(v.name);
      valuations.types.push_back(v.type);
    }
    valuations.layout = layout_;
    valuations.packed = table_.release_states();
    mdp.valuations = std::move(valuations);
  }

  const ResolvedModel& model_;
  StateLayout layout_;
  StateTable table_;
  std::vector<double> values_;          // the current state's variables
  std::uint64_t current_ = 0;           // its index
  std::vector<std::uint64_t> next_;     // the successor being built
  std::vector<std::uint8_t> written_;   // variables set in the current combination
  std::vector<std::uint64_t> stamp_;    // per command: current_ + 1 when enabled now
  std::vector<ModuleIndex> modules_;
  std::vector<std::vector<std::vector<std::uint32_t>>> commands_by_action_;  // [action][module]
  // Buffers reused from state to state.
  std::vector<ChoiceSpan> choices_;
  std::vector<Successor> successors_;
  std::vector<std::uint32_t> enabled_flat_, combination_;
  std::vector<std::pair<std::size_t, std::size_t>> module_ranges_;
  std::vector<std::size_t> pick_, update_pick_;
  std::uint32_t single_[1] = {0};
  std::vector<std::vector<double>> state_rewards_, choice_rewards_;
};

}  // namespace

BuiltModel build_model(const ResolvedModel& model) { return Explorer(model).run(); }

}  // namespace mdpvi
