// SCCs of the maybe-states on all cores (graph/parallel_scc.h). The steps, after
// Multistep (Slota, Rajamanickam and Madduri, IPDPS 2014) and the coloring method of
// Orzan's thesis (2004), as ECL-SCC (SC23) does it on GPUs:
//   1. trim: a state without an edge in, or without an edge out, to another live
//      state is an SCC of its own; removing it may expose more (level-synchronous);
//   2. color: every live state takes the largest index that reaches it (max-label
//      propagation, the largest labels first, so that a state is colored about once);
//      a state whose color is its own index is a root, and the states of its color
//      that reach it backwards are exactly its SCC;
//   3. repeat 1-2 on what is left;
//   4. order: an SCC's height is the longest path from it to an SCC without
//      successors (Kahn's algorithm, a level at a time); sorting by height puts every
//      SCC after those it reaches. Ties go by representative (a singleton's state, a
//      colored SCC's root), so the order does not depend on the threads.
// SCCs are labelled by their representative while the decomposition runs: numbering
// them from one shared counter costs seconds of contention where most SCCs are
// single states.
#include "graph/parallel_scc.h"

#include "engine/model/bit_words.h"
#include "engine/model/parallel_indices.h"
#include "engine/model/process_memory.h"
#include "engine/model/stopwatch.h"
#include "graph/level_loop.h"
#include "graph/parallel_select.h"

#include <spdlog/spdlog.h>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/parallel_sort.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <limits>
#include <numeric>

namespace mdpvi::graph {

namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
using Vertices = std::vector<std::uint32_t>;   // lists of vertices: frontiers, the live ones
using Adjacency = PodVector<std::uint32_t>;
// One value per vertex (or per SCC): filled on all cores, or written before it is read,
// never zeroed by one thread first (which takes seconds an array on leader10's 1.5e9
// states).
using VertexArray = PodVector<std::uint32_t>;
using Offsets = PodVector<std::uint64_t>;

template <typename T>
PodVector<T> filled(std::size_t n, T value) {
  PodVector<T> array(n);
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, n, 1 << 16), [&](const auto& range) {
    std::fill(array.begin() + range.begin(), array.begin() + range.end(), value);
  });
  return array;
}

template <typename T>
std::atomic_ref<T> atomic(T& value) {
  return std::atomic_ref<T>(value);
}

// Model state -> local index: the states' bits and a count of members before each
// 64-bit word (a rank), 12 bytes for 64 states where a map would take 256, so that the
// look-up of every edge's end stays in far fewer cache lines and pages.
class LocalIndex {
 public:
  LocalIndex() = default;
  explicit LocalIndex(const StateSet& members) : words_(BitWords::of(members)), before_(words_.size() + 1) {
    std::uint32_t count = 0;
    for (std::size_t w = 0; w < words_.size(); ++w) {
      before_[w] = count;
      count += static_cast<std::uint32_t>(std::popcount(words_.data()[w]));
    }
    before_[words_.size()] = count;
  }
  Vertices members() const { return parallel_set_bits(words_.data(), words_.size()); }
  std::uint32_t operator[](std::uint32_t t) const {
    const std::uint64_t word = words_.data()[t >> 6];
    const unsigned bit = t & 63;
    if (!((word >> bit) & 1)) return kNone;
    return before_[t >> 6] + static_cast<std::uint32_t>(std::popcount(word & ((std::uint64_t{1} << bit) - 1)));
  }

 private:
  BitWords words_{0};
  PodVector<std::uint32_t> before_;
};

// The maybe-states' graph in local indices: the backward edges stored (CSR), the
// forward ones copied too or read from the model's rows through local_of. The copy
// costs 4 bytes an entry and 8 a state (43 GB on leader10, where the SCCs made the
// run's peak: bench/NOTES.md, session 20); reading the rows costs the trimming and
// coloring about half again their time.
struct LocalGraph {
  const SparseMdp* mdp = nullptr;
  const StateSet* enabled_rows = nullptr;
  Vertices states;                      // local -> model state
  LocalIndex local_of;                  // model state -> local, kNone outside
  Offsets in_offsets, out_offsets;  // out_offsets empty: forward edges from the model
  Adjacency in, out;  // filled in parallel, no serial zeroing first

  std::uint32_t size() const { return static_cast<std::uint32_t>(states.size()); }

