#include "engine/solve/rank_sweeps.h"

#include "engine/solve/partitioned_system.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

namespace mdpvi {

namespace {

std::uint64_t mixed(std::uint64_t v) {  // a 64-bit finaliser (MurmurHash3's fmix64)
  v ^= v >> 33;
  v *= 0xff51afd7ed558ccdULL;
  v ^= v >> 33;
  v *= 0xc4ceb34a20c8ab53ULL;
  return v ^ (v >> 33);
}

// A fingerprint of the range and its rows' shapes and columns: ranks that built
// different models, or ordered their SCCs differently, disagree on it. A sum of
// per-entry hashes, so the order of the parallel sum does not change it.
std::uint64_t range_fingerprint(const MaybeSystem& system, StateRange range) {
  const std::uint64_t first_row = system.row_group_starts[range.begin], end_row = system.row_group_starts[range.end];
  const std::uint64_t first = system.row_starts[first_row], end = system.row_starts[end_row];
  const std::uint64_t shape = mixed(range.begin) ^ mixed(range.end + (end_row - first_row) * 0x9e3779b97f4a7c15ULL) ^
                              mixed(~(end - first));
  return shape + oneapi::tbb::parallel_reduce(
                     oneapi::tbb::blocked_range<std::uint64_t>(first, end, 1 << 16), std::uint64_t{0},
                     [&](const auto& part, std::uint64_t sum) {
                       for (std::uint64_t k = part.begin(); k < part.end(); ++k) {
                         sum += mixed((std::uint64_t{system.columns[k]} << 32) ^ (k - first));
                       }
                       return sum;
                     },
                     std::plus<>());
}

template <typename T>
std::span<const std::byte> bytes_of(const T* data, std::uint64_t count) {
  return std::as_bytes(std::span<const T>(data, count));
}
template <typename T>
std::span<std::byte> writable_bytes_of(T* data, std::uint64_t count) {
  return std::as_writable_bytes(std::span<T>(data, count));
}

// The part's iterates over its local columns (own states, then halo).
struct LocalVectors {
  PodVector<double> lower, lower_next, upper, upper_next;
};

class RankSweeps final : public SccSweeps {
 public:
  RankSweeps(const SolveRequest& request, StateRange range, Iterates& x, Ranks& ranks)
      : r_(request), x_(x), ranks_(ranks), range_(range), ranges_(balanced_parts(request.system, range, ranks.size())) {
    if (!ranks.agree(range_fingerprint(request.system, range))) {
      throw std::runtime_error(fmt::format(
          "the MPI ranks disagree on the SCC of states [{}, {}): their models or SCC orders differ", range.begin,
          range.end));
    }
    part_ = partition_part(request.system, range, ranges_, ranks.rank());
    plan_exchange();
    load(x.lower, v_.lower, v_.lower_next);
    if (with_upper()) load(x.upper, v_.upper, v_.upper_next);
  }

  double sweep_lower() override {
    double change = bellman_sweep_parallel(part_.local, own(), r_.direction, criterion(), v_.lower.data(),
                                           v_.lower_next.data());
    std::swap(v_.lower, v_.lower_next);
    exchange(v_.lower);
    ranks_.max_in_place({&change, 1});
    return change;
  }

  IntervalSweep sweep_both() override {
    const IntervalSweep sweep = interval_sweep_parallel(
        part_.local, own(), r_.direction, criterion(),
        {v_.lower.data(), v_.upper.data(), v_.lower_next.data(), v_.upper_next.data()});
    std::swap(v_.lower, v_.lower_next);
    std::swap(v_.upper, v_.upper_next);
    exchange(v_.lower);
    exchange(v_.upper);
    // The flags as 0 and 1: their largest value over the ranks is their "or".
    double reduced[4] = {sweep.width, flag(sweep.upper_raised), flag(sweep.lower_lowered), flag(sweep.crossed)};
    ranks_.max_in_place(reduced);
    IntervalSweep all;
    all.width = reduced[0];
    all.upper_raised = reduced[1] > 0.0;
    all.lower_lowered = reduced[2] > 0.0;
    all.crossed = reduced[3] > 0.0;
    return all;
  }

  // Own values only: the halo's upper values of states outside the range are final.
  void keep_lower_in_upper() override { std::copy_n(v_.lower.begin(), part_.own(), v_.upper.begin()); }

