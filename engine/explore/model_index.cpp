#include "engine/explore/model_index.h"

#include <optional>

namespace mdpvi {

namespace {

std::vector<std::pair<std::int32_t, std::int32_t>> ranges(const ResolvedModel& model) {
  std::vector<std::pair<std::int32_t, std::int32_t>> r;
  for (const ResolvedVariable& v : model.variables) r.emplace_back(v.low, v.high);
  return r;
}

// The value a guard pins variable v to ("v = c" among its conjuncts), if any.
std::optional<std::int32_t> pinned_value(const ResolvedCommand& command, std::uint32_t v) {
  for (const CompiledExpression& conjunct : command.guard.conjuncts()) {
    if (conjunct.is_variable_equals_constant() && conjunct.single_instruction().index == v) {
      return static_cast<std::int32_t>(conjunct.single_instruction().value);
    }
  }
  return std::nullopt;
}

// The module's own variable pinned by the most guards, or -1.
int most_pinned_variable(const ResolvedModel& model, std::size_t module, const std::vector<std::uint32_t>& commands) {
  std::size_t best_count = 0;
  int best = -1;
  for (std::uint32_t v = 0; v < model.variables.size(); ++v) {
    const ResolvedVariable& var = model.variables[v];
    if (var.module != static_cast<int>(module) || std::int64_t{var.high} - var.low > 4096) continue;
    std::size_t count = 0;
    for (std::uint32_t c : commands) count += pinned_value(model.commands[c], v).has_value();
    if (count > best_count) best_count = count, best = static_cast<int>(v);
  }
  return best;
}

void bucket_commands(const ResolvedModel& model, ModuleIndex& index) {
  const ResolvedVariable& key = model.variables[index.key];
  index.low = key.low;
  index.buckets.assign(static_cast<std::size_t>(key.high - key.low) + 1, {});
  for (std::uint32_t c : index.all) {
    std::optional<std::int32_t> value = pinned_value(model.commands[c], index.key);
    for (std::int32_t x = key.low; x <= key.high; ++x) {
      if (!value || *value == x) index.buckets[x - key.low].push_back(c);
    }
  }
}

std::vector<std::uint64_t> read_mask(const ResolvedModel& model, const StateLayout& layout,
                                     const std::vector<std::uint32_t>& commands) {
  std::vector<bool> read(model.variables.size(), false);
  for (std::uint32_t c : commands) {
    const ResolvedCommand& command = model.commands[c];
    for (const CompiledExpression& conjunct : command.guard.conjuncts()) conjunct.mark_variables(read);
    for (const ResolvedUpdate& update : command.updates) {
      update.probability.mark_variables(read);
      for (const ResolvedAssignment& a : update.assignments) a.value.mark_variables(read);
    }
  }
  return layout.mask(read);
}

}  // namespace

ModelIndex::ModelIndex(const ResolvedModel& m) : model(m), layout(ranges(m)) {
  commands_by_action.assign(m.actions.size(), std::vector<std::vector<std::uint32_t>>(m.module_names.size()));
  for (std::uint32_t c = 0; c < m.commands.size(); ++c) {
    const ResolvedCommand& command = m.commands[c];
    if (command.action != kNoAction) commands_by_action[command.action][command.module].push_back(c);
  }
  alphabet_modules.resize(m.actions.size());
  alphabet_masks.assign(m.module_names.size(), std::vector<std::uint64_t>(action_words(), 0));
  for (std::uint32_t action = 0; action < m.actions.size(); ++action) {
    for (std::uint32_t module = 0; module < m.module_names.size(); ++module) {
      if (commands_by_action[action][module].empty()) continue;
      alphabet_modules[action].push_back(module);
      add_action(alphabet_masks[module].data(), action);
    }
  }
  for (const ResolvedReward& reward : m.rewards) {
    for (const auto& item : reward.state_items) rewards_read_state |= !item.guard.is_constant() || !item.value.is_constant();
    for (const auto& item : reward.transition_items) {
      rewards_read_state |= !item.guard.is_constant() || !item.value.is_constant();
    }
  }
  modules.resize(m.module_names.size());
  for (std::uint32_t c = 0; c < m.commands.size(); ++c) modules[m.commands[c].module].all.push_back(c);
  for (std::size_t module = 0; module < modules.size(); ++module) {
    ModuleIndex& index = modules[module];
    index.read_mask = read_mask(m, layout, index.all);
    index.key = most_pinned_variable(m, module, index.all);
    if (index.key >= 0) bucket_commands(m, index);
  }
}

}  // namespace mdpvi
