#include "engine/explore/model_builder.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>

#include "engine/explore/block_rows.h"
#include "engine/explore/build_limits.h"
#include "engine/explore/build_phases.h"
#include "engine/explore/initial_states.h"
#include "engine/explore/model_index.h"
#include "engine/explore/model_values.h"
#include "engine/explore/state_expander.h"
#include "engine/explore/state_labels.h"
#include "engine/explore/state_table.h"
#include "engine/model/process_memory.h"
#include "engine/model/stopwatch.h"
#include "engine/explore/wave_budget.h"

#include <spdlog/spdlog.h>

#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <limits>
#include <span>
#include <thread>

namespace mdpvi {

namespace {

// Breadth-first exploration in waves of consecutive states, each wave in three
// parallel passes over blocks of its states:
// (A) each block expands its states into packed successors, looks them up in the
//     state table, claiming the new ones with their position in the wave, and merges
//     the equal successors of each choice;
// (B) only now, every look-up done, is each claim's smallest position final: each
//     block finds the claims it won and renames them in their slots to (block, rank);
// (C) a prefix over the blocks gives each its first new index and its place in the
//     CSR; each block numbers its new states (so the numbering is that of a
//     sequential breadth-first search, whatever the threads did), gives every entry
//     its index and writes its rows into the CSR.
class LevelBuilder {
 public:
  LevelBuilder(const ResolvedModel& model, const BuildOptions& options)
      : index_(model),
        model_(model),
        table_(index_.layout.words()),
        experts_([this, options] { return StateExpander(index_, options.cache_local_transitions); }),
        verbose_(options.verbose),
        keep_actions_(options.keep_actions),
        keep_valuations_(options.keep_valuations),
        compact_values_(options.compact_values),
        values_(model),
        limits_(options.state_limit, options.memory_limit),
        label_names_(options.labels) {}

  BuiltModel run() {
    auto start = std::chrono::steady_clock::now();
    BuiltModel built;
    SparseMdp& mdp = built.mdp;
    mdp.type = model_.type;
    if (keep_actions_) {
      mdp.actions.emplace();
      mdp.actions->names.push_back("");
      mdp.actions->names.insert(mdp.actions->names.end(), model_.actions.begin(), model_.actions.end());
    }
    add_initial_states(mdp);
    start_csr(mdp);
    std::vector<ExpandedBlock> pool;  // grows to the widest wave, reused
    ProgressClock progress;
    // Waves of consecutive discovered states, in order: any such wave keeps the
    // numbering of a sequential breadth-first search, and bounding it bounds the
    // memory of the block pool.
    for (std::uint64_t wave = 0; wave < table_.size(); ++built.statistics.waves) {
      const std::uint64_t wave_end = std::min<std::uint64_t>(table_.size(), wave + next_wave_width(mdp, pool));
      const std::uint64_t block_states = states_per_block(wave_end - wave);
      const std::size_t count = (wave_end - wave + block_states - 1) / block_states;
      if (pool.size() < count) pool.resize(count);
      std::span<ExpandedBlock> blocks(pool.data(), count);
      for (std::size_t b = 0; b < count; ++b) {
        std::uint64_t first = wave + b * block_states;
        blocks[b].reset(first, std::min(wave_end, first + block_states));
      }
      // Populating the wave's room runs beside all three phases: it takes one thread,
      // and the claims and number-and-write phases leave threads idle. A wave of one
      // block has one thread at work, which may as well meet its pages itself: a deep,
      // narrow model has a wave per state, and the system calls would cost more than
      // the wave.
      oneapi::tbb::task_group ahead;
      if (count > 1) {
        ahead.run([this, room = room_ahead(mdp, wave_end - wave)] {
          phases_.add(phases_.populate_s, [&] {
            for (const PageRange& range : room) populate(range);
          });
        });
      }
      const bool wide = count > 1;  // its page faults counted for -v
      timed(0, [&] {
        // Room for the wave's claims, guessed: a level is rarely more than twice the
        // one before (take_room has more, and grow_in_wave the rest).
        phases_.add(phases_.table_growth_s, [&] { table_.reserve(2 * (wave_end - wave)); });
        expand_and_look_up(blocks);
        finish_deferred_look_ups(blocks);
      }, wide);
      timed(1, [&] { count_won_claims(blocks); }, wide);
      timed(2, [&] { number_and_write(blocks, mdp); }, wide);
      phases_.add(phases_.populate_wait_s, [&] { ahead.wait(); });
      widest_wave_ = std::max(widest_wave_, wave_end - wave);
      wave = wave_end;
      check_limits(mdp, pool, wave, built.statistics.waves + 1);
      // A clock read a wave would cost a deep, narrow model (a wave per state) dearly.
      if ((count > 1 || built.statistics.waves % 64 == 0) && progress.due()) {
        spdlog::info("building: {} states explored, {} found, {:.0f} s ({:.2g} states/s)", wave, table_.size(),
                     progress.elapsed_s(), static_cast<double>(wave) / progress.elapsed_s());
      }
      built.statistics.table_bytes = std::max(built.statistics.table_bytes, table_.memory_bytes());
    }
    log("build: block pool of {} blocks, {:.1f} MB", pool.size(), pool_bytes(pool) / 1e6);
    built.statistics.deadlocks = deadlocks_.size();
    timed(3, [&] { finish(mdp); });
    built.statistics.waves_growing_table = growths_in_waves_;
    log("build: {} waves, the widest {} states, {} of them grew the table while claiming", built.statistics.waves,
                  widest_wave_, growths_in_waves_);
    log_phases();
    std::uint64_t lookups = 0, misses = 0;
    for (const StateExpander& expander : experts_) {
      lookups += expander.cache_statistics().first;
      misses += expander.cache_statistics().second;
    }
    log("local transition caches: {} look-ups, {} misses", lookups, misses);
    built.statistics.seconds = seconds_since(start);
    return built;
  }

