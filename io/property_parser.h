#pragma once
// PRISM's property language for DTMCs and MDPs (io/property.h has the trees):
//   P~p [...], Pmin=? [...], Pmax=? [...], P=? [...] over  X phi, F psi, G phi,
//     phi U psi, phi W psi, phi R psi, each of F G U W R with a step bound (<=k, <k,
//     >=k, >k, =k, [a,b]) or none; E [...] and A [...] (CTL) over the same;
//   R{"name"|index}~r [...], Rmin=?, Rmax=?, R=? over  F psi, C, C<=k, I=k, S;
//   S~p [ phi ], S=? [ phi ];
//   filter(op, prop[, states]) and the older  [ ... {states}{min}{max} ]  form;
//   arithmetic and Boolean combinations of these with labels, variables, constants,
//   formulas and references to named properties (io/property_references.h);
//   "name": prop.
// A property outside the language (LTL, multi-objective) gets an error of its own,
// "not supported yet", and the others still run.
#include "io/property.h"
#include "io/prism_model.h"
#include "io/text_cursor.h"

#include <optional>
#include <string>
#include <vector>

namespace mdpvi::io {

// A "// RESULT: value" or "// RESULT (c=1,d=2): value" comment above a property: what
// PRISM's regression tests expect of it (mdpvi check --test).
struct ExpectedResult {
  std::string constants;  // "c=1,d=2": where the constants have these values; empty: always
  std::string value;      // as written: 0.5, 1/3, true, Infinity, NaN, Error..., [(x,y),...], ?
};

struct PropertyEntry {
  std::string text;                // as written, trimmed
  std::string name;                // "name": prop, else empty
  std::optional<Formula> formula;  // set when the property was understood
  std::string error;               // "file:line:column: ..." otherwise
  std::string source;              // the file name, for later errors
  bool unsupported = false;        // the error is "not supported yet" (the text is well formed)
  std::vector<ExpectedResult> expected;  // the RESULT comments between it and the property before
};

struct PropertyFile {
  std::vector<ConstantDeclaration> constants;  // "const int k;"
  std::vector<LabelDeclaration> labels;        // label "name" = expression;
  std::vector<PropertyEntry> properties;
};

// Where the files a property names are found (PRISM's HOA: { "file", ... }): $PROPERTY_DIR
// and $MODEL_DIR expanded, a relative path taken from the properties file's directory.
struct FileDirectories {
  std::string properties;  // empty: the working directory (a property given on the command line)
  std::string model;
  std::string resolve(const std::string& path) const;
};

// "//" comments, properties separated by ';' or by line ends outside brackets,
// "const" and "label" declarations. Throws ParseError only for a bad declaration.
// model_file: where $MODEL_DIR is.
PropertyFile parse_properties(const TextFile& file, const std::string& model_file = "");

// One property given on the command line; source names it in error messages.
PropertyEntry parse_property(const std::string& text, const std::string& source, const std::string& model_file = "");

}  // namespace mdpvi::io
