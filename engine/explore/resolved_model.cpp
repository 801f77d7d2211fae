#include "engine/explore/resolved_model.h"

#include "engine/explore/system_composition.h"
#include "engine/model/property_value.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <set>
#include <stdexcept>

namespace mdpvi {

namespace {

using Rewrite = std::function<std::optional<Expression>(const Expression&)>;

// Rebuilds e bottom-up; rewrite may replace any leaf of the kind (identifiers, or
// labels).
Expression rewrite_leaves(const Expression& e, Expression::Kind kind, const Rewrite& rewrite) {
  if (e.kind == kind) {
    if (auto replacement = rewrite(e)) return *replacement;
    return e;
  }
  if (e.kind != Expression::Kind::operation) return e;
  // The node anew around its rewritten operands: copying e whole first copied every
  // subtree once per level above it, quadratic in a long sum (issue 26).
  std::vector<Expression> operands;
  operands.reserve(e.operands.size());
  for (const Expression& operand : e.operands) operands.push_back(rewrite_leaves(operand, kind, rewrite));
  return Expression::operation(e.op, std::move(operands), e.position);
}

Expression rewrite_identifiers(const Expression& e, const Rewrite& rewrite) {
  return rewrite_leaves(e, Expression::Kind::identifier, rewrite);
}

class Resolver {
 public:
  Resolver(const io::ModelDescription& model, const std::map<std::string, std::string>& given)
      : model_(model), given_(given) {}

  ResolvedModel resolve() {
    out_.file = model_.file;
    out_.type = model_.type.value_or(ModelType::mdp);
    for (const auto& c : model_.constants) {
      if (!constant_declarations_.emplace(c.name, &c).second) fail(c.position, "constant '" + c.name + "' is declared twice");
    }
    for (const auto& c : model_.constants) constant(c.name);
    out_.constants = constants_;
    for (const auto& f : model_.formulas) {
      if (!formula_declarations_.emplace(f.name, &f).second) fail(f.position, "formula '" + f.name + "' is declared twice");
    }
    for (const io::LabelDeclaration& l : model_.labels) label_declarations_.emplace(l.name, &l);
    for (const auto& f : model_.formulas) out_.formulas[f.name] = prepare(f.body, {});
    declare_variables();
    compile_commands();
    compile_labels_rewards_init();
    if (model_.system) compose_system(*model_.system, out_);
    return std::move(out_);
  }

 private:
  [[noreturn]] void fail(SourcePosition at, const std::string& message) const {
    throw LocatedError(model_.file, at.line, at.column, message);
  }

  // --- constants -----------------------------------------------------------------
  ConstantValue constant(const std::string& name) {
    if (auto it = constants_.find(name); it != constants_.end()) return it->second;
    const io::ConstantDeclaration& c = *constant_declarations_.at(name);
    if (!evaluating_.insert(name).second) fail(c.position, "constant '" + name + "' is defined in terms of itself");
    ConstantValue value{};
    auto given = given_.find(name);
    if (c.value) {
      if (given != given_.end()) {
        fail(c.position, "constant '" + name + "' has a value in the model; --const cannot change it");
      }
      ValueType type;
      Expression expr = rewrite_identifiers(*c.value, [&](const Expression& id) -> std::optional<Expression> {
        if (!constant_declarations_.count(id.name)) return std::nullopt;
        ConstantValue v = constant(id.name);
        return Expression::literal(v.type, v.value, id.position);
      });
      double v = evaluate_constant(expr, NameScope::constants_only(model_.file), &type);
      value = convert(c, type, v);
    } else if (given != given_.end()) {
      try {
        value = parse_constant_value(name, c.type, given->second);
      } catch (const std::invalid_argument& error) {
        fail(c.position, error.what());
      }
    } else {
      fail(c.position, "constant '" + name + "' has no value: give it with --const " + name + "=...");
    }
    evaluating_.erase(name);
    constants_[name] = value;
    return value;
  }

  ConstantValue convert(const io::ConstantDeclaration& c, ValueType found, double value) const {
    if (std::isnan(value)) fail(c.position, "constant '" + c.name + "' is not a number (NaN)");
    if (found == ValueType::integer) check_integer(c.position, "constant '" + c.name + "'", value);
    if (c.type == found) return {found, value};
    if (c.type == ValueType::real && found == ValueType::integer) return {ValueType::real, value};
    fail(c.position, "constant '" + c.name + "' is declared " + to_string(c.type) + " but its value is " +
                         to_string(found));
  }