  // emit(w) for every forward edge of local state v (one per entry, repeats included).
  template <typename Emit>
  void each_out(std::uint32_t v, Emit emit) const {
    if (!out_offsets.empty()) {
      for (std::uint64_t k = out_offsets[v]; k < out_offsets[v + 1]; ++k) emit(out[k]);
      return;
    }
    each_row_edge(v, emit);
  }
  template <typename Emit>
  void each_in(std::uint32_t v, Emit emit) const {
    for (std::uint64_t k = in_offsets[v]; k < in_offsets[v + 1]; ++k) emit(in[k]);
  }
  // Each row's end is the next one's start: the packed offsets are decoded once a row.
  template <typename Emit>
  void each_row_edge(std::uint32_t v, Emit emit) const {
    const std::uint32_t s = states[v];
    const std::uint64_t first_row = mdp->row_group_starts[s], end_row = mdp->row_group_starts[s + 1];
    std::uint64_t begin = mdp->row_starts[first_row];
    for (std::uint64_t r = first_row; r < end_row; ++r) {
      const std::uint64_t end = mdp->row_starts[r + 1];
      if (!enabled_rows || enabled_rows->test(r)) {
        for (std::uint64_t k = begin; k < end; ++k) {
          const std::uint32_t w = local_of[mdp->columns[k]];
          if (w != kNone) emit(w);
        }
      }
      begin = end;
    }
  }
};

bool copy_forward_edges(const SparseMdp& mdp, const StateSet& states, ForwardEdges forward) {
  if (forward != ForwardEdges::automatic) return forward == ForwardEdges::copied;
  return parallel_scc_bytes(mdp, states) <= unused_memory_bytes() / 2;
}

LocalGraph local_graph(const SparseMdp& mdp, const StateSet& maybe, const StateSet* enabled_rows, ForwardEdges forward) {
  LocalGraph g;
  g.mdp = &mdp;
  g.enabled_rows = enabled_rows;
  g.local_of = LocalIndex(maybe);
  g.states = g.local_of.members();
  const std::uint32_t n = g.size();
  const bool copied = copy_forward_edges(mdp, maybe, forward);
  if (copied) g.out_offsets = filled<std::uint64_t>(n + 1, 0);
  g.in_offsets = filled<std::uint64_t>(n + 1, 0);
  // In-degrees counted at w itself, then summed inclusively: in_offsets[w] is where
  // w's in-edges end, and the fill below moves it down to where they start. No copy of
  // the offsets to fill from (8 bytes a state at the SCCs' peak: 12 GB on leader10).
  oneapi::tbb::parallel_for(std::uint32_t{0}, n, [&](std::uint32_t v) {
    g.each_row_edge(v, [&](std::uint32_t w) {
      if (copied) ++g.out_offsets[v + 1];
      atomic(g.in_offsets[w]).fetch_add(1, std::memory_order_relaxed);
    });
  });
  if (copied) parallel_running_totals(g.out_offsets.data(), g.out_offsets.size());
  parallel_running_totals(g.in_offsets.data(), n);
  g.in_offsets[n] = n == 0 ? 0 : g.in_offsets[n - 1];
  g.in.resize(g.in_offsets[n]);
  if (copied) g.out.resize(g.out_offsets[n]);
  oneapi::tbb::parallel_for(std::uint32_t{0}, n, [&](std::uint32_t v) {
    std::uint64_t k = copied ? g.out_offsets[v] : 0;
    g.each_row_edge(v, [&](std::uint32_t w) {
      if (copied) g.out[k++] = w;
      g.in[atomic(g.in_offsets[w]).fetch_sub(1, std::memory_order_relaxed) - 1] = v;
    });
  });
  if (copied) g.local_of = LocalIndex();  // the rows are not read again
  return g;
}

// The edges' memory back, once nothing reads them (the SCCs' order needs the states only).
void release_edges(LocalGraph& g) {
  g.in = Adjacency();
  g.out = Adjacency();
  g.local_of = LocalIndex();
  g.in_offsets = Offsets();
  g.out_offsets = Offsets();
}

// The decomposition under way: each vertex's SCC, by representative (kNone while live).
class Decomposer {
 public:
  // color_ and batch_of_ are written for the live vertices before they are read, every
  // round: no filling.
  explicit Decomposer(const LocalGraph& g)
      : g_(g), scc_of_(filled<std::uint32_t>(g.size(), kNone)), color_(g.size()), batch_of_(g.size()) {}

