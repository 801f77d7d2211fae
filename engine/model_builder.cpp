#include "engine/model_builder.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "engine/state_table.h"

namespace mdpvi {

namespace {

// PRISM's tolerance for a distribution that does not sum to one.
constexpr double kSumTolerance = 1e-6;

using Successors = std::vector<std::pair<std::uint32_t, double>>;

struct Choice {
  int action;
  Successors successors;
};

class Explorer {
 public:
  explicit Explorer(const ResolvedModel& model)
      : model_(model), layout_(ranges(model)), table_(layout_.words()), values_(model.variables.size()),
        next_(layout_.words()), written_(model.variables.size(), 0) {
    // Commands by action and module; the modules whose alphabet holds each action.
    commands_by_action_.assign(model.actions.size(), std::vector<std::vector<std::uint32_t>>(model.module_names.size()));
    for (std::uint32_t c = 0; c < model.commands.size(); ++c) {
      const ResolvedCommand& command = model.commands[c];
      if (command.action == kNoAction) {
        unlabelled_.push_back(c);
      } else {
        commands_by_action_[command.action][command.module].push_back(c);
      }
    }
    enabled_.resize(model.commands.size());
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
    std::vector<Choice> choices;
    state_rewards_.resize(model_.rewards.size());
    choice_rewards_.resize(model_.rewards.size());

    for (std::uint64_t s = 0; s < table_.size(); ++s) {
      current_ = s;
      layout_.decode(table_.state(s), values_.data());
      choices.clear();
      explore(choices);
      if (choices.empty()) {
        deadlocks.push_back(static_cast<std::uint32_t>(s));
        choices.push_back({kNoAction, {{static_cast<std::uint32_t>(s), 1.0}}});
      }
      if (model_.type == ModelType::dtmc) choices = {uniform_mixture(choices)};
      for (const Choice& choice : choices) {
        for (auto [target, probability] : choice.successors) {
          mdp.columns.push_back(target);
          mdp.values.push_back(probability);
        }
        mdp.row_starts.push_back(mdp.columns.size());
      }
      mdp.row_group_starts.push_back(mdp.row_starts.size() - 1);
      add_rewards(choices);
      built.statistics.table_bytes = std::max(built.statistics.table_bytes, table_.memory_bytes());
    }
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
  void explore(std::vector<Choice>& choices) {
    for (std::uint32_t c = 0; c < model_.commands.size(); ++c) enabled_[c] = model_.commands[c].guard.holds(values_.data());
    for (std::uint32_t c : unlabelled_) {
      if (enabled_[c]) choices.push_back(product(kNoAction, {c}));
    }
    std::vector<std::vector<std::uint32_t>> enabled_per_module;
    for (std::size_t a = 0; a < commands_by_action_.size(); ++a) {
      enabled_per_module.clear();
      bool blocked = false;
      for (const auto& module_commands : commands_by_action_[a]) {
        if (module_commands.empty()) continue;  // not in this module's alphabet
        std::vector<std::uint32_t> enabled;
        for (std::uint32_t c : module_commands) {
          if (enabled_[c]) enabled.push_back(c);
        }
        if (enabled.empty()) {
          blocked = true;
          break;
        }
        enabled_per_module.push_back(std::move(enabled));
      }
      if (blocked || enabled_per_module.empty()) continue;
      // Every combination of one enabled command per module is a choice.
      std::vector<std::size_t> pick(enabled_per_module.size(), 0);
      std::vector<std::uint32_t> combination(enabled_per_module.size());
      while (true) {
        for (std::size_t m = 0; m < pick.size(); ++m) combination[m] = enabled_per_module[m][pick[m]];
        choices.push_back(product(static_cast<int>(a), combination));
        std::size_t m = 0;
        while (m < pick.size() && ++pick[m] == enabled_per_module[m].size()) pick[m++] = 0;
        if (m == pick.size()) break;
      }
    }
  }

  // The distribution of commands executed together: probabilities multiply, updates combine.
  Choice product(int action, const std::vector<std::uint32_t>& commands) {
    for (std::uint32_t c : commands) check_distribution(model_.commands[c]);
    Choice choice{action, {}};
    std::vector<std::size_t> pick(commands.size(), 0);
    while (true) {
      double probability = 1.0;
      for (std::size_t i = 0; i < commands.size(); ++i) {
        probability *= model_.commands[commands[i]].updates[pick[i]].probability.evaluate(values_.data());
      }
      if (probability > 0.0) {
        std::copy(table_.state(current_), table_.state(current_) + layout_.words(), next_.begin());
        for (std::size_t i = 0; i < commands.size(); ++i) apply(model_.commands[commands[i]], pick[i], commands.size() > 1);
        if (commands.size() > 1) std::fill(written_.begin(), written_.end(), 0);
        choice.successors.emplace_back(table_.insert(next_.data()).first, probability);
      }
      std::size_t i = 0;
      while (i < pick.size() && ++pick[i] == model_.commands[commands[i]].updates.size()) pick[i++] = 0;
      if (i == pick.size()) break;
    }
    merge_equal_successors(choice.successors);
    return choice;
  }

  void check_distribution(const ResolvedCommand& command) {
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

  static void merge_equal_successors(Successors& successors) {
    std::sort(successors.begin(), successors.end());
    std::size_t out = 0;
    for (std::size_t i = 0; i < successors.size(); ++i) {
      if (out > 0 && successors[out - 1].first == successors[i].first) {
        successors[out - 1].second += successors[i].second;
      } else {
        successors[out++] = successors[i];
      }
    }
    successors.resize(out);
  }

  // A DTMC resolves the choices of a state by picking one uniformly, as PRISM does.
  Choice uniform_mixture(const std::vector<Choice>& choices) {
    if (choices.size() == 1) return choices.front();
    Choice mixed{kNoAction, {}};
    double weight = 1.0 / static_cast<double>(choices.size());
    for (const Choice& c : choices) {
      for (auto [t, p] : c.successors) mixed.successors.emplace_back(t, p * weight);
    }
    merge_equal_successors(mixed.successors);
    mixture_of_ = choices;
    return mixed;
  }

  void add_rewards(const std::vector<Choice>& choices) {
    for (std::size_t r = 0; r < model_.rewards.size(); ++r) {
      const ResolvedReward& reward = model_.rewards[r];
      if (!reward.state_items.empty()) {
        double total = 0.0;
        for (const auto& [guard, value] : reward.state_items) {
          if (guard.holds(values_.data())) total += value.evaluate(values_.data());
        }
        state_rewards_[r].push_back(total);
      }
      if (!reward.transition_items.empty()) {
        // For a DTMC the row mixes several choices: its reward is their average.
        const std::vector<Choice>& sources = model_.type == ModelType::dtmc && choices.size() == 1 && !mixture_of_.empty()
                                                 ? mixture_of_
                                                 : choices;
        if (model_.type == ModelType::dtmc) {
          double total = 0.0;
          for (const Choice& c : sources) total += transition_reward(reward, c.action);
          choice_rewards_[r].push_back(total / static_cast<double>(sources.size()));
        } else {
          for (const Choice& c : choices) choice_rewards_[r].push_back(transition_reward(reward, c.action));
        }
      }
    }
    mixture_of_.clear();
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
  std::vector<double> values_;            // the current state's variables
  std::uint64_t current_ = 0;             // its index
  std::vector<std::uint64_t> next_;       // the successor being built
  std::vector<std::uint8_t> written_;     // variables set in the current combination
  std::vector<char> enabled_;             // per command, in the current state
  std::vector<std::uint32_t> unlabelled_;
  std::vector<std::vector<std::vector<std::uint32_t>>> commands_by_action_;  // [action][module]
  std::vector<std::vector<double>> state_rewards_, choice_rewards_;
  std::vector<Choice> mixture_of_;  // the choices a DTMC row mixed, for its rewards
};

}  // namespace

BuiltModel build_model(const ResolvedModel& model) { return Explorer(model).run(); }

}  // namespace mdpvi
