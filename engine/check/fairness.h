#pragma once
// Pmin of an unbounded until over fair schedulers only (PRISM's -fair): a scheduler is
// fair when every choice of a state visited infinitely often is taken infinitely often
// (Baier and Kwiatkowska, "Model checking for a probabilistic branching time logic with
// fairness", Distributed Computing 11(3), 1998). A fair scheduler stays forever only in
// sets closed under every choice: bottom SCCs of the model's whole graph. So
//   Pmin_fair(phi U psi) = 1 - Pmax((phi & !psi) U ((!phi & !psi) | B)),
// B the bottom SCCs inside phi & !psi. Pmax needs no fairness: a scheduler that reaches
// a set with the greatest probability is made fair after it without losing any.
#include "engine/check/reachability.h"

#include <cstdint>
#include <vector>

namespace mdpvi {

// Per state, the label of its SCC where that is a bottom SCC of the model's whole graph
// (no entry of any choice leaves it) lying wholly inside `inside`: the sets a fair
// scheduler may stay in forever; kNotBottom elsewhere. Pre: search was made for mdp.
constexpr std::uint32_t kNotBottom = 0xFFFFFFFFu;
std::vector<std::uint32_t> bottom_scc_labels(const SparseMdp& mdp, const graph::SearchBackend& search,
                                             const StateSet& inside);

// Pre: phi and psi have num_states bits; search was made for mdp.
NumericResult compute_fair_minimal_until(const SparseMdp& mdp, const graph::SearchBackend& search, const StateSet& phi,
                                         const StateSet& psi, const SolverOptions& options, const DeviceOptions& device);

}  // namespace mdpvi
