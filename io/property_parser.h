#pragma once
// PRISM's property language for DTMCs and MDPs (engine/property.h has the trees):
//   P~p [...], Pmin=? [...], Pmax=? [...], P=? [...] over  F psi, phi U psi, F<=k psi,
//     phi U<=k psi, X phi;
//   R{"name"|index}~r [...], Rmin=?, Rmax=?, R=? over  F psi, C<=k, I=k;
//   filter(op, prop[, states]) and the older  [ ... {states}{min}{max} ]  form;
//   Boolean combinations of these with labels, variables, constants and formulas;
//   "name": prop.
// A property outside the language (S, LTL, CTL, multi-objective, ...) gets an error
// of its own, "not supported yet", and the others still run.
#include "io/property.h"
#include "io/prism_model.h"
#include "io/text_cursor.h"

#include <optional>
#include <string>
#include <vector>

namespace mdpvi::io {

struct PropertyEntry {
  std::string text;                // as written, trimmed
  std::string name;                // "name": prop, else empty
  std::optional<Formula> formula;  // set when the property was understood
  std::string error;               // "file:line:column: ..." otherwise
  std::string source;              // the file name, for later errors
};

struct PropertyFile {
  std::vector<ConstantDeclaration> constants;  // "const int k;"
  std::vector<LabelDeclaration> labels;        // label "name" = expression;
  std::vector<PropertyEntry> properties;
};

// "//" comments, properties separated by ';' or by line ends outside brackets,
// "const" and "label" declarations. Throws ParseError only for a bad declaration.
PropertyFile parse_properties(const TextFile& file);

// One property given on the command line; source names it in error messages.
PropertyEntry parse_property(const std::string& text, const std::string& source);

}  // namespace mdpvi::io
