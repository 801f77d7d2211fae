#include "io/explicit_writer.h"

#include <charconv>
#include <string>

namespace mdpvi::io {

void write_transitions(const SparseMdp& mdp, std::ostream& out) {
  const bool dtmc = mdp.type == ModelType::dtmc;
  out << mdp.num_states() << ' ';
  if (!dtmc) out << mdp.num_choices() << ' ';
  out << mdp.num_transitions() << '\n';
  std::string line;
  char number[32];
  for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
    for (std::uint64_t row = mdp.row_group_starts[s]; row < mdp.row_group_starts[s + 1]; ++row) {
      const std::string source = std::to_string(s) + ' ' + (dtmc ? "" : std::to_string(row - mdp.row_group_starts[s]) + ' ');
      for (std::uint64_t k = mdp.row_starts[row]; k < mdp.row_starts[row + 1]; ++k) {
        const auto written = std::to_chars(number, number + sizeof number, mdp.values[k]);
        line.assign(source).append(std::to_string(mdp.columns[k])).append(1, ' ').append(number, written.ptr);
        out << line << '\n';
      }
    }
  }
}

void write_valuation(const StateValuations& valuations, std::uint32_t state, std::ostream& out) {
  out << "(";
  for (std::size_t i = 0; i < valuations.variables.size(); ++i) {
    const std::int32_t x = valuations.value(state, i);
    out << (i ? "," : "");
    if (valuations.types[i] == ValueType::boolean) {
      out << (x ? "true" : "false");
    } else {
      out << x;
    }
  }
  out << ")";
}

void write_state_key(const SparseMdp& mdp, std::uint32_t state, std::ostream& out) {
  out << state;
  if (!mdp.valuations) return;
  out << ":";
  write_valuation(*mdp.valuations, state, out);
}

}  // namespace mdpvi::io
