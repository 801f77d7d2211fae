#include "engine/explore/state_labels.h"

#include "engine/explore/masked_memo.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>

namespace mdpvi {

void add_labels(SparseMdp& mdp, const ResolvedModel& model, const ModelIndex& index, const StateTable& table,
                const std::vector<std::size_t>& wanted, const std::vector<std::uint32_t>& deadlocks) {
  const std::uint64_t n = table.size();
  Label init{"init", StateSet(n)};
  for (std::uint32_t s : mdp.initial_states) init.states.set(s);
  Label deadlock{"deadlock", StateSet(n)};
  for (std::uint32_t s : deadlocks) deadlock.states.set(s);
  mdp.labels.push_back(std::move(init));
  mdp.labels.push_back(std::move(deadlock));
  const std::size_t first = mdp.labels.size();
  for (std::size_t l : wanted) mdp.labels.push_back({model.labels[l].first, StateSet(n)});
  if (wanted.empty()) return;
  // A label reads a few variables: its value is remembered per valuation of them.
  std::vector<std::vector<std::uint64_t>> masks;
  for (std::size_t l : wanted) {
    std::vector<bool> read(model.variables.size(), false);
    for (const CompiledExpression& conjunct : model.labels[l].second.conjuncts()) conjunct.mark_variables(read);
    masks.push_back(index.layout.mask(read));
  }
  oneapi::tbb::enumerable_thread_specific<std::vector<MaskedMemo<bool>>> memos([&] {
    return std::vector<MaskedMemo<bool>>(masks.begin(), masks.end());
  });
  using Words = oneapi::tbb::blocked_range<std::uint64_t>;
  oneapi::tbb::parallel_for(Words(0, (n + 63) / 64), [&](const Words& words) {
    std::vector<MaskedMemo<bool>>& memo = memos.local();
    std::vector<double> values(model.variables.size());
    for (std::uint64_t s = words.begin() * 64; s < std::min(n, words.end() * 64); ++s) {
      bool decoded = false;
      for (std::size_t w = 0; w < wanted.size(); ++w) {
        const bool holds = memo[w].find(table.state(s), [&] {
          if (!decoded) index.layout.decode(table.state(s), values.data());
          decoded = true;
          return model.labels[wanted[w]].second.holds(values.data());
        });
        if (holds) mdp.labels[first + w].states.set(s);
      }
    }
  });
}

}  // namespace mdpvi
