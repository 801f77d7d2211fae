#pragma once
// The sweeps an SCC is solved by on the host, behind one interface with two
// implementations: over the range of the system's iterates, and over parts of the
// range that exchange the values they read after each sweep
// (engine/solve/partitioned_system.h: the layout of several GPUs or MPI ranks, here
// in one process). Both compute every value the same way, so the methods built on
// them (sweep_lower, interval iteration's CPU unit) answer the same bit for bit
// whatever the number of parts.
#include "engine/numeric/optimistic_guess.h"
#include "engine/solve/bellman.h"
#include "engine/solve/method_policy.h"

#include <memory>

namespace mdpvi {

class SccSweeps {
 public:
  virtual ~SccSweeps() = default;
  // One Bellman sweep of the lower iterate (its buffers then swapped): the largest change.
  virtual double sweep_lower() = 0;
  // One sweep of both iterates (interval_sweep_parallel), then swapped.
  virtual IntervalSweep sweep_both() = 0;
  // The lower iterate's values kept in the upper iterate, for guess_upper a few
  // sweeps later.
  virtual void keep_lower_in_upper() = 0;
  // At each state, from the lower value now and the one kept in the upper iterate:
  // upper = guessed_upper(lower, kept, target, guess) (kept at most lower).
  virtual void guess_upper(double target, const GuessParameters& guess) = 0;
  // The upper iterate set to bound on the range.
  virtual void fill_upper(double bound) = 0;
  // The range's values in the Iterates, both buffers of each agreeing there.
  virtual void sync() = 0;
};

// Over the range of x; in parts where the request asks for more than one
// (SolverOptions::partitions), on the devices where it asks for them there
// (SolverOptions::partitions_on_devices; where they fail, on the CPU, said in the
// log), or one a rank under mpirun (SolverOptions::ranks, engine/solve/rank_sweeps.h);
// whole where the range is below SolverOptions::parts_from. Pre: x outlives the result; the range is solved after everything it reads
// outside itself.
std::unique_ptr<SccSweeps> make_scc_sweeps(const SolveRequest& request, StateRange range, Iterates& x);

}  // namespace mdpvi
