#pragma once
// What a property names: its identifiers (constants, variables, formulas) and labels,
// in every expression it holds (state formulas, bounds, thresholds, reward indices).
// The check command uses it to catch misspelt names before a build, and to tell
// which swept constants a property depends on.
#include "io/property.h"
#include "io/property_parser.h"

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace mdpvi::pipeline {

// Calls visit for each top-level expression of f and of its operands, recursively.
void for_each_expression(const Formula& f, const std::function<void(const Expression&)>& visit);

struct NamesUsed {
  std::set<std::string> identifiers, labels;
};

NamesUsed names_used(const Formula& f);

// The labels that the properties and the file's label declarations name: those a
// build must make (the model's others are left out).
std::set<std::string> labels_named(const std::vector<const Formula*>& properties, const io::PropertyFile* file);

// The identifiers that the properties and the file's label and constant declarations
// name.
std::set<std::string> identifiers_named(const std::vector<const Formula*>& properties, const io::PropertyFile* file);

// Adds the identifiers that e names to names.
void add_identifiers(const Expression& e, std::set<std::string>& names);

// The identifiers a property depends on: those it names, and through the properties
// file's labels and constants it names, theirs.
std::set<std::string> identifiers_reached(const Formula& f, const io::PropertyFile& file);

}  // namespace mdpvi::pipeline
