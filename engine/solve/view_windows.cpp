#include "engine/solve/view_windows.h"

#include "engine/solve/kept_rows.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <stdexcept>

namespace mdpvi {

std::uint64_t window_bytes(const MaybeSystem& view, std::uint64_t first_state, std::uint64_t end_state) {
  const std::uint64_t rows = view.row_group_starts[end_state] - view.row_group_starts[first_state];
  const std::uint64_t entries = entries_before(view, end_state) - entries_before(view, first_state);
  return rows * (sizeof(std::uint64_t) + sizeof(double)) + entries * (sizeof(std::uint32_t) + sizeof(double));
}

std::vector<std::size_t> window_ends(const MaybeSystem& view, std::size_t first_scc, std::size_t end_scc,
                                     std::uint64_t budget_bytes) {
  const auto bytes = [&](std::size_t from, std::size_t to) {
    return window_bytes(view, view.scc_starts[from], view.scc_starts[to]);
  };
  std::vector<std::size_t> ends;
  for (std::size_t first = first_scc; first < end_scc;) {
    // The bytes only grow with the SCCs taken: the last end within the budget by
    // bisection, [first, fits) within it and [first, over) not.
    std::size_t fits = first + 1, over = end_scc + 1;
    while (over - fits > 1) {
      const std::size_t mid = fits + (over - fits) / 2;
      (bytes(first, mid) <= budget_bytes ? fits : over) = mid;
    }
    ends.push_back(fits);
    first = fits;
  }
  return ends;
}

ViewWindows::ViewWindows(MaybeSystem& system) : system_(system) {
  if (!system.view) throw std::logic_error("ViewWindows: the system is no view");
  const std::uint64_t rows = system.row_group_starts.back(), entries = system.view->entry_starts.back();
  system.row_starts.resize(rows + 1);
  system.row_constants.resize(rows);
  system.columns.resize(entries);
  system.values = PodVector<double>(entries);
}

void ViewWindows::write(StateRange states) {
  const SystemView& view = *system_.view;
  const SparseMdp& mdp = *view.model;
  const TwoValuedOutside outside = view.outside();
  double* values = system_.values.plain().data();
  mdp.values.visit([&](const auto& probability) {
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::uint64_t>(states.begin, states.end, 1 << 10),
                              [&](const auto& part) {
      for (std::uint64_t i = part.begin(); i < part.end(); ++i) {
        std::uint64_t row = system_.row_group_starts[i], entry = view.entry_starts[i];
        kept_rows(mdp, probability, system_.model_states[i], view.local_of, outside, view.rewards,
                  [&](std::uint64_t r, double constant) {
          system_.row_starts[row] = entry;
          for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
            const std::uint32_t t = view.local_of[mdp.columns[k]];
            if (t == kOutsideSystem) continue;
            system_.columns[entry] = t;
            values[entry] = probability(k);
            ++entry;
          }
          system_.row_constants[row++] = constant;
        });
      }
    });
  });
  // The end of the window's last row (the next state's first row's start).
  system_.row_starts[system_.row_group_starts[states.end]] = view.entry_starts[states.end];
}

void ViewWindows::release_before(std::uint64_t state) {
  const std::uint64_t row = system_.row_group_starts[state], entry = system_.view->entry_starts[state];
  released_row_starts_ = release_pages(system_.row_starts, released_row_starts_, row * sizeof(std::uint64_t));
  released_constants_ = release_pages(system_.row_constants, released_constants_, row * sizeof(double));
  released_columns_ = release_pages(system_.columns, released_columns_, entry * sizeof(std::uint32_t));
  released_values_ = release_pages(system_.values.plain(), released_values_, entry * sizeof(double));
}

}  // namespace mdpvi
