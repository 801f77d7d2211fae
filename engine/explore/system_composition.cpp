#include "engine/explore/system_composition.h"

#include "engine/model/located_error.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace mdpvi {

namespace {

using Kind = io::SystemExpression::Kind;

// Modules that move together, each with the action its commands have in the model.
using Group = std::vector<std::pair<std::uint32_t, int>>;  // (module, action), by module

// What a composition does: per visible action, the groups that take it (none: the
// action is in its alphabet but blocked), and the groups hidden inside it.
struct Moves {
  std::map<std::string, std::vector<Group>> visible;
  std::vector<Group> hidden;
};

class Composer {
 public:
  Composer(const ResolvedModel& model) : model_(model) {
    for (const ResolvedCommand& c : model.commands) {
      if (c.action != kNoAction) alphabets_[c.module].insert(c.action);
    }
  }

  Moves moves_of(const io::SystemExpression& e) {
    switch (e.kind) {
      case Kind::module: return module_moves(e);
      case Kind::hiding: return hidden(moves_of(e.operands[0]), e.actions);
      case Kind::renaming: return renamed(moves_of(e.operands[0]), e.renaming);
      default: {
        Moves left = moves_of(e.operands[0]);  // first: errors name the module written first
        return parallel(e, std::move(left), moves_of(e.operands[1]));
      }
    }
  }

  // Every module named once.
  void check_complete(const io::SystemExpression& system) const {
    for (std::uint32_t m = 0; m < model_.module_names.size(); ++m) {
      if (!seen_.count(m)) fail(system.position, "module '" + model_.module_names[m] + "' is missing from system ... endsystem");
    }
  }

 private:
  [[noreturn]] void fail(SourcePosition at, const std::string& message) const {
    throw LocatedError(model_.file, at.line, at.column, message);
  }

  Moves module_moves(const io::SystemExpression& e) {
    const auto named = std::find(model_.module_names.begin(), model_.module_names.end(), e.module);
    if (named == model_.module_names.end()) fail(e.position, "unknown module '" + e.module + "' in system ... endsystem");
    const auto m = static_cast<std::uint32_t>(named - model_.module_names.begin());
    if (!seen_.insert(m).second) fail(e.position, "module '" + e.module + "' appears twice in system ... endsystem");
    Moves moves;
    for (int action : alphabets_[m]) moves.visible[model_.actions[action]].push_back({{m, action}});
    return moves;
  }

  static Moves hidden(Moves moves, const std::vector<std::string>& actions) {
    for (const std::string& a : actions) {
      auto it = moves.visible.find(a);
      if (it == moves.visible.end()) continue;
      moves.hidden.insert(moves.hidden.end(), it->second.begin(), it->second.end());
      moves.visible.erase(it);
    }
    return moves;
  }

  // All at once: {a<-b, b<-a} swaps them. Actions renamed to one name take it apart.
  static Moves renamed(Moves moves, const std::vector<std::pair<std::string, std::string>>& renaming) {
    std::map<std::string, std::string> to(renaming.begin(), renaming.end());
    Moves out;
    out.hidden = std::move(moves.hidden);
    for (auto& [name, groups] : moves.visible) {
      auto it = to.find(name);
      std::vector<Group>& into = out.visible[it == to.end() ? name : it->second];
      into.insert(into.end(), groups.begin(), groups.end());
    }
    return out;
  }

  static Moves parallel(const io::SystemExpression& e, Moves p, Moves q) {
    std::set<std::string> synchronised;
    if (e.kind == Kind::restricted) synchronised.insert(e.actions.begin(), e.actions.end());
    if (e.kind == Kind::alphabetised) {
      for (const auto& [name, groups] : p.visible) {
        if (q.visible.count(name)) synchronised.insert(name);
      }
    }
    Moves out;
    out.hidden = std::move(p.hidden);
    out.hidden.insert(out.hidden.end(), q.hidden.begin(), q.hidden.end());
    for (Moves* side : {&p, &q}) {
      for (auto& [name, groups] : side->visible) {
        if (synchronised.count(name)) continue;
        std::vector<Group>& into = out.visible[name];
        into.insert(into.end(), groups.begin(), groups.end());
      }
    }
    for (const std::string& name : synchronised) {
      auto left = p.visible.find(name), right = q.visible.find(name);
      const bool in_alphabet = left != p.visible.end() || right != q.visible.end();
      if (!in_alphabet) continue;  // |[a]| over actions neither side has
      std::vector<Group>& into = out.visible[name];
      if (left == p.visible.end() || right == q.visible.end()) continue;  // blocked: one side cannot take it
      for (const Group& a : left->second) {
        for (const Group& b : right->second) {
          Group both = a;
          both.insert(both.end(), b.begin(), b.end());
          std::sort(both.begin(), both.end());
          into.push_back(std::move(both));
        }
      }
    }
    return out;
  }

  const ResolvedModel& model_;
  std::map<std::uint32_t, std::set<int>> alphabets_;
  std::set<std::uint32_t> seen_;
};

// The groups in the order their actions are numbered: visible ones by name, then hidden.
struct NumberedGroups {
  std::vector<std::string> names;  // per new action
  std::vector<Group> groups;       // per new action
};

NumberedGroups number(Moves moves) {
  NumberedGroups out;
  for (auto& [name, groups] : moves.visible) {
    for (Group& g : groups) {
      out.names.push_back(name);
      out.groups.push_back(std::move(g));
    }
  }
  for (Group& g : moves.hidden) {
    out.names.emplace_back();
    out.groups.push_back(std::move(g));
  }
  return out;
}

// Each labelled command once for every group holding its module with its action, in
// the model's order; unlabelled ones as they are.
std::vector<ResolvedCommand> commands_for(const ResolvedModel& model, const NumberedGroups& numbered) {
  std::vector<ResolvedCommand> commands;
  for (const ResolvedCommand& c : model.commands) {
    if (c.action == kNoAction) {
      commands.push_back(c);
      continue;
    }
    for (std::size_t g = 0; g < numbered.groups.size(); ++g) {
      const Group& group = numbered.groups[g];
      if (!std::binary_search(group.begin(), group.end(), std::pair{c.module, c.action})) continue;
      commands.push_back(c);
      commands.back().action = static_cast<int>(g);
    }
  }
  return commands;
}

// An item of [a] on every group named a, one of [] on the unlabelled commands and the
// hidden groups.
void rename_reward_actions(ResolvedModel& model, const NumberedGroups& numbered) {
  for (ResolvedReward& reward : model.rewards) {
    std::vector<ResolvedReward::TransitionItem> items;
    for (const ResolvedReward::TransitionItem& item : reward.transition_items) {
      const std::string name = item.action == kNoAction ? "" : model.actions[item.action];
      if (name.empty()) items.push_back(item);
      for (std::size_t g = 0; g < numbered.names.size(); ++g) {
        if (numbered.names[g] != name) continue;
        items.push_back(item);
        items.back().action = static_cast<int>(g);
      }
    }
    reward.transition_items = std::move(items);
  }
}

}  // namespace

void compose_system(const io::SystemExpression& system, ResolvedModel& model) {
  Composer composer(model);
  const NumberedGroups numbered = number(composer.moves_of(system));
  composer.check_complete(system);
  std::vector<ResolvedCommand> commands = commands_for(model, numbered);
  rename_reward_actions(model, numbered);
  model.commands = std::move(commands);
  model.actions = numbered.names;
}

}  // namespace mdpvi