 private:
  template <typename... Args>
  void log(spdlog::format_string_t<Args...> format, Args&&... args) const {
    if (verbose_) spdlog::info(format, std::forward<Args>(args)...);
  }

  void log_phases() const {
    const BuildPhases& p = phases_;
    log("build phases: expand and look up {:.3f} s, claims {:.3f} s, number and write {:.3f} s, finish {:.3f} s",
        p.seconds[0], p.seconds[1], p.seconds[2], p.seconds[3]);
    log("build growing the table {:.3f} s, populating ahead {:.3f} s, waited for it {:.3f} s", p.table_growth_s,
        p.populate_s, p.populate_wait_s);
    log("build page faults (waves of several blocks): expand and look up {}, claims {}, number and write {}, finish {}",
        p.faults[0], p.faults[1], p.faults[2], p.faults[3]);
    auto busy = [&](int phase) { return 100.0 * p.busy_ns[phase] * 1e-9 / (p.seconds[phase] * threads()); };
    log("build threads busy in blocks ({} threads): expand and look up {:.0f}%, claims {:.0f}%, number and write {:.0f}%",
        threads(), busy(0), busy(1), busy(2));
    log("build thread time in the first phase: expand {:.3f} s, repeats {:.3f} s, look up {:.3f} s, merge {:.3f} s",
        p.part_ns[0] * 1e-9, p.part_ns[1] * 1e-9, p.part_ns[2] * 1e-9, p.part_ns[3] * 1e-9);
  }