  // --- names ---------------------------------------------------------------------
  // Formulas expanded, then the module's renaming applied (simultaneously), then the
  // model's labels expanded (a label is the model's, not renamed with a module: PRISM
  // 4.8's labels in guards, labels and formulas), then constants replaced by their
  // values: the order PRISM gives these names.
  Expression prepare(const Expression& e, const std::map<std::string, std::string>& renaming) {
    Expression expanded = expand_formulas(e);
    Expression renamed = rewrite_identifiers(expanded, [&](const Expression& id) -> std::optional<Expression> {
      auto it = renaming.find(id.name);
      if (it == renaming.end()) return std::nullopt;
      return Expression::identifier(it->second, id.position);
    });
    return substitute_constants(expand_labels(renamed), constants_);
  }

  Expression expand_labels(const Expression& e) {
    return rewrite_leaves(e, Expression::Kind::label, [&](const Expression& label) -> std::optional<Expression> {
      auto it = label_declarations_.find(label.name);
      if (it == label_declarations_.end()) fail(label.position, "the model has no label \"" + label.name + "\"");
      if (!expanding_labels_.insert(label.name).second) {
        fail(label.position, "label \"" + label.name + "\" refers to itself");
      }
      Expression body = expand_labels(expand_formulas(it->second->body));
      expanding_labels_.erase(label.name);
      return body;
    });
  }

  Expression expand_formulas(const Expression& e) {
    return rewrite_identifiers(e, [&](const Expression& id) -> std::optional<Expression> {
      auto it = formula_declarations_.find(id.name);
      if (it == formula_declarations_.end()) return std::nullopt;
      if (!expanding_.insert(id.name).second) fail(id.position, "formula '" + id.name + "' refers to itself");
      Expression body = expand_formulas(it->second->body);
      expanding_.erase(id.name);
      return body;
    });
  }

  std::int32_t integer_constant(const Expression& e, const std::map<std::string, std::string>& renaming,
                                const std::string& what) {
    ValueType type;
    double v = evaluate_constant(prepare(e, renaming), NameScope::constants_only(model_.file), &type);
    if (type != ValueType::integer) fail(e.position, what + " must be an integer, found " + to_string(type));
    check_integer(e.position, what, v);
    return static_cast<std::int32_t>(v);
  }

  // mdpvi's integers are 32-bit, as PRISM's: a value past them (pow(2,40),
  // 2147483647+1, floor(1/0)) is an error, not a cast.
  void check_integer(const SourcePosition& at, const std::string& what, double v) const {
    if (!(v >= INT32_MIN && v <= INT32_MAX)) {
      fail(at, what + " is " + (std::isfinite(v) ? std::to_string(static_cast<long long>(v)) : std::to_string(v)) +
                   ", outside 32-bit integers [-2147483648..2147483647]");
    }
  }

  // --- variables -----------------------------------------------------------------
  // The module declarations in effect: renamed modules refer to their original.
  struct ModuleView {
    const io::ModuleDeclaration* body;
    std::map<std::string, std::string> renaming;
  };

  void declare_variables() {
    std::map<std::string, const io::ModuleDeclaration*> originals;
    for (const auto& m : model_.modules) {
      if (m.renamed_from.empty()) originals[m.name] = &m;
    }
    std::set<std::string> module_names;
    for (const auto& m : model_.modules) {
      if (!module_names.insert(m.name).second) fail(m.position, "module '" + m.name + "' is declared twice");
      ModuleView view{&m, {}};
      if (!m.renamed_from.empty()) {
        auto it = originals.find(m.renamed_from);
        if (it == originals.end()) fail(m.position, "module '" + m.renamed_from + "' to copy is not declared");
        view.body = it->second;
        for (const auto& [from, to] : m.renaming) {
          if (!view.renaming.emplace(from, to).second) fail(m.position, "'" + from + "' is renamed twice");
        }
      }
      modules_.push_back(std::move(view));
      out_.module_names.push_back(m.name);
    }
    for (const auto& v : model_.globals) add_variable(v, -1, {});
    for (std::size_t m = 0; m < modules_.size(); ++m) {
      for (const auto& v : modules_[m].body->variables) add_variable(v, static_cast<int>(m), modules_[m].renaming);
    }
  }

