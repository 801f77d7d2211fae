#include "engine/solve/scc_sweeps.h"

#include "engine/solve/partitioned_system.h"
#include "engine/solve/rank_sweeps.h"
#include "gpu/device_solver.h"
#include "gpu/partitioned_sweeps.h"

#include <oneapi/tbb/parallel_for.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

namespace mdpvi {

namespace {

// The range's current values alternate between an iterate's two buffers, sweep by
// sweep, rather than the buffers being swapped whole: SCCs of one level are swept at
// the same time (for_each_level), each over its own range of the same vectors.
// Outside the range both buffers agree, so a sweep may read either; sync leaves the
// current values in the first buffer and copies them into the second.
class RangeSweeps final : public SccSweeps {
 public:
  RangeSweeps(const SolveRequest& request, StateRange range, Iterates& x) : r_(request), range_(range), x_(x) {}

  double sweep_lower() override {
    const double change = bellman_sweep_parallel(r_.system, range_, r_.direction, criterion(), lower().data(),
                                                 lower_other().data());
    lower_flipped_ = !lower_flipped_;
    return change;
  }

  IntervalSweep sweep_both() override {
    const IntervalSweep sweep = interval_sweep_parallel(
        r_.system, range_, r_.direction, criterion(),
        {lower().data(), upper().data(), lower_other().data(), upper_other().data()});
    lower_flipped_ = !lower_flipped_;
    upper_flipped_ = !upper_flipped_;
    return sweep;
  }

  void keep_lower_in_upper() override { parallel_copy(lower().data() + range_.begin, range_.size(), upper().data() + range_.begin); }

  void guess_upper(double target, const GuessParameters& guess) override {
    const PodVector<double>& now = lower();
    PodVector<double>& up = upper();
    for (std::uint64_t s = range_.begin; s < range_.end; ++s) up[s] = guessed_upper(now[s], std::min(now[s], up[s]), target, guess);
  }

  void fill_upper(double bound) override { std::fill(upper().begin() + range_.begin, upper().begin() + range_.end, bound); }

  void sync() override {
    copy_current(lower_flipped_, x_.lower, x_.lower_next);
    copy_current(upper_flipped_, x_.upper, x_.upper_next);
    lower_flipped_ = upper_flipped_ = false;
  }

 private:
  ConvergenceCriterion criterion() const { return r_.options.stop.criterion; }
  // The range's current values (in second where flipped) into the other buffer, where
  // there are two.
  void copy_current(bool flipped, PodVector<double>& first, PodVector<double>& second) const {
    if (first.empty() || second.size() != first.size()) return;
    const PodVector<double>& from = flipped ? second : first;
    PodVector<double>& to = flipped ? first : second;
    parallel_copy(from.data() + range_.begin, range_.size(), to.data() + range_.begin);
  }
  // The buffer holding the range's current values, and the other one.
  PodVector<double>& lower() { return lower_flipped_ ? x_.lower_next : x_.lower; }
  PodVector<double>& lower_other() { return lower_flipped_ ? x_.lower : x_.lower_next; }
  PodVector<double>& upper() { return upper_flipped_ ? x_.upper_next : x_.upper; }
  PodVector<double>& upper_other() { return upper_flipped_ ? x_.upper : x_.upper_next; }

  const SolveRequest& r_;
  StateRange range_;
  Iterates& x_;
  bool lower_flipped_ = false, upper_flipped_ = false;
};

// A part's iterates over its local columns (own states, then halo).
struct PartVectors {
  PodVector<double> lower, lower_next, upper, upper_next;
};

class PartitionedSweeps final : public SccSweeps {
 public:
  PartitionedSweeps(const SolveRequest& request, StateRange range, Iterates& x, std::uint32_t parts)
      : r_(request), x_(x), partitioned_(partition_range(request.system, range, parts)), vectors_(parts) {
    const bool with_upper = !x.upper.empty();
    for_each_part([&](const SystemPart& part, PartVectors& v) {
      load(part, x.lower, v.lower, v.lower_next);
      if (with_upper) load(part, x.upper, v.upper, v.upper_next);
    });
  }

