#pragma once
// The linear system of a range of a DTMC's maybe-states (an SCC, or all of them), or
// of an MDP's under a scheduler (one chosen row per state: policy iteration), as
// engine/numeric/bicgstab_steps.h's vector backend on the CPU: x = M x + c in local
// indices 0..n-1, M the range's own entries, c its rows' constants plus the entries
// leaving the range, whose values are final. (I - M) is applied and vectors are
// reduced in parallel by oneTBB. The device's backend is gpu/krylov.cu.
#include "engine/solve/bellman.h"
#include "engine/solve/maybe_system.h"
#include "engine/numeric/bicgstab_steps.h"

#include <array>
#include <cstdint>
#include <vector>

namespace mdpvi {

// BiCGStab's limits from a solve's stop rule: its sweeps as iterations, its epsilon and
// criterion.
KrylovLimits krylov_limits(const StopRule& stop);

class KrylovSystem {
 public:
  // Pre: values holds every state's value (those outside the range final; those
  // inside are x's start). rows: the row of each state of the range (absolute row
  // numbers, in range order), or null where each state has one row.
  KrylovSystem(const MaybeSystem& system, StateRange range, const double* values, const std::uint64_t* rows = nullptr);

  // The expected number of steps before the chain of the chosen rows leaves the
  // range, from each of its states: (I - M) t = 1, x starting at start.
  // start: x's start, in range order.
  static KrylovSystem steps_to_leave(const MaybeSystem& system, StateRange range, const std::uint64_t* rows,
                                     const double* start);

  const std::vector<double>& solution() const { return at(KrylovVector::x); }

  void apply(KrylovVector in, KrylovVector out);
  double dot(KrylovVector a, KrylovVector b) const;
  double max_abs(KrylovVector a) const;
  void copy(KrylovVector from, KrylovVector to);
  void zero(KrylovVector a);
  void combine(KrylovVector y, KrylovVector a, double s, KrylovVector b);
  void update_direction(double beta, double omega);
  void update_solution(double alpha, double omega);

 private:
  KrylovSystem(const MaybeSystem& system, StateRange range, const std::uint64_t* rows);
  bool inside(std::uint32_t column) const { return column >= begin_ && column < begin_ + n_; }
  std::uint64_t row_of(std::size_t i) const { return rows_ ? rows_[i] : s_.row_group_starts[begin_ + i]; }
  std::vector<double>& at(KrylovVector v) { return vectors_[static_cast<std::size_t>(v)]; }
  const std::vector<double>& at(KrylovVector v) const { return vectors_[static_cast<std::size_t>(v)]; }

  const MaybeSystem& s_;
  std::uint64_t begin_;
  std::size_t n_;
  const std::uint64_t* rows_;
  std::array<std::vector<double>, 8> vectors_;  // by KrylovVector
};

}  // namespace mdpvi
