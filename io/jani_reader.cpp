#include "io/jani_reader.h"

#include "io/jani_expressions.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mdpvi::io {

namespace {

using jani::fail;
using jani::Json;
using jani::member;
using jani::Scope;
using jani::string_member;
using jani::unsupported;
using Op = Expression::Op;

std::string indexed(const std::string& at, std::size_t i) { return at + "[" + std::to_string(i) + "]"; }

// The members that are arrays, or none where absent.
const Json& array_member(const Scope& scope, const Json& j, const std::string& at, const char* key) {
  static const Json kNone = Json::array();
  const auto found = j.find(key);
  if (found == j.end()) return kNone;
  if (!found->is_array()) fail(scope, at + "." + key, "an array", *found);
  return *found;
}

Json parse_json(const TextFile& file) {
  std::string text;
  for (std::size_t i = 0; i < file.num_lines(); ++i) text.append(file.line(i)).push_back('\n');
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& error) {
    // Its byte offset as a line and a column.
    const std::size_t offset = std::min<std::size_t>(error.byte > 0 ? error.byte - 1 : 0, text.size());
    const std::size_t line = 1 + std::count(text.begin(), text.begin() + offset, '\n');
    const std::size_t line_start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
    const std::size_t column = line_start == std::string::npos || offset == 0 ? offset + 1 : offset - line_start;
    // nlohmann's text says the place again: only what follows it.
    const std::string said = error.what();
    const std::size_t after_place = said.find(": ", said.find("column"));
    const std::string what = after_place == std::string::npos ? said : said.substr(after_place + 2);
    throw ParseError(file.name(), line, column, "expected JSON (a JANI model): " + what);
  }
}

ModelType model_type(const Scope& scope, const Json& root) {
  const std::string type = string_member(scope, root, "the model", "type");
  if (type == "mdp") return ModelType::mdp;
  if (type == "dtmc") return ModelType::dtmc;
  if (type == "ctmc") return ModelType::ctmc;
  unsupported(scope, "type", "JANI models of type \"" + type + "\" (mdpvi checks mdp, dtmc and ctmc)");
}

// "int", "real", "bool", or a bounded type's base.
ValueType basic_type(const Scope& scope, const Json& type, const std::string& at) {
  const Json& base = type.is_object() ? member(scope, type, at, "base") : type;
  if (base == "int") return ValueType::integer;
  if (base == "real") return ValueType::real;
  if (base == "bool") return ValueType::boolean;
  fail(scope, at, "a type int, real or bool", type);
}

// f(entry, its place, its name) for each entry of owner's array member key (at: owner's place).
template <typename F>
void each_named(const Scope& scope, const Json& owner, const std::string& at, const char* key, F f) {
  const Json& all = array_member(scope, owner, at, key);
  for (std::size_t i = 0; i < all.size(); ++i) {
    const std::string where = indexed(at == "the model" ? std::string(key) : at + "." + key, i);
    f(all[i], where, string_member(scope, all[i], where, "name"));
  }
}

std::vector<ConstantDeclaration> constants(const Scope& scope, const Json& root) {
  std::vector<ConstantDeclaration> declared;
  each_named(scope, root, "the model", "constants", [&](const Json& entry, const std::string& at, std::string name) {
    ConstantDeclaration c;
    c.name = std::move(name);
    c.type = basic_type(scope, member(scope, entry, at, "type"), at + ".type");
    if (entry.contains("value")) c.value = jani::expression(scope, entry["value"], at + ".value");
    declared.push_back(std::move(c));
  });
  return declared;
}

// A state variable: a Boolean or a bounded integer (PRISM has no others).
VariableDeclaration variable(const Scope& scope, const Json& v, const std::string& at) {
  VariableDeclaration d;
  d.name = string_member(scope, v, at, "name");
  const Json& type = member(scope, v, at, "type");
  if (type == "bool") {
    d.is_bool = true;
  } else if (type.is_object() && type.value("kind", "") == "bounded" && type.value("base", "") == "int") {
    if (!type.contains("lower-bound") || !type.contains("upper-bound")) {
      unsupported(scope, at + ".type", "an integer variable without both bounds (" + d.name + ")");
    }
    d.low = jani::expression(scope, type["lower-bound"], at + ".type.lower-bound");
    d.high = jani::expression(scope, type["upper-bound"], at + ".type.upper-bound");
  } else {
    unsupported(scope, at + ".type", "the variable type " + type.dump() + " of " + d.name + " (bool and bounded int only)");
  }
  if (v.contains("initial-value")) d.init = jani::expression(scope, v["initial-value"], at + ".initial-value");
  return d;
}

