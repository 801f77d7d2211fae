#include "io/property_references.h"

#include "io/parse_error.h"

#include <map>

namespace mdpvi::io {

namespace {

class ReferenceResolver {
 public:
  ReferenceResolver(const std::vector<PropertyEntry>& named, const std::set<std::string>& labels) {
    for (const PropertyEntry& entry : named) {
      if (!entry.name.empty() && entry.formula && !labels.count(entry.name)) by_name_[entry.name] = &entry;
    }
  }

  bool any() const { return !by_name_.empty(); }

  // Pre: entry.formula is set. Throws ParseError at a reference that cycles.
  void resolve(PropertyEntry& entry) {
    source_ = entry.source;
    expanded_ = 0;
    std::vector<std::string> open;
    if (!entry.name.empty()) open.push_back(entry.name);
    resolve(*entry.formula, open);
  }

 private:
  void resolve(Formula& f, std::vector<std::string>& open) {
    for (Formula& operand : f.operands) resolve(operand, open);
    if (f.kind == Formula::Kind::state) replace_references(f.expression, f, open);
  }

  void replace_references(Expression& e, Formula& owner, std::vector<std::string>& open) {
    for (Expression& operand : e.operands) replace_references(operand, owner, open);
    if (e.kind != Expression::Kind::label) return;
    auto it = by_name_.find(e.name);
    if (it == by_name_.end()) return;
    for (const std::string& name : open) {
      if (name == e.name) {
        throw ParseError(source_, e.position.line, e.position.column,
                         "the reference to \"" + e.name + "\" leads back to the property it is in");
      }
    }
    // Each reference is a copy: "b": "a"+"a", "c": "b"+"b", ... doubles per line.
    if (++expanded_ > kMostExpansions) {
      throw ParseError(source_, e.position.line, e.position.column,
                       "references expand to more than " + std::to_string(kMostExpansions) + " properties");
    }
    Formula referenced = *it->second->formula;
    open.push_back(e.name);
    resolve(referenced, open);
    open.pop_back();
    const SourcePosition at = e.position;
    e = Expression::nested(owner.operands.size(), at);
    owner.operands.push_back(std::move(referenced));
  }

  static constexpr int kMostExpansions = 10000;
  std::map<std::string, const PropertyEntry*> by_name_;
  std::string source_;
  int expanded_ = 0;  // in the entry being resolved
};

}  // namespace

void resolve_property_references(std::vector<PropertyEntry>& entries, const std::vector<PropertyEntry>& named,
                                 const std::set<std::string>& labels) {
  ReferenceResolver resolver(named, labels);
  if (!resolver.any()) return;
  for (PropertyEntry& entry : entries) {
    if (!entry.formula) continue;
    try {
      resolver.resolve(entry);
    } catch (const ParseError& error) {
      entry.error = error.what();
      entry.formula.reset();
    }
  }
}

}  // namespace mdpvi::io
