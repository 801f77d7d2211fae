#pragma once
// A PRISM model ready to explore: constants evaluated, formulas expanded, renamed
// modules copied out, every name bound to a variable, every expression compiled.
#include "engine/explore/compiled_expression.h"
#include "engine/model/sparse_mdp.h"
#include "io/prism_model.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mdpvi {

struct ConstantValue {
  ValueType type;
  double value;
};
using ConstantValues = std::map<std::string, ConstantValue>;

struct ResolvedVariable {
  std::string name;
  ValueType type;  // integer or boolean
  std::int32_t low, high, init;
  int module;  // -1 for a global
};

struct ResolvedAssignment {
  std::uint32_t variable;
  CompiledExpression value;
  SourcePosition position;
};

struct ResolvedUpdate {
  CompiledExpression probability;
  std::vector<ResolvedAssignment> assignments;
};

constexpr int kNoAction = -1;

struct ResolvedCommand {
  std::uint32_t module;
  int action;  // index into ResolvedModel::actions, or kNoAction
  CompiledConjunction guard;
  std::vector<ResolvedUpdate> updates;
  SourcePosition position;
};

struct ResolvedReward {
  std::string name;
  struct StateItem {
    CompiledExpression guard, value;
    SourcePosition position;  // the item's, for errors about its values
  };
  std::vector<StateItem> state_items;
  struct TransitionItem {
    int action;
    CompiledExpression guard, value;
    SourcePosition position;
  };
  std::vector<TransitionItem> transition_items;
};

struct ResolvedModel {
  std::string file;
  ModelType type = ModelType::mdp;
  std::vector<ResolvedVariable> variables;
  std::vector<std::string> module_names;
  std::vector<std::string> actions;
  std::vector<ResolvedCommand> commands;
  std::vector<std::pair<std::string, CompiledConjunction>> labels;
  std::vector<ResolvedReward> rewards;
  std::optional<CompiledExpression> init;  // from init...endinit; else the variables' inits

  // For properties: the model's constants and its formulas (expanded, constants
  // substituted), so that "min_backoff_after_success<=k" can be resolved later.
  ConstantValues constants;
  std::map<std::string, Expression> formulas;
};

// Pre: given holds --const values as text (name -> "2"); names the model does not
// declare are ignored here (they may be property constants). Throws LocatedError.
ResolvedModel resolve_model(const io::ModelDescription& model, const std::map<std::string, std::string>& given);

// Replaces identifiers that name constants by their values.
Expression substitute_constants(const Expression& e, const ConstantValues& constants);

// Turns a --const value text into a value of the declared type; throws std::invalid_argument.
ConstantValue parse_constant_value(const std::string& name, ValueType type, const std::string& text);

}  // namespace mdpvi
