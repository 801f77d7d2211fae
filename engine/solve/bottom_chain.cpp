#include "engine/solve/bottom_chain.h"

#include "engine/solve/chunk_driver.h"
#include "engine/model/parallel_indices.h"
#include "gpu/stationary_sweeps.h"

#include <oneapi/tbb/enumerable_thread_specific.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <deque>
#include <limits>
#include <numeric>
#include <optional>
#include <utility>

namespace mdpvi {

namespace {

// States a block of the parallel passes takes.
constexpr std::size_t kStatesPerBlock = 1 << 12;
std::size_t blocks_of(std::size_t states) { return (states + kStatesPerBlock - 1) / kStatesPerBlock; }

// When the sweeps stop. A sweep that moves little mass is not yet near the
// distribution where the chain mixes slowly: what is left to move is about the last
// sweep's mass times rho / (1 - rho), rho the mass's rate of decline per sweep
// (geometric near the end), which a slowly mixing chain has close to 1 (cluster
// N=512's: bench/NOTES.md, session 16). So the sweeps stop where that estimate, and
// the last sweep's mass itself, are within the tolerance; rho is measured over the
// last kRateWindow sweeps (fewer at the start), and no estimate is made where the mass
// has not declined.
class SweepStop {
 public:
  SweepStop(double tolerance, std::uint64_t max_sweeps) : tolerance_(tolerance), max_sweeps_(max_sweeps) {}

  // After a sweep that moved `moved` of mass in all: whether to stop. Says so in stats
  // (not converged where the last sweep allowed ran).
  bool after_sweep(double moved, SolveStats& stats) {
    ++sweeps_;
    recent_.push_back(moved);
    if (recent_.size() > kRateWindow + 1) recent_.pop_front();
    if (left_to_move() <= tolerance_) {
      stats.add_run(sweeps_);
      return true;
    }
    if (sweeps_ < max_sweeps_) return false;
    stats.add_run(max_sweeps_);
    stats.converged = false;
    return true;
  }

 private:
  static constexpr std::size_t kRateWindow = 64;

  // The last sweep's mass, times rho / (1 - rho) where that is above 1.
  double left_to_move() const {
    const double last = recent_.back();
    if (last == 0.0) return 0.0;
    if (recent_.size() < 2) return std::numeric_limits<double>::infinity();
    const double earlier = recent_.front();
    if (!(last < earlier)) return std::numeric_limits<double>::infinity();
    const double rho = std::pow(last / earlier, 1.0 / static_cast<double>(recent_.size() - 1));
    return last * std::max(1.0, rho / (1.0 - rho));
  }