  // Blocks are the unit of parallel work. A wave is at most a breadth-first level,
  // and levels can be narrow, so blocks shrink to give each thread several (else
  // many threads get one block each, or none).
  // Larger blocks share more repeated successors (RepeatFinder), and at most
  // kMostBlocks fit a wave position.
  static constexpr std::uint64_t kBlockStates = 512, kLeastBlockStates = 32, kBlocksPerThread = 8;
  static constexpr std::uint64_t kMostBlocks = 512;
  std::uint64_t states_per_block(std::uint64_t wave_states) const {
    auto ceil_div = [](std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; };
    const std::uint64_t least = std::max(kLeastBlockStates, ceil_div(wave_states, kMostBlocks));
    return std::clamp(ceil_div(wave_states, threads() * kBlocksPerThread), least, kBlockStates);
  }
  // Waves of 2^14 states per thread, at most 2^18: wide enough that many threads
  // share them with few barriers, narrow enough that the block pool stays small
  // beside the model; narrower waves cost time in barriers. A single thread waits for
  // no other at a wave's end, so its waves are 2^12 states, which lowers the peak for
  // free. (The measurements behind these sizes: bench/NOTES.md.)
  static constexpr std::uint64_t kMostWaveStates = std::uint64_t{1} << 18;
  static constexpr std::uint64_t kSingleThreadWaveStates = std::uint64_t{1} << 12;
  // The arena build_model runs the builder in holds BuildOptions::threads.
  static std::uint64_t threads() { return oneapi::tbb::this_task_arena::max_concurrency(); }
  const std::uint64_t wave_states_ =
      threads() == 1 ? kSingleThreadWaveStates : std::min((std::uint64_t{1} << 14) * threads(), kMostWaveStates);
  // The block pool grows to hold the widest wave, and with wide levels and many
  // threads it held half the model's size again. So waves are also held to a pool
  // budget, an eighth of the model so far and at least 8 MB (see next_wave_states).
  // The pool still ends at 2-3x its budget (a block keeps the capacity of the most it
  // ever held), but the peak fell at no cost in time (bench/NOTES.md, session 10). A
  // single thread's waves are narrow already.
  const WaveBudget wave_budget_{std::min(kSingleThreadWaveStates, wave_states_), wave_states_, std::size_t{8} << 20, 8};
  std::uint64_t widest_wave_ = 0;  // the most states a wave held so far
  std::uint64_t next_wave_width(const SparseMdp& mdp, std::span<const ExpandedBlock> pool) const {
    return next_wave_states(wave_budget_, pool_bytes(pool), widest_wave_, model_bytes(mdp));
  }
  // Ends the build with BuildLimitReached past BuildOptions::state_limit or memory_limit.
  void check_limits(const SparseMdp& mdp, std::span<const ExpandedBlock> pool, std::uint64_t explored,
                    std::uint64_t waves) {
    limits_.check_wave(table_.size(), explored, waves, model_bytes(mdp) + pool_bytes(pool));
  }
  // The model's arrays and the state table (the builder's own buffers aside).
  std::size_t model_bytes(const SparseMdp& mdp) const {
    return mdp.row_group_starts.bytes() + mdp.row_starts.bytes() + 4 * mdp.columns.size() + values_.bytes() +
           table_.memory_bytes();
  }
  static std::size_t pool_bytes(std::span<const ExpandedBlock> pool) {
    std::size_t bytes = 0;
    for (const ExpandedBlock& block : pool) bytes += block.capacity_bytes();
    return bytes;
  }
  // A successor's position in its wave, (block << kOffsetBits) | offset, orders the
  // wave's successors as a sequential search meets them, and must fit a claim.
  static constexpr std::uint32_t kOffsetBits = 22;
  static constexpr std::uint64_t kMostBlockSuccessors = (std::uint64_t{1} << kOffsetBits) - 1;
  static_assert(kMostWaveStates <= kMostBlocks * kBlockStates);
  static_assert(((kMostBlocks - 1) << kOffsetBits | (kMostBlockSuccessors - 1)) <=
                StateTable::kMaxPosition);
  // A target not known before the wave: the table slot its state was claimed in.
  static constexpr std::uint64_t kClaimedTarget = std::uint64_t{1} << 63;
  // A repeated successor, with the offset of its first occurrence in the block.
  static constexpr std::uint64_t kRepeatTarget = std::uint64_t{1} << 61;
  // Room in the table is taken for this many claims at a time (take_room).
  static constexpr std::uint64_t kRoomPerTake = 64;
  // How far ahead look-ups have their state fetched into the cache; their slot is
  // fetched twice as far ahead.
  static constexpr std::size_t kPrefetchDistance = 8;

  // work(b) for every block b of a wave, in parallel, adding the time spent in work
  // to the phase's busy time: beside the phase's wall time it shows how much of the
  // threads' time goes to waiting (-v prints both).
  //
  // One affinity partitioner for all phases: a block's phases then tend to run on one
  // thread, whose cache holds what the previous phase wrote into the block (with many
  // threads a block's work otherwise takes far longer than alone).
  template <typename Work>
  void each_block(std::size_t count, int phase, const Work& work) {
    if (count == 1) {  // a narrow wave: no scheduling for one block
      PartClock clock(phases_.busy_clock());
      work(0);
      clock.lap(phase);
      return;
    }
    using Range = oneapi::tbb::blocked_range<std::size_t>;
    oneapi::tbb::parallel_for(
        Range(0, count, 1),
        [&](const Range& range) {
          PartClock clock(phases_.busy_clock());
          for (std::size_t b = range.begin(); b < range.end(); ++b) work(b);
          clock.lap(phase);
        },
        affinity_);
  }

