#include "engine/explore/state_table.h"

namespace mdpvi {

StateTable::StateTable(std::uint32_t words) : words_(words) {
  reserve_address_space(states_);
  reserve_address_space(slots_);
  rehash(1024);
}

std::pair<std::uint32_t, bool> StateTable::insert(const std::uint64_t* state) {
  reserve(1);
  std::uint64_t slot = hash(state) & mask_;
  for (; slots_[slot] != kEmpty; slot = (slot + 1) & mask_) {
    if (equal(this->state(slots_[slot]), state)) return {slots_[slot], false};
  }
  add_room(1);
  number(static_cast<std::uint32_t>(slot), size_, state);
  finish_wave(1);
  return {static_cast<std::uint32_t>(size_ - 1), true};
}

void StateTable::reserve(std::uint64_t extra) {
  constexpr std::uint64_t kMostSlots = std::uint64_t{1} << 32;  // a slot number is 32 bits
  std::uint64_t needed = std::min(2 * (size_ + extra), kMostSlots);
  if (needed <= slots_.size()) return;
  std::uint64_t count = slots_.size();
  while (count < needed) count *= 2;
  rehash(count);
}

// In place: the states are inserted afresh from states_, so the slots can be cleared
// and reused, and only the added half is fresh memory (which the kernel must zero:
// a new array per doubling would double that).
void StateTable::rehash(std::uint64_t slot_count) {
  slots_.resize(slot_count);
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::uint64_t>(0, slot_count), [&](const auto& range) {
    std::fill(slots_.begin() + range.begin(), slots_.begin() + range.end(), kEmpty);
  });
  const std::uint64_t mask = slot_count - 1;
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::uint64_t>(0, size_), [&](const auto& range) {
    constexpr std::uint64_t kAhead = 8;  // slots are random accesses: fetch them early
    for (std::uint64_t index = range.begin(); index < range.end(); ++index) {
      if (index + kAhead < range.end()) __builtin_prefetch(&slots_[hash(state(index + kAhead)) & mask]);
      place(static_cast<std::uint32_t>(index), state(index), mask);
    }
  });
  mask_ = mask;
}

std::uint64_t StateTable::place(std::uint32_t value, const std::uint64_t* key, std::uint64_t mask) {
  for (std::uint64_t slot = hash(key) & mask;; slot = (slot + 1) & mask) {
    std::uint32_t expected = kEmpty;
    std::atomic_ref<std::uint32_t> cell(slots_[slot]);
    if (cell.compare_exchange_strong(expected, value, std::memory_order_relaxed)) return slot;
  }
}

void StateTable::add_room(std::uint64_t new_states) {
  if (size_ + new_states > kMaxStates) throw std::length_error("the model has more than 2^31-1 states");
  states_.resize((size_ + new_states) * words_);
}

PodVector<std::uint64_t> StateTable::release_states() {
  // A new array, not "= {}": assigning an empty list keeps the capacity, and so the
  // pages, which the builder's last step (the model's values) then had beside it.
  slots_ = PodVector<std::uint32_t>();
  mask_ = 0;
  size_ = 0;
  return std::move(states_);
}

}  // namespace mdpvi
