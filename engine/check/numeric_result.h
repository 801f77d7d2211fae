#pragma once
// What a numerical operator (P or R over a path formula) computes: a value per model
// state, and each stage's named result, which the reports print.
#include "engine/model/process_memory.h"
#include "engine/model/state_numbers.h"
#include "engine/solve/solve_request.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mdpvi {

// Each stage's summary is made at the end of its stage, from its counts and time; its
// peak_host_bytes, the process's peak resident memory so far, is taken then too (the
// member's initializer), so the peak of each stage is known without a call per stage.

// The graph analysis: which states are decided without numbers.
struct QualitativeSummary {
  std::uint64_t yes = 0;    // probability 1 (rewards: the target, value 0)
  std::uint64_t no = 0;     // probability 0 (rewards: infinite)
  std::uint64_t maybe = 0;  // left to the solver
  double time_s = 0.0;
  std::string ran_on{};  // graph::to_string(SearchKind): "gpu", "cpu-parallel", "cpu-reference"
  std::size_t peak_host_bytes = peak_resident_bytes();
};

// The maybe-states' SCCs in solving order and the system built on them.
struct SccPlanSummary {
  std::size_t num_sccs = 0;
  double time_s = 0.0;
  std::string ran_on{};  // "gpu", "cpu-parallel", "cpu-reference" or "remembered" (graph/scc.h)
  std::size_t peak_host_bytes = peak_resident_bytes();
};

struct NumericResult {
  bool reward = false;        // an expected reward: yes = target, no = infinite
  bool step_bounded = false;  // a fixed number of sweeps, no convergence test
  bool uniformised = false;   // with step_bounded: a CTMC's Poisson-weighted steps
  bool long_run = false;      // S or R[S]: stationary distributions, whose error has no bound
  StateNumbers values;        // per model state
  StateNumbers lower, upper;  // per model state, where the solve gave bounds
  QualitativeSummary qualitative;
  SccPlanSummary sccs;
  SolveReport solve;

  // The per-state vectors released: what a report keeps.
  NumericResult summary() && {
    // New arrays: "= {}" would keep their capacity, and so their pages.
    values = StateNumbers();
    lower = StateNumbers();
    upper = StateNumbers();
    return std::move(*this);
  }
};

// The probabilities of the complementary path: 1 - p for every value, the bounds
// swapped ([l, u] becomes [1 - u, 1 - l]), and so the graph's yes and no.
inline NumericResult complemented(NumericResult result) {
  for (StateNumbers* v : {&result.values, &result.lower, &result.upper}) {
    for (double& x : *v) x = 1.0 - x;
  }
  std::swap(result.lower, result.upper);
  std::swap(result.qualitative.yes, result.qualitative.no);
  return result;
}

// A solve stopped at --max-iters: the property gets no value (PRISM, too, calls it an
// error), and nothing is decided from it. Carries the computation's summary for the
// report.
class NotConvergedError : public std::runtime_error {
 public:
  NotConvergedError(const std::string& message, NumericResult summary)
      : std::runtime_error(message), summary_(std::move(summary)) {}
  const NumericResult& summary() const { return summary_; }

 private:
  NumericResult summary_;
};

}  // namespace mdpvi
