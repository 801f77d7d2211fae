#include "tools/run_exports.h"

#include "io/explicit_writer.h"
#include "io/model_files.h"
#include "tools/output_path.h"

#include <spdlog/spdlog.h>

#include <stdexcept>

namespace mdpvi::tools {

RunExports::RunExports(const ExportPaths& paths, pipeline::CheckListener& next) : paths_(paths), next_(next) {
  if (paths_.model) io::check_model_file_path(*paths_.model);
  io::compression_named(paths_.umb_compression);
  if (paths_.vector) vectors_.emplace(*paths_.vector);
  if (paths_.scheduler) schedulers_.emplace(*paths_.scheduler);
  if (paths_.pareto) pareto_.emplace(*paths_.pareto, "Pareto curves");
}

void RunExports::ask_for_what_is_exported(pipeline::CheckOptions& options) const {
  options.whole_model = paths_.model.has_value();
  options.keep_actions = paths_.scheduler.has_value();
  // The states' file, and the vector's and the scheduler's headers, name the variables.
  options.keep_valuations = paths_.states || paths_.vector || paths_.scheduler;
  options.keep_state_values = paths_.vector.has_value();
  options.keep_schedulers = paths_.scheduler.has_value();
}

void RunExports::model_loaded(const SparseMdp& mdp, const pipeline::CheckReport& report) {
  if (paths_.states) {
    if (!mdp.valuations) throw std::runtime_error(*paths_.states + ": the model has no state valuations to export");
    write_to_path(*paths_.states, "states", [&](std::ostream& out) { io::write_states(*mdp.valuations, mdp.num_states(), out); });
  }
  if (paths_.transitions) {
    write_to_path(*paths_.transitions, "transitions", [&](std::ostream& out) { io::write_transitions(mdp, out); });
  }
  if (paths_.model) io::write_model_file(mdp, *paths_.model, io::compression_named(paths_.umb_compression));
  next_.model_loaded(mdp, report);
}

void RunExports::property_results(const std::string& property, const PropertyResult& result, const SparseMdp& mdp) {
  if (vectors_ && result.state_values) vectors_->write(property, *result.state_values, mdp);
  if (pareto_ && result.value.kind == PropertyValue::Kind::pareto) write_pareto(property, result.value);
  if (!schedulers_) return;
  if (result.scheduler) {
    schedulers_->write(property, *result.scheduler, mdp);
  } else {
    spdlog::warn("--export-scheduler: no scheduler for {}: {}", property, result.no_scheduler);
    schedulers_->write_none(property, result.no_scheduler);
  }
}

// "# property", then one "x,y" line per vertex of the curve.
void RunExports::write_pareto(const std::string& property, const PropertyValue& value) {
  std::ostream& out = pareto_->stream();
  out << "# " << property << "\n";
  for (const std::vector<double>& point : value.points) {
    for (std::size_t i = 0; i < point.size(); ++i) out << (i ? "," : "") << format_number(point[i]);
    out << "\n";
  }
  pareto_->flush();
}

}  // namespace mdpvi::tools
