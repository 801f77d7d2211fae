#include "engine/check/ltl_acceptance.h"

#include "graph/almost_sure_buchi.h"
#include "graph/end_components.h"

#include <cstdint>
#include <vector>

namespace mdpvi {

namespace {

// Per mark some guess of `rest` needs: the pairs of rest that see it, or whose guess
// does not need it.
std::vector<StateSet> mark_sets(const LtlProduct& product, const StateSet& rest) {
  std::uint32_t needed = 0;
  for (auto p = rest.find_first(); p != StateSet::npos; p = rest.find_next(p)) needed |= product.all_marks[p];
  std::vector<std::uint32_t> marks;
  for (std::uint32_t k = 0; k < 32; ++k) {
    if ((needed >> k) & 1) marks.push_back(k);
  }
  std::vector<StateSet> sets(marks.size(), StateSet(rest.size()));
  for (auto p = rest.find_first(); p != StateSet::npos; p = rest.find_next(p)) {
    const std::uint32_t met = product.marks[p] | ~product.all_marks[p];
    for (std::size_t i = 0; i < marks.size(); ++i) {
      if ((met >> marks[i]) & 1) sets[i].set(p);
    }
  }
  return sets;
}

}  // namespace

StateSet almost_surely_accepted(const LtlProduct& product, const graph::SearchBackend& search) {
  const StateSet rest = product.accepting_part - product.universal;
  if (rest.none()) return product.universal;
  // With no mark needed (no sets), staying in the accepting part is enough.
  return product.universal | graph::almost_sure_buchi(search, mark_sets(product, rest), rest);
}

StateSet accepting_end_components(const LtlProduct& product, const graph::SearchBackend& search) {
  const SparseMdp& p = product.mdp;
  StateSet target = product.universal;
  const StateSet rest = product.accepting_part - product.universal;
  if (rest.none()) return target;
  const graph::EndComponents mecs = graph::maximal_end_components(search, rest, all_states(p.num_choices()));
  const std::vector<char> accepting = components_seeing_every_mark(
      mecs, p.num_states(), [&](std::uint32_t i) { return product.accepting_part.test(i); },
      [&](std::uint32_t i) { return product.marks[i]; }, [&](std::uint32_t i) { return product.all_marks[i]; });
  return target | graph::states_in_chosen_components(mecs, accepting);
}

}  // namespace mdpvi
