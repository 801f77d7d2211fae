#pragma once
// PRISM's property syntax, the subset the checker answers so far:
//   Pmin=? [ F phi ]   Pmax=? [ F phi ]   Pmin=? [ phi U psi ]   Pmax=? [ phi U psi ]
// with phi, psi built from quoted labels, true, false, !, &, |, =>, <=> and parentheses.
// A property outside the subset gets an error of its own and the others still run.
#include "engine/property.h"
#include "io/text_cursor.h"

#include <optional>
#include <string>
#include <vector>

namespace mdpvi::io {

struct PropertyEntry {
  std::string text;                        // as written, trimmed
  std::optional<ReachabilityQuery> query;  // set when the property was understood
  std::string error;                       // "file:line:column: ..." otherwise
};

// A properties file: "//" comments, properties separated by ';' or by line ends
// outside brackets, "const" declarations (recorded, not yet usable in properties).
std::vector<PropertyEntry> parse_properties(const TextFile& file);

// One property given on the command line; source names it in error messages.
PropertyEntry parse_property(const std::string& text, const std::string& source);

}  // namespace mdpvi::io