  void run() {
    Vertices live(g_.size());
    std::iota(live.begin(), live.end(), 0u);
    while (!live.empty()) {
      ++rounds_;
      const auto start = std::chrono::steady_clock::now();
      trim(live);
      live = still_live(live);
      trim_s_ += seconds_since(start);
      const auto trimmed = std::chrono::steady_clock::now();
      color_and_peel(live);
      live = still_live(live);
      color_s_ += seconds_since(trimmed);
    }
  }

  const VertexArray& representatives() const { return scc_of_; }
  int rounds() const { return rounds_; }
  double trim_seconds() const { return trim_s_; }
  double coloring_seconds() const { return color_s_; }

 private:
  bool is_live(std::uint32_t v) { return atomic(scc_of_[v]).load(std::memory_order_relaxed) == kNone; }
  // Makes v an SCC of its own; true for the one caller that did.
  bool take_singleton(std::uint32_t v) {
    std::uint32_t expected = kNone;
    return atomic(scc_of_[v]).compare_exchange_strong(expected, v);
  }

  // Counts the live neighbours other than itself, in and out; vertices with none on
  // either side are singletons, and so, in turn, are those they leave without any.
  // The counts live in the coloring's arrays, which the coloring writes afresh before
  // it reads them (8 bytes a state less at the SCCs' peak: bench/NOTES.md, session 25).
  void trim(const Vertices& live) {
    VertexArray& in_count = color_;
    VertexArray& out_count = batch_of_;
    oneapi::tbb::parallel_for(std::size_t{0}, live.size(), [&](std::size_t i) {
      const std::uint32_t v = live[i];
      in_count[v] = live_neighbours(v, [&](auto f) { g_.each_in(v, f); });
      out_count[v] = live_neighbours(v, [&](auto f) { g_.each_out(v, f); });
    });
    oneapi::tbb::enumerable_thread_specific<Vertices> parts;
    oneapi::tbb::parallel_for(std::size_t{0}, live.size(), [&](std::size_t i) {
      const std::uint32_t v = live[i];
      if ((in_count[v] == 0 || out_count[v] == 0) && take_singleton(v)) parts.local().push_back(v);
    });
    Vertices frontier;
    for (const Vertices& part : parts) frontier.insert(frontier.end(), part.begin(), part.end());
    level_by_level(std::move(frontier), [&](std::uint32_t v, Vertices& next) {
      release(v, [&](auto f) { g_.each_out(v, f); }, in_count, next);
      release(v, [&](auto f) { g_.each_in(v, f); }, out_count, next);
    });
  }

  // each_neighbour(f) calls f(w) for each neighbour w of v on one side.
  template <typename EachNeighbour>
  std::uint32_t live_neighbours(std::uint32_t v, EachNeighbour each_neighbour) {
    std::uint32_t count = 0;
    each_neighbour([&](std::uint32_t w) { count += w != v && is_live(w); });
    return count;
  }

  // v has left: each live neighbour w loses one count; at 0 it is a singleton too.
  template <typename EachNeighbour>
  void release(std::uint32_t v, EachNeighbour each_neighbour, VertexArray& counts, Vertices& next) {
    each_neighbour([&](std::uint32_t w) {
      if (w == v || !is_live(w)) return;
      if (atomic(counts[w]).fetch_sub(1) == 1 && take_singleton(w)) next.push_back(w);
    });
  }

  // Each live vertex's color: the largest live vertex that reaches it. Propagating
  // every label at once (Orzan) raises a state's color many times over.
  // Here labels go out largest first, in batches of 1, 2, 4, ... sources (the largest
  // live vertices not yet colored): a vertex first reached in a batch is colored
  // within it, and no later batch has a label that large, so it is never visited
  // again. A vertex colored before its turn is no source: whatever it reaches, the
  // larger label that reached it reaches too.
  void color_by_largest_first(const Vertices& live) {
    oneapi::tbb::parallel_for(std::size_t{0}, live.size(), [&](std::size_t i) {
      color_[live[i]] = 0;
      batch_of_[live[i]] = 0;
    });
    std::size_t next_source = live.size();  // live is in increasing order: sources from its end
    std::uint32_t batch = 0;
    for (std::size_t batch_size = 1; next_source > 0; batch_size *= 2) {
      ++batch;
      Vertices sources;
      while (next_source > 0 && sources.size() < batch_size) {
        const std::uint32_t v = live[--next_source];
        if (batch_of_[v] != 0) continue;  // colored by a larger label
        batch_of_[v] = batch;
        color_[v] = v;
        sources.push_back(v);
      }
      level_by_level(std::move(sources), [&](std::uint32_t v, Vertices& next) {
        const std::uint32_t c = atomic(color_[v]).load(std::memory_order_relaxed);
        g_.each_out(v, [&](std::uint32_t w) {
          if (!is_live(w) || !claim_for(w, batch)) return;
          std::uint32_t seen = atomic(color_[w]).load(std::memory_order_relaxed);
          while (seen < c && !atomic(color_[w]).compare_exchange_weak(seen, c)) {
          }
          if (seen < c) next.push_back(w);
        });
      });
    }
  }

