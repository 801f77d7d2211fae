#pragma once
// What a properties file adds to the scope its properties are checked in: its
// constants and its labels (mdpvi check, and the property fuzzer, which checks
// properties on a model built once).
#include "engine/check/state_formula.h"
#include "io/property_parser.h"

#include <map>
#include <set>
#include <string>

namespace mdpvi::pipeline {

// Values for the file's "const" declarations: their own value, else the one given
// (--const NAME=VALUE). Throws LocatedError at a declaration whose given value does
// not fit its type.
void add_property_constants(const io::PropertyFile& file, const std::string& source,
                            const std::map<std::string, std::string>& given, PropertyScope& scope);

// The file's labels, as sets of the model's states, for every property to use.
void add_property_labels(const io::PropertyFile& file, const std::string& source, const SparseMdp& mdp,
                         PropertyScope& scope);

// The names of the built model's labels and of the file's (none: no file): those a
// reference to a named property never shadows (io/property_references.h).
std::set<std::string> label_names(const SparseMdp& mdp, const io::PropertyFile* file);

}  // namespace mdpvi::pipeline