  std::string renamed(const std::string& name, const std::map<std::string, std::string>& renaming) const {
    auto it = renaming.find(name);
    return it == renaming.end() ? name : it->second;
  }

  void add_variable(const io::VariableDeclaration& v, int module, const std::map<std::string, std::string>& renaming) {
    ResolvedVariable r;
    r.name = renamed(v.name, renaming);
    r.module = module;
    if (variable_index_.count(r.name) || constant_declarations_.count(r.name)) {
      fail(v.position, "'" + r.name + "' is declared twice");
    }
    if (v.is_bool) {
      r.type = ValueType::boolean;
      r.low = 0;
      r.high = 1;
      r.init = 0;
      if (v.init) {
        ValueType type;
        double init = evaluate_constant(prepare(*v.init, renaming), NameScope::constants_only(model_.file), &type);
        if (type != ValueType::boolean) fail(v.init->position, "initial value of '" + r.name + "' must be a Boolean");
        r.init = init != 0.0;
      }
    } else {
      r.type = ValueType::integer;
      r.low = integer_constant(v.low, renaming, "the lower bound of '" + r.name + "'");
      r.high = integer_constant(v.high, renaming, "the upper bound of '" + r.name + "'");
      if (r.low > r.high) {
        fail(v.position, "empty range [" + std::to_string(r.low) + ".." + std::to_string(r.high) + "] for '" + r.name + "'");
      }
      r.init = v.init ? integer_constant(*v.init, renaming, "the initial value of '" + r.name + "'") : r.low;
      if (r.init < r.low || r.init > r.high) {
        fail(v.position, "initial value " + std::to_string(r.init) + " of '" + r.name + "' is outside its range [" +
                             std::to_string(r.low) + ".." + std::to_string(r.high) + "]");
      }
    }
    variable_index_[r.name] = static_cast<std::uint32_t>(out_.variables.size());
    out_.variables.push_back(r);
  }

  NameScope scope() const {
    return NameScope{model_.file,
                     [this](const std::string& name) -> std::optional<VariableRef> {
                       auto it = variable_index_.find(name);
                       if (it == variable_index_.end()) return std::nullopt;
                       return VariableRef{it->second, out_.variables[it->second].type};
                     },
                     {}, {}};
  }

  CompiledExpression compile_as(const Expression& e, const std::map<std::string, std::string>& renaming,
                                const std::string& what, bool boolean) {
    CompiledExpression compiled = compile(prepare(e, renaming), scope());
    bool ok = boolean ? compiled.type() == ValueType::boolean : compiled.type() != ValueType::boolean;
    if (!ok) {
      fail(e.position, "type error: " + what + " must be " + (boolean ? "Boolean" : "a number") + ", found " +
                           to_string(compiled.type()));
    }
    return compiled;
  }

  // --- commands ------------------------------------------------------------------
  int action_index(const std::string& name) {
    if (name.empty()) return kNoAction;
    for (std::size_t i = 0; i < out_.actions.size(); ++i) {
      if (out_.actions[i] == name) return static_cast<int>(i);
    }
    out_.actions.push_back(name);
    return static_cast<int>(out_.actions.size() - 1);
  }

  void compile_commands() {
    for (std::size_t m = 0; m < modules_.size(); ++m) {
      const ModuleView& view = modules_[m];
      for (const io::CommandDeclaration& c : view.body->commands) {
        ResolvedCommand command;
        command.module = static_cast<std::uint32_t>(m);
        command.action = action_index(renamed(c.action, view.renaming));
        command.guard = compile_conjunction(prepare(c.guard, view.renaming), scope());
        command.position = c.position;
        for (const io::UpdateDeclaration& u : c.updates) command.updates.push_back(update(u, view, m));
        out_.commands.push_back(std::move(command));
      }
    }
  }