// The transient variables' names (labels, rewards) of the model's variables.
void note_transients(Scope& scope, const Json& variables, const std::string& at) {
  for (std::size_t i = 0; i < variables.size(); ++i) {
    if (!variables[i].value("transient", false)) continue;
    const std::string where = indexed(at, i);
    const std::string name = string_member(scope, variables[i], where, "name");
    const Json& type = member(scope, variables[i], where, "type");
    const Json& initial = variables[i].value("initial-value", Json());
    if (type == "bool") {
      if (initial == Json(true)) unsupported(scope, where, "a transient Boolean that is true by default (" + name + ")");
      scope.labels.insert(name);
    } else {
      if (initial.is_number() && initial.get<double>() != 0.0) {
        unsupported(scope, where, "a transient variable that is not 0 by default (" + name + ")");
      }
      scope.rewards.insert(name);
    }
  }
}

// Which automata (by their place in the system) each action synchronises: PRISM's
// rule, every vector's entries one action, the vector's result.
struct Synchronisation {
  std::map<std::string, std::vector<bool>> participants;

  bool fires(const std::string& action, std::size_t element) const {
    const auto found = participants.find(action);
    return found != participants.end() && found->second[element];
  }
};

Synchronisation synchronisation(const Scope& scope, const Json& system, std::size_t elements) {
  Synchronisation sync;
  const Json& vectors = array_member(scope, system, "system", "syncs");
  for (std::size_t v = 0; v < vectors.size(); ++v) {
    const std::string at = indexed("system.syncs", v);
    const Json& entries = member(scope, vectors[v], at, "synchronise");
    if (!entries.is_array() || entries.size() != elements) fail(scope, at + ".synchronise", std::to_string(elements) + " entries", entries);
    std::optional<std::string> action;
    std::vector<bool> mask(elements, false);
    for (std::size_t e = 0; e < elements; ++e) {
      if (entries[e].is_null()) continue;
      if (!entries[e].is_string()) fail(scope, indexed(at + ".synchronise", e), "an action or null", entries[e]);
      if (action && *action != entries[e].get<std::string>()) unsupported(scope, at, "a sync vector of different actions");
      action = entries[e].get<std::string>();
      mask[e] = true;
    }
    if (!action) continue;
    if (vectors[v].contains("result") && vectors[v]["result"] != *action) {
      unsupported(scope, at + ".result", "a sync vector that renames its action");
    }
    if (!sync.participants.emplace(*action, mask).second) unsupported(scope, at, "two sync vectors of action " + *action);
  }
  return sync;
}

// What is read of the automata besides their modules: labels, rewards, and whether
// every variable has its initial value.
struct Collected {
  std::map<std::string, std::vector<Expression>> label_parts;
  std::map<std::string, std::vector<RewardItem>> reward_items;
};

Expression conjunction(Expression a, Expression b) {
  if (a.is_true_literal()) return b;
  if (b.is_true_literal()) return a;
  return Expression::operation(Op::logical_and, {std::move(a), std::move(b)});
}

class AutomatonReader {
 public:
  AutomatonReader(const Scope& scope, const Synchronisation& sync, Collected& collected)
      : scope_(scope), sync_(sync), collected_(collected) {}

  ModuleDeclaration read(const Json& automaton, std::size_t element, const std::string& at,
                         const std::set<std::string>& blocked) {
    ModuleDeclaration module;
    module.name = string_member(scope_, automaton, at, "name");
    const Json& variables = array_member(scope_, automaton, at, "variables");
    for (std::size_t i = 0; i < variables.size(); ++i) {
      if (variables[i].value("transient", false)) unsupported(scope_, indexed(at + ".variables", i), "an automaton's own transient variables");
      module.variables.push_back(variable(scope_, variables[i], indexed(at + ".variables", i)));
    }
    read_locations(automaton, at, module);
    const Json& edges = array_member(scope_, automaton, at, "edges");
    for (std::size_t i = 0; i < edges.size(); ++i) {
      const std::string where = indexed(at + ".edges", i);
      const std::string action = edges[i].value("action", "");
      // JANI's rule: an action fires only through a sync vector that names this automaton.
      if (!action.empty() && (!sync_.fires(action, element) || blocked.count(action))) continue;
      module.commands.push_back(command(edges[i], where, action));
    }
    return module;
  }