  // True when w belongs to this batch: colored in it already, or not at all until now
  // (then it is now; its color starts at 0, below every label that can reach it).
  bool claim_for(std::uint32_t w, std::uint32_t batch) {
    std::uint32_t owner = atomic(batch_of_[w]).load(std::memory_order_relaxed);
    if (owner == 0 && atomic(batch_of_[w]).compare_exchange_strong(owner, batch)) return true;
    return owner == batch;
  }

  // Max-label coloring, then each root's SCC backwards.
  void color_and_peel(const Vertices& live) {
    if (live.empty()) return;
    color_by_largest_first(live);
    Vertices roots = parallel_select_from(live, [&](std::uint32_t v) { return color_[v] == v; });
    oneapi::tbb::parallel_for(std::size_t{0}, roots.size(), [&](std::size_t i) { scc_of_[roots[i]] = roots[i]; });
    level_by_level(std::move(roots), [&](std::uint32_t v, Vertices& next) {
      const std::uint32_t scc = scc_of_[v];
      g_.each_in(v, [&](std::uint32_t u) {
        std::uint32_t expected = kNone;  // u's color is read only while u is live: it was colored this round
        if (is_live(u) && color_[u] == color_[v] && atomic(scc_of_[u]).compare_exchange_strong(expected, scc)) {
          next.push_back(u);
        }
      });
    });
  }

  Vertices still_live(const Vertices& live) const {
    return parallel_select_from(live, [&](std::uint32_t v) { return scc_of_[v] == kNone; });
  }

  const LocalGraph& g_;
  VertexArray scc_of_;
  VertexArray color_;     // in the trim: each live vertex's live in-neighbours
  VertexArray batch_of_;  // the coloring batch that reached each vertex first, 0 none yet; in the trim: live out-neighbours
  int rounds_ = 0;
  double trim_s_ = 0.0, color_s_ = 0.0;
};

// SCC numbers 0, 1, ... in increasing order of representative, per vertex, and how many.
VertexArray dense_numbers(const VertexArray& representative, std::uint32_t& count) {
  const std::uint32_t n = static_cast<std::uint32_t>(representative.size());
  VertexArray number(n);  // read at representatives only, each written first
  parallel_for_each_kept(
      n, [&](std::size_t v) { return representative[v] == v; },
      [&](std::size_t kept) { count = static_cast<std::uint32_t>(kept); },
      [&](std::size_t v, std::size_t k) { number[v] = static_cast<std::uint32_t>(k); });
  oneapi::tbb::parallel_for(std::uint32_t{0}, n, [&](std::uint32_t v) {
    if (representative[v] != v) number[v] = number[representative[v]];
  });
  return number;
}

// The vertices of each SCC, in increasing order: vertices[starts[c] .. starts[c+1]).
struct SccMembers {
  Offsets starts;
  VertexArray vertices;
};