  template <typename Work>
  void timed(int phase, Work work, bool count_faults = true) {
    phases_.timed(phase, work, count_faults);
  }

  void add_initial_states(SparseMdp& mdp) {
    mdp.initial_states = insert_initial_states(model_, index_.layout, table_);
  }

  // (A) Per block: expansion, look-ups, merging.
  void expand_and_look_up(std::span<ExpandedBlock> blocks) {
    each_block(blocks.size(), 0, [&](std::size_t b) {
      StateExpander& expander = experts_.local();
      ExpandedBlock& block = blocks[b];
      PartClock clock(phases_.part_clock());
      for (std::uint64_t s = block.first_state; s < block.end_state; ++s) expander.expand(s, table_.state(s), block);
      clock.lap(0);
      if (block.probabilities.size() > kMostBlockSuccessors) {
        throw LocatedError(model_.file, 0, 0,
                           "states " + std::to_string(block.first_state) + ".." + std::to_string(block.end_state - 1) +
                               " have more than " + std::to_string(kMostBlockSuccessors) + " successors together");
      }
      thread_local std::vector<std::uint64_t> hashes;
      find_repeats(block, hashes);
      clock.lap(1);
      const bool looked_up = look_up(blocks, b, hashes.data());
      clock.lap(2);
      if (looked_up) merge_block_rows(block);
      clock.lap(3);
    });
  }

  static std::uint32_t position(std::size_t block, std::size_t offset) {
    return static_cast<std::uint32_t>(block << kOffsetBits | offset);
  }
  auto key_at(std::span<ExpandedBlock> blocks) const {
    return [blocks, words = table_.words()](std::uint32_t at) {
      return &blocks[at >> kOffsetBits].keys[(at & kMostBlockSuccessors) * words];
    };
  }

  // Marks each successor equal to an earlier one of its block as its repeat, and lists
  // the others, the ones to look up, with their hashes.
  void find_repeats(ExpandedBlock& block, std::vector<std::uint64_t>& hashes) const {
    hashes.clear();
    const std::uint32_t words = table_.words();
    const std::size_t n = block.probabilities.size();
    block.targets.resize(n);
    thread_local RepeatFinder repeats;
    repeats.reset(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t* key = &block.keys[i * words];
      const std::uint64_t hash = table_.hash(key);
      const std::size_t first =
          repeats.first(hash, i, [&](std::size_t j) { return same_words(key, &block.keys[j * words], words); });
      // A repeat takes its first occurrence's target, and never its own claim: one
      // position per block can win.
      if (first < i) {
        block.targets[i] = kRepeatTarget | first;
      } else {
        block.distinct.push_back(static_cast<std::uint32_t>(i));
        hashes.push_back(hash);
      }
    }
  }

  // Looks the block's distinct successors up, from where it stopped, claiming the new
  // ones; then the repeats take their targets. hashes: per distinct successor, or null
  // to compute them. False where the table ran out of room first
  // (finish_deferred_look_ups goes on).
  bool look_up(std::span<ExpandedBlock> blocks, std::size_t b, const std::uint64_t* hashes) {
    ExpandedBlock& block = blocks[b];
    const std::uint32_t words = table_.words();
    const auto key_of = key_at(blocks);
    const std::size_t m = block.distinct.size();
    if (hashes == nullptr) {  // a deferred block goes on: its hashes afresh
      thread_local std::vector<std::uint64_t> computed;
      computed.resize(m);
      for (std::size_t d = block.looked_up; d < m; ++d) computed[d] = table_.hash(&block.keys[std::size_t{block.distinct[d]} * words]);
      hashes = computed.data();
    }
    std::uint64_t room = 0;
    for (std::size_t d = block.looked_up; d < m; ++d) {
      if (d + 2 * kPrefetchDistance < m) table_.prefetch_slot(hashes[d + 2 * kPrefetchDistance]);
      if (d + kPrefetchDistance < m) table_.prefetch_state(hashes[d + kPrefetchDistance]);
      if (room == 0) {
        if (!table_.take_room(kRoomPerTake)) return false;
        room = kRoomPerTake;
      }
      const std::uint32_t i = block.distinct[d];
      const StateTable::Lookup found = table_.find_or_claim(&block.keys[i * words], hashes[d], position(b, i), key_of);
      room -= found.fresh;
      block.looked_up = d + 1;
      if (found.known) {
        block.targets[i] = found.value;
      } else {
        block.targets[i] = kClaimedTarget | found.value;
        block.claims.push_back({found.value, i});
      }
    }
    for (std::uint64_t& target : block.targets) {
      if (target & kRepeatTarget) target = block.targets[target & ~kRepeatTarget];  // its first, a distinct one
    }
    return true;
  }