  void guess_upper(double target, const GuessParameters& guess) override {
    for (std::uint64_t i = 0; i < part_.own(); ++i) {
      v_.upper[i] = guessed_upper(v_.lower[i], std::min(v_.lower[i], v_.upper[i]), target, guess);
    }
    exchange(v_.upper);
  }

  void fill_upper(double bound) override {
    std::fill_n(v_.upper.begin(), part_.own(), bound);
    exchange(v_.upper);
  }

  // Every part's own values into every rank's iterates; the second local buffers as
  // the first.
  void sync() override {
    share(v_.lower, x_.lower);
    v_.lower_next = v_.lower;
    if (with_upper()) {
      share(v_.upper, x_.upper);
      v_.upper_next = v_.upper;
    }
    x_.sync(range_);
  }

 private:
  static double flag(bool set) { return set ? 1.0 : 0.0; }
  bool with_upper() const { return !x_.upper.empty(); }
  StateRange own() const { return {0, part_.own()}; }
  ConvergenceCriterion criterion() const { return r_.options.stop.criterion; }

  void load(const PodVector<double>& from, PodVector<double>& first, PodVector<double>& second) const {
    load_local_values(part_, from, first);
    second = first;
  }

  // Which of its own states each other rank reads: each rank tells each source the
  // source locals of its halo block from it.
  void plan_exchange() {
    const std::uint32_t n = ranks_.size();
    std::vector<std::uint64_t> wanted(n, 0), asked(n, 0);
    for (const HaloBlock& block : part_.from_parts) wanted[block.source_part] = block.source_locals.size();
    ranks_.all_to_all(wanted, asked);
    read_by_.assign(n, {});
    send_buffers_.assign(n, {});
    std::vector<std::span<const std::byte>> to(n);
    std::vector<std::span<std::byte>> from(n);
    for (const HaloBlock& block : part_.from_parts) {
      to[block.source_part] = bytes_of(block.source_locals.data(), block.source_locals.size());
    }
    for (std::uint32_t q = 0; q < n; ++q) {
      read_by_[q].resize(asked[q]);
      send_buffers_[q].resize(asked[q]);
      from[q] = writable_bytes_of(read_by_[q].data(), asked[q]);
    }
    ranks_.exchange(to, from);
  }

  // The halo blocks of local vector v from the other ranks' own values, and theirs
  // from v's.
  void exchange(PodVector<double>& v) {
    const std::uint32_t n = ranks_.size();
    std::vector<std::span<const std::byte>> to(n);
    std::vector<std::span<std::byte>> from(n);
    for (std::uint32_t q = 0; q < n; ++q) {
      std::vector<double>& buffer = send_buffers_[q];
      for (std::size_t j = 0; j < buffer.size(); ++j) buffer[j] = v[read_by_[q][j]];
      to[q] = bytes_of(buffer.data(), buffer.size());
    }
    for (const HaloBlock& block : part_.from_parts) {
      from[block.source_part] = writable_bytes_of(v.data() + part_.own() + block.first_slot, block.source_locals.size());
    }
    ranks_.exchange(to, from);
  }

  // Each rank's own values of local into every rank's iterate.
  void share(const PodVector<double>& local, PodVector<double>& iterate) {
    std::copy_n(local.begin(), part_.own(), iterate.begin() + part_.states.begin);
    for (std::uint32_t q = 0; q < ranks_.size(); ++q) {
      ranks_.broadcast(writable_bytes_of(iterate.data() + ranges_[q].begin, ranges_[q].size()), q);
    }
  }

  const SolveRequest& r_;
  Iterates& x_;
  Ranks& ranks_;
  StateRange range_;
  std::vector<StateRange> ranges_;  // every rank's part of the range
  SystemPart part_;                 // this rank's
  std::vector<std::vector<std::uint32_t>> read_by_;  // [q]: own locals rank q reads, in its halo's order
  std::vector<std::vector<double>> send_buffers_;
  LocalVectors v_;
};

}  // namespace

std::unique_ptr<SccSweeps> make_rank_sweeps(const SolveRequest& request, StateRange range, Iterates& x, Ranks& ranks) {
  return std::make_unique<RankSweeps>(request, range, x, ranks);
}

}  // namespace mdpvi
