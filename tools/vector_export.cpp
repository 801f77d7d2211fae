#include "tools/vector_export.h"

#include "engine/model/property_value.h"
#include "io/explicit_writer.h"

#include <iostream>
#include <stdexcept>

namespace mdpvi::tools {


VectorExport::VectorExport(const std::string& path) : path_(path), out_(&std::cout) {
  if (path == "-") return;
  file_.open(path);
  if (!file_) throw std::runtime_error(path + ": cannot write the vector");
  out_ = &file_;
}

void VectorExport::write(const std::string& property, const StateValues& values, const SparseMdp& mdp) {
  std::ostream& out = *out_;
  out << "# " << property << "\n";
  for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
    out << s;
    if (mdp.valuations) {
      out << ":";
      io::write_valuation(*mdp.valuations, s, out);
    }
    out << "=";
    if (values.boolean) {
      out << (values.truth.test(s) ? "true" : "false");
    } else {
      out << format_number(values.numbers[s]);
      if (values.has_bounds()) out << " [" << format_number(values.lower[s]) << "," << format_number(values.upper[s]) << "]";
    }
    out << "\n";
  }
  out.flush();
  if (!out) throw std::runtime_error((path_ == "-" ? std::string("standard output") : path_) + ": cannot write the vector");
}

}  // namespace mdpvi::tools
