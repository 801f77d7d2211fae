#include "tools/scheduler_export.h"

#include "io/explicit_writer.h"


namespace mdpvi::tools {

SchedulerExport::SchedulerExport(const std::string& path) : out_(path, "scheduler") {}

void SchedulerExport::write(const std::string& property, const Scheduler& scheduler, const SparseMdp& mdp) {
  std::ostream& out = out_.stream();
  out << "# " << property << "\n";
  for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
    io::write_state_key(mdp, s, out);
    out << "=" << scheduler.choice[s];
    if (mdp.actions) {
      const std::string& action = mdp.actions->names[mdp.actions->of_choice[scheduler.row(mdp, s)]];
      if (!action.empty()) out << " " << action;
    }
    out << "\n";
  }
  out_.flush();
}

void SchedulerExport::write_none(const std::string& property, const std::string& why) {
  out_.stream() << "# " << property << ": no scheduler (" << why << ")\n";
  out_.flush();
}

}  // namespace mdpvi::tools