 private:
  // The locations; several become a variable of the module, named after it.
  void read_locations(const Json& automaton, const std::string& at, ModuleDeclaration& module) {
    const Json& locations = member(scope_, automaton, at, "locations");
    if (!locations.is_array() || locations.empty()) fail(scope_, at + ".locations", "a list of locations", locations);
    locations_.clear();
    for (std::size_t i = 0; i < locations.size(); ++i) {
      const std::string where = indexed(at + ".locations", i);
      if (locations[i].contains("time-progress")) unsupported(scope_, where, "time-progress conditions");
      locations_.push_back(string_member(scope_, locations[i], where, "name"));
    }
    const Json& initial = member(scope_, automaton, at, "initial-locations");
    if (!initial.is_array() || initial.size() != 1) unsupported(scope_, at + ".initial-locations", "other than one initial location");
    location_variable_.clear();
    if (locations_.size() > 1) {
      location_variable_ = module.name + "_location";
      VariableDeclaration v;
      v.name = location_variable_;
      v.low = Expression::integer(0);
      v.high = Expression::integer(static_cast<std::int64_t>(locations_.size() - 1));
      v.init = Expression::integer(location_index(initial[0], at + ".initial-locations[0]"));
      module.variables.push_back(std::move(v));
    }
    for (std::size_t i = 0; i < locations.size(); ++i) {
      const Json& values = array_member(scope_, locations[i], indexed(at + ".locations", i), "transient-values");
      for (std::size_t k = 0; k < values.size(); ++k) {
        transient_value(values[k], indexed(indexed(at + ".locations", i) + ".transient-values", k), in_location(i));
      }
    }
  }

  std::int64_t location_index(const Json& name, const std::string& at) const {
    const auto found = name.is_string() ? std::find(locations_.begin(), locations_.end(), name.get<std::string>()) : locations_.end();
    if (found == locations_.end()) fail(scope_, at, "a location of the automaton", name);
    return found - locations_.begin();
  }

  Expression in_location(std::size_t index) const {
    if (location_variable_.empty()) return Expression::boolean(true);
    return Expression::operation(Op::equal, {Expression::identifier(location_variable_),
                                             Expression::integer(static_cast<std::int64_t>(index))});
  }

  // A location's label or state reward.
  void transient_value(const Json& assignment, const std::string& at, const Expression& where) {
    const std::string ref = string_member(scope_, assignment, at, "ref");
    Expression value = jani::expression(scope_, member(scope_, assignment, at, "value"), at + ".value");
    if (scope_.labels.count(ref)) {
      collected_.label_parts[ref].push_back(conjunction(where, std::move(value)));
    } else if (scope_.rewards.count(ref)) {
      collected_.reward_items[ref].push_back({false, "", where, std::move(value), {}});
    } else {
      fail(scope_, at + ".ref", "a transient variable", assignment["ref"]);
    }
  }

  CommandDeclaration command(const Json& edge, const std::string& at, const std::string& action) {
    CommandDeclaration c;
    c.action = action;
    const std::int64_t from = location_index(member(scope_, edge, at, "location"), at + ".location");
    c.guard = conjunction(in_location(static_cast<std::size_t>(from)),
                          edge.contains("guard") ? jani::expression(scope_, member(scope_, edge["guard"], at + ".guard", "exp"), at + ".guard.exp")
                                                 : Expression::boolean(true));
    std::optional<Expression> rate;
    if (scope_.type == ModelType::ctmc) {
      rate = jani::expression(scope_, member(scope_, member(scope_, edge, at, "rate"), at + ".rate", "exp"), at + ".rate.exp");
    }
    const Json& destinations = member(scope_, edge, at, "destinations");
    if (!destinations.is_array() || destinations.empty()) fail(scope_, at + ".destinations", "a list of destinations", destinations);
    std::map<std::string, Expression> rewards;  // per reward: sum of probability x value
    for (std::size_t d = 0; d < destinations.size(); ++d) {
      const std::string where = indexed(at + ".destinations", d);
      const Json& destination = destinations[d];
      Expression probability = destination.contains("probability")
                                   ? jani::expression(scope_, member(scope_, destination["probability"], where + ".probability", "exp"), where + ".probability.exp")
                                   : Expression::integer(1);
      UpdateDeclaration update;
      update.probability = rate ? product(*rate, probability) : probability;
      const Json& assignments = array_member(scope_, destination, where, "assignments");
      for (std::size_t k = 0; k < assignments.size(); ++k) {
        assign(assignments[k], indexed(where + ".assignments", k), probability, update, rewards);
      }
      const std::int64_t to = location_index(member(scope_, destination, where, "location"), where + ".location");
      if (!location_variable_.empty() && to != from) {
        update.assignments.push_back({location_variable_, Expression::integer(to), {}});
      }
      c.updates.push_back(std::move(update));
    }
    for (auto& [name, value] : rewards) collected_.reward_items[name].push_back({true, action, c.guard, std::move(value), {}});
    return c;
  }

