#pragma once
// The command's exports of a run (--export-states, --export-transitions,
// --export-model, --export-vector, --export-scheduler, --export-pareto): written as the pipeline
// hands over each model and each property's per-state results, before the next
// listener (the printed report) hears of them.
#include "engine/pipeline/check_run.h"

#include "tools/output_path.h"
#include "tools/scheduler_export.h"
#include "tools/vector_export.h"

#include <optional>
#include <string>

namespace mdpvi::tools {

struct ExportPaths {
  std::optional<std::string> states, transitions, model, vector, scheduler, pareto;
  std::string umb_compression = "gzip";  // for a model exported as FILE.umb
};

class RunExports final : public pipeline::CheckListener {
 public:
  // Checks the model export's extension and compression, and opens the vector and
  // scheduler files (truncated): a bad name fails before the build. Throws
  // std::invalid_argument or std::runtime_error.
  RunExports(const ExportPaths& paths, pipeline::CheckListener& next);

  // What the pipeline must keep for these exports.
  void ask_for_what_is_exported(pipeline::CheckOptions& options) const;

  void model_loaded(const SparseMdp& mdp, const pipeline::CheckReport& report) override;
  void property_results(const std::string& property, const PropertyResult& result, const SparseMdp& mdp) override;
  void property_answered(const pipeline::CheckReport& report) override { next_.property_answered(report); }

 private:
  void write_pareto(const std::string& property, const PropertyValue& value);

  ExportPaths paths_;
  pipeline::CheckListener& next_;
  std::optional<VectorExport> vectors_;
  std::optional<SchedulerExport> schedulers_;
  std::optional<OutputStream> pareto_;  // each Pareto curve's vertices as CSV
};

}  // namespace mdpvi::tools