  // Blocks refused room (take_room) finish their look-ups once the table has grown,
  // the claims made so far moved with it. Rare: the table is reserved for twice the
  // wave's states before it (run()).
  void finish_deferred_look_ups(std::span<ExpandedBlock> blocks) {
    while (true) {
      std::vector<std::size_t> deferred;
      std::uint64_t remaining = 0;
      for (std::size_t b = 0; b < blocks.size(); ++b) {
        if (blocks[b].all_looked_up()) continue;
        deferred.push_back(b);
        remaining += blocks[b].distinct.size() - blocks[b].looked_up;
      }
      if (deferred.empty()) return;
      ++growths_in_waves_;
      std::vector<std::uint32_t> moved;
      table_.grow_in_wave(remaining, key_at(blocks), moved);
      auto move = [&](std::uint64_t& target) {
        if (target & kClaimedTarget) target = kClaimedTarget | moved[static_cast<std::uint32_t>(target)];
      };
      each_block(blocks.size(), 0, [&](std::size_t b) {
        ExpandedBlock& block = blocks[b];
        for (ExpandedBlock::Claim& claim : block.claims) claim.slot = moved[claim.slot];
        if (block.all_looked_up()) {
          for (std::uint64_t& target : block.targets) move(target);  // merged entries
        } else {
          for (std::size_t d = 0; d < block.looked_up; ++d) move(block.targets[block.distinct[d]]);
        }
      });
      each_block(deferred.size(), 0, [&](std::size_t d) {
        if (look_up(blocks, deferred[d], nullptr)) merge_block_rows(blocks[deferred[d]]);
      });
    }
  }

  // (B) Which claims won: each block renames the claims it won, in order, to (block,
  // rank among them), which tells every claimant the state's index once the blocks'
  // first new indices are known.
  void count_won_claims(std::span<ExpandedBlock> blocks) {
    each_block(blocks.size(), 1, [&](std::size_t b) {
      std::vector<ExpandedBlock::Claim>& claims = blocks[b].claims;
      std::uint32_t won = 0;
      for (std::size_t c = 0; c < claims.size(); ++c) {
        if (c + kPrefetchDistance < claims.size()) table_.prefetch_claim(claims[c + kPrefetchDistance].slot);
        const ExpandedBlock::Claim claim = claims[c];
        // A renamed claim never reads as a claim of another block's position.
        if (table_.claimed_at(claim.slot, position(b, claim.offset))) {
          table_.rename_claim(claim.slot, position(b, won));
          claims[won++] = claim;
        }
      }
      claims.resize(won);
    });
  }

