#pragma once
// The processes of one run started by mpirun (MPI ranks), as the solve sees them.
// Every rank builds the same model and runs the same pipeline; an SCC large enough
// is then solved in parts, one a rank, that exchange after each sweep the values
// they read from each other (engine/solve/rank_sweeps.h). Where mdpvi is built
// without MPI, or runs as one process, there are no Ranks (run_ranks() is null).
#include <cstdint>
#include <memory>
#include <span>

namespace mdpvi {

class Ranks {
 public:
  virtual ~Ranks() = default;
  virtual std::uint32_t rank() const = 0;
  virtual std::uint32_t size() const = 0;
  // The ranks on this rank's machine (this one included): they share its cores.
  virtual std::uint32_t on_this_machine() const = 0;

  // counts_to[r] is what this rank will send to rank r; the result's [r] is what r
  // will send to this one. Collective; spans of size() entries.
  virtual void all_to_all(std::span<const std::uint64_t> counts_to, std::span<std::uint64_t> counts_from) = 0;
  // Bytes to_peer[r] go to rank r and from_peer[r] is filled from rank r, for every
  // r but this rank (whose entries are ignored); each size agreed beforehand
  // (all_to_all). Collective.
  virtual void exchange(std::span<const std::span<const std::byte>> to_peer,
                        std::span<const std::span<std::byte>> from_peer) = 0;
  // Each entry becomes its largest value over the ranks. Collective.
  virtual void max_in_place(std::span<double> values) = 0;
  // Whether every rank passed the same value. Collective.
  virtual bool agree(std::uint64_t value) = 0;
  // Rank root's bytes into every rank's. Collective.
  virtual void broadcast(std::span<std::byte> bytes, std::uint32_t root) = 0;
};

// The run's ranks where it was started by mpirun with more than one process and
// start_ranks has run; else null.
Ranks* run_ranks();

// MPI for the whole process, from main: started where the environment says mpirun
// (or srun) launched this process and mdpvi was built with MPI; finished when the
// result is destroyed. finish(status) first settles one exit status for all ranks:
// a rank that failed alone (the others waiting in a collective) ends the whole job
// rather than leave it hanging.
class RanksSession {
 public:
  virtual ~RanksSession() = default;
  // The exit status every rank returns: the largest of the ranks' statuses (one
  // process, as here: its own).
  virtual int finish(int status) { return status; }
};
std::unique_ptr<RanksSession> start_ranks(int& argc, char**& argv);

// Whether this mdpvi was built with MPI.
bool built_with_mpi();

}  // namespace mdpvi