  double tolerance_;
  std::uint64_t max_sweeps_;
  std::uint64_t sweeps_ = 0;
  std::deque<double> recent_;  // the last kRateWindow + 1 sweeps' mass, oldest first
};

// Rows this long are ordered in place; longer ones (a hub's predecessors) by std::sort.
constexpr std::uint64_t kLongestInsertionSort = 32;

// The model's entries of local state j, as visit(j, local successor, entry).
template <typename Visit>
void each_entry_of(const SparseMdp& mdp, const std::vector<std::uint32_t>& states,
                   const std::vector<std::uint32_t>& local, std::size_t j, const Visit& visit) {
  const std::uint32_t s = states[j];
  for (std::uint64_t k = mdp.row_starts[mdp.row_group_starts[s]]; k < mdp.row_starts[mdp.row_group_starts[s + 1]]; ++k) {
    visit(j, local[mdp.columns[k]], k);
  }
}

// One state's entries by j ascending (the atomic fill left them in any order; a
// state's j are distinct: a model's row has distinct columns).
void order_by_source(BottomChain& chain, std::size_t i, std::vector<std::pair<std::uint32_t, double>>& scratch) {
  const std::uint64_t begin = chain.starts[i], end = chain.starts[i + 1];
  std::uint32_t* from = chain.from.data();
  double* p = chain.probabilities.data();
  if (end - begin <= kLongestInsertionSort) {
    for (std::uint64_t a = begin + 1; a < end; ++a) {
      const std::uint32_t j = from[a];
      const double value = p[a];
      std::uint64_t b = a;
      for (; b > begin && from[b - 1] > j; --b) from[b] = from[b - 1], p[b] = p[b - 1];
      from[b] = j, p[b] = value;
    }
    return;
  }
  scratch.clear();
  for (std::uint64_t a = begin; a < end; ++a) scratch.emplace_back(from[a], p[a]);
  std::sort(scratch.begin(), scratch.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (std::uint64_t a = begin; a < end; ++a) from[a] = scratch[a - begin].first, p[a] = scratch[a - begin].second;
}

}  // namespace

BottomChain transpose_bottom(const SparseMdp& mdp, const std::vector<std::uint32_t>& states,
                             const std::vector<std::uint32_t>& local) {
  const std::size_t n = states.size();
  BottomChain chain;
  chain.starts.resize(n + 1);
  parallel_indices(0, n + 1, kStatesPerBlock, [&](std::size_t i) { chain.starts[i] = 0; });
  const auto each_entry = [&](const auto& visit) {
    parallel_indices(0, n, kStatesPerBlock, [&](std::size_t j) { each_entry_of(mdp, states, local, j, visit); });
  };
  each_entry([&](std::size_t, std::uint32_t i, std::uint64_t) {
    std::atomic_ref<std::uint64_t>(chain.starts[i + 1]).fetch_add(1, std::memory_order_relaxed);
  });
  parallel_running_totals(chain.starts.data() + 1, n);
  chain.from.resize(chain.starts[n]);
  chain.probabilities.resize(chain.starts[n]);
  PodVector<std::uint64_t> fill(n);
  parallel_indices(0, n, kStatesPerBlock, [&](std::size_t i) { fill[i] = chain.starts[i]; });
  each_entry([&](std::size_t j, std::uint32_t i, std::uint64_t k) {
    const std::uint64_t at = std::atomic_ref<std::uint64_t>(fill[i]).fetch_add(1, std::memory_order_relaxed);
    chain.from[at] = static_cast<std::uint32_t>(j);
    chain.probabilities[at] = mdp.values[k];
  });
  chain.leaving.assign(n, 1.0);
  oneapi::tbb::enumerable_thread_specific<std::vector<std::pair<std::uint32_t, double>>> scratch;
  parallel_indices(0, n, kStatesPerBlock, [&](std::size_t i) {
    order_by_source(chain, i, scratch.local());
    for (std::uint64_t e = chain.starts[i]; e < chain.starts[i + 1]; ++e) {
      if (chain.from[e] == i) chain.leaving[i] -= chain.probabilities[e];
    }
  });
  return chain;
}

namespace {

// Each state's probability of leaving itself, on one core: the references'.
std::vector<double> leaving_of(const SparseMdp& mdp, const std::vector<std::uint32_t>& states,
                               const std::vector<std::uint32_t>& local) {
  std::vector<double> leaving(states.size(), 1.0);
  for (std::size_t j = 0; j < states.size(); ++j) {
    each_entry_of(mdp, states, local, j, [&](std::size_t, std::uint32_t i, std::uint64_t k) {
      if (i == j) leaving[j] -= mdp.values[k];
    });
  }
  return leaving;
}

// Each state's mass over its probability of leaving itself, halved: what it sends along
// each of its entries per unit of their probability in a lazy embedded sweep.
void sent_per_probability(const std::vector<double>& z, const std::vector<double>& leaving, std::vector<double>& sent) {
  parallel_indices(0, z.size(), kStatesPerBlock, [&](std::size_t j) { sent[j] = 0.5 * z[j] / leaving[j]; });
}

}  // namespace

std::vector<double> from_embedded(std::vector<double> z, const std::vector<double>& leaving) {
  std::vector<double> block_sums(blocks_of(z.size()));
  parallel_indices(0, block_sums.size(), 1, [&](std::size_t b) {
    double sum = 0.0;
    for (std::size_t i = b * kStatesPerBlock; i < std::min(z.size(), (b + 1) * kStatesPerBlock); ++i) {
      sum += (z[i] /= leaving[i]);
    }
    block_sums[b] = sum;
  });
  const double total = std::accumulate(block_sums.begin(), block_sums.end(), 0.0);
  parallel_indices(0, z.size(), kStatesPerBlock, [&](std::size_t i) { z[i] /= total; });
  return z;
}

std::vector<double> lazy_power_sweeps(const BottomChain& chain, std::uint64_t max_sweeps, double tolerance,
                                      SolveStats& stats, SolveProgress* progress) {
  const std::size_t n = chain.size();
  if (n == 1) return {1.0};
  std::vector<double> z(n, 1.0 / static_cast<double>(n)), next(n), sent(n);
  std::vector<double> moved_in(blocks_of(n));
  SweepStop stop(tolerance, max_sweeps);
  for (std::uint64_t sweep = 1; sweep <= max_sweeps; ++sweep) {
    sent_per_probability(z, chain.leaving, sent);
    parallel_indices(0, moved_in.size(), 1, [&](std::size_t b) {
      double moved = 0.0;
      for (std::size_t i = b * kStatesPerBlock; i < std::min(n, (b + 1) * kStatesPerBlock); ++i) {
        // Each term in the order a push from j = 0 upwards adds it (the reference's).
        double value = 0.5 * z[i];
        for (std::uint64_t e = chain.starts[i]; e < chain.starts[i + 1]; ++e) {
          if (chain.from[e] != i) value += sent[chain.from[e]] * chain.probabilities[e];
        }
        next[i] = value;
        moved += std::abs(value - z[i]);
      }
      moved_in[b] = moved;
    });
    z.swap(next);
    const double moved = std::accumulate(moved_in.begin(), moved_in.end(), 0.0);
    note_progress(progress, 1, moved);
    if (stop.after_sweep(moved, stats)) return from_embedded(std::move(z), chain.leaving);
  }
  stats.converged = false;  // max_sweeps 0: no sweep ran
  return from_embedded(std::move(z), chain.leaving);
}

std::optional<gpu::PowerSweeps> device_power_sweeps(const DeviceSweeps& run, std::size_t states, std::uint64_t entries,
                                                    std::uint64_t max_sweeps, double tolerance, SolveStats& stats,
                                                    SolveReport* report, SolveProgress* progress) {
  SolveStats told;  // the stop's account, kept only where the device's run completes
  SweepStop stop(tolerance, max_sweeps);
  std::optional<gpu::PowerSweeps> swept = run(kStatesPerBlock, [&](double moved) {
    note_progress(progress, 1, moved);
    return stop.after_sweep(moved, told);
  });
  if (!swept) return std::nullopt;
  if (max_sweeps == 0) told.converged = false;  // no sweep ran: as the cores' say
  stats.merge(told);
  if (report) {
    add_device_run(*report, {states, entries, swept->sweeps, swept->upload_s, swept->solve_s, swept->device_bytes,
                             swept->in_use_bytes});
  }
  return swept;
}

namespace {

// The sweeps on the device from the host's chain, uploaded; none where no device took
// them (said in the log where one failed).
std::optional<std::vector<double>> power_sweeps_on_device(const BottomChain& chain, std::uint64_t max_sweeps,
                                                          double tolerance, SolveStats& stats, SolveReport* report,
                                                          SolveProgress* progress) {
  const gpu::TransposedChain arrays{chain.size(), chain.starts.data(), chain.from.data(), chain.probabilities.data(),
                                    chain.leaving.data()};
  try {
    std::optional<gpu::PowerSweeps> swept = device_power_sweeps(
        [&](std::uint64_t block_states, const std::function<bool(double)>& after_sweep) {
          return gpu::lazy_power_sweeps(arrays, max_sweeps, block_states, after_sweep);
        },
        chain.size(), chain.from.size(), max_sweeps, tolerance, stats, report, progress);
    if (!swept) return std::nullopt;
    return from_embedded(std::move(swept->z), chain.leaving);
  } catch (const gpu::DeviceError& error) {
    spdlog::warn("{}; the power sweeps run on the CPU instead", error.what());
    return std::nullopt;
  }
}

}  // namespace

std::vector<double> lazy_power_sweeps_on(const BottomChain& chain, std::uint64_t max_sweeps, double tolerance,
                                         const DeviceOptions& device, SolveStats& stats, SolveReport* report,
                                         SolveProgress* progress) {
  if (chain.size() > 1 && use_device_for(chain.size(), device)) {
    if (auto pi = power_sweeps_on_device(chain, max_sweeps, tolerance, stats, report, progress)) return std::move(*pi);
  }
  return lazy_power_sweeps(chain, max_sweeps, tolerance, stats, progress);
}

std::vector<double> lazy_power_sweeps_reference(const SparseMdp& mdp, const std::vector<std::uint32_t>& states,
                                                const std::vector<std::uint32_t>& local, std::uint64_t max_sweeps,
                                                double tolerance, SolveStats& stats) {
  const std::size_t n = states.size();
  if (n == 1) return {1.0};
  const std::vector<double> leaving = leaving_of(mdp, states, local);
  std::vector<double> z(n, 1.0 / static_cast<double>(n)), next(n);
  SweepStop stop(tolerance, max_sweeps);
  for (std::uint64_t sweep = 1; sweep <= max_sweeps; ++sweep) {
    for (std::size_t i = 0; i < n; ++i) next[i] = 0.5 * z[i];
    for (std::size_t j = 0; j < n; ++j) {
      const double sent = 0.5 * z[j] / leaving[j];
      each_entry_of(mdp, states, local, j, [&](std::size_t, std::uint32_t i, std::uint64_t k) {
        if (i != j) next[i] += sent * mdp.values[k];
      });
    }
    // The mass moved, summed per block as the parallel sweeps sum it: both stop alike.
    std::vector<double> moved_in(blocks_of(n), 0.0);
    for (std::size_t i = 0; i < n; ++i) moved_in[i / kStatesPerBlock] += std::abs(next[i] - z[i]);
    z.swap(next);
    if (stop.after_sweep(std::accumulate(moved_in.begin(), moved_in.end(), 0.0), stats)) {
      return from_embedded(std::move(z), leaving);
    }
  }
  stats.converged = false;  // max_sweeps 0: no sweep ran
  return from_embedded(std::move(z), leaving);
}

namespace {

// The system's frame: one row a state but the reference, one SCC, one level.
MaybeSystem embedded_frame(const std::vector<std::uint32_t>& states, std::size_t reference) {
  const std::size_t n = states.size();
  MaybeSystem system;
  system.row_group_starts.resize(n);
  parallel_indices(0, n, kStatesPerBlock, [&](std::size_t i) { system.row_group_starts[i] = i; });
  system.model_states.reserve(n - 1);
  system.model_states.insert(system.model_states.end(), states.begin(), states.begin() + reference);
  system.model_states.insert(system.model_states.end(), states.begin() + reference + 1, states.end());
  system.scc_starts = {0, n - 1};
  system.level_starts = {0, 1};
  return system;
}

}  // namespace

MaybeSystem embedded_system(const BottomChain& chain, const std::vector<std::uint32_t>& states, std::size_t reference) {
  const std::size_t n = chain.size();
  MaybeSystem system = embedded_frame(states, reference);
  // Row unknown(i) holds state i's entries from states other than the reference and itself.
  system.row_starts.resize(n);
  system.row_starts[0] = 0;
  parallel_indices(0, n, kStatesPerBlock, [&](std::size_t i) {
    if (i == reference) return;
    std::uint64_t kept = 0;
    for (std::uint64_t e = chain.starts[i]; e < chain.starts[i + 1]; ++e) {
      kept += chain.from[e] != reference && chain.from[e] != i;
    }
    system.row_starts[embedded_unknown(i, reference) + 1] = kept;
  });
  parallel_running_totals(system.row_starts.data() + 1, n - 1);
  const std::uint64_t entries = system.row_starts[n - 1];
  system.columns.resize(entries);
  PodVector<double> values(entries);
  system.row_constants.resize(n - 1);
  parallel_indices(0, n, kStatesPerBlock, [&](std::size_t i) {
    if (i == reference) return;
    const std::size_t row = embedded_unknown(i, reference);
    std::uint64_t at = system.row_starts[row];
    double constant = 0.0;
    for (std::uint64_t e = chain.starts[i]; e < chain.starts[i + 1]; ++e) {
      const std::uint32_t j = chain.from[e];
      if (j == i) continue;
      const double embedded = chain.probabilities[e] / chain.leaving[j];
      if (j == reference) {
        constant += embedded;
      } else {
        system.columns[at] = static_cast<std::uint32_t>(embedded_unknown(j, reference));
        values[at++] = embedded;
      }
    }
    system.row_constants[row] = constant;
  });
  system.values = CompactValues(std::move(values));
  return system;
}

MaybeSystem embedded_system_reference(const SparseMdp& mdp, const std::vector<std::uint32_t>& states,
                                      const std::vector<std::uint32_t>& local, std::size_t reference) {
  const std::size_t n = states.size();
  const std::vector<double> leaving = leaving_of(mdp, states, local);
  // Q^T row by row: the entries into each state i but the reference, from the others.
  std::vector<std::vector<std::pair<std::uint32_t, double>>> into(n);
  MaybeSystem system = embedded_frame(states, reference);
  system.row_constants.assign(n - 1, 0.0);
  for (std::size_t j = 0; j < n; ++j) {
    each_entry_of(mdp, states, local, j, [&](std::size_t, std::uint32_t i, std::uint64_t k) {
      if (i == reference || i == j) return;
      const double embedded = mdp.values[k] / leaving[j];
      if (j == reference) {
        system.row_constants[embedded_unknown(i, reference)] += embedded;
      } else {
        into[i].emplace_back(static_cast<std::uint32_t>(embedded_unknown(j, reference)), embedded);
      }
    });
  }
  system.row_starts.push_back(0);
  for (std::size_t i = 0; i < n; ++i) {
    if (i == reference) continue;
    for (const auto& [column, value] : into[i]) {
      system.columns.push_back(column);
      system.values.push_back(value);
    }
    system.row_starts.push_back(system.columns.size());
  }
  return system;
}

}  // namespace mdpvi
