#pragma once
// --export-scheduler FILE: an optimal scheduler of each Pmin/Pmax/Rmin/Rmax=? property
// of an unbounded F or U, after a "# PROPERTY" line, one state a line:
// "index:(valuation)=choice action", the valuation where the model has one, the
// choice's index within the state's choices, and its action where it has one. A
// property with no scheduler gets "# PROPERTY: no scheduler (why)". "-" is standard
// output.
#include "engine/check/scheduler.h"

#include "tools/output_path.h"

#include <string>

namespace mdpvi::tools {

class SchedulerExport {
 public:
  // Opens FILE (truncated); throws std::runtime_error when it cannot.
  explicit SchedulerExport(const std::string& path);
  // Throws std::runtime_error when the write fails.
  void write(const std::string& property, const Scheduler& scheduler, const SparseMdp& mdp);
  void write_none(const std::string& property, const std::string& why);

 private:
  OutputStream out_;
};

}  // namespace mdpvi::tools
