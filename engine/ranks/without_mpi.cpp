#include "engine/ranks/ranks.h"

namespace mdpvi {

Ranks* run_ranks() { return nullptr; }

std::unique_ptr<RanksSession> start_ranks(int&, char**&) { return std::make_unique<RanksSession>(); }

bool built_with_mpi() { return false; }

}  // namespace mdpvi
