#pragma once
// One step of the end-component refinement (graph/end_components.h) taken to its end
// within a round: once states are removed, the rows of their SCC's other states that
// lead to them leave too, which may remove those states, and so on, in waves (the
// removed states' backward attractor inside their SCCs). Without it, each such layer
// cost one more SCC decomposition of everything left: coin8_4's Pmax took 39 rounds,
// each peeling one layer off one SCC that in the end held no end component at all.
#include "engine/model/bit_words.h"
#include "engine/model/sparse_mdp.h"

#include <cstdint>
#include <vector>

namespace mdpvi::graph {

// removed: states just cleared from states_left, none of them twice. Clears in
// states_left every state whose every row in rows_left has a successor removed (now or
// by this cascade) or outside its SCC (scc_of), and in rows_left each such row of the
// states it examines. Returns whether a cleared row had a successor in its state's
// SCC other than that state: the SCC may then split (another round).
// Pre: every row left in rows_left of a state left stays in its SCC but for the
// removed states; scc_of gives each state's SCC label (UINT32_MAX outside).
bool cascade_removals(const SparseMdp& mdp, const std::vector<std::uint32_t>& scc_of, std::vector<std::uint32_t> removed,
                      BitWords& states_left, BitWords& rows_left);

}  // namespace mdpvi::graph