  void assign(const Json& assignment, const std::string& at, const Expression& probability, UpdateDeclaration& update,
              std::map<std::string, Expression>& rewards) {
    if (assignment.value("index", 0) != 0) unsupported(scope_, at + ".index", "ordered assignments");
    const std::string ref = string_member(scope_, assignment, at, "ref");
    Expression value = jani::expression(scope_, member(scope_, assignment, at, "value"), at + ".value");
    if (scope_.labels.count(ref)) unsupported(scope_, at, "a transient Boolean set on an edge (" + ref + ")");
    if (!scope_.rewards.count(ref)) {
      update.assignments.push_back({ref, std::move(value), {}});
      return;
    }
    Expression weighted = product(probability, std::move(value));
    const auto found = rewards.find(ref);
    if (found == rewards.end()) {
      rewards.emplace(ref, std::move(weighted));
    } else {
      found->second = Expression::operation(Op::add, {std::move(found->second), std::move(weighted)});
    }
  }

  static Expression product(const Expression& a, Expression b) {
    if (a.kind == Expression::Kind::literal && a.value == 1.0 && a.literal_type != ValueType::boolean) return b;
    return Expression::operation(Op::multiply, {a, std::move(b)});
  }

  const Scope& scope_;
  const Synchronisation& sync_;
  Collected& collected_;
  std::vector<std::string> locations_;
  std::string location_variable_;
};

// Actions that a vector syncs on an automaton with no edge of that action: they can
// never fire, which PRISM's rule (an automaton without the action does not take part)
// would not say, so their edges are left out everywhere.
std::set<std::string> blocked_actions(const Scope& scope, const std::vector<const Json*>& automata,
                                      const Synchronisation& sync) {
  std::set<std::string> blocked;
  for (const auto& [synced, mask] : sync.participants) {
    const std::string& action = synced;  // a name the lambda below can capture
    for (std::size_t e = 0; e < automata.size(); ++e) {
      if (!mask[e]) continue;
      const Json& edges = array_member(scope, *automata[e], "automaton", "edges");
      const bool has = std::any_of(edges.begin(), edges.end(), [&](const Json& edge) { return edge.value("action", "") == action; });
      if (!has) blocked.insert(action);
    }
  }
  return blocked;
}

// The system's automata, in its order (an automaton named twice is refused: PRISM
// would need it renamed).
std::vector<const Json*> system_automata(const Scope& scope, const Json& root) {
  std::map<std::string, const Json*> by_name;
  const Json& automata = member(scope, root, "the model", "automata");
  for (std::size_t i = 0; i < automata.size(); ++i) by_name[string_member(scope, automata[i], indexed("automata", i), "name")] = &automata[i];
  const Json& elements = member(scope, member(scope, root, "the model", "system"), "system", "elements");
  std::vector<const Json*> chosen;
  std::set<std::string> seen;
  for (std::size_t e = 0; e < elements.size(); ++e) {
    const std::string at = indexed("system.elements", e);
    const std::string name = string_member(scope, elements[e], at, "automaton");
    if (!array_member(scope, elements[e], at, "input-enable").empty()) unsupported(scope, at, "input-enabled actions");
    const auto found = by_name.find(name);
    if (found == by_name.end()) fail(scope, at + ".automaton", "an automaton of the model", elements[e]["automaton"]);
    if (!seen.insert(name).second) unsupported(scope, at, "an automaton used twice in the system (" + name + ")");
    chosen.push_back(found->second);
  }
  return chosen;
}

void add_functions(Scope& scope, const Json& owner, const std::string& at) {
  each_named(scope, owner, at, "functions", [&](const Json& entry, const std::string&, const std::string& name) {
    scope.functions[name] = &entry;
  });
}

