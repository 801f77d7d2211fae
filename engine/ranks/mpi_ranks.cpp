#include "engine/ranks/ranks.h"

#include <mpi.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

namespace mdpvi {

namespace {

// MPI counts are ints: larger messages go as pieces of at most this many bytes, in
// order (MPI keeps the order of messages between two ranks on one tag).
constexpr std::uint64_t kPieceBytes = std::uint64_t{1} << 30;
constexpr int kExchangeTag = 7;

int piece_count(std::uint64_t bytes, std::uint64_t offset) {
  return static_cast<int>(std::min(kPieceBytes, bytes - offset));
}

class MpiRanks final : public Ranks {
 public:
  MpiRanks() {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rank_ = static_cast<std::uint32_t>(rank);
    size_ = static_cast<std::uint32_t>(size);
    MPI_Comm machine;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &machine);
    int local = 1;
    MPI_Comm_size(machine, &local);
    MPI_Comm_free(&machine);
    on_this_machine_ = static_cast<std::uint32_t>(local);
  }

  std::uint32_t rank() const override { return rank_; }
  std::uint32_t size() const override { return size_; }
  std::uint32_t on_this_machine() const override { return on_this_machine_; }

  void all_to_all(std::span<const std::uint64_t> counts_to, std::span<std::uint64_t> counts_from) override {
    MPI_Alltoall(counts_to.data(), 1, MPI_UINT64_T, counts_from.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  }

  void exchange(std::span<const std::span<const std::byte>> to_peer,
                std::span<const std::span<std::byte>> from_peer) override {
    std::vector<MPI_Request> requests;
    for (std::uint32_t r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      const std::span<std::byte> in = from_peer[r];
      for (std::uint64_t offset = 0; offset < in.size(); offset += kPieceBytes) {
        requests.emplace_back();
        MPI_Irecv(in.data() + offset, piece_count(in.size(), offset), MPI_BYTE, static_cast<int>(r), kExchangeTag,
                  MPI_COMM_WORLD, &requests.back());
      }
    }
    for (std::uint32_t r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      const std::span<const std::byte> out = to_peer[r];
      for (std::uint64_t offset = 0; offset < out.size(); offset += kPieceBytes) {
        requests.emplace_back();
        MPI_Isend(out.data() + offset, piece_count(out.size(), offset), MPI_BYTE, static_cast<int>(r), kExchangeTag,
                  MPI_COMM_WORLD, &requests.back());
      }
    }
    MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  }

  void max_in_place(std::span<double> values) override {
    MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }

  bool agree(std::uint64_t value) override {
    // The largest value and the largest complement (the smallest value) in one call.
    std::uint64_t both[2] = {value, ~value};
    MPI_Allreduce(MPI_IN_PLACE, both, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    return both[0] == ~both[1];
  }

  void broadcast(std::span<std::byte> bytes, std::uint32_t root) override {
    for (std::uint64_t offset = 0; offset < bytes.size(); offset += kPieceBytes) {
      MPI_Bcast(bytes.data() + offset, piece_count(bytes.size(), offset), MPI_BYTE, static_cast<int>(root),
                MPI_COMM_WORLD);
    }
  }

 private:
  std::uint32_t rank_ = 0, size_ = 1, on_this_machine_ = 1;
};

Ranks* the_ranks = nullptr;

// Open MPI's, PMIx's (srun, prterun) and MPICH's (Hydra) launchers set these.
bool launched_by_mpirun() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

class MpiSession final : public RanksSession {
 public:
  MpiSession(int& argc, char**& argv) {
    int provided = 0;
    // The check runs on a thread of its own (a large stack) while main waits: one
    // thread calls MPI at a time, never two.
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    if (provided < MPI_THREAD_SERIALIZED) spdlog::warn("MPI gives thread level {} (serialized asked)", provided);
    ranks_ = std::make_unique<MpiRanks>();
    if (ranks_->size() > 1) the_ranks = ranks_.get();
  }

  ~MpiSession() override {
    if (!finished_) finish(0);
  }

  int finish(int status) override {
    finished_ = true;
    the_ranks = nullptr;
    int all = status;
    if (ranks_->size() > 1) all = settled_status(status);
    MPI_Finalize();
    return all;
  }

 private:
  // The largest status over the ranks. A rank that failed waits a while for the
  // others; if they never come (they wait in a collective it left), it ends the job.
  static int settled_status(int status) {
    int all = status;
    if (status == 0) {
      MPI_Allreduce(&status, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      return all;
    }
    MPI_Request request;
    MPI_Iallreduce(&status, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &request);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    int done = 0;
    while (MPI_Test(&request, &done, MPI_STATUS_IGNORE), !done) {
      if (std::chrono::steady_clock::now() > give_up) MPI_Abort(MPI_COMM_WORLD, status);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return all;
  }

  std::unique_ptr<MpiRanks> ranks_;
  bool finished_ = false;
};

}  // namespace

Ranks* run_ranks() { return the_ranks; }

std::unique_ptr<RanksSession> start_ranks(int& argc, char**& argv) {
  if (!launched_by_mpirun()) return std::make_unique<RanksSession>();
  return std::make_unique<MpiSession>(argc, argv);
}

bool built_with_mpi() { return true; }

}  // namespace mdpvi
