#include "engine/pipeline/property_names.h"

namespace mdpvi::pipeline {

namespace {

void add_names(const Expression& e, NamesUsed& names) {
  if (e.kind == Expression::Kind::identifier) names.identifiers.insert(e.name);
  if (e.kind == Expression::Kind::label) names.labels.insert(e.name);
  for (const Expression& operand : e.operands) add_names(operand, names);
}

}  // namespace

void for_each_expression(const Formula& f, const std::function<void(const Expression&)>& visit) {
  if (f.kind == Formula::Kind::state) visit(f.expression);
  if (f.kind == Formula::Kind::temporal) {
    const TemporalOperator& op = f.temporal;
    if (op.comparison) visit(op.threshold);
    if (op.step_bound) visit(*op.step_bound);
    if (op.lower_step_bound) visit(*op.lower_step_bound);
    if (op.reward_index) visit(*op.reward_index);
    if (op.discount) visit(*op.discount);
  }
  for (const Formula& operand : f.operands) for_each_expression(operand, visit);
}

NamesUsed names_used(const Formula& f) {
  NamesUsed names;
  for_each_expression(f, [&](const Expression& e) { add_names(e, names); });
  return names;
}

namespace {

// What the properties and the file's label and constant declarations name.
NamesUsed named_by(const std::vector<const Formula*>& properties, const io::PropertyFile* file) {
  NamesUsed names;
  for (const Formula* f : properties) for_each_expression(*f, [&](const Expression& e) { add_names(e, names); });
  if (file) {
    for (const io::LabelDeclaration& label : file->labels) add_names(label.body, names);
    for (const io::ConstantDeclaration& c : file->constants) {
      if (c.value) add_names(*c.value, names);
    }
  }
  return names;
}

}  // namespace

std::set<std::string> labels_named(const std::vector<const Formula*>& properties, const io::PropertyFile* file) {
  return std::move(named_by(properties, file).labels);
}

std::set<std::string> identifiers_named(const std::vector<const Formula*>& properties, const io::PropertyFile* file) {
  return std::move(named_by(properties, file).identifiers);
}

void add_identifiers(const Expression& e, std::set<std::string>& names) {
  if (e.kind == Expression::Kind::identifier) names.insert(e.name);
  for (const Expression& operand : e.operands) add_identifiers(operand, names);
}

std::set<std::string> identifiers_reached(const Formula& f, const io::PropertyFile& file) {
  NamesUsed reached = names_used(f);
  // Labels and constants of the file may name each other: to a fixed point.
  for (std::size_t before = 0; before != reached.identifiers.size() + reached.labels.size();) {
    before = reached.identifiers.size() + reached.labels.size();
    for (const io::LabelDeclaration& label : file.labels) {
      if (reached.labels.count(label.name)) add_names(label.body, reached);
    }
    for (const io::ConstantDeclaration& c : file.constants) {
      if (c.value && reached.identifiers.count(c.name)) add_names(*c.value, reached);
    }
  }
  return std::move(reached.identifiers);
}

}  // namespace mdpvi::pipeline