  double sweep_lower() override {
    std::vector<double> changes(parts());
    for_each_part([&](const SystemPart& part, PartVectors& v) {
      changes[index_of(part)] = bellman_sweep_parallel(part.local, own(part), r_.direction, criterion(), v.lower.data(),
                                                       v.lower_next.data());
      std::swap(v.lower, v.lower_next);
    });
    exchange(&PartVectors::lower);
    return *std::max_element(changes.begin(), changes.end());
  }

  IntervalSweep sweep_both() override {
    std::vector<IntervalSweep> sweeps(parts());
    for_each_part([&](const SystemPart& part, PartVectors& v) {
      sweeps[index_of(part)] = interval_sweep_parallel(
          part.local, own(part), r_.direction, criterion(),
          {v.lower.data(), v.upper.data(), v.lower_next.data(), v.upper_next.data()});
      std::swap(v.lower, v.lower_next);
      std::swap(v.upper, v.upper_next);
    });
    exchange(&PartVectors::lower);
    exchange(&PartVectors::upper);
    IntervalSweep all;
    for (const IntervalSweep& s : sweeps) all += s;
    return all;
  }

  // Own values only: the halo's upper values of states outside the range are final.
  void keep_lower_in_upper() override {
    for_each_part([&](const SystemPart& part, PartVectors& v) { std::copy_n(v.lower.begin(), part.own(), v.upper.begin()); });
  }

  void guess_upper(double target, const GuessParameters& guess) override {
    for_each_part([&](const SystemPart& part, PartVectors& v) {
      for (std::uint64_t i = 0; i < part.own(); ++i) {
        v.upper[i] = guessed_upper(v.lower[i], std::min(v.lower[i], v.upper[i]), target, guess);
      }
    });
    exchange(&PartVectors::upper);
  }

  void fill_upper(double bound) override {
    for_each_part([&](const SystemPart& part, PartVectors& v) { std::fill_n(v.upper.begin(), part.own(), bound); });
    exchange(&PartVectors::upper);
  }

  // The parts' own values into the Iterates; each part's second buffers as its first.
  void sync() override {
    const bool with_upper = !x_.upper.empty();
    for_each_part([&](const SystemPart& part, PartVectors& v) {
      std::copy_n(v.lower.begin(), part.own(), x_.lower.begin() + part.states.begin);
      v.lower_next = v.lower;
      if (with_upper) {
        std::copy_n(v.upper.begin(), part.own(), x_.upper.begin() + part.states.begin);
        v.upper_next = v.upper;
      }
    });
    x_.sync(partitioned_.range);
  }

 private:
  // Both buffers: the own states' values and every halo value as the iterate has them.
  static void load(const SystemPart& part, const PodVector<double>& from, PodVector<double>& first,
                   PodVector<double>& second) {
    load_local_values(part, from, first);
    second = first;
  }

  // Each part's halo blocks from the other parts' own values (after a sweep: new ones).
  void exchange(PodVector<double> PartVectors::*iterate) {
    for_each_part([&](const SystemPart& part, PartVectors& v) {
      double* halo = (v.*iterate).data() + part.own();
      for (const HaloBlock& block : part.from_parts) {
        const double* source = (vectors_[block.source_part].*iterate).data();
        for (std::size_t j = 0; j < block.source_locals.size(); ++j) halo[block.first_slot + j] = source[block.source_locals[j]];
      }
    });
  }

  template <typename Visit>
  void for_each_part(Visit visit) {
    oneapi::tbb::parallel_for(std::size_t{0}, parts(), [&](std::size_t p) { visit(partitioned_.parts[p], vectors_[p]); });
  }

  std::size_t parts() const { return partitioned_.parts.size(); }
  std::size_t index_of(const SystemPart& part) const { return &part - partitioned_.parts.data(); }
  static StateRange own(const SystemPart& part) { return {0, part.own()}; }
  ConvergenceCriterion criterion() const { return r_.options.stop.criterion; }