SccMembers members_of(const VertexArray& scc_of, std::uint32_t count) {
  const std::uint32_t n = static_cast<std::uint32_t>(scc_of.size());
  SccMembers m{filled<std::uint64_t>(std::size_t{count} + 1, 0), VertexArray(n)};
  if (count == n) {  // every SCC a single state (acyclic, as csma's): the inverse permutation
    oneapi::tbb::parallel_for(std::uint32_t{0}, n, [&](std::uint32_t v) {
      m.starts[scc_of[v] + 1] = 1;
      m.vertices[scc_of[v]] = v;
    });
    parallel_running_totals(m.starts.data(), m.starts.size());
    return m;
  }
  // A counting sort: sizes counted, each vertex put at its SCC's next free place (in any
  // order, on all cores), then each SCC of several vertices sorted.
  oneapi::tbb::parallel_for(std::uint32_t{0}, n, [&](std::uint32_t v) {
    atomic(m.starts[scc_of[v] + 1]).fetch_add(1, std::memory_order_relaxed);
  });
  parallel_running_totals(m.starts.data(), m.starts.size());
  {
    Offsets next(count);
    oneapi::tbb::parallel_for(std::uint32_t{0}, count, [&](std::uint32_t c) { next[c] = m.starts[c]; });
    oneapi::tbb::parallel_for(std::uint32_t{0}, n, [&](std::uint32_t v) {
      m.vertices[atomic(next[scc_of[v]]).fetch_add(1, std::memory_order_relaxed)] = v;
    });
  }
  oneapi::tbb::parallel_for(std::uint32_t{0}, count, [&](std::uint32_t c) {
    if (m.starts[c + 1] - m.starts[c] > 1) {
      oneapi::tbb::parallel_sort(m.vertices.begin() + m.starts[c], m.vertices.begin() + m.starts[c + 1]);
    }
  });
  return m;
}

// SCC numbers by height, numbers of one height in increasing order: a stable counting
// sort on all cores (serially, a hundred million SCCs take seconds). Each of a few
// blocks of consecutive numbers counts its heights; the counts' running total in
// (height, block) order is where each block puts its SCCs of each height. Fewer blocks
// where the heights are many (a long chain), so that the counts stay within 4n.
Vertices by_height(const VertexArray& height) {
  using Range = oneapi::tbb::blocked_range<std::size_t>;
  const std::size_t n = height.size();
  if (n == 0) return {};
  const std::size_t heights = 1 + oneapi::tbb::parallel_reduce(
      Range(0, n, 1 << 16), std::uint32_t{0},
      [&](const Range& part, std::uint32_t most) {
        for (std::size_t c = part.begin(); c < part.end(); ++c) most = std::max(most, height[c]);
        return most;
      },
      [](std::uint32_t a, std::uint32_t b) { return std::max(a, b); });
  constexpr std::size_t kMostBlocks = 64, kLeastPerBlock = std::size_t{1} << 16;
  const std::size_t blocks = std::max<std::size_t>(1, std::min({kMostBlocks, n / kLeastPerBlock, 4 * n / heights}));
  const auto block_range = [&](std::size_t b) { return Range(n * b / blocks, n * (b + 1) / blocks); };
  // at[h * blocks + b]: block b's count of height h, then where its first one goes.
  std::vector<std::uint64_t> at(heights * blocks, 0);
  oneapi::tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
    const Range part = block_range(b);
    for (std::size_t c = part.begin(); c < part.end(); ++c) ++at[height[c] * blocks + b];
  });
  std::exclusive_scan(at.begin(), at.end(), at.begin(), std::uint64_t{0});
  Vertices ranked(n);
  oneapi::tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
    const Range part = block_range(b);
    for (std::size_t c = part.begin(); c < part.end(); ++c) ranked[at[height[c] * blocks + b]++] = static_cast<std::uint32_t>(c);
  });
  return ranked;
}

// Each SCC's height: 0 without edges to other SCCs, else one more than the highest it
// reaches. Kahn's algorithm backwards from the SCCs of height 0, a level at a time.
VertexArray heights(const LocalGraph& g, const VertexArray& scc_of, std::uint32_t count, const SccMembers& members) {
  VertexArray outside = filled<std::uint32_t>(count, 0), height = filled<std::uint32_t>(count, 0);
  oneapi::tbb::parallel_for(std::uint32_t{0}, g.size(), [&](std::uint32_t v) {
    g.each_out(v, [&](std::uint32_t w) {
      if (scc_of[w] != scc_of[v]) atomic(outside[scc_of[v]]).fetch_add(1, std::memory_order_relaxed);
    });
  });
  Vertices frontier = parallel_select(
      count, [&](std::size_t c) { return outside[c] == 0; }, [](std::size_t c) { return static_cast<std::uint32_t>(c); });
  level_by_level(std::move(frontier), [&](std::uint32_t c, Vertices& next) {
    for (std::uint64_t i = members.starts[c]; i < members.starts[c + 1]; ++i) {
      const std::uint32_t v = members.vertices[i];
      g.each_in(v, [&](std::uint32_t u) {
        const std::uint32_t p = scc_of[u];
        if (p == c) return;
        if (atomic(outside[p]).fetch_sub(1) == 1) {
          height[p] = height[c] + 1;  // the last edge out of p to be released is from its highest successor's level
          next.push_back(p);
        }
      });
    }
  });
  return height;
}

}  // namespace

