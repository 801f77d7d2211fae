#include "engine/pipeline/property_scope.h"

#include "engine/explore/compiled_expression.h"
#include "engine/explore/resolved_model.h"
#include "engine/model/located_error.h"

#include <stdexcept>

namespace mdpvi::pipeline {

void add_property_constants(const io::PropertyFile& file, const std::string& source,
                            const std::map<std::string, std::string>& given, PropertyScope& scope) {
  for (const io::ConstantDeclaration& c : file.constants) {
    if (c.value) {
      ValueType type;
      double value = evaluate_constant(substitute_constants(*c.value, scope.constants),
                                       NameScope::constants_only(source), &type);
      scope.constants[c.name] = {c.type == ValueType::real ? ValueType::real : type, value};
    } else if (auto value = given.find(c.name); value != given.end()) {
      try {
        scope.constants[c.name] = parse_constant_value(c.name, c.type, value->second);
      } catch (const std::invalid_argument& error) {
        throw LocatedError(source, c.position.line, c.position.column, error.what());
      }
    }
  }
}

void add_property_labels(const io::PropertyFile& file, const std::string& source, const SparseMdp& mdp,
                         PropertyScope& scope) {
  scope.source = source;
  for (const io::LabelDeclaration& label : file.labels) {
    scope.labels[label.name] = evaluate_state_formula(label.body, mdp, scope);
  }
}

std::set<std::string> label_names(const SparseMdp& mdp, const io::PropertyFile* file) {
  std::set<std::string> names;
  for (const Label& label : mdp.labels) names.insert(label.name);
  if (file) {
    for (const io::LabelDeclaration& label : file->labels) names.insert(label.name);
  }
  return names;
}

}  // namespace mdpvi::pipeline
