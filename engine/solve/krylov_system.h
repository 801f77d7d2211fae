#pragma once
// The linear system of a range of a DTMC's maybe-states (an SCC, or all of them) as
// engine/numeric/bicgstab_steps.h's vector backend on the CPU: x = M x + c in local indices
// 0..n-1, M the range's own entries, c its rows' constants plus the entries leaving
// the range, whose values are final. (I - M) is applied and vectors are reduced in
// parallel by oneTBB. The device's backend is gpu/krylov.cu.
#include "engine/solve/bellman.h"
#include "engine/solve/maybe_system.h"
#include "engine/numeric/bicgstab_steps.h"

#include <array>
#include <cstdint>
#include <vector>

namespace mdpvi {

class KrylovSystem {
 public:
  // Pre: one row per state; values holds every state's value (those outside the
  // range final; those inside are x's start).
  KrylovSystem(const MaybeSystem& system, StateRange range, const double* values);

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
  bool inside(std::uint32_t column) const { return column >= begin_ && column < begin_ + n_; }
  std::vector<double>& at(KrylovVector v) { return vectors_[static_cast<std::size_t>(v)]; }
  const std::vector<double>& at(KrylovVector v) const { return vectors_[static_cast<std::size_t>(v)]; }

  const MaybeSystem& s_;
  std::uint64_t begin_;
  std::size_t n_;
  std::array<std::vector<double>, 8> vectors_;  // by KrylovVector
};

}  // namespace mdpvi
