#include "engine/explore/initial_states.h"

#include "engine/model/located_error.h"

namespace mdpvi {

std::vector<std::uint32_t> insert_initial_states(const ResolvedModel& model, const StateLayout& layout, StateTable& table) {
  std::vector<std::uint32_t> initial;
  const std::vector<ResolvedVariable>& variables = model.variables;
  std::vector<std::uint64_t> state(layout.words(), 0);
  if (!model.init) {
    for (std::size_t v = 0; v < variables.size(); ++v) layout.set(state.data(), v, variables[v].init);
    initial.push_back(table.insert(state.data()).first);
    return initial;
  }
  // init ... endinit: every valuation of the variables that satisfies it.
  const std::size_t n = variables.size();
  std::vector<std::int32_t> x(n);
  std::vector<double> values(n);
  for (std::size_t v = 0; v < n; ++v) x[v] = variables[v].low;
  double combinations = 1;
  for (const ResolvedVariable& v : variables) combinations *= double(v.high) - v.low + 1;
  if (combinations > 1e8) {
    throw LocatedError(model.file, 0, 0, "init ... endinit over more than 10^8 valuations is not supported");
  }
  while (true) {
    for (std::size_t v = 0; v < n; ++v) values[v] = x[v];
    if (model.init->holds(values.data())) {
      for (std::size_t v = 0; v < n; ++v) layout.set(state.data(), v, x[v]);
      initial.push_back(table.insert(state.data()).first);
    }
    std::size_t v = 0;
    while (v < n && x[v] == variables[v].high) x[v] = variables[v].low, ++v;
    if (v == n) break;
    ++x[v];
  }
  if (initial.empty()) throw LocatedError(model.file, 0, 0, "no state satisfies the init ... endinit block");
  return initial;
}

}  // namespace mdpvi
