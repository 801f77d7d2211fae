#pragma once
// The states reached from a set, forwards over every choice's entries (the searches of
// graph/search_backend.h go backwards, over the predecessor graph): on all cores level
// by level, and a plain sequential reference that the tests hold it to. Entries of
// probability 0 count as edges, so the set is never smaller than what any search over
// the model's structure would call reachable. Either gives up once more than `most`
// states are reached, for callers that only gain from a small set.
#include "engine/model/sparse_mdp.h"

#include <cstdint>
#include <optional>

namespace mdpvi::graph {

std::optional<StateSet> forward_reachable(const SparseMdp& mdp, const StateSet& from, std::uint64_t most);
std::optional<StateSet> forward_reachable_reference(const SparseMdp& mdp, const StateSet& from, std::uint64_t most);

}  // namespace mdpvi::graph
