#pragma once
// An SCC's sweeps over MPI ranks (engine/ranks/ranks.h): rank r holds part r of the
// range (engine/solve/partitioned_system.h, cut without the others) and, after each
// sweep, sends the other ranks the values their halos read from it and receives its
// own halo's. The largest change, the width and the flags are reduced over the
// ranks, so every rank takes the same decisions; sync shares the range's values, so
// every rank's iterates hold all of them for what comes after. Each value is
// computed as one process computes it: the answers are the same bit for bit.
#include "engine/solve/scc_sweeps.h"

#include <memory>

namespace mdpvi {

// Pre: as make_scc_sweeps; every rank calls it for the same range of the same system
// (checked: ranks that disagree throw, all of them).
std::unique_ptr<SccSweeps> make_rank_sweeps(const SolveRequest& request, StateRange range, Iterates& x, Ranks& ranks);

}  // namespace mdpvi