  // (C) Each block numbers the states it won and writes its rows, with indices, at its
  // place in the CSR. The arrays have address space to grow in place
  // (reserve_address_space): growing never copies what they hold.
  void number_and_write(std::span<ExpandedBlock> blocks, SparseMdp& mdp) {
    struct Offsets {
      std::uint64_t states, rows, entries;
    };
    std::vector<Offsets> at(blocks.size() + 1);
    at[0] = {mdp.row_group_starts.size() - 1, mdp.row_starts.size() - 1, mdp.columns.size()};
    std::uint64_t next = table_.size();
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      ExpandedBlock& block = blocks[b];
      block.first_new = next;
      next += block.claims.size();
      at[b + 1] = {at[b].states + block.choices_per_state.size(), at[b].rows + block.row_lengths.size(),
                   at[b].entries + block.targets.size()};
    }
    const std::uint64_t new_states = next - table_.size();
    table_.add_room(new_states);
    mdp.row_group_starts.resize(at.back().states + 1);
    mdp.row_starts.resize(at.back().rows + 1);
    mdp.columns.resize(at.back().entries);
    if (mdp.actions) mdp.actions->of_choice.resize(at.back().rows);
    // The wave's numbers, plain, into scratch the wave's size (indexed after it).
    const Offsets wave{at.back().states - at[0].states, at.back().rows - at[0].rows, at.back().entries - at[0].entries};
    const ModelValues::Scratch scratch = values_.start_wave(wave.states, wave.rows, wave.entries);
    const std::uint32_t words = table_.words();
    each_block(blocks.size(), 2, [&](std::size_t b) {
      const ExpandedBlock& block = blocks[b];
      for (std::size_t rank = 0; rank < block.claims.size(); ++rank) {
        const ExpandedBlock::Claim claim = block.claims[rank];
        table_.number(claim.slot, block.first_new + rank, &block.keys[std::size_t{claim.offset} * words]);
      }
      std::uint64_t row = at[b].rows, entry = at[b].entries, state = at[b].states;
      std::size_t choice = 0;
      for (std::uint32_t choices : block.choices_per_state) {
        for (std::uint32_t c = 0; c < choices; ++c) {
          const std::uint32_t length = block.row_lengths[choice++];
          const std::size_t k = entry - at[b].entries;
          write_row(blocks, &block.targets[k], &block.probabilities[k], length, &mdp.columns[entry],
                    scratch.probabilities + (entry - at[0].entries));
          mdp.row_starts.set(++row, entry += length);
        }
        mdp.row_group_starts.set(++state, row);
      }
      if (mdp.actions) {  // kNoAction (-1) becomes names[0], ""
        for (std::size_t c = 0; c < block.actions.size(); ++c) {
          mdp.actions->of_choice[at[b].rows + c] = static_cast<std::uint32_t>(block.actions[c] + 1);
        }
      }
      for (std::size_t r = 0; r < model_.rewards.size(); ++r) {
        const std::vector<double>& state_rewards = block.state_rewards[r];
        const std::vector<double>& choice_rewards = block.choice_rewards[r];
        if (!state_rewards.empty()) {
          std::memcpy(scratch.state_rewards[r] + (at[b].states - at[0].states), state_rewards.data(), state_rewards.size() * 8);
        }
        if (!choice_rewards.empty()) {
          std::memcpy(scratch.choice_rewards[r] + (at[b].rows - at[0].rows), choice_rewards.data(), choice_rewards.size() * 8);
        }
      }
    });
    values_.end_wave(wave.states, wave.rows, wave.entries);
    table_.finish_wave(new_states);
    for (const ExpandedBlock& block : blocks) {
      deadlocks_.insert(deadlocks_.end(), block.deadlocks.begin(), block.deadlocks.end());
      for (std::size_t r = 0; r < block.negative_reward.size(); ++r) {  // the first in state order
        std::string& first = mdp.rewards[r].first_negative;
        if (first.empty()) first = block.negative_reward[r];
      }
    }
  }

  // The index a target stands for. A claimed slot holds the index once numbered,
  // before that the tag (block, rank) its winner renamed it to.
  std::uint32_t index_of(std::span<const ExpandedBlock> blocks, std::uint64_t target) const {
    if (!(target & kClaimedTarget)) return static_cast<std::uint32_t>(target);
    const StateTable::Claim claim = table_.claim_in(static_cast<std::uint32_t>(target));
    return claim.numbered
               ? claim.value
               : static_cast<std::uint32_t>(blocks[claim.value >> kOffsetBits].first_new + (claim.value & kMostBlockSuccessors));
  }

  // One merged row into the CSR, sorted by index.
  void write_row(std::span<const ExpandedBlock> blocks, const std::uint64_t* targets, const double* probabilities,
                 std::uint32_t length, std::uint32_t* columns, double* values) const {
    write_sorted_row(targets, probabilities, length, [&](std::uint64_t t) { return index_of(blocks, t); }, columns, values);
  }

