#include "engine/check/ctl.h"

#include "engine/model/bit_words.h"
#include "graph/qualitative.h"
#include "graph/scc.h"

#include <oneapi/tbb/parallel_for.h>

#include <vector>

namespace mdpvi {

namespace {

// Every successor (forall) or some successor (exists) of row r in states.
bool row_meets(const SparseMdp& mdp, std::uint64_t r, bool forall, const StateSet& states) {
  for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
    if (states.test(mdp.columns[k]) != forall) return !forall;
  }
  return forall;
}

// A [ phi U psi ], the least fixed point of Z = psi | (phi & AX Z), in time linear in
// the model: each row counts its successors outside Z, each state its rows with such
// successors, and a state joins Z when its count reaches 0. The rows into a state, and
// each row's owner, come from the qualitative analysis's predecessor graph. A state
// without choices (an explicit model's deadlock) has no path on, so it satisfies
// A [...] only in psi.
StateSet forall_until(const SparseMdp& mdp, const StateSet& phi, const StateSet& psi) {
  const std::uint32_t n = mdp.num_states();
  const graph::ChoicePredecessorGraph predecessors = graph::build_choice_predecessor_graph(mdp);
  const PodVector<std::uint64_t>& offsets = predecessors.offsets;
  std::vector<std::uint32_t> row_open(mdp.num_choices()), state_open(n);
  for (std::uint32_t s = 0; s < n; ++s) {
    state_open[s] = static_cast<std::uint32_t>(mdp.row_group_starts[s + 1] - mdp.row_group_starts[s]);
  }
  for (std::uint64_t r = 0; r < mdp.num_choices(); ++r) {
    row_open[r] = static_cast<std::uint32_t>(mdp.row_starts[r + 1] - mdp.row_starts[r]);
  }
  StateSet in = psi;
  std::vector<std::uint32_t> frontier;
  for (auto s = psi.find_first(); s != StateSet::npos; s = psi.find_next(s)) frontier.push_back(static_cast<std::uint32_t>(s));
  while (!frontier.empty()) {
    const std::uint32_t t = frontier.back();
    frontier.pop_back();
    for (std::uint64_t i = offsets[t]; i < offsets[t + 1]; ++i) {  // one per entry into t
      const std::uint64_t r = predecessors.rows[i];
      if (--row_open[r] != 0) continue;
      const std::uint32_t s = predecessors.owner(r);
      if (--state_open[s] != 0 || in.test(s) || !phi.test(s)) continue;
      in.set(s);
      frontier.push_back(s);
    }
  }
  return in;
}

// E [ phi U psi ]: some path through phi reaches psi, which is Pmax(phi U psi) > 0.
StateSet exists_until(const graph::SearchBackend& search, const StateSet& phi, const StateSet& psi) {
  return ~graph::prob0a(search, phi, psi);
}

// Some row of s has s among its successors.
bool has_self_loop(const SparseMdp& mdp, std::uint32_t s) {
  const std::uint64_t first = mdp.row_starts[mdp.row_group_starts[s]], end = mdp.row_starts[mdp.row_group_starts[s + 1]];
  for (std::uint64_t k = first; k < end; ++k) {
    if (mdp.columns[k] == s) return true;
  }
  return false;
}

}  // namespace

StateSet ctl_next(const SparseMdp& mdp, bool forall, const StateSet& states) {
  BitWords out(mdp.num_states());  // in parallel, a state's bit claimed once
  oneapi::tbb::parallel_for(std::uint32_t{0}, mdp.num_states(), [&](std::uint32_t s) {
    bool holds = forall;
    for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1] && holds == forall; ++r) {
      holds = row_meets(mdp, r, forall, states);
    }
    const bool no_choices = mdp.row_group_starts[s] == mdp.row_group_starts[s + 1];
    if (holds && !(forall && no_choices)) out.claim(s);
  });
  return out.to_set(mdp.num_states());
}

// EG phi by elimination: each phi state counts its entries (over all its rows) into
// the set; one whose count falls to 0 leaves, and each entry into it is taken off its
// owner's count (the predecessor graph lists a row once per entry, as counted).
StateSet exists_eventually_always(const SparseMdp& mdp, const graph::SearchBackend& search, const StateSet& phi) {
  const graph::ChoicePredecessorGraph predecessors = graph::build_choice_predecessor_graph(mdp);
  std::vector<std::uint64_t> inside(mdp.num_states(), 0);
  StateSet stays = phi;
  std::vector<std::uint32_t> left;
  for (auto s = phi.find_first(); s != StateSet::npos; s = phi.find_next(s)) {
    const std::uint64_t first = mdp.row_starts[mdp.row_group_starts[s]], end = mdp.row_starts[mdp.row_group_starts[s + 1]];
    for (std::uint64_t k = first; k < end; ++k) inside[s] += phi.test(mdp.columns[k]) ? 1 : 0;
    if (inside[s] == 0) {
      stays.reset(s);
      left.push_back(static_cast<std::uint32_t>(s));
    }
  }
  while (!left.empty()) {
    const std::uint32_t t = left.back();
    left.pop_back();
    for (std::uint64_t e = predecessors.offsets[t]; e < predecessors.offsets[t + 1]; ++e) {
      const std::uint32_t s = predecessors.owner(predecessors.rows[e]);
      if (!stays.test(s) || --inside[s] != 0) continue;
      stays.reset(s);
      left.push_back(s);
    }
  }
  return exists_until(search, all_states(mdp.num_states()), stays);
}

StateSet exists_always_eventually(const SparseMdp& mdp, const graph::SearchBackend& search, const StateSet& phi) {
  const graph::SccDecomposition sccs = graph::maybe_state_sccs(search, mdp, all_states(mdp.num_states()));
  StateSet cycles(mdp.num_states());
  for (std::size_t c = 0; c < sccs.num_sccs(); ++c) {
    const std::uint64_t first = sccs.scc_starts[c], end = sccs.scc_starts[c + 1];
    bool through_phi = false;
    for (std::uint64_t i = first; i < end; ++i) through_phi = through_phi || phi.test(sccs.order[i]);
    if (!through_phi || (end - first == 1 && !has_self_loop(mdp, sccs.order[first]))) continue;
    for (std::uint64_t i = first; i < end; ++i) cycles.set(sccs.order[i]);
  }
  return exists_until(search, all_states(mdp.num_states()), cycles);
}

StateSet ctl_until(const SparseMdp& mdp, const graph::SearchBackend& search, bool forall, const StateSet& phi,
                   const StateSet& psi, std::uint64_t lower, std::optional<std::uint64_t> upper) {
  StateSet holds;
  if (!upper) {
    holds = forall ? forall_until(mdp, phi, psi) : exists_until(search, phi, psi);
  } else {
    holds = psi;  // within 0 steps
    for (std::uint64_t i = 0; i < *upper - lower; ++i) holds = psi | (phi & ctl_next(mdp, forall, holds));
  }
  for (std::uint64_t i = 0; i < lower; ++i) holds = phi & ctl_next(mdp, forall, holds);  // steps before the window
  return holds;
}

}  // namespace mdpvi