  const SolveRequest& r_;
  Iterates& x_;
  PartitionedRange partitioned_;
  std::vector<PartVectors> vectors_;
};

// The parts on the devices: the same partition, its local systems uploaded once.
class DevicePartsSweeps final : public SccSweeps {
 public:
  DevicePartsSweeps(const SolveRequest& request, StateRange range, Iterates& x, std::uint32_t parts)
      : r_(request), x_(x), partitioned_(partition_range(request.system, range, parts)) {
    std::vector<gpu::PartArrays> arrays;
    std::vector<std::vector<gpu::PartBlock>> blocks(parts);
    for (std::uint32_t p = 0; p < parts; ++p) {
      const SystemPart& part = partitioned_.parts[p];
      const MaybeSystem& local = part.local;
      arrays.push_back({part.own(), part.halo.size(), local.row_group_starts.data(), local.row_starts.data(),
                        local.columns.data(), local.values.plain_data(), local.row_constants.data()});
      for (const HaloBlock& block : part.from_parts) {
        blocks[p].push_back({block.source_part, block.first_slot, block.source_locals.data(), block.source_locals.size()});
      }
    }
    const bool with_upper = !x.upper.empty();
    device_ = gpu::open_partitioned_sweeps(arrays, blocks, with_upper);
    std::vector<double> lower, upper;
    for (std::uint32_t p = 0; p < parts; ++p) {
      const SystemPart& part = partitioned_.parts[p];
      load_local_values(part, x.lower, lower);
      if (with_upper) load_local_values(part, x.upper, upper);
      device_->load(p, lower.data(), with_upper ? upper.data() : nullptr);
    }
  }

  double sweep_lower() override { return device_->sweep_lower(maximize(), relative()); }

  IntervalSweep sweep_both() override {
    const gpu::PartsIntervalSweep sweep = device_->sweep_both(maximize(), relative());
    return {sweep.width, sweep.upper_raised, sweep.crossed};
  }

  void keep_lower_in_upper() override { device_->keep_lower_in_upper(); }

  void guess_upper(double target, const GuessParameters& guess) override { device_->guess_upper(target, guess); }

  void fill_upper(double bound) override { device_->fill_upper(bound); }

  void sync() override {
    const bool with_upper = !x_.upper.empty();
    for (std::uint32_t p = 0; p < partitioned_.parts.size(); ++p) {
      const SystemPart& part = partitioned_.parts[p];
      device_->read_own(p, x_.lower.data() + part.states.begin, with_upper ? x_.upper.data() + part.states.begin : nullptr);
    }
    x_.sync(partitioned_.range);
  }

 private:
  bool maximize() const { return r_.direction == Optimization::maximize; }
  bool relative() const { return r_.options.stop.criterion == ConvergenceCriterion::relative; }

  const SolveRequest& r_;
  Iterates& x_;
  PartitionedRange partitioned_;
  std::unique_ptr<gpu::PartitionedDeviceSweeps> device_;
};

// Whether the range has SolverOptions::parts_from rows plus entries.
bool worth_parts(const SolveRequest& request, StateRange range) {
  const std::uint64_t from = request.options.parts_from;
  if (from == 0) return true;
  return work_before(request.system, range.end) - work_before(request.system, range.begin) >= from;
}

}  // namespace

std::unique_ptr<SccSweeps> make_scc_sweeps(const SolveRequest& request, StateRange range, Iterates& x) {
  const std::uint32_t parts = request.options.partitions;
  const bool split = request.options.ranks != nullptr || parts > 1;
  if (!split || !worth_parts(request, range)) return std::make_unique<RangeSweeps>(request, range, x);
  if (request.options.ranks != nullptr) return make_rank_sweeps(request, range, x, *request.options.ranks);
  if (request.options.partitions_on_devices) {
    try {
      return std::make_unique<DevicePartsSweeps>(request, range, x, parts);
    } catch (const gpu::DeviceError& error) {
      spdlog::warn("an SCC of {} states in {} parts on the CPU: {}", range.size(), parts, error.what());
    }
  }
  return std::make_unique<PartitionedSweeps>(request, range, x, parts);
}

}  // namespace mdpvi
