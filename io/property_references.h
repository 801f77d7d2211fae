#pragma once
// PRISM's references to named properties: in a property, "name" stands for the
// property named "name" ("name": prop) when no label (the model's or the properties
// file's) has that name: "ratio": "best" / "worst". The reference becomes a nested
// copy of the named property, so the checker needs no names; P=? and R=? references
// give numbers.
#include "io/property_parser.h"

#include <set>
#include <string>
#include <vector>

namespace mdpvi::io {

// Replaces the references in every entry's formula by the formulas of `named` (the
// entries with a name and a formula). A reference that leads back to the property it
// is in is an error at the reference: the entry gets it as its error, and no formula.
// labels: every label's name, which a reference never shadows.
void resolve_property_references(std::vector<PropertyEntry>& entries, const std::vector<PropertyEntry>& named,
                                 const std::set<std::string>& labels);

}  // namespace mdpvi::io