  // The arrays' room for the coming wave, to back with memory beside its phases
  // (populate): as many states as the wave holds, with the choices and transitions per
  // state seen so far and a quarter more.
  std::vector<PageRange> room_ahead(const SparseMdp& mdp, std::uint64_t wave_states) const {
    const double states = static_cast<double>(mdp.row_group_starts.size() - 1);
    if (states == 0) return {};
    auto expected = [&](double per_state) { return static_cast<std::size_t>(1.25 * per_state * wave_states) + 64; };
    const std::size_t rows = expected((mdp.row_starts.size() - 1) / states);
    const std::size_t entries = expected(mdp.columns.size() / states);
    std::vector<PageRange> room = {mdpvi::room_ahead(mdp.row_group_starts, expected(1)),
                                   mdpvi::room_ahead(mdp.row_starts, rows), mdpvi::room_ahead(mdp.columns, entries),
                                   table_.room_ahead(expected(1))};
    values_.add_room(room, expected(1), rows, entries);
    return room;
  }

  void start_csr(SparseMdp& mdp) {
    for (auto* offsets : {&mdp.row_group_starts, &mdp.row_starts}) {
      reserve_address_space(*offsets);
      offsets->push_back(0);
    }
    reserve_address_space(mdp.columns);
    values_.reserve();
    for (const ResolvedReward& reward : model_.rewards) mdp.rewards.push_back(RewardStructure{reward.name, {}, {}});
  }

  // Labels and valuations.
  void finish(SparseMdp& mdp) {
    add_labels(mdp);
    if (!keep_valuations_) {
      table_.release_states();  // freed here, before the values' arrays are made
      values_.into(mdp, compact_values_);
      return;
    }
    StateValuations valuations;
    for (const ResolvedVariable& v : model_.variables) {
      valuations.variables.push_back(v.name);
      valuations.types.push_back(v.type);
    }
    valuations.layout = index_.layout;
    valuations.packed = table_.release_states();
    mdp.valuations = std::move(valuations);
    values_.into(mdp, compact_values_);  // after the table's index is gone: a lower peak
  }

  // "init", "deadlock" and the model's labels asked for (BuildOptions::labels).
  void add_labels(SparseMdp& mdp) {
    std::vector<std::size_t> wanted;  // indices into model_.labels
    for (std::size_t l = 0; l < model_.labels.size(); ++l) {
      if (!label_names_ || label_names_->count(model_.labels[l].first)) wanted.push_back(l);
    }
    limits_.check_labels(wanted.size() + 2, table_.size(), model_bytes(mdp));
    mdpvi::add_labels(mdp, model_, index_, table_, wanted, deadlocks_);
  }

  ModelIndex index_;
  const ResolvedModel& model_;
  StateTable table_;
  oneapi::tbb::enumerable_thread_specific<StateExpander> experts_;
  std::vector<std::uint32_t> deadlocks_;
  const bool verbose_;  // BuildOptions::verbose: log the phases, count page faults
  const bool keep_actions_;  // BuildOptions::keep_actions
  const bool keep_valuations_;  // BuildOptions::keep_valuations
  const bool compact_values_;  // BuildOptions::compact_values
  ModelValues values_;
  BuildLimits limits_;  // BuildOptions::state_limit and memory_limit
  const std::optional<std::set<std::string>> label_names_;  // BuildOptions::labels
  BuildPhases phases_{verbose_};  // for -v
  oneapi::tbb::affinity_partitioner affinity_;  // see each_block
  std::uint64_t growths_in_waves_ = 0;  // for -v: see finish_deferred_look_ups
};

}  // namespace

BuiltModel build_model(const ResolvedModel& model, const BuildOptions& options) {
  // At most the machine's hardware threads: more only oversubscribe it, and thousands
  // fail to start.
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  oneapi::tbb::task_arena arena(options.threads > 0 ? std::min(options.threads, hardware) : oneapi::tbb::task_arena::automatic);
  return arena.execute([&] {
    if (!options.build_rewards && !model.rewards.empty()) {
      ResolvedModel without_rewards = model;  // the description only: small beside a build
      without_rewards.rewards.clear();
      return LevelBuilder(without_rewards, options).run();
    }
    return LevelBuilder(model, options).run();
  });
}

}  // namespace mdpvi
