#include "engine/ranks/ranks.h"

namespace mdpvi {

namespace {

class NoSession final : public RanksSession {
 public:
  int finish(int status) override { return status; }
};

}  // namespace

Ranks* run_ranks() { return nullptr; }

std::unique_ptr<RanksSession> start_ranks(int&, char**&) { return std::make_unique<NoSession>(); }

bool built_with_mpi() { return false; }

}  // namespace mdpvi