void add_labels_and_rewards(const Scope& scope, Collected& collected, ModelDescription& model) {
  for (const std::string& name : scope.labels) {
    std::vector<Expression>& parts = collected.label_parts[name];
    Expression body = Expression::boolean(false);
    for (Expression& part : parts) {
      body = body.kind == Expression::Kind::literal ? std::move(part)
                                                    : Expression::operation(Op::logical_or, {std::move(body), std::move(part)});
    }
    model.labels.push_back({name, std::move(body), {}});
  }
  for (const std::string& name : scope.rewards) model.rewards.push_back({name, std::move(collected.reward_items[name])});
}

// Where a variable has no initial value or the initial states are restricted, PRISM's
// init ... endinit says which states are initial: every variable at its value and the
// restriction.
void set_initial_states(const Scope& scope, const Json& root, ModelDescription& model) {
  std::vector<VariableDeclaration*> all;
  for (VariableDeclaration& v : model.globals) all.push_back(&v);
  for (ModuleDeclaration& m : model.modules) {
    for (VariableDeclaration& v : m.variables) all.push_back(&v);
  }
  const Json restriction = root.contains("restrict-initial") ? member(scope, root["restrict-initial"], "restrict-initial", "exp") : Json(true);
  const bool every_value = std::all_of(all.begin(), all.end(), [](const VariableDeclaration* v) { return v->init.has_value(); });
  if (every_value && restriction == Json(true)) return;
  Expression init = jani::expression(scope, restriction, "restrict-initial.exp");
  for (VariableDeclaration* v : all) {
    if (!v->init) continue;
    init = conjunction(Expression::operation(Op::equal, {Expression::identifier(v->name), *v->init}), std::move(init));
    v->init.reset();
  }
  model.init = std::move(init);
}

std::vector<JaniProperty> properties(const Scope& scope, const Json& root) {
  std::vector<JaniProperty> read;
  each_named(scope, root, "the model", "properties", [&](const Json& entry, const std::string& at, std::string name) {
    JaniProperty p;
    p.name = std::move(name);
    try {
      p.text = jani::property_text(scope, member(scope, entry, at, "expression"), at + ".expression");
    } catch (const UnsupportedError& error) {
      p.error = error.what();
    }
    read.push_back(std::move(p));
  });
  return read;
}

}  // namespace

bool is_jani_path(const std::string& path) { return path.ends_with(".jani"); }

JaniFile read_jani(const TextFile& file) {
  const Json root = parse_json(file);
  Scope scope;
  scope.file = file.name();
  if (!root.is_object()) fail(scope, "the file", "a JANI model (an object)", root);
  scope.type = model_type(scope, root);
  for (const Json& feature : array_member(scope, root, "the model", "features")) {
    static const std::set<std::string> known{"derived-operators", "functions", "state-exit-rewards"};
    if (!feature.is_string() || !known.count(feature.get<std::string>())) unsupported(scope, "features", "the JANI feature " + feature.dump());
  }
  JaniFile jani;
  ModelDescription& model = jani.model;
  model.file = file.name();
  model.type = scope.type;
  add_functions(scope, root, "the model");
  const Json& variables = array_member(scope, root, "the model", "variables");
  note_transients(scope, variables, "variables");
  model.constants = constants(scope, root);
  for (std::size_t i = 0; i < variables.size(); ++i) {
    if (!variables[i].value("transient", false)) model.globals.push_back(variable(scope, variables[i], indexed("variables", i)));
  }
  const std::vector<const Json*> automata = system_automata(scope, root);
  const Synchronisation sync = synchronisation(scope, root["system"], automata.size());
  const std::set<std::string> blocked = blocked_actions(scope, automata, sync);
  Collected collected;
  for (std::size_t e = 0; e < automata.size(); ++e) {
    Scope own = scope;  // an automaton's functions before the model's
    add_functions(own, *automata[e], "automaton");
    AutomatonReader reader(own, sync, collected);
    model.modules.push_back(reader.read(*automata[e], e, "automata[" + (*automata[e])["name"].get<std::string>() + "]", blocked));
  }
  add_labels_and_rewards(scope, collected, model);
  set_initial_states(scope, root, model);
  jani.properties = properties(scope, root);
  return jani;
}

}  // namespace mdpvi::io