std::uint64_t parallel_scc_bytes(const SparseMdp& mdp, const StateSet& states) {
  const std::uint64_t n = states.count();
  const double share = mdp.num_states() == 0 ? 0.0 : static_cast<double>(n) / mdp.num_states();
  return n * 60 + static_cast<std::uint64_t>(share * static_cast<double>(mdp.num_transitions()) * 8);
}

std::vector<std::uint32_t> parallel_scc_labels(const SparseMdp& mdp, const StateSet& states,
                                               const StateSet* enabled_rows, ForwardEdges forward) {
  std::vector<std::uint32_t> label(mdp.num_states(), kNone);
  const LocalGraph g = local_graph(mdp, states, enabled_rows, forward);
  if (g.size() == 0) return label;
  Decomposer decomposer(g);
  decomposer.run();
  const VertexArray& representative = decomposer.representatives();
  oneapi::tbb::parallel_for(std::uint32_t{0}, g.size(), [&](std::uint32_t v) {
    label[g.states[v]] = g.states[representative[v]];
  });
  return label;
}

SccDecomposition parallel_maybe_state_sccs(const SparseMdp& mdp, const StateSet& maybe, const StateSet* enabled_rows,
                                           std::vector<std::uint32_t>* scc_heights, ForwardEdges forward) {
  SccDecomposition result;
  result.scc_starts.assign(1, 0);
  result.ran_on = to_string(SearchKind::cpu_parallel);
  auto start = std::chrono::steady_clock::now();
  LocalGraph g = local_graph(mdp, maybe, enabled_rows, forward);
  if (g.size() == 0) return result;
  const double graph_s = seconds_since(start);
  // Each array goes as soon as nothing reads it: on leader10 (1.5e9 states) these
  // steps hold 4-12 GB an array, and the run's peak is here (bench/NOTES.md, session 20).
  std::uint32_t count = 0;
  int rounds = 0;
  double decompose_s = 0.0, trim_s = 0.0, coloring_s = 0.0;
  VertexArray scc_of;
  {
    Decomposer decomposer(g);
    decomposer.run();
    rounds = decomposer.rounds();
    trim_s = decomposer.trim_seconds();
    coloring_s = decomposer.coloring_seconds();
    decompose_s = seconds_since(start) - graph_s;
    scc_of = dense_numbers(decomposer.representatives(), count);
  }
  const SccMembers members = members_of(scc_of, count);
  const double members_s = seconds_since(start) - graph_s - decompose_s;
  const VertexArray height = heights(g, scc_of, count, members);
  release_edges(g);
  scc_of = VertexArray();
  const double heights_s = seconds_since(start) - graph_s - decompose_s - members_s;
  const std::vector<std::uint32_t> ranked = by_height(height);
  result.scc_starts.resize(count + 1);
  result.order.resize(g.size());
  std::vector<std::uint32_t> sorted_heights(count);
  oneapi::tbb::parallel_for(std::uint32_t{0}, count, [&](std::uint32_t i) {
    const std::uint32_t c = ranked[i];
    result.scc_starts[i + 1] = members.starts[c + 1] - members.starts[c];
    sorted_heights[i] = height[c];
  });
  parallel_running_totals(result.scc_starts.data(), result.scc_starts.size());
  result.level_starts = level_starts_of(sorted_heights);
  if (scc_heights) *scc_heights = std::move(sorted_heights);
  oneapi::tbb::parallel_for(std::uint32_t{0}, count, [&](std::uint32_t i) {
    const std::uint32_t c = ranked[i];
    for (std::uint64_t k = members.starts[c]; k < members.starts[c + 1]; ++k) {
      result.order[result.scc_starts[i] + (k - members.starts[c])] = g.states[members.vertices[k]];
    }
  });
  spdlog::debug("parallel SCCs of {} states: {} SCCs; graph {:.3f} s, {} rounds of trim and coloring {:.3f} s "
                "(trim {:.3f}, coloring {:.3f}), "
                "members {:.3f} s, heights {:.3f} s, order {:.3f} s; {}",
                g.size(), count, graph_s, rounds, decompose_s, trim_s, coloring_s, members_s, heights_s,
                seconds_since(start) - graph_s - decompose_s - members_s - heights_s, memory_so_far());
  return result;
}

}  // namespace mdpvi::graph
