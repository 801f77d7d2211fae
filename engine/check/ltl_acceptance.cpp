#include "engine/check/ltl_acceptance.h"

#include "engine/model/bit_words.h"
#include "graph/almost_sure_buchi.h"
#include "graph/end_components.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>

#include <bit>
#include <cstdint>
#include <vector>

namespace mdpvi {

namespace {

// The marks some guess of `rest` needs, on all cores.
std::uint32_t needed_marks(const LtlProduct& product, const BitWords& rest) {
  return oneapi::tbb::parallel_reduce(
      oneapi::tbb::blocked_range<std::size_t>(0, rest.size(), 4096), std::uint32_t{0},
      [&](const auto& words, std::uint32_t needed) {
        for (std::size_t w = words.begin(); w < words.end(); ++w) {
          for (std::uint64_t bits = rest.data()[w]; bits != 0; bits &= bits - 1) {
            needed |= product.all_marks[w * 64 + static_cast<unsigned>(std::countr_zero(bits))];
          }
        }
        return needed;
      },
      [](std::uint32_t a, std::uint32_t b) { return a | b; });
}

// Per mark some guess of `rest` needs: the pairs of rest that see it, or whose guess
// does not need it. On all cores, a 64-pair word of every set per step (no two tasks
// write one word).
std::vector<StateSet> mark_sets(const LtlProduct& product, const StateSet& rest) {
  const BitWords rest_words = BitWords::of(rest);
  const std::uint32_t needed = needed_marks(product, rest_words);
  std::vector<unsigned> marks;
  for (unsigned k = 0; k < 32; ++k) {
    if ((needed >> k) & 1) marks.push_back(k);
  }
  std::vector<BitWords> sets(marks.size(), BitWords(rest.size()));
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, rest_words.size(), 4096), [&](const auto& words) {
    for (std::size_t w = words.begin(); w < words.end(); ++w) {
      std::uint64_t met_words[32] = {};
      for (std::uint64_t bits = rest_words.data()[w]; bits != 0; bits &= bits - 1) {
        const unsigned bit = static_cast<unsigned>(std::countr_zero(bits));
        const std::uint64_t p = w * 64 + bit;
        const std::uint32_t met = product.marks[p] | ~product.all_marks[p];
        for (std::size_t i = 0; i < marks.size(); ++i) met_words[i] |= std::uint64_t{(met >> marks[i]) & 1u} << bit;
      }
      for (std::size_t i = 0; i < marks.size(); ++i) sets[i].word(w) = met_words[i];
    }
  });
  std::vector<StateSet> out;
  out.reserve(sets.size());
  for (const BitWords& set : sets) out.push_back(set.to_set(rest.size()));
  return out;
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
