#pragma once
// The set of reached states, numbered in discovery order and filled in waves by many
// threads at once.
//
// Packed states are stored in discovery order in one array with room to grow in place
// (reserve_address_space). An open-addressing table of 32-bit slots (linear probing, at most half
// full between waves, three quarters within one: take_room) finds them. A slot holds a state's index or, while a wave is being numbered,
// a claim: the smallest wave position at which the state was reached, kept by
// compare-and-swap. After the wave the claimed states are numbered in position order,
// so the numbering is that of a sequential breadth-first search whatever the threads
// did (the builder's wave protocol, in model_builder.cpp).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "engine/explore/hash_words.h"
#include "engine/model/pod_vector.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

namespace mdpvi {

class StateTable {
 public:
  // Slot values: an index (bit 31 clear), a claim (bit 31 set) or empty.
  static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
  static constexpr std::uint32_t kClaimBit = 0x80000000u;
  static constexpr std::uint64_t kMaxStates = kClaimBit - 1;  // indices must leave bit 31 clear
  static constexpr std::uint32_t kMaxPosition = kClaimBit - 2;  // claim values must differ from kEmpty

  explicit StateTable(std::uint32_t words);

  std::uint64_t size() const { return size_; }
  std::uint32_t words() const { return words_; }
  const std::uint64_t* state(std::uint64_t index) const { return &states_[index * words_]; }
  std::size_t memory_bytes() const { return slots_.size() * 4 + states_.size() * 8; }

  // One thread, outside a wave: the index of state and whether it was new.
  std::pair<std::uint32_t, bool> insert(const std::uint64_t* state);

  // What look-ups probe with; computed once per key by the caller (the builder also
  // uses it to find repeated keys).
  std::uint64_t hash(const std::uint64_t* state) const { return hash_words(state, words_); }

  // Outside a wave: makes room for up to extra more states (grows the slots, in parallel).
  void reserve(std::uint64_t extra);

  // During a wave, from many threads. The index of a state known before the wave, or
  // the slot of a state new in it, which then carries the smallest position claimed
  // so far. key_at(position) gives the state reached at a claimed position; states
  // reached in the wave must stay unchanged until it is numbered.
  struct Lookup {
    bool known;
    bool fresh;  // the state was claimed in an empty slot: it took room (take_room)
    std::uint32_t value;  // index if known, else slot
  };
  template <typename KeyAt>
  Lookup find_or_claim(const std::uint64_t* state, std::uint64_t hash, std::uint32_t position, const KeyAt& key_at);

  // During a wave, before claiming: room for up to claims more claimed slots, or false
  // where they could fill the slots past kMostWaveLoad. A wave's new states are known
  // only once its successors are looked up, so room is taken as they are, and a
  // caller refused grows the table (grow_in_wave) once no thread is claiming.
  bool take_room(std::uint64_t claims) {
    const std::uint64_t limit = slots_.size() / kMostWaveLoad.second * kMostWaveLoad.first - size_;
    if (promised_.fetch_add(claims, std::memory_order_relaxed) + claims <= limit) return true;
    promised_.fetch_sub(claims, std::memory_order_relaxed);
    return false;
  }
  // During a wave, while no thread looks up: grows the slots to hold what they hold
  // and extra more claims at the load reserve() keeps. Claims move with the indices;
  // moved[old slot] is each claim's new slot.
  template <typename KeyAt>
  void grow_in_wave(std::uint64_t extra, const KeyAt& key_at, std::vector<std::uint32_t>& moved);

  // Cache hints for a look-up soon to come (a wave looks up millions, each missing the
  // cache twice): first the slot the state hashes to, later the state that slot names.
  void prefetch_slot(std::uint64_t hash) const { __builtin_prefetch(&slots_[hash & mask_]); }
  void prefetch_state(std::uint64_t hash) const {
    std::uint32_t seen = std::atomic_ref<std::uint32_t>(slots_[hash & mask_]).load(std::memory_order_relaxed);
    if ((seen & kClaimBit) == 0) __builtin_prefetch(&states_[static_cast<std::uint64_t>(seen) * words_]);
  }

  // For a claimed_at(slot, ...) soon to come.
  void prefetch_claim(std::uint32_t slot) const { __builtin_prefetch(&slots_[slot]); }