  ResolvedUpdate update(const io::UpdateDeclaration& u, const ModuleView& view, std::size_t module) {
    ResolvedUpdate r;
    r.probability = compile_as(u.probability, view.renaming, "a probability", false);
    std::set<std::uint32_t> assigned;
    for (const io::AssignmentDeclaration& a : u.assignments) {
      std::string name = renamed(a.variable, view.renaming);
      auto it = variable_index_.find(name);
      if (it == variable_index_.end()) fail(a.position, "unknown variable '" + name + "'");
      const ResolvedVariable& v = out_.variables[it->second];
      if (v.module != -1 && v.module != static_cast<int>(module)) {
        fail(a.position, "module '" + out_.module_names[module] + "' cannot update '" + name + "' of module '" +
                             out_.module_names[v.module] + "'");
      }
      if (!assigned.insert(it->second).second) fail(a.position, "'" + name + "' is updated twice");
      CompiledExpression value = compile(prepare(a.value, view.renaming), scope());
      if (value.type() != v.type) {
        fail(a.position, "type error: '" + name + "' is " + to_string(v.type) + " but is assigned a " +
                                   to_string(value.type()) + " value");
      }
      r.assignments.push_back({it->second, std::move(value), a.position});
    }
    return r;
  }

  void compile_labels_rewards_init() {
    std::set<std::string> label_names;
    for (const io::LabelDeclaration& l : model_.labels) {
      if (!label_names.insert(l.name).second) fail(l.position, "label \"" + l.name + "\" is declared twice");
      compile_as(l.body, {}, "a label", true);  // for its type error
      // Evaluated in every state: conjunct by conjunct, stopping at the first false one.
      out_.labels.emplace_back(l.name, compile_conjunction(prepare(l.body, {}), scope()));
    }
    for (const io::RewardDeclaration& r : model_.rewards) {
      ResolvedReward reward;
      reward.name = r.name;
      for (const io::RewardItem& item : r.items) {
        CompiledExpression guard = compile_as(item.guard, {}, "a reward guard", true);
        CompiledExpression value = compile_as(item.value, {}, "a reward", false);
        if (item.is_transition) {
          reward.transition_items.push_back({action_index(item.action), std::move(guard), std::move(value), item.position});
        } else {
          reward.state_items.push_back({std::move(guard), std::move(value), item.position});
        }
      }
      out_.rewards.push_back(std::move(reward));
    }
    if (model_.init) out_.init = compile_as(*model_.init, {}, "the init block", true);
  }

  const io::ModelDescription& model_;
  const std::map<std::string, std::string>& given_;
  ResolvedModel out_;
  std::map<std::string, const io::ConstantDeclaration*> constant_declarations_;
  std::map<std::string, const io::FormulaDeclaration*> formula_declarations_;
  std::map<std::string, const io::LabelDeclaration*> label_declarations_;
  std::set<std::string> expanding_labels_;
  ConstantValues constants_;
  std::set<std::string> evaluating_, expanding_;
  std::vector<ModuleView> modules_;
  std::map<std::string, std::uint32_t> variable_index_;
};

}  // namespace

Expression substitute_constants(const Expression& e, const ConstantValues& constants) {
  return rewrite_identifiers(e, [&](const Expression& id) -> std::optional<Expression> {
    auto it = constants.find(id.name);
    if (it == constants.end()) return std::nullopt;
    return Expression::literal(it->second.type, it->second.value, id.position);
  });
}

ConstantValue parse_constant_value(const std::string& name, ValueType type, const std::string& text) {
  auto bad = [&] {
    return std::invalid_argument("--const " + name + "=" + text + ": expected a value of type " + to_string(type));
  };
  if (type == ValueType::boolean) {
    if (text == "true") return {type, 1.0};
    if (text == "false") return {type, 0.0};
    throw bad();
  }
  if (type == ValueType::integer) {
    std::int32_t v = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (error != std::errc() || end != text.data() + text.size()) throw bad();
    return {type, static_cast<double>(v)};
  }
  // A number, or a fraction such as 1/3 (PRISM's exact-arithmetic tests give them).
  const std::optional<double> v = read_number(text);
  if (!v) throw bad();
  return {type, *v};
}

ResolvedModel resolve_model(const io::ModelDescription& model, const std::map<std::string, std::string>& given) {
  return Resolver(model, given).resolve();
}

}  // namespace mdpvi
