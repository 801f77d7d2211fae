#include "engine/model/uniformisation.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace mdpvi {

namespace {

using StateRange = oneapi::tbb::blocked_range<std::uint32_t>;

// The rate of leaving s: its row's entries into other states.
double leaving_rate(const SparseMdp& ctmc, std::uint32_t s) {
  double rate = 0.0;
  for (std::uint64_t k = ctmc.row_starts[s]; k < ctmc.row_starts[s + 1]; ++k) {
    if (ctmc.columns[k] != s) rate += ctmc.values[k];
  }
  return rate;
}

}  // namespace

double uniformisation_rate(const SparseMdp& ctmc) {
  const double largest = oneapi::tbb::parallel_reduce(
      StateRange(0, ctmc.num_states()), 0.0,
      [&](const StateRange& part, double most) {
        for (std::uint32_t s = part.begin(); s != part.end(); ++s) most = std::max(most, leaving_rate(ctmc, s));
        return most;
      },
      [](double a, double b) { return std::max(a, b); });
  return largest > 0.0 ? largest : 1.0;
}

void uniformise(SparseMdp& ctmc) {
  if (ctmc.type != ModelType::ctmc || ctmc.uniformisation_rate != 0.0 || ctmc.num_choices() != ctmc.num_states()) {
    throw std::invalid_argument("uniformise: expects a CTMC with one row per state, not yet uniformised");
  }
  const std::uint32_t n = ctmc.num_states();
  const double q = uniformisation_rate(ctmc);
  // Per state: its entries into other states, then its self-loop where P(s, s) > 0.
  std::vector<double> stay(n);
  PodVector<std::uint64_t> starts(n + 1);
  starts[0] = 0;
  oneapi::tbb::parallel_for(StateRange(0, n), [&](const StateRange& part) {
    for (std::uint32_t s = part.begin(); s != part.end(); ++s) {
      std::uint64_t off_diagonal = 0;
      double leave = 0.0;
      for (std::uint64_t k = ctmc.row_starts[s]; k < ctmc.row_starts[s + 1]; ++k) {
        if (ctmc.columns[k] == s) continue;
        ++off_diagonal;
        leave += ctmc.values[k] / q;
      }
      stay[s] = std::max(0.0, 1.0 - leave);
      starts[s + 1] = off_diagonal + (stay[s] > 0.0 ? 1 : 0);
    }
  });
  for (std::uint32_t s = 0; s < n; ++s) starts[s + 1] += starts[s];
  PodVector<std::uint32_t> columns(starts[n]);
  PodVector<double> values(starts[n]);
  oneapi::tbb::parallel_for(StateRange(0, n), [&](const StateRange& part) {
    for (std::uint32_t s = part.begin(); s != part.end(); ++s) {
      std::uint64_t at = starts[s];
      for (std::uint64_t k = ctmc.row_starts[s]; k < ctmc.row_starts[s + 1]; ++k) {
        if (ctmc.columns[k] == s) continue;
        columns[at] = ctmc.columns[k];
        values[at++] = ctmc.values[k] / q;
      }
      if (stay[s] > 0.0) columns[at] = s, values[at] = stay[s];
    }
  });
  ctmc.row_starts = PackedOffsets(starts);
  ctmc.columns = std::move(columns);
  ctmc.values = CompactValues(std::move(values));
  ctmc.values.compress();
  ctmc.uniformisation_rate = q;
}

SparseMdp embedded_chain(const SparseMdp& uniformised) {
  SparseMdp embedded;
  embedded.type = ModelType::dtmc;
  embedded.row_group_starts.push_back(0);
  embedded.row_starts.push_back(0);
  for (std::uint32_t s = 0; s < uniformised.num_states(); ++s) {
    const std::uint64_t r = uniformised.row_group_starts[s];
    double leaving = 0.0;
    for (std::uint64_t k = uniformised.row_starts[r]; k < uniformised.row_starts[r + 1]; ++k) {
      if (uniformised.columns[k] != s) leaving += uniformised.values[k];
    }
    for (std::uint64_t k = uniformised.row_starts[r]; k < uniformised.row_starts[r + 1]; ++k) {
      if (leaving > 0.0 && uniformised.columns[k] == s) continue;
      embedded.columns.push_back(uniformised.columns[k]);
      embedded.values.push_back(leaving > 0.0 ? uniformised.values[k] / leaving : 1.0);
    }
    embedded.row_starts.push_back(embedded.columns.size());
    embedded.row_group_starts.push_back(embedded.row_starts.size() - 1);
  }
  embedded.initial_states = uniformised.initial_states;
  return embedded;
}

}  // namespace mdpvi