  // After the wave's look-ups: whether the state in slot was first reached at position.
  bool claimed_at(std::uint32_t slot, std::uint32_t position) const {
    return std::atomic_ref<std::uint32_t>(slots_[slot]).load(std::memory_order_relaxed) == (kClaimBit | position);
  }
  // The winner of a claim may rename it to a tag, a value of the positions' range
  // that no other claimant of its state holds (the builder: its block and rank), so
  // that others can tell its index before it is numbered.
  void rename_claim(std::uint32_t slot, std::uint32_t tag) {
    std::atomic_ref<std::uint32_t>(slots_[slot]).store(kClaimBit | tag, std::memory_order_relaxed);
  }
  // Numbering, from many threads: the claim in slot becomes state index (all indices
  // below size() + new_states, made room for by add_room first), holding state.
  void add_room(std::uint64_t new_states);
  // The room for about new_states more states, to populate ahead (room_ahead).
  PageRange room_ahead(std::uint64_t new_states) const { return mdpvi::room_ahead(states_, new_states * words_); }
  void number(std::uint32_t slot, std::uint64_t index, const std::uint64_t* state) {
    std::memcpy(&states_[index * words_], state, words_ * 8);
    std::atomic_ref<std::uint32_t>(slots_[slot]).store(static_cast<std::uint32_t>(index), std::memory_order_relaxed);
  }
  void finish_wave(std::uint64_t new_states) {
    size_ += new_states;
    promised_.store(0, std::memory_order_relaxed);
  }
  // What a slot claimed in the wave holds: the state's index once numbered, else its
  // claim's position or tag.
  struct Claim {
    bool numbered;
    std::uint32_t value;
  };
  Claim claim_in(std::uint32_t slot) const {
    const std::uint32_t seen = std::atomic_ref<std::uint32_t>(slots_[slot]).load(std::memory_order_relaxed);
    return (seen & kClaimBit) ? Claim{false, seen & ~kClaimBit} : Claim{true, seen};
  }

  // Hands the packed states over (the table is unusable afterwards).
  PodVector<std::uint64_t> release_states();

 private:
  bool equal(const std::uint64_t* a, const std::uint64_t* b) const { return same_words(a, b, words_); }
  void rehash(std::uint64_t slot_count);
  // Inserts value (an index or a claim) whose state is key into an empty slot of the
  // slots under mask, from any thread; returns the slot.
  std::uint64_t place(std::uint32_t value, const std::uint64_t* key, std::uint64_t mask);

  // The most the slots are filled in a wave, claims taken (take_room) counted: a
  // fraction, above the half reserve() keeps, so that a wave rarely has to grow the
  // table while it holds claims.
  static constexpr std::pair<std::uint64_t, std::uint64_t> kMostWaveLoad{3, 4};

  std::uint32_t words_;
  std::uint64_t size_ = 0;
  PodVector<std::uint64_t> states_;  // size_ * words_
  // Huge pages (PodVector): look-ups hit random slots, and with 4 KiB pages each
  // would also miss the TLB.
  mutable PodVector<std::uint32_t> slots_;  // mutable: atomic_ref needs a non-const object
  std::uint64_t mask_ = 0;  // slots_.size() - 1
  std::atomic<std::uint64_t> promised_{0};  // room taken in the wave (take_room)
};

template <typename KeyAt>
StateTable::Lookup StateTable::find_or_claim(const std::uint64_t* state, std::uint64_t hash, std::uint32_t position,
                                             const KeyAt& key_at) {
  const std::uint32_t claim = kClaimBit | position;
  for (std::uint64_t slot = hash & mask_;; slot = (slot + 1) & mask_) {
    std::atomic_ref<std::uint32_t> cell(slots_[slot]);
    std::uint32_t seen = cell.load(std::memory_order_relaxed);
    while (seen == kEmpty) {  // a failed exchange leaves what another thread put there in seen
      if (cell.compare_exchange_weak(seen, claim, std::memory_order_relaxed)) {
        return {false, true, static_cast<std::uint32_t>(slot)};
      }
    }
    if ((seen & kClaimBit) == 0) {
      if (equal(this->state(seen), state)) return {true, false, seen};
    } else if (equal(key_at(seen & ~kClaimBit), state)) {
      // Keep the earliest position: that is where a sequential search numbers it.
      while (seen > claim && !cell.compare_exchange_weak(seen, claim, std::memory_order_relaxed)) {
      }
      return {false, false, static_cast<std::uint32_t>(slot)};
    }
  }
}

template <typename KeyAt>
void StateTable::grow_in_wave(std::uint64_t extra, const KeyAt& key_at, std::vector<std::uint32_t>& moved) {
  using Range = oneapi::tbb::blocked_range<std::size_t>;
  PodVector<std::uint32_t> old(slots_.size());
  oneapi::tbb::parallel_for(Range(0, old.size()), [&](const Range& range) {
    std::copy(slots_.begin() + range.begin(), slots_.begin() + range.end(), old.begin() + range.begin());
  });
  const std::uint64_t needed = 2 * (size_ + promised_.load(std::memory_order_relaxed) + extra);
  std::uint64_t count = slots_.size();
  while (count < needed) count *= 2;
  slots_.resize(count);
  oneapi::tbb::parallel_for(Range(0, count), [&](const Range& range) {
    std::fill(slots_.begin() + range.begin(), slots_.begin() + range.end(), kEmpty);
  });
  moved.resize(old.size());  // read only where a claim was moved
  mask_ = count - 1;
  oneapi::tbb::parallel_for(Range(0, old.size()), [&](const Range& range) {
    for (std::size_t slot = range.begin(); slot < range.end(); ++slot) {
      const std::uint32_t value = old[slot];
      if (value == kEmpty) continue;
      if ((value & kClaimBit) == 0) {
        place(value, state(value), mask_);
      } else {
        moved[slot] = static_cast<std::uint32_t>(place(value, key_at(value & ~kClaimBit), mask_));
      }
    }
  });
}

}  // namespace mdpvi
