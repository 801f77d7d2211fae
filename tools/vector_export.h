#pragma once
// --export-vector FILE: every state's value of each property (not filters), after a
// "# PROPERTY" line and, where the model has valuations, a "# (x,y,...)" line naming
// their variables, one state a line: "index:(valuation)=value", the valuation where
// the model has one, and " [lower,upper]" where the value has bounds. "-" is standard
// output.
#include "engine/check/state_formula.h"
#include "engine/model/sparse_mdp.h"

#include "tools/output_path.h"

#include <string>

namespace mdpvi::tools {

class VectorExport {
 public:
  // Opens FILE (truncated); throws std::runtime_error when it cannot.
  explicit VectorExport(const std::string& path);
  // Throws std::runtime_error when the write fails.
  void write(const std::string& property, const StateValues& values, const SparseMdp& mdp);

 private:
  OutputStream out_;
};

}  // namespace mdpvi::tools
