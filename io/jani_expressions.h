#pragma once
// JANI's expressions as the PRISM language's trees, and JANI's properties as PRISM
// properties text (io/jani_reader.h says what is read; this is the part both the
// model and its properties need).
#include "engine/model/sparse_mdp.h"
#include "io/expression.h"

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>

namespace mdpvi::io::jani {

using Json = nlohmann::json;

// What an expression may name, and where errors are said.
struct Scope {
  std::string file;
  ModelType type = ModelType::mdp;
  // Functions by name: the model's, with an automaton's own in front where one is read.
  std::map<std::string, const Json*> functions;
  std::set<std::string> labels;   // transient Boolean variables
  std::set<std::string> rewards;  // transient numeric variables
};

// Throws ParseError "file: at: expected WHAT, found <the JSON, shortened>".
[[noreturn]] void fail(const Scope& scope, const std::string& at, const std::string& what, const Json& found);
// Throws UnsupportedError "file: at: not supported: WHAT".
[[noreturn]] void unsupported(const Scope& scope, const std::string& at, const std::string& what);

// The member of object j named key, or fail; at is j's place ("automata[0].edges[3]").
const Json& member(const Scope& scope, const Json& j, const std::string& at, const char* key);
// The string member, or fail.
std::string string_member(const Scope& scope, const Json& j, const std::string& at, const char* key);

// A JANI expression; a transient Boolean variable is a label (Expression::Kind::label).
Expression expression(const Scope& scope, const Json& j, const std::string& at);

// A property's expression ("expression" of an entry of "properties") as PRISM text.
std::string property_text(const Scope& scope, const Json& j, const std::string& at);

}  // namespace mdpvi::io::jani
