#pragma once
// PRISM's property syntax, the subset the checker answers so far:
//   Pmin=? [ F phi ]   Pmax=? [ F phi ]   Pmin=? [ phi U psi ]   Pmax=? [ phi U psi ]
// with phi, psi state formulas: Boolean expressions over "labels", variables,
// constants and the model's formulas. A property outside the subset gets an error of
// its own and the others still run.
#include "engine/property.h"
#include "io/prism_model.h"
#include "io/text_cursor.h"

#include <optional>
#include <string>
#include <vector>

namespace mdpvi::io {

struct PropertyEntry {
  std::string text;                        // as written, trimmed
  std::optional<ReachabilityQuery> query;  // set when the property was understood
  std::string error;                       // "file:line:column: ..." otherwise
  std::string source;                      // the file name, for later errors
};

struct PropertyFile {
  std::vector<ConstantDeclaration> constants;  // "const int k;"
  std::vector<PropertyEntry> properties;
};

// "//" comments, properties separated by ';' or by line ends outside brackets,
// "const" declarations. Throws ParseError only for a bad constant declaration.
PropertyFile parse_properties(const TextFile& file);

// One property given on the command line; source names it in error messages.
PropertyEntry parse_property(const std::string& text, const std::string& source);

}  // namespace mdpvi::io
