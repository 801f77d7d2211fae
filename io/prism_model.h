#pragma once
// A PRISM-language model as written: declarations in file order, expressions as
// trees, nothing evaluated or resolved yet (engine/prism_resolution does that).
#include "io/expression.h"
#include "engine/model/sparse_mdp.h"
#include "io/text_cursor.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mdpvi::io {

struct ConstantDeclaration {
  std::string name;
  ValueType type = ValueType::integer;  // an untyped "const N = 3;" is an int, as in PRISM
  std::optional<Expression> value;      // none: must come from --const
  SourcePosition position;
};

struct FormulaDeclaration {
  std::string name;
  Expression body;
  SourcePosition position;
};

struct VariableDeclaration {
  std::string name;
  bool is_bool = false;
  Expression low, high;         // integer ranges only
  std::optional<Expression> init;  // default: the lower bound, or false
  SourcePosition position;
};

struct AssignmentDeclaration {
  std::string variable;
  Expression value;
  SourcePosition position;
};

struct UpdateDeclaration {
  Expression probability;  // 1 when not written
  std::vector<AssignmentDeclaration> assignments;  // empty for "true"
};

struct CommandDeclaration {
  std::string action;  // empty for an unlabelled command
  Expression guard;
  std::vector<UpdateDeclaration> updates;
  SourcePosition position;
};

struct ModuleDeclaration {
  std::string name;
  std::vector<VariableDeclaration> variables;
  std::vector<CommandDeclaration> commands;
  // "module m2 = m1 [a=b, ...] endmodule": a copy of m1 with names substituted.
  std::string renamed_from;
  std::vector<std::pair<std::string, std::string>> renaming;
  SourcePosition position;
};

struct LabelDeclaration {
  std::string name;
  Expression body;
  SourcePosition position;
};

struct RewardItem {
  bool is_transition = false;
  std::string action;  // transition items: empty for "[]"
  Expression guard;
  Expression value;
  SourcePosition position;
};

struct RewardDeclaration {
  std::string name;  // empty when unnamed
  std::vector<RewardItem> items;
};

// PRISM's "system ... endsystem": how the modules are composed in parallel (the
// manual's "Process Algebra Operators"). Without one, every module in M1 || M2 || ...
struct SystemExpression {
  enum class Kind {
    module,        // a module by name
    alphabetised,  // P || Q: synchronising on the actions both have
    asynchronous,  // P ||| Q: on none
    restricted,    // P |[a,b]| Q: on those listed
    hiding,        // P / {a,b}: those become internal, synchronising no more
    renaming,      // P {a<-b}: a becomes b
  };
  Kind kind = Kind::module;
  std::string module;
  std::vector<SystemExpression> operands;
  std::vector<std::string> actions;                          // restricted's and hiding's
  std::vector<std::pair<std::string, std::string>> renaming;  // (a, b) for a<-b
  SourcePosition position;
};

struct ModelDescription {
  std::string file;
  std::optional<ModelType> type;  // none written: an MDP, as PRISM does
  std::vector<ConstantDeclaration> constants;
  std::vector<FormulaDeclaration> formulas;
  std::vector<VariableDeclaration> globals;
  std::vector<ModuleDeclaration> modules;
  std::vector<LabelDeclaration> labels;
  std::vector<RewardDeclaration> rewards;
  std::optional<Expression> init;  // init ... endinit
  std::optional<SystemExpression> system;
};

// Throws ParseError "file:line:column: expected X, found Y".
ModelDescription parse_model(const TextFile& file);

}  // namespace mdpvi::io
