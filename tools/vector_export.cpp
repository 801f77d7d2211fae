#include "tools/vector_export.h"

#include "engine/model/property_value.h"
#include "io/explicit_writer.h"


namespace mdpvi::tools {


VectorExport::VectorExport(const std::string& path) : out_(path, "vector") {}

void VectorExport::write(const std::string& property, const StateValues& values, const SparseMdp& mdp) {
  std::ostream& out = out_.stream();
  out << "# " << property << "\n";
  if (mdp.valuations) {  // what the valuations below name, as PRISM's .sta header
    out << "# (";
    for (std::size_t v = 0; v < mdp.valuations->variables.size(); ++v) out << (v ? "," : "") << mdp.valuations->variables[v];
    out << ")\n";
  }
  for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
    io::write_state_key(mdp, s, out);
    out << "=";
    if (values.boolean) {
      out << (values.truth.test(s) ? "true" : "false");
    } else {
      out << format_number(values.numbers[s]);
      if (values.has_bounds()) {
        out << " [" << format_number(values.lower_numbers()[s]) << "," << format_number(values.upper_numbers()[s]) << "]";
      }
    }
    out << "\n";
  }
  out_.flush();
}

}  // namespace mdpvi::tools
